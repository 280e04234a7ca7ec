// Rows of the store turned into what agents and the owner read.
import type { Db } from '../../store/db/db';
import type { EventWithMessage } from '../../store/tables/talk/events';
import type { MessageRow } from '../../store/tables/talk/messages';
import { requestById, type RequestRow } from '../../store/tables/talk/requests';
import type { EventView } from '../../../shared/api/event-log';
import type { EventType, Intent, MessageView, ProgressKind, ProgressView, Provenance, UserRef } from '../../../shared/types';
import type { ProgressRow } from '../../store/tables/talk/progress';
import type { RequestOutcome, RequestView } from '../../../shared/features/requests';
import type { UserRow } from '../../store/tables/agents/users';

/** What views read of the hub: its database and its users (the Hub is one; views never write). */
export interface ViewSource {
  readonly db: Db;
  readonly owner: UserRow;
  user(id: string): UserRow;
  ref(id: string): UserRef;
}

function parse<T>(s: string | null | undefined): T | undefined {
  return s == null ? undefined : (JSON.parse(s) as T);
}

export function provenanceOf(hub: ViewSource, senderId: string): Provenance {
  const u = hub.user(senderId);
  if (u.kind === 'human') {
    return { author: 'human', ai: false, on_behalf_of: null, authority: 'human', attested_by: 'server' };
  }
  const owner = hub.owner;
  return { author: 'agent', ai: true, on_behalf_of: { id: owner.id, name: owner.name }, authority: 'agent', attested_by: 'server' };
}

/** A request as its requester (get_request), the owner and request.* events see it. */
export function requestView(hub: ViewSource, r: RequestRow): RequestView {
  const v: RequestView = {
    request_id: r.id,
    conv_id: r.conv_id,
    msg_id: r.msg_id,
    kind: r.kind,
    title: r.title,
    requester: hub.ref(r.requester_id),
    assignees: (JSON.parse(r.assignees) as string[]).map((id) => hub.ref(id)),
    state: r.state,
    outcome: parse<RequestOutcome>(r.outcome) ?? null,
    created_at: r.created_at,
    expires_at: r.expires_at,
  };
  // A prompt withdrawn by the hub keeps why in place of an outcome (hub/features/requests/abandoned-prompts.ts withdrawPrompt).
  // A prompt relayed by `perch channel` and closed by it keeps where it was answered (answered_in: 'terminal').
  const withdrawn = r.state === 'cancelled' ? (v.outcome as { withdrawn?: unknown } | null)?.withdrawn : undefined;
  const answeredIn = r.state === 'cancelled' ? (v.outcome as { answered_in?: unknown } | null)?.answered_in : undefined;
  if (r.state === 'cancelled') v.outcome = null;
  // Whether a hook prompt's decision reached its hook is kept beside the decision (abandoned-prompts.ts): not the decider's.
  // So is where the owner decided it (decided_on: the laptop or a paired device, for the ledger).
  if (v.outcome && ('delivery' in v.outcome || 'decided_on' in v.outcome)) {
    const { delivery: _delivery, decided_on: _on, ...decided } = v.outcome as RequestOutcome & { delivery?: unknown; decided_on?: unknown };
    v.outcome = decided;
  }
  if (typeof withdrawn === 'string') v.withdrawn = withdrawn;
  if (answeredIn === 'terminal') v.answered_in = 'terminal';
  const options = parse<string[]>(r.options);
  if (options) v.options = options;
  if (r.decided_at != null) v.decided_at = r.decided_at;
  if (r.decided_by) v.decided_by = hub.ref(r.decided_by);
  return v;
}

const DECIDED: ReadonlySet<string> = new Set(['approved', 'rejected', 'answered', 'chosen']);

/**
 * A request message's payload as read: what it stores (only what never changes) plus the request's
 * current state from its one home, the request. Payloads written before this kept a copy: it is replaced.
 */
function requestPayload(hub: ViewSource, stored: Record<string, unknown>): Record<string, unknown> {
  const r = typeof stored.request_id === 'string' ? requestById(hub.db, stored.request_id) : undefined;
  if (!r) return stored;
  const { state: _state, outcome: _outcome, decided_by: _by, decided_at: _at, ...fixed } = stored;
  const out: Record<string, unknown> = { ...fixed, state: r.state };
  if (DECIDED.has(r.state)) {
    if (r.outcome != null) {
      // Kept beside the decision, not the decider's word: the delivery to a hook, where the owner decided (the ledger's).
      const { delivery: _delivery, decided_on: _on, ...decided } = JSON.parse(r.outcome) as Record<string, unknown>;
      out.outcome = decided;
    }
    if (r.decided_by) out.decided_by = hub.ref(r.decided_by);
    if (r.decided_at != null) out.decided_at = r.decided_at;
  }
  return out;
}

export function messageView(hub: ViewSource, m: MessageRow): MessageView {
  const view: MessageView = {
    msg_id: m.id,
    conv_id: m.conv_id,
    seq: m.seq,
    sender: m.sender_instance ? { ...hub.ref(m.sender_id), instance: m.sender_instance } : hub.ref(m.sender_id),
    kind: m.kind,
    text: m.text,
    created_at: m.created_at,
    untrusted: true,
    provenance: provenanceOf(hub, m.sender_id),
  };
  if (m.intent) view.intent = m.intent as Intent;
  const to = parse<string[]>(m.to_ids);
  if (to?.length) view.to = to.map((id) => hub.ref(id).name);
  if (m.to_instance) view.to_instance = m.to_instance;
  const topics = parse<string[]>(m.topics);
  if (topics?.length) view.topics = topics;
  const refs = parse<unknown[]>(m.refs);
  if (refs?.length) view.refs = refs;
  const sources = parse<unknown[]>(m.sources);
  if (sources?.length) view.sources = sources;
  if (m.reply_to) view.reply_to = m.reply_to;
  if (m.thread_id) view.thread_id = m.thread_id;
  const payload = parse<Record<string, unknown>>(m.payload);
  if (payload) view.payload = m.kind === 'request' ? requestPayload(hub, payload) : payload;
  if (m.edited_at) view.edited_at = m.edited_at;
  if (m.recalled_at) {
    view.recalled = true;
    view.text = null;
  }
  if (m.claimed_by) view.claimed_by = hub.ref(m.claimed_by);
  if (m.reviewed) Object.assign(view.provenance, m.reviewed === 2 ? { reviewed: true, owner_edited: true } : { reviewed: true }); // review mode (hub/features/review/review.ts)
  if (m.provenance === 'imported') view.provenance.imported = true; // came from an archive (perch import)
  return view;
}

/** An event view while it is built: its data is what hub.emit wrote for its type (typed there, shared/api/event-log.ts). */
interface EventViewDraft {
  conv_id: string;
  seq: number;
  type: EventType;
  at: number;
  actor: UserRef | null;
  for_you: boolean;
  message?: MessageView;
  request?: RequestView;
  data?: Record<string, unknown>;
  before_your_history?: true;
}

export function eventView(hub: ViewSource, e: EventWithMessage, viewerId: string): EventView {
  let actor: UserRef | null = null;
  if (e.actor_id) actor = hub.ref(e.actor_id);
  const wake = parse<string[]>(e.wake);
  const view: EventViewDraft = {
    conv_id: e.conv_id,
    seq: e.seq,
    type: e.type,
    at: e.ts,
    actor,
    for_you: !!wake && wake.includes(viewerId),
  };
  if (e.m_hidden === 1) {
    // A reaction, pin, edit, recall, claim, card response or request decision on a message from before
    // the viewer's history: its seq stays (the log is gap-free), nothing of the message or about it does.
    view.data = { msg_id: e.msg_id };
    view.before_your_history = true;
    return view as EventView;
  }
  if (e.m_json) view.message = messageView(hub, JSON.parse(e.m_json) as MessageRow);
  const requestId = view.message?.kind === 'request' ? view.message.payload?.request_id : undefined;
  if (typeof requestId === 'string' && (e.type === 'message.created' || e.type.startsWith('request.'))) {
    const r = requestById(hub.db, requestId);
    if (r) {
      view.request = requestView(hub, r);
      // Which door filed a harness's prompt (requests.door): the owner's cards offer standing rules only for those.
      if (viewerId === hub.owner.id && (r.door === 'hook' || r.door === 'channel')) view.request.door = r.door;
    }
  }
  const data = parse<Record<string, unknown>>(e.data);
  if (data && e.m_hidden === 2) {
    // A hand-back of a handoff from before the viewer's history: the note written then stays there.
    delete data.handoff_note;
    view.before_your_history = true;
  }
  if (data) view.data = data;
  return view as EventView;
}

/** A progress report as the owner reads it (the feed, the live stream). */
export function progressView(hub: ViewSource, r: ProgressRow): ProgressView {
  const v: ProgressView = { id: r.id, agent: hub.ref(r.user_id), conv_id: r.conv_id, kind: r.kind as ProgressKind, text: r.text, at: r.ts };
  if (r.data != null) v.data = JSON.parse(r.data);
  if (r.msg_id) v.msg_id = r.msg_id;
  return v;
}
