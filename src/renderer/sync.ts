// The one module that writes to the stores: initial loads, pushed live items, and the owner's actions.
// Components read stores through selector hooks and call the functions exported here.
import type { OwnerInput } from '../shared/owner-api';
import { isStorageStatus } from '../shared/types';
import { api, OwnerError, setUnauthorizedHandler, transport } from './transport';
import type {
  AgentKeyResult, ConversationView, Decision, EventView, FileLink, LiveItem, Message, ProgressView, RequestItem, RequestMessagePayload,
  TaskState,
} from './model';
import { sessionStore, ownerId } from './stores/session';
import { currentConvId, toast, uiStore, type View } from './stores/ui';
import { conversationsStore } from './stores/conversations';
import { emptyTimeline, timelineStore, type ConvTimeline, type Row } from './stores/timeline';
import { requestsStore } from './stores/requests';
import { PROGRESS_KEEP, progressStore, type AgentActivity } from './stores/progress';
import { agentsStore } from './stores/agents';
import { fileKey, filesStore } from './stores/files';

const PAGE = 100;
const OLDER_PAGE = 200;

// ---- errors ---------------------------------------------------------------------------------

export function errorText(err: unknown): string {
  if (err instanceof OwnerError) return err.nextStep ? `${err.message} ${err.nextStep}` : err.message;
  return err instanceof Error ? err.message : String(err);
}

/** Runs an owner action for a click: a refusal becomes a visible notice, never an unhandled rejection. */
async function attempt<T>(what: string, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof OwnerError && err.code === 'unauthorized') return undefined;
    toast(`${what}: ${errorText(err)}`, 'error');
    return undefined;
  }
}

/** An action another engineer may not have shipped yet answers not_found: treat as empty. */
async function optional<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof OwnerError && err.code === 'not_found') return undefined;
    throw err;
  }
}

// ---- boot & the live stream -----------------------------------------------------------------

let unsubscribe: (() => void) | null = null;
let connections = 0;
let navigating = false;

export async function boot(): Promise<void> {
  setUnauthorizedHandler(() => {
    sessionStore.setState({ status: 'signed-out' });
    unsubscribe?.();
    unsubscribe = null;
  });
  const refused = await transport.signIn();
  if (refused) {
    sessionStore.setState({ status: 'signed-out', error: refused });
    return;
  }
  let info;
  try {
    info = await api('hub.info', {});
  } catch (err) {
    if (err instanceof OwnerError && err.code === 'unauthorized') return;
    sessionStore.setState({ status: 'error', error: errorText(err) });
    return;
  }
  sessionStore.setState({ status: 'ready', info, error: null });
  connections = 0;
  unsubscribe?.();
  unsubscribe = transport.subscribe(onLive, (link) => {
    sessionStore.setState({ link });
    if (link === 'unauthorized') sessionStore.setState({ status: 'signed-out' });
  });
  if (!navigating) {
    navigating = true;
    transport.onNavigate((convId) => openView({ name: 'conversation', convId }));
  }
  await Promise.all([loadConversations(), loadAgents(), loadRequests(), loadProgress(), loadActivity(), loadStorage()]).catch((err) => toast(errorText(err), 'error'));
  restoreViewFromHash();
}

/** Signs the owner out: the hub ends the session, this browser forgets it, the sign-in screen shows. */
export async function signOut(): Promise<void> {
  unsubscribe?.();
  unsubscribe = null;
  await transport.signOut();
  sessionStore.setState({ status: 'signed-out', error: null, info: null, link: 'unauthorized' });
}

function onLive(item: LiveItem): void {
  switch (item.kind) {
    case 'event':
      applyEvent(item.value.event, item.value.woken);
      return;
    case 'progress':
      applyProgress(item.value);
      return;
    case 'hub':
      if (isStorageStatus(item.value.storage)) sessionStore.setState({ storage: item.value.storage });
      if (item.value.connected === true && ++connections > 1) void resync();
      return;
    default: {
      const never: never = item;
      void never;
    }
  }
}

/** After the stream was down: reload lists and fill every loaded timeline from its last seq. */
async function resync(): Promise<void> {
  await Promise.all([loadConversations(), loadRequests(), loadAgents(), loadActivity()]).catch(() => {});
  for (const convId of Object.keys(timelineStore.getState().convs)) void catchUp(convId);
}

// ---- loads ----------------------------------------------------------------------------------

/** Whether the hub can save (the live stream tells each change after this). */
async function loadStorage(): Promise<void> {
  const r = await optional(api('hub.storage', {}));
  if (r && isStorageStatus(r.storage)) sessionStore.setState({ storage: r.storage });
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
  const r = await optional(api('requests.list', {}));
  const byId: Record<string, RequestItem> = {};
  for (const q of r?.requests ?? []) byId[q.request_id] = q;
  requestsStore.setState((s) => ({ byId: { ...s.byId, ...byId }, loaded: true }));
}

export async function loadProgress(convId?: string): Promise<void> {
  const { progress } = await api('progress.list', convId ? { conv_id: convId, limit: 300 } : { limit: 500 });
  progressStore.setState((s) => ({ items: mergeProgress(s.items, progress), loaded: true }));
}

function mergeProgress(a: ProgressView[], b: ProgressView[]): ProgressView[] {
  const seen = new Set<number>();
  const out: ProgressView[] = [];
  for (const p of [...a, ...b].sort((x, y) => y.id - x.id)) {
    if (seen.has(p.id)) continue;
    seen.add(p.id);
    out.push(p);
  }
  return out.slice(0, PROGRESS_KEEP);
}

export async function loadActivity(): Promise<void> {
  const r = await api('progress.activity', { minutes: 60 });
  const first = Math.floor((r.until - r.minutes * 60_000) / 60_000);
  const activity: Record<string, AgentActivity> = {};
  for (const row of r.agents) {
    const byMinute: Record<number, number> = {};
    const errorsByMinute: Record<number, number> = {};
    row.per_minute.forEach((n, i) => { if (n) byMinute[first + i] = n; });
    row.errors_per_minute.forEach((n, i) => { if (n) errorsByMinute[first + i] = n; });
    activity[row.agent.id] = { byMinute, errorsByMinute, last: row.last };
  }
  progressStore.setState({ activity });
}

let agentsRefresh: ReturnType<typeof setTimeout> | undefined;
/** Whether agents wait is not pushed; re-read it shortly after events that wake or come from agents. */
function refreshAgentsSoon(ms = 1500): void {
  if (agentsRefresh) return; // at most one re-read per interval, however busy the fleet is
  agentsRefresh = setTimeout(() => {
    agentsRefresh = undefined;
    void loadAgents().catch(() => {});
  }, ms);
}

const convRefresh = new Map<string, ReturnType<typeof setTimeout>>();
function refreshConversationSoon(convId: string): void {
  if (convRefresh.has(convId)) return;
  convRefresh.set(convId, setTimeout(() => {
    convRefresh.delete(convId);
    void api('conversations.get', { conv_id: convId })
      .then(({ conversation }) => {
        const open = currentConvId() === convId;
        // The server counted what it had; messages that came live after its snapshot are added on top.
        const later = (liveUnread.get(convId) ?? []).filter((seq) => seq > conversation.last_seq);
        liveUnread.set(convId, later);
        conversationsStore.setState((s) => {
          const known = s.byId[convId];
          const merged = { ...conversation, last_seq: Math.max(conversation.last_seq, known?.last_seq ?? 0), last_event_at: Math.max(conversation.last_event_at, known?.last_event_at ?? 0) };
          return { byId: { ...s.byId, [convId]: { ...merged, unread: open ? 0 : conversation.unread + later.length } } };
        });
      })
      .catch(() => {});
  }, 30));
}

// ---- live events ------------------------------------------------------------------------------

const CONV_META_EVENTS = new Set<string>(['conversation.created', 'member.added', 'handoff.created', 'handoff.returned', 'task.updated', 'floor.granted', 'floor.released']);
/** Events shown as a line of their own in the conversation. */
const ROW_EVENTS = new Set<string>([
  'conversation.created', 'member.added', 'handoff.created', 'handoff.returned', 'task.updated', 'floor.granted', 'floor.released',
  'owner.note', 'config.updated',
]);

const pending = new Map<string, EventView[]>();
/** Seqs of others' messages counted as unread from the live stream, per conversation (until read). */
const liveUnread = new Map<string, number[]>();
const catching = new Set<string>();

function applyEvent(ev: EventView, woken: string[]): void {
  const me = ownerId();
  // The conversation list.
  const conv = conversationsStore.getState().byId[ev.conv_id];
  if (!conv || CONV_META_EVENTS.has(ev.type)) refreshConversationSoon(ev.conv_id);
  const open = currentConvId() === ev.conv_id && !document.hidden;
  const counts = ev.type === 'message.created' && ev.actor?.id !== me && !open;
  if (counts) liveUnread.set(ev.conv_id, [...(liveUnread.get(ev.conv_id) ?? []), ev.seq]);
  if (conv) {
    conversationsStore.setState((s) => {
      const c = s.byId[ev.conv_id];
      if (!c) return s;
      // An event at or below the list's last_seq is already in its counts.
      const fresh = counts && ev.seq > c.last_seq;
      return { byId: { ...s.byId, [ev.conv_id]: { ...c, last_seq: Math.max(c.last_seq, ev.seq), last_event_at: Math.max(c.last_event_at, ev.at), unread: c.unread + (fresh ? 1 : 0) } } };
    });
    if (open && ev.type === 'message.created') markReadSoon(ev.conv_id);
  }
  // Messages anywhere (idempotent: each carries the message's current state).
  applyMessageChange(ev);
  // Requests.
  applyRequestChange(ev);
  // The loaded timeline, in seq order.
  const tl = timelineStore.getState().convs[ev.conv_id];
  if (tl) {
    if (tl.status === 'loading' || catching.has(ev.conv_id)) queue(ev);
    else if (ev.seq <= tl.lastSeq) { /* already applied */ }
    else if (ev.seq === tl.lastSeq + 1) applyInOrder(ev.conv_id, [ev]);
    else {
      queue(ev);
      void catchUp(ev.conv_id);
    }
  }
  if (ev.type === 'config.updated') refreshAgentsSoon(200);
  if (ev.actor?.kind === 'agent' || woken.some((u) => u !== me)) refreshAgentsSoon();
}

function queue(ev: EventView): void {
  const list = pending.get(ev.conv_id) ?? [];
  list.push(ev);
  pending.set(ev.conv_id, list);
}

function drain(convId: string): void {
  const list = (pending.get(convId) ?? []).sort((a, b) => a.seq - b.seq);
  pending.delete(convId);
  const tl = timelineStore.getState().convs[convId];
  if (!tl || list.length === 0) return;
  let last = tl.lastSeq;
  const inOrder: EventView[] = [];
  for (let i = 0; i < list.length; i++) {
    const ev = list[i]!;
    if (ev.seq <= last) continue;
    if (ev.seq !== last + 1) {
      pending.set(convId, list.slice(i));
      applyInOrder(convId, inOrder);
      void catchUp(convId);
      return;
    }
    inOrder.push(ev);
    last = ev.seq;
  }
  applyInOrder(convId, inOrder);
}

/** Fills a timeline from its last seq (after a gap or a reconnect). */
async function catchUp(convId: string): Promise<void> {
  if (catching.has(convId)) return;
  catching.add(convId);
  try {
    for (let pages = 0; pages < 50; pages++) {
      const tl = timelineStore.getState().convs[convId];
      if (!tl || tl.status !== 'ready') break;
      const page = await api('conversations.history', { conv_id: convId, after_seq: tl.lastSeq, limit: 200 });
      applyInOrder(convId, page.events.filter((e) => e.seq > tl.lastSeq));
      if (!page.more) break;
    }
  } catch {
    /* the next event or reconnect tries again */
  } finally {
    catching.delete(convId);
    drain(convId);
  }
}

function applyMessageChange(ev: EventView): void {
  const m = ev.message;
  if (!m) return;
  const { messages } = timelineStore.getState();
  const old = messages.get(m.msg_id);
  if (!old) return;
  let next: Message | undefined;
  switch (ev.type) {
    case 'reaction.added':
    case 'reaction.removed': {
      const key = String(ev.data?.key ?? '');
      if (!key || !ev.actor) return;
      next = { ...old, reactions: toggleReaction(old.reactions ?? [], key, ev.actor.name, ev.actor.id === ownerId(), ev.type === 'reaction.added') };
      break;
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
      next = { ...m, reactions: m.recalled ? undefined : old.reactions };
      break;
    default:
      return;
  }
  messages.set(m.msg_id, next);
  timelineStore.setState((s) => ({ rev: s.rev + 1 }));
}

function toggleReaction(list: NonNullable<Message['reactions']>, key: string, user: string, mine: boolean, on: boolean): NonNullable<Message['reactions']> {
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

/**
 * A request's state comes from the request only: the view its request.* events (and its message.created)
 * carry. The message payload keeps only what never changes (its context is read from there).
 */
function applyRequestChange(ev: EventView): void {
  const view = ev.request;
  if (!view) return;
  const p = ev.message?.payload as unknown as RequestMessagePayload | undefined;
  requestsStore.setState((s) => {
    const old = s.byId[view.request_id];
    if (old && old.state !== 'pending' && view.state === 'pending') return s; // an older read: never step back
    const item: RequestItem = { ...old, ...view, conv_title: conversationsStore.getState().byId[view.conv_id]?.title ?? old?.conv_title ?? '' };
    const context = old?.context ?? p?.context;
    if (context !== undefined && context !== null) item.context = context;
    return { byId: { ...s.byId, [view.request_id]: item } };
  });
}

/** Applies live events (consecutive seqs) to a loaded timeline. */
function applyInOrder(convId: string, events: EventView[]): void {
  if (events.length === 0) return;
  timelineStore.setState((s) => {
    const tl = s.convs[convId];
    if (!tl) return s;
    const next: ConvTimeline = { ...tl, rows: tl.rows, threadCounts: tl.threadCounts, taskHistory: tl.taskHistory, pins: tl.pins };
    const added: Row[] = [];
    const threads = { ...s.threads };
    for (const ev of events) {
      if (ev.seq <= next.lastSeq) continue;
      next.lastSeq = ev.seq;
      next.firstSeq ??= ev.seq;
      if (ev.type === 'message.created' && ev.message) {
        const m = ev.message;
        s.messages.set(m.msg_id, m);
        if (m.thread_id && m.thread_id !== m.msg_id) {
          next.threadCounts = { ...next.threadCounts, [m.thread_id]: (next.threadCounts[m.thread_id] ?? 0) + 1 };
          const th = threads[m.thread_id];
          if (th && !th.replies.includes(m.msg_id)) threads[m.thread_id] = { ...th, replies: [...th.replies, m.msg_id] };
        } else {
          added.push({ key: m.msg_id, seq: ev.seq, kind: 'message', msgId: m.msg_id });
        }
      } else if (ROW_EVENTS.has(ev.type)) {
        added.push({ key: `e${ev.seq}`, seq: ev.seq, kind: 'event', event: ev });
      }
      if (ev.type === 'task.updated') next.taskHistory = [...next.taskHistory, ev];
      if ((ev.type === 'pin.added' || ev.type === 'pin.removed') && ev.message) {
        const id = ev.message.msg_id;
        next.pins = ev.type === 'pin.added' ? [id, ...next.pins.filter((p) => p !== id)] : next.pins.filter((p) => p !== id);
      }
    }
    if (added.length) next.rows = [...tl.rows, ...added];
    return { convs: { ...s.convs, [convId]: next }, threads, rev: s.rev + 1 };
  });
}

/** Turns a history page (oldest first) into rows; message views in history are already current. */
function rowsOfPage(events: EventView[], messages: Map<string, Message>) {
  const rows: Row[] = [];
  const threadCounts: Record<string, number> = {};
  const taskHistory: EventView[] = [];
  const pinEvents: EventView[] = [];
  for (const ev of events) {
    if (ev.type === 'message.created' && ev.message) {
      const m = ev.message;
      if (!messages.has(m.msg_id)) messages.set(m.msg_id, m);
      if (m.thread_id && m.thread_id !== m.msg_id) threadCounts[m.thread_id] = (threadCounts[m.thread_id] ?? 0) + 1;
      else rows.push({ key: m.msg_id, seq: ev.seq, kind: 'message', msgId: m.msg_id });
    } else if (ROW_EVENTS.has(ev.type)) {
      rows.push({ key: `e${ev.seq}`, seq: ev.seq, kind: 'event', event: ev });
    }
    if (ev.type === 'task.updated') taskHistory.push(ev);
    if (ev.type === 'pin.added' || ev.type === 'pin.removed') pinEvents.push(ev);
    // Requests seen in history join the inbox (requests.list is the full truth when available).
    if (ev.type === 'message.created' && ev.request) applyRequestChange(ev);
  }
  return { rows, threadCounts, taskHistory, pinEvents };
}

function addCounts(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
}

function pinsAfter(pins: string[], events: EventView[]): string[] {
  let out = pins;
  for (const ev of events) {
    const id = ev.message?.msg_id;
    if (!id) continue;
    out = ev.type === 'pin.added' ? [id, ...out.filter((p) => p !== id)] : out.filter((p) => p !== id);
  }
  return out;
}

/** Loads the latest page of a conversation once; later pages come with loadOlder and live events. */
export async function ensureTimeline(convId: string): Promise<void> {
  if (timelineStore.getState().convs[convId]) return;
  timelineStore.setState((s) => ({ convs: { ...s.convs, [convId]: emptyTimeline() } }));
  try {
    const page = await api('conversations.history', { conv_id: convId, limit: PAGE });
    timelineStore.setState((s) => {
      const built = rowsOfPage(page.events, s.messages);
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
      };
      return { convs: { ...s.convs, [convId]: tl }, rev: s.rev + 1 };
    });
    drain(convId);
    void loadPins(convId);
  } catch (err) {
    timelineStore.setState((s) => ({ convs: { ...s.convs, [convId]: { ...emptyTimeline(), status: 'error' } } }));
    pending.delete(convId);
    if (!(err instanceof OwnerError && err.code === 'unauthorized')) toast(`Could not load the conversation: ${errorText(err)}`, 'error');
  }
}

/** Pins, when the owner is a member (messages.pins joins the owner to the conversation otherwise). */
async function loadPins(convId: string): Promise<void> {
  const conv = conversationsStore.getState().byId[convId];
  if (!conv?.members.some((m) => m.id === ownerId())) return;
  try {
    const r = await api('messages.pins', { conv_id: convId });
    timelineStore.setState((s) => {
      const tl = s.convs[convId];
      if (!tl) return s;
      for (const p of r.pins) if (!s.messages.has(p.message.msg_id)) s.messages.set(p.message.msg_id, p.message);
      return { convs: { ...s.convs, [convId]: { ...tl, pins: r.pins.map((p) => p.message.msg_id) } }, rev: s.rev + 1 };
    });
  } catch {
    /* pins are a nicety */
  }
}

export async function loadOlder(convId: string): Promise<void> {
  const tl = timelineStore.getState().convs[convId];
  if (!tl || tl.status !== 'ready' || !tl.hasOlder || tl.loadingOlder || tl.firstSeq === null) return;
  const before = tl.firstSeq;
  timelineStore.setState((s) => ({ convs: { ...s.convs, [convId]: { ...s.convs[convId]!, loadingOlder: true } } }));
  try {
    const page = await api('conversations.history', { conv_id: convId, before_seq: before, limit: OLDER_PAGE });
    timelineStore.setState((s) => {
      const cur = s.convs[convId]!;
      const built = rowsOfPage(page.events, s.messages);
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
        rev: s.rev + 1,
      };
    });
  } catch (err) {
    timelineStore.setState((s) => ({ convs: { ...s.convs, [convId]: { ...s.convs[convId]!, loadingOlder: false } } }));
    toast(`Could not load older messages: ${errorText(err)}`, 'error');
  }
}

// ---- progress -----------------------------------------------------------------------------------

function applyProgress(p: ProgressView): void {
  progressStore.setState((s) => {
    const items = s.items.length >= PROGRESS_KEEP ? [p, ...s.items.slice(0, PROGRESS_KEEP - 1)] : [p, ...s.items];
    const minute = Math.floor(p.at / 60_000);
    const old = s.activity[p.agent.id] ?? { byMinute: {}, errorsByMinute: {}, last: null };
    const act: AgentActivity = {
      byMinute: { ...old.byMinute, [minute]: (old.byMinute[minute] ?? 0) + 1 },
      errorsByMinute: p.kind === 'error' ? { ...old.errorsByMinute, [minute]: (old.errorsByMinute[minute] ?? 0) + 1 } : old.errorsByMinute,
      last: p,
    };
    return { items, activity: { ...s.activity, [p.agent.id]: act } };
  });
}

// ---- navigation -----------------------------------------------------------------------------

function hashOf(v: View): string {
  switch (v.name) {
    case 'conversation':
      return `#/c/${encodeURIComponent(v.convId)}`;
    case 'home':
      return '#/';
    default:
      return `#/${v.name}`;
  }
}

function restoreViewFromHash(): void {
  const h = location.hash;
  const m = /^#\/c\/(.+)$/.exec(h);
  if (m) openView({ name: 'conversation', convId: decodeURIComponent(m[1]!) });
  else if (h === '#/approvals' || h === '#/fleet' || h === '#/agents') openView({ name: h.slice(2) as 'approvals' | 'fleet' | 'agents' });
}

export function openView(view: View): void {
  const prev = uiStore.getState().view;
  const sameConv = prev.name === 'conversation' && view.name === 'conversation' && prev.convId === view.convId;
  uiStore.setState(sameConv ? { view } : { view, threadRoot: null, replyTo: null });
  if (location.hash !== hashOf(view)) history.replaceState(null, '', hashOf(view));
  transport.setFocus(view.name === 'conversation' ? view.convId : null);
  if (view.name === 'conversation') {
    void ensureTimeline(view.convId).then(() => markReadSoon(view.convId));
    void loadProgress(view.convId).catch(() => {});
  }
}

const readTimers = new Map<string, ReturnType<typeof setTimeout>>();
const readSeqs = new Map<string, number>();
export function markReadSoon(convId: string): void {
  liveUnread.delete(convId);
  conversationsStore.setState((s) => {
    const c = s.byId[convId];
    return c && c.unread ? { byId: { ...s.byId, [convId]: { ...c, unread: 0 } } } : s;
  });
  if (readTimers.has(convId)) return;
  readTimers.set(convId, setTimeout(() => {
    readTimers.delete(convId);
    const seq = Math.max(timelineStore.getState().convs[convId]?.lastSeq ?? 0, conversationsStore.getState().byId[convId]?.last_seq ?? 0);
    if (!seq || (readSeqs.get(convId) ?? 0) >= seq) return;
    readSeqs.set(convId, seq);
    void api('conversations.mark_read', { conv_id: convId, seq }).catch(() => {});
  }, 300));
}

// ---- threads --------------------------------------------------------------------------------

export async function openThread(convId: string, rootId: string): Promise<void> {
  uiStore.setState({ threadRoot: rootId });
  timelineStore.setState((s) => ({ threads: { ...s.threads, [rootId]: { convId, replies: s.threads[rootId]?.replies ?? [], status: 'loading' } } }));
  try {
    let after: number | undefined;
    const replies: string[] = [];
    for (let i = 0; i < 20; i++) {
      const page = await api('conversations.thread', after === undefined ? { conv_id: convId, thread_id: rootId } : { conv_id: convId, thread_id: rootId, after_seq: after });
      timelineStore.setState((s) => {
        s.messages.set(page.root.msg_id, s.messages.get(page.root.msg_id) ?? page.root);
        for (const r of page.replies) if (!s.messages.has(r.msg_id)) s.messages.set(r.msg_id, r);
        return { rev: s.rev + 1 };
      });
      replies.push(...page.replies.map((r) => r.msg_id));
      if (!page.more || page.last_seq === null) break;
      after = page.last_seq;
    }
    timelineStore.setState((s) => {
      const live = s.threads[rootId]?.replies ?? [];
      const all = [...replies, ...live.filter((id) => !replies.includes(id))];
      return { threads: { ...s.threads, [rootId]: { convId, replies: all, status: 'ready' } }, rev: s.rev + 1 };
    });
  } catch (err) {
    timelineStore.setState((s) => ({ threads: { ...s.threads, [rootId]: { convId, replies: [], status: 'error' } } }));
    toast(`Could not open the thread: ${errorText(err)}`, 'error');
  }
}

// ---- the owner's actions ------------------------------------------------------------------------

export function sendMessage(input: { conv_id: string; text: string; to?: string[]; reply_to?: string; thread_id?: string }) {
  return attempt('Not sent', () => api('messages.send', input));
}

export function sendNote(agent: string, text: string, convId?: string) {
  return attempt('Note not sent', async () => {
    const r = await api('notes.send', convId ? { agent, text, conv_id: convId } : { agent, text });
    toast(`Private note sent to ${r.agent}.`);
    return r;
  });
}

export const editMessage = (msgId: string, text: string) => attempt('Not edited', () => api('messages.edit', { msg_id: msgId, text }));
export const recallMessage = (msgId: string) => attempt('Not recalled', () => api('messages.recall', { msg_id: msgId }));
export const react = (convId: string, msgId: string, key: string, on: boolean) =>
  attempt('Reaction not saved', () => api('messages.react', { conv_id: convId, msg_id: msgId, key, on }));
export const pin = (convId: string, msgId: string, on: boolean) => attempt(on ? 'Not pinned' : 'Not unpinned', () => api('messages.pin', { conv_id: convId, msg_id: msgId, on }));

export function decideRequest(requestId: string, decision: Decision, extra: { answer?: string; choice?: string; comment?: string } = {}) {
  return attempt('Decision not saved', async () => {
    const input: { request_id: string; decision: Decision; answer?: string; choice?: string; comment?: string } = { request_id: requestId, decision };
    if (extra.answer !== undefined) input.answer = extra.answer;
    if (extra.choice !== undefined) input.choice = extra.choice;
    if (extra.comment?.trim()) input.comment = extra.comment;
    const r = await api('requests.decide', input);
    requestsStore.setState((s) => ({ byId: { ...s.byId, [requestId]: { ...s.byId[requestId], ...r.request } } }));
    return r;
  });
}

export function setRequestDraft(requestId: string, patch: { comment?: string; answer?: string }): void {
  requestsStore.setState((s) => ({ drafts: { ...s.drafts, [requestId]: { ...s.drafts[requestId], ...patch } } }));
}

export function selectRequest(requestId: string | null): void {
  requestsStore.setState({ selected: requestId });
}

/** Decides with what the owner typed in the request's comment / answer fields. */
export function decideWithDraft(requestId: string, decision: Decision, choice?: string) {
  const draft = requestsStore.getState().drafts[requestId] ?? {};
  return decideRequest(requestId, decision, {
    comment: draft.comment,
    ...(decision === 'answer' ? { answer: draft.answer ?? '' } : {}),
    ...(decision === 'choose' ? { choice } : {}),
  }).then((r) => {
    if (r) requestsStore.setState((s) => ({ drafts: { ...s.drafts, [requestId]: {} } }));
    return r;
  });
}

export const answerCard = (msgId: string, blockId: string, value: unknown) =>
  attempt('Answer not sent', () => api('cards.answer', { msg_id: msgId, block_id: blockId, value }));

export function handBack(convId: string, agentId: string, note: string) {
  return attempt('Not handed back', async () => {
    const r = await api('handoffs.hand_back', { conv_id: convId, agent: agentId, note });
    toast(`Handed back to ${r.agent.name}.`);
    refreshConversationSoon(convId);
    return r;
  });
}

export function setTask(convId: string, change: { state?: TaskState; assignee?: string; note?: string }) {
  return attempt('Task not updated', async () => {
    const r = await api('tasks.set', { conv_id: convId, ...change });
    conversationsStore.setState((s) => ({ byId: { ...s.byId, [convId]: { ...r.task, unread: s.byId[convId]?.unread ?? 0 } } }));
    return r;
  });
}

export function setFloor(convId: string, change: { agent?: string; ttl_secs?: number; release?: boolean }) {
  return attempt('Floor not changed', async () => {
    const r = await api('floor.set', { conv_id: convId, ...change });
    refreshConversationSoon(convId);
    return r;
  });
}

export function createConversation(kind: 'direct' | 'group' | 'task', input: { title: string; members: string[]; assignee?: string }) {
  return attempt('Not created', async () => {
    let conv: ConversationView;
    if (kind === 'direct') conv = (await api('conversations.open_direct', { user: input.members[0]! })).conversation;
    else if (kind === 'group') conv = (await api('conversations.create_group', { title: input.title, members: input.members })).conversation;
    else conv = (await api('conversations.create_task', input.assignee ? { title: input.title, members: input.members, assignee: input.assignee } : { title: input.title, members: input.members })).conversation;
    conversationsStore.setState((s) => ({ byId: { ...s.byId, [conv.conv_id]: conv } }));
    openView({ name: 'conversation', convId: conv.conv_id });
    return conv;
  });
}

export const addMember = (convId: string, user: string) =>
  attempt('Not added', async () => {
    const r = await api('conversations.add_member', { conv_id: convId, user });
    conversationsStore.setState((s) => ({ byId: { ...s.byId, [convId]: r.conversation } }));
    return r;
  });

export async function openDirectWith(agentName: string): Promise<void> {
  await createConversation('direct', { title: '', members: [agentName] });
}

export function addAgent(input: { name: string; description?: string; instructions?: string }): Promise<AgentKeyResult | undefined> {
  return attempt('Agent not added', async () => {
    const r = await api('agents.add', input);
    void loadAgents();
    return r;
  });
}

export function rotateKey(agent: string): Promise<AgentKeyResult | undefined> {
  return attempt('Key not rotated', async () => {
    const r = await api('agents.rotate_key', { agent });
    void loadAgents();
    return r;
  });
}

export const revokeAgent = (agent: string) =>
  attempt('Not revoked', async () => {
    const r = await api('agents.revoke', { agent });
    void loadAgents();
    return r;
  });

export type ConfigPatch = Omit<OwnerInput<'agents.update_config'>, 'agent'>;
export const updateAgentConfig = (agent: string, patch: ConfigPatch) =>
  attempt('Config not saved', async () => {
    const r = await api('agents.update_config', { agent, ...patch });
    void loadAgents();
    toast(`Saved ${r.agent.name}'s config (version ${r.agent.config_version}).`);
    return r;
  });

export async function searchMessages(query: string) {
  return attempt('Search failed', () => api('conversations.search', { query, limit: 50 }));
}

/** A file link, reused until shortly before it expires. */
export async function fileLink(fileId: string, variant: 'original' | 'thumb'): Promise<FileLink | undefined> {
  const key = fileKey(fileId, variant);
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
