// Every write to the timeline store: history pages in, live events applied in seq order (through the
// ordering module), message changes, pins and threads. Each update builds new objects (reduce.ts).
import { api } from '../transport';
import type { ReadReceipt } from '../../shared/agents/agent-sessions';
import type { EventView, HistoryPage, Message, ThreadPage } from '../model';
import { ownerId } from '../stores/session';
import { emptyTimeline, timelineStore, type ConvTimeline } from '../stores/timeline';
import { createOrdering } from './ordering';
import { addCounts, appendEvents, changedMessage, pinsAfter, rowsOfPage, withMessages } from './reduce';
import { reconcileRequestFromEvent } from './requests';

const CATCH_UP_PAGE = 200;

/** Live events per conversation in seq order; gaps filled from history. */
export const ordering = createOrdering<EventView>({
  position(convId) {
    const tl = timelineStore.getState().convs[convId];
    return tl ? { lastSeq: tl.lastSeq, ready: tl.status === 'ready' } : null;
  },
  apply: appendToTimeline,
  fetchAfter: (convId, afterSeq) => api('conversations.history', { conv_id: convId, after_seq: afterSeq, limit: CATCH_UP_PAGE }),
});

/** Applies events (seq order, above its last seq) to a loaded timeline. */
function appendToTimeline(convId: string, events: EventView[]): void {
  timelineStore.setState((s) => appendEvents(s, convId, events));
}

/** A loaded message after an event that changes it (idempotent: each event carries the message's current state). */
export function applyMessageChange(ev: EventView): void {
  const m = ev.message;
  if (!m) return;
  timelineStore.setState((s) => {
    const old = s.messages.get(m.msg_id);
    const next = old && changedMessage(old, ev, ownerId());
    return next ? { messages: withMessages(s.messages, [next]) } : s;
  });
}

/** The owner hid (or showed again) a message in their own view (messages.hide). */
export function messageHidden(msgId: string, hidden: boolean): void {
  timelineStore.setState((s) => {
    const old = s.messages.get(msgId);
    if (!old || !!old.hidden === hidden) return s;
    const next = { ...old };
    if (hidden) next.hidden = true;
    else delete next.hidden;
    return { messages: withMessages(s.messages, [next]) };
  });
}

/** Requests seen in history join the inbox (requests.list is the full truth when available). */
function reconcileRequestsOfPage(events: EventView[]): void {
  for (const ev of events) if (ev.type === 'message.created' && ev.request) reconcileRequestFromEvent(ev);
}

export function timelineLoading(convId: string): void {
  timelineStore.setState((s) => ({ convs: { ...s.convs, [convId]: emptyTimeline() } }));
}

/** The latest page of a conversation, as its first loaded timeline. */
export function timelineLoaded(convId: string, page: HistoryPage): void {
  timelineStore.setState((s) => {
    const built = rowsOfPage(page.events);
    const tl: ConvTimeline = {
      ...emptyTimeline(),
      rows: built.rows,
      firstSeq: page.first_seq,
      lastSeq: page.last_seq ?? page.conversation_last_seq,
      hasOlder: page.more,
      status: 'ready',
      threadCounts: built.threadCounts,
      taskHistory: built.taskHistory,
      pins: pinsAfter([], built.pinEvents),
      reads: page.reads ?? [],
    };
    return { convs: { ...s.convs, [convId]: tl }, messages: withMessages(s.messages, built.messages, true) };
  });
  reconcileRequestsOfPage(page.events);
}

export function timelineFailed(convId: string): void {
  timelineStore.setState((s) => ({ convs: { ...s.convs, [convId]: { ...emptyTimeline(), status: 'error' } } }));
}

export function olderLoading(convId: string, loading: boolean): void {
  timelineStore.setState((s) => ({ convs: { ...s.convs, [convId]: { ...s.convs[convId]!, loadingOlder: loading } } }));
}

/** An older page (before the first loaded seq) put in front of a loaded timeline. */
export function olderLoaded(convId: string, page: HistoryPage): void {
  timelineStore.setState((s) => {
    const cur = s.convs[convId]!;
    const built = rowsOfPage(page.events);
    return {
      convs: {
        ...s.convs,
        [convId]: {
          ...cur,
          rows: [...built.rows, ...cur.rows],
          firstSeq: page.first_seq ?? cur.firstSeq,
          hasOlder: page.more,
          loadingOlder: false,
          threadCounts: addCounts(cur.threadCounts, built.threadCounts),
          taskHistory: [...built.taskHistory, ...cur.taskHistory],
        },
      },
      messages: withMessages(s.messages, built.messages, true),
    };
  });
  reconcileRequestsOfPage(page.events);
}

export function pinsLoaded(convId: string, pins: Message[]): void {
  timelineStore.setState((s) => {
    const tl = s.convs[convId];
    if (!tl) return s;
    return { convs: { ...s.convs, [convId]: { ...tl, pins: pins.map((m) => m.msg_id) } }, messages: withMessages(s.messages, pins, true) };
  });
}

export function threadLoading(convId: string, rootId: string): void {
  timelineStore.setState((s) => ({
    threads: { ...s.threads, [rootId]: { convId, replies: s.threads[rootId]?.replies ?? [], status: 'loading' } },
  }));
}

/** A page of a thread: its root and replies join the known messages (those already known stay). */
export function threadPageLoaded(page: ThreadPage): void {
  timelineStore.setState((s) => ({ messages: withMessages(s.messages, [page.root, ...page.replies], true) }));
}

/** The thread's replies as read, followed by those that came live meanwhile. */
export function threadLoaded(convId: string, rootId: string, replies: string[]): void {
  timelineStore.setState((s) => {
    const live = s.threads[rootId]?.replies ?? [];
    const all = [...replies, ...live.filter((id) => !replies.includes(id))];
    return { threads: { ...s.threads, [rootId]: { convId, replies: all, status: 'ready' } } };
  });
}

export function threadFailed(convId: string, rootId: string): void {
  timelineStore.setState((s) => ({ threads: { ...s.threads, [rootId]: { convId, replies: [], status: 'error' } } }));
}

/** Fresh read receipts of a loaded conversation. */
export function readsLoaded(convId: string, reads: ReadReceipt[]): void {
  timelineStore.setState((s) => {
    const tl = s.convs[convId];
    return tl ? { convs: { ...s.convs, [convId]: { ...tl, reads } } } : {};
  });
}
