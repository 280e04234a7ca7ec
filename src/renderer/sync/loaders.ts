// Reading from the hub into the stores: lists, a conversation's history pages, pins, threads, progress,
// activity and file links. Each loader fetches through the transport and writes one store.
import { isStorageStatus } from '../../shared/types';
import { api, OwnerError } from '../transport';
import type { ConversationView, FileLink } from '../model';
import { sessionStore, ownerId } from '../stores/session';
import { currentConvId } from '../stores/ui';
import { conversationsStore } from '../stores/conversations';
import { timelineStore } from '../stores/timeline';
import { PROGRESS_KEEP, progressStore, type AgentActivity } from '../stores/progress';
import { agentsStore } from '../stores/agents';
import { fileKey, filesStore } from '../stores/files';
import { laptopOnly } from '../stores/paired-device';
import { errorText, toast } from './common';
import { mergeRequestList } from './requests';
import { mergeProgress } from './reduce';
import {
  olderLoaded,
  olderLoading,
  ordering,
  pinsLoaded,
  threadFailed,
  threadLoaded,
  threadLoading,
  threadPageLoaded,
  timelineFailed,
  timelineLoaded,
  timelineLoading,
  readsLoaded,
} from './timeline';
import { conversationReread } from './unread';

const PAGE = 100;
const OLDER_PAGE = 200;

/** Whether the hub can save (the live stream tells each change after this). */
export async function loadStorage(): Promise<void> {
  const r = await api('hub.storage', {});
  if (isStorageStatus(r.storage)) sessionStore.setState({ storage: r.storage });
}

export async function loadConversations(): Promise<void> {
  const { conversations } = await api('conversations.list', {});
  const byId: Record<string, ConversationView> = {};
  for (const c of conversations) byId[c.conv_id] = c;
  conversationsStore.setState({ byId, loaded: true });
}

export async function loadAgents(): Promise<void> {
  const { agents } = await api('agents.list', {});
  agentsStore.setState({ list: agents, loaded: true });
}

export async function loadRequests(): Promise<void> {
  const { requests } = await api('requests.list', {});
  mergeRequestList(requests);
}

export async function loadProgress(convId?: string): Promise<void> {
  const { progress } = await api('progress.list', convId ? { conv_id: convId, limit: 300 } : { limit: 500 });
  progressStore.setState((s) => ({ items: mergeProgress(s.items, progress, PROGRESS_KEEP), loaded: true }));
}

export async function loadActivity(): Promise<void> {
  const r = await api('progress.activity', { minutes: 60 });
  const first = Math.floor((r.until - r.minutes * 60_000) / 60_000);
  const activity: Record<string, AgentActivity> = {};
  for (const row of r.agents) {
    const byMinute: Record<number, number> = {};
    const errorsByMinute: Record<number, number> = {};
    row.per_minute.forEach((n, i) => {
      if (n) byMinute[first + i] = n;
    });
    row.errors_per_minute.forEach((n, i) => {
      if (n) errorsByMinute[first + i] = n;
    });
    activity[row.agent.id] = { byMinute, errorsByMinute, last: row.last };
  }
  progressStore.setState({ activity });
}

let agentsRefresh: ReturnType<typeof setTimeout> | undefined;
/** Whether agents wait is not pushed; re-read it shortly after events that wake or come from agents. */
export function refreshAgentsSoon(ms = 1500): void {
  if (agentsRefresh) return; // at most one re-read per interval, however busy the fleet is
  agentsRefresh = setTimeout(() => {
    agentsRefresh = undefined;
    void loadAgents().catch(() => {});
  }, ms);
}

const convRefresh = new Map<string, ReturnType<typeof setTimeout>>();
/** Re-reads one conversation's list row shortly (members, task, floor, handoffs changed). */
export function refreshConversationSoon(convId: string): void {
  if (convRefresh.has(convId)) return;
  convRefresh.set(
    convId,
    setTimeout(() => {
      convRefresh.delete(convId);
      void api('conversations.get', { conv_id: convId })
        .then(({ conversation }) => conversationReread(conversation, currentConvId() === convId))
        .catch(() => {});
    }, 30),
  );
}

/** Loads the latest page of a conversation once; later pages come with loadOlder and live events. */
export async function ensureTimeline(convId: string): Promise<void> {
  if (timelineStore.getState().convs[convId]) return refreshReads(convId);
  timelineLoading(convId);
  try {
    const page = await api('conversations.history', { conv_id: convId, limit: PAGE });
    timelineLoaded(convId, page);
    ordering.drain(convId);
    void loadPins(convId);
  } catch (err) {
    timelineFailed(convId);
    ordering.forget(convId);
    if (!(err instanceof OwnerError && err.code === 'unauthorized')) toast(`Could not load the conversation: ${errorText(err)}`, 'error');
  }
}

/** Pins, when the owner is a member (messages.pins joins the owner to the conversation otherwise). */
async function loadPins(convId: string): Promise<void> {
  const conv = conversationsStore.getState().byId[convId];
  if (!conv?.members.some((m) => m.id === ownerId())) return;
  try {
    const r = await api('messages.pins', { conv_id: convId });
    pinsLoaded(
      convId,
      r.pins.map((p) => p.message),
    );
  } catch {
    /* pins are a nicety */
  }
}

/** When loading older messages last failed, per conversation: the next try waits a moment (one toast per failure, not per wheel tick). */
const olderFailedAt = new Map<string, number>();
const OLDER_RETRY_MS = 1500;

/**
 * The page before the first loaded message. Called whenever the reader is near the top (the list asks again after
 * each change while they stay there, and on a further scroll up), so a call while a page is loading is dropped,
 * and one after a failed load tries again once a moment has passed.
 */
export async function loadOlder(convId: string): Promise<void> {
  const tl = timelineStore.getState().convs[convId];
  if (!tl || tl.status !== 'ready' || !tl.hasOlder || tl.loadingOlder || tl.firstSeq === null) return;
  if (Date.now() - (olderFailedAt.get(convId) ?? -Infinity) < OLDER_RETRY_MS) return;
  const before = tl.firstSeq;
  olderLoading(convId, true);
  try {
    const page = await api('conversations.history', { conv_id: convId, before_seq: before, limit: OLDER_PAGE });
    olderFailedAt.delete(convId);
    olderLoaded(convId, page);
  } catch (err) {
    olderFailedAt.set(convId, Date.now());
    olderLoading(convId, false);
    toast(`Could not load older messages: ${errorText(err)}`, 'error');
  }
}

/** Reads a whole thread (root and replies, page by page) into the timeline store. */
export async function loadThread(convId: string, rootId: string): Promise<void> {
  threadLoading(convId, rootId);
  try {
    let after: number | undefined;
    const replies: string[] = [];
    for (let i = 0; i < 20; i++) {
      const page = await api(
        'conversations.thread',
        after === undefined ? { conv_id: convId, thread_id: rootId } : { conv_id: convId, thread_id: rootId, after_seq: after },
      );
      threadPageLoaded(page);
      replies.push(...page.replies.map((r) => r.msg_id));
      if (!page.more || page.last_seq === null) break;
      after = page.last_seq;
    }
    threadLoaded(convId, rootId, replies);
  } catch (err) {
    threadFailed(convId, rootId);
    toast(`Could not open the thread: ${errorText(err)}`, 'error');
  }
}

/** A file link, reused until shortly before it expires. */
export async function fileLink(fileId: string, variant: 'original' | 'thumb'): Promise<FileLink | undefined> {
  const key = fileKey(fileId, variant);
  if (laptopOnly('files.url')) return undefined; // a paired phone gets no file links (the laptop's)
  const have = filesStore.getState().links[key];
  if (have && have.expires_at - Date.now() > 30_000) return have;
  try {
    const link = await api('files.url', { file_id: fileId, variant });
    filesStore.setState((s) => ({ links: { ...s.links, [key]: link } }));
    return link;
  } catch {
    return undefined;
  }
}

const readsRefresh = new Map<string, ReturnType<typeof setTimeout>>();
/** Re-reads a loaded conversation's read receipts shortly (on opening it again, and on its live events). */
export function refreshReads(convId: string, ms = 300): void {
  if (readsRefresh.has(convId) || !timelineStore.getState().convs[convId]) return;
  readsRefresh.set(
    convId,
    setTimeout(() => {
      readsRefresh.delete(convId);
      void api('conversations.history', { conv_id: convId, limit: 1 })
        .then((p) => readsLoaded(convId, p.reads ?? []))
        .catch(() => {});
    }, ms),
  );
}
