// Pure state updates of the sync layer: each takes store state and returns new objects (never mutates),
// so zustand selectors see every change by identity. No DOM, no stores, no transport.
import type { EventType } from '../../shared/types';
import type { EventView, EventViewOf, Message, ProgressView } from '../model';
import type { AgentActivity } from '../stores/progress';
import type { ConvTimeline, Row, ThreadState } from '../stores/timeline';

/** Events shown as a line of their own in the conversation. */
export const ROW_EVENTS: ReadonlySet<EventType> = new Set<EventType>([
  'conversation.created',
  'member.added',
  'handoff.created',
  'handoff.returned',
  'task.updated',
  'floor.granted',
  'floor.released',
  'owner.note',
  'config.updated',
  'conversation.paused',
  'conversation.resumed', // the loop brake (hub/control/brakes.ts)
  'conversation.archived',
  'conversation.unarchived', // archived conversations (hub/talk/archive.ts)
]);

/** A copy of `messages` with `add` in it; `keep` leaves messages already there as they are. */
export function withMessages(messages: Map<string, Message>, add: Message[], keep = false): Map<string, Message> {
  const fresh = keep ? add.filter((m) => !messages.has(m.msg_id)) : add;
  if (fresh.length === 0) return messages;
  const out = new Map(messages);
  for (const m of fresh) if (!keep || !out.has(m.msg_id)) out.set(m.msg_id, m);
  return out;
}

export function toggleReaction(
  list: NonNullable<Message['reactions']>,
  key: string,
  user: string,
  mine: boolean,
  on: boolean,
): NonNullable<Message['reactions']> {
  const out = list.map((r) => ({ ...r, users: [...r.users] }));
  let r = out.find((x) => x.key === key);
  if (on) {
    if (!r) out.push((r = { key, count: 0, users: [], mine: false }));
    if (!r.users.includes(user)) r.users.push(user);
    if (mine) r.mine = true;
  } else if (r) {
    r.users = r.users.filter((u) => u !== user);
    if (mine) r.mine = false;
  }
  return out.map((x) => ({ ...x, count: x.users.length })).filter((x) => x.count > 0);
}

/** A loaded message after an event that changes it (the event carries the message's current state); undefined: no change. */
export function changedMessage(old: Message, ev: EventView, ownerId: string): Message | undefined {
  const m = ev.message;
  if (!m) return undefined;
  switch (ev.type) {
    case 'reaction.added':
    case 'reaction.removed': {
      const key = String(ev.data?.key ?? '');
      if (!key || !ev.actor) return undefined;
      return {
        ...old,
        reactions: toggleReaction(old.reactions ?? [], key, ev.actor.name, ev.actor.id === ownerId, ev.type === 'reaction.added'),
      };
    }
    case 'message.edited':
    case 'message.recalled':
    case 'request.created':
    case 'request.decided':
    case 'request.expired':
    case 'request.cancelled':
    case 'card.response':
    case 'claim.taken':
    case 'claim.released':
      // hidden is the owner's own view (messages.hide); events carry the message as everyone sees it.
      return { ...m, reactions: m.recalled ? undefined : old.reactions, ...(old.hidden ? { hidden: true as const } : {}) };
    default:
      return undefined;
  }
}

export interface TimelineSlice {
  convs: Record<string, ConvTimeline>;
  messages: Map<string, Message>;
  threads: Record<string, ThreadState>;
}

/** Applies events (seq order) to a loaded timeline; events at or below its last seq are skipped. */
export function appendEvents(s: TimelineSlice, convId: string, events: EventView[]): TimelineSlice {
  const tl = s.convs[convId];
  if (!tl || events.length === 0) return s;
  const next: ConvTimeline = { ...tl };
  const added: Row[] = [];
  const newMessages: Message[] = [];
  let threads = s.threads;
  for (const ev of events) {
    if (ev.seq <= next.lastSeq) continue;
    next.lastSeq = ev.seq;
    next.firstSeq ??= ev.seq;
    if (ev.type === 'message.created' && ev.message) {
      const m = ev.message;
      newMessages.push(m);
      if (m.thread_id && m.thread_id !== m.msg_id) {
        next.threadCounts = { ...next.threadCounts, [m.thread_id]: (next.threadCounts[m.thread_id] ?? 0) + 1 };
        const th = threads[m.thread_id];
        if (th && !th.replies.includes(m.msg_id)) threads = { ...threads, [m.thread_id]: { ...th, replies: [...th.replies, m.msg_id] } };
      } else {
        added.push({ key: m.msg_id, seq: ev.seq, kind: 'message', msgId: m.msg_id });
      }
    } else if (ROW_EVENTS.has(ev.type)) {
      added.push({ key: `e${ev.seq}`, seq: ev.seq, kind: 'event', event: ev });
    }
    if (ev.type === 'task.updated') next.taskHistory = [...next.taskHistory, ev];
    if ((ev.type === 'pin.added' || ev.type === 'pin.removed') && ev.message) next.pins = pinsAfter(next.pins, [ev]);
  }
  if (added.length) next.rows = [...tl.rows, ...added];
  return { convs: { ...s.convs, [convId]: next }, messages: withMessages(s.messages, newMessages), threads };
}

/** A history page (oldest first) as rows; message views in history are already current. */
export function rowsOfPage(events: EventView[]) {
  const rows: Row[] = [];
  const messages: Message[] = [];
  const threadCounts: Record<string, number> = {};
  const taskHistory: EventViewOf<'task.updated'>[] = [];
  const pinEvents: EventView[] = [];
  for (const ev of events) {
    if (ev.type === 'message.created' && ev.message) {
      const m = ev.message;
      messages.push(m);
      if (m.thread_id && m.thread_id !== m.msg_id) threadCounts[m.thread_id] = (threadCounts[m.thread_id] ?? 0) + 1;
      else rows.push({ key: m.msg_id, seq: ev.seq, kind: 'message', msgId: m.msg_id });
    } else if (ROW_EVENTS.has(ev.type)) {
      rows.push({ key: `e${ev.seq}`, seq: ev.seq, kind: 'event', event: ev });
    }
    if (ev.type === 'task.updated') taskHistory.push(ev);
    if (ev.type === 'pin.added' || ev.type === 'pin.removed') pinEvents.push(ev);
  }
  return { rows, messages, threadCounts, taskHistory, pinEvents };
}

export function addCounts(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
}

/** Pinned msg_ids (newest pin first) after pin.added / pin.removed events. */
export function pinsAfter(pins: string[], events: EventView[]): string[] {
  let out = pins;
  for (const ev of events) {
    const id = ev.message?.msg_id;
    if (!id) continue;
    out = ev.type === 'pin.added' ? [id, ...out.filter((p) => p !== id)] : out.filter((p) => p !== id);
  }
  return out;
}

/** Progress reports newest first, each once, at most `keep`. */
export function mergeProgress(a: ProgressView[], b: ProgressView[], keep: number): ProgressView[] {
  const seen = new Set<number>();
  const out: ProgressView[] = [];
  for (const p of [...a, ...b].sort((x, y) => y.id - x.id)) {
    if (seen.has(p.id)) continue;
    seen.add(p.id);
    out.push(p);
  }
  return out.slice(0, keep);
}

/** One live progress report added to the feed and its agent's per-minute activity. */
export function addProgress(
  s: { items: ProgressView[]; activity: Record<string, AgentActivity> },
  p: ProgressView,
  keep: number,
): { items: ProgressView[]; activity: Record<string, AgentActivity> } {
  const items = s.items.length >= keep ? [p, ...s.items.slice(0, keep - 1)] : [p, ...s.items];
  const minute = Math.floor(p.at / 60_000);
  const old = s.activity[p.agent.id] ?? { byMinute: {}, errorsByMinute: {}, last: null };
  const act: AgentActivity = {
    byMinute: { ...old.byMinute, [minute]: (old.byMinute[minute] ?? 0) + 1 },
    errorsByMinute: p.kind === 'error' ? { ...old.errorsByMinute, [minute]: (old.errorsByMinute[minute] ?? 0) + 1 } : old.errorsByMinute,
    last: p,
  };
  return { items, activity: { ...s.activity, [p.agent.id]: act } };
}
