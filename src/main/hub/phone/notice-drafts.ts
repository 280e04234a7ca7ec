// Push notices, the drafting: which events of hub.bus make a notice or a clear (a new pending request for the owner,
// a handoff to the owner, a card addressed to the owner; and their ending), the one place a notice's text is made
// (noticeSummary, also what the phone fetches in 'ids' mode), and the payload for one device with its own action and
// read tokens, cut to fit. Sending is notify.ts; nothing here sends.
import type { Hub } from '../core/hub';
import { promptCut } from '../../../shared/api/prompt-filing';
import type { FeatureServices } from '../features/services';
import type { OutsideMemo } from '../core/outside-writes';
import type { ActionSecret } from './action-tokens';
import { HubError } from '../../../shared/errors';
import type { OwnerRequestView } from '../../../shared/features/requests';
import type { EventView, HubLive } from '../../../shared/api/event-log';
import { waitingNoticeBody } from '../../../shared/agents/harness';
import { getRequestForOwner } from '../features/requests/owner-decisions';
import { cardAddressedToOwner, publicUrl, pushContent } from './devices';
import { mintActionToken, mintReadToken, type ActionDecision } from './action-tokens';
import { messageById } from '../../store/tables/talk/messages';
import { activeHandoffsOf } from '../../store/tables/talk/handoffs';
import { conversationById } from '../../store/tables/talk/conversations';
import { messageView } from '../core/views';
import { listCardResponses } from '../features/cards/cards';

/** The hub as this module reaches it: the services it uses (the whole set: src/main/hub/services.ts). */
type NoticeHub = Hub<FeatureServices & { pushTargets: OutsideMemo<boolean>; actionSecret: ActionSecret }>;

export interface NoticeAction {
  action: ActionDecision;
  /** The button's label. */
  title: string;
  token: string;
}

/** What a push carries (JSON, under 3 KB): the service worker shows a notice and closes the notifications of a clear's tag. */
export type PushPayload =
  | {
      type: 'notice';
      kind: 'request' | 'handoff' | 'card' | 'waiting' | 'test';
      tag: string;
      title: string;
      body: string;
      url: string;
      request_id?: string;
      conv_id?: string;
      actions: NoticeAction[];
      /**
       * push_content 'ids': title and body are only a generic line with ids; the service worker POSTs this token to
       * /api/device/notice (DEVICE_NOTICE_PATH) for the real title, body and state, and shows the actions only when
       * they arrived and the request is still pending. A read token never decides anything.
       */
      read_token?: string;
    }
  | { type: 'clear'; tag: string };

/** A notice before it is made per device: action tokens (and, in 'ids' mode, a read token) are minted for each device. */
export interface Draft {
  kind: 'request' | 'handoff' | 'card' | 'waiting';
  tag: string;
  title: string;
  body: string;
  path: string;
  request_id?: string;
  conv_id?: string;
  /** Approve / Reject buttons (requests of kind approve): the request's deadline bounds the tokens. */
  buttons?: { expires_at: number };
  /** push_content 'ids': the notice carries a read token expiring then (the request's deadline; capped at 24 h). */
  read?: number;
}

export type Job = { draft: Draft } | { clear: string };

const MAX_PAYLOAD_BYTES = 3000;
const SUMMARY_CHARS = 240;
const TITLE_CHARS = 120;

function clip(s: string, n: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
}

/** Where links in pushes point: the HTTPS front (phone.public_url) or, without one, this hub's loopback address. */
export function publicBase(hub: NoticeHub): string {
  return (publicUrl(hub) ?? hub.doors.baseUrl).replace(/\/+$/, '');
}

/** A new card message addressed to the owner (hub/phone/devices.ts: `to` names the owner, or the owner's direct conversation). */
function cardForOwner(hub: NoticeHub, ev: EventView): boolean {
  const m = ev.message;
  return !!m && m.kind === 'card' && m.sender.id !== hub.ownerId && cardAddressedToOwner(hub, m.msg_id);
}

/** What the summary of a notice says (push content 'summary', and what the phone fetches with a read token in 'ids'). */
export interface NoticeSummary {
  kind: 'request' | 'handoff' | 'card';
  tag: string;
  title: string;
  body: string;
  /** Where it opens (public base + path is the url). */
  path: string;
  /**
   * Where the thing stands now: a request's state (pending, approved, rejected, answered, expired, cancelled…);
   * a handoff 'open' or 'returned'; a card 'pending' or 'answered' (by the owner).
   */
  state: string;
  request_id?: string;
  conv_id?: string;
  /** A request's deadline (bounds its read token). */
  expires_at?: number;
  /** Approve / Reject buttons (requests of kind approve): the request's deadline bounds the tokens. */
  buttons?: { expires_at: number };
}

/**
 * The one place a notice's text is made: the summary of a tag (a request id, `handoff:<conv_id>` or
 * `card:<msg_id>`) as it stands now. Throws not_found for a tag that names nothing of the owner's.
 */
export function noticeSummary(hub: NoticeHub, tag: string): NoticeSummary {
  const gone = () => new HubError('not_found', `Nothing to show for ${tag.slice(0, 100)}.`, 'Open Perch to see what waits for you.');
  if (tag.startsWith('handoff:')) {
    const convId = tag.slice('handoff:'.length);
    const h = activeHandoffsOf(hub.db, convId)
      .filter((x) => x.to_user === hub.ownerId)
      .pop();
    if (!h && !conversationById(hub.db, convId)) throw gone();
    return {
      kind: 'handoff',
      tag,
      title: h ? clip(`${hub.ref(h.agent_id).name} handed over to you`, TITLE_CHARS) : 'Handed back',
      body: h ? clip(h.note || 'Open the conversation to take over.', SUMMARY_CHARS) : 'This conversation was handed back.',
      path: `/?conv=${encodeURIComponent(convId)}`,
      state: h ? 'open' : 'returned',
      conv_id: convId,
    };
  }
  if (tag.startsWith('card:')) {
    const msgId = tag.slice('card:'.length);
    const row = messageById(hub.db, msgId);
    if (!row || row.kind !== 'card' || !cardAddressedToOwner(hub, msgId)) throw gone();
    const m = messageView(hub, row);
    const card = (m.payload?.card ?? {}) as { title?: unknown };
    const title = typeof card.title === 'string' ? card.title : (m.text ?? '');
    return {
      kind: 'card',
      tag,
      title: clip(`${m.sender.name}: ${title || 'a card'}`, TITLE_CHARS),
      body: clip(m.text ?? 'Open it to answer.', SUMMARY_CHARS),
      path: `/?conv=${encodeURIComponent(m.conv_id)}&msg=${encodeURIComponent(m.msg_id)}`,
      state: listCardResponses(hub, msgId).some((r) => r.by.id === hub.ownerId) ? 'answered' : 'pending',
      conv_id: m.conv_id,
    };
  }
  let full: OwnerRequestView;
  try {
    full = getRequestForOwner(hub, tag);
  } catch (err) {
    if (err instanceof HubError && err.code === 'not_found') throw gone();
    throw err;
  }
  if (!full.assignees.some((a) => a.id === hub.ownerId)) throw gone();
  const context = typeof full.context === 'string' ? full.context : full.context !== undefined ? JSON.stringify(full.context) : '';
  const where = full.conv_title ? ` in ${full.conv_title}` : '';
  return {
    kind: 'request',
    tag,
    title: clip(full.title, TITLE_CHARS),
    body: clip(
      `${promptCut(full.context) ? 'Too long to show whole: open it on the laptop to read all of it. ' : ''}${full.requester.name}${where}${context ? `: ${context}` : ''}`,
      SUMMARY_CHARS,
    ),
    path: `/r/${encodeURIComponent(full.request_id)}`,
    state: full.state,
    request_id: full.request_id,
    conv_id: full.conv_id,
    expires_at: full.expires_at,
    // A prompt too long to show whole is decided where it can be read: a notice carries no buttons for it.
    buttons: full.kind === 'approve' && !promptCut(full.context) ? { expires_at: full.expires_at } : undefined,
  };
}

/** push_content 'ids': the generic line a notice carries instead of its summary (the phone fetches the rest). */
function idsOnly(s: NoticeSummary): Draft {
  const line =
    s.kind === 'request'
      ? ['Perch: a request waits for you', `Request ${s.request_id}`]
      : s.kind === 'handoff'
        ? ['Perch: work was handed to you', `Conversation ${s.conv_id}`]
        : ['Perch: a card waits for you', `Card ${s.tag.slice('card:'.length)}`];
  return { ...s, title: line[0]!, body: line[1]!, read: s.expires_at ?? Number.POSITIVE_INFINITY };
}

/**
 * The kinds of events draftFor() may make a notice or a clear of: checked first, from the type the hub tagged (hub/core/bus.ts)
 * without reading the event, so most events (progress, reactions, …) cost nothing here. An untagged item is looked at.
 */
const NOTICE_EVENTS: ReadonlySet<string> = new Set([
  'request.created',
  'request.decided',
  'request.expired',
  'request.cancelled',
  'handoff.created',
  'handoff.returned',
  'message.created',
  'card.response',
]);

export function mayNotify(type: string | undefined): boolean {
  return type === undefined || NOTICE_EVENTS.has(type);
}

export function draftFor(hub: NoticeHub, ev: EventView): Job | undefined {
  const make = (tag: string): Job => {
    const s = noticeSummary(hub, tag);
    return { draft: pushContent(hub) === 'ids' ? idsOnly(s) : s };
  };
  if (ev.type === 'request.created' && ev.request && ev.request.state === 'pending') {
    const r = ev.request;
    if (!r.assignees.some((a) => a.id === hub.ownerId)) return undefined;
    return make(r.request_id);
  }
  if ((ev.type === 'request.decided' || ev.type === 'request.expired' || ev.type === 'request.cancelled') && !ev.before_your_history) {
    return { clear: ev.data.request_id };
  }
  if (ev.type === 'handoff.created') {
    if (ev.data.to.id !== hub.ownerId) return undefined;
    return make(`handoff:${ev.conv_id}`);
  }
  if (ev.type === 'handoff.returned') return { clear: `handoff:${ev.conv_id}` };
  if (ev.type === 'message.created' && cardForOwner(hub, ev)) return make(`card:${ev.message!.msg_id}`);
  if (ev.type === 'card.response' && ev.actor?.id === hub.ownerId) return { clear: `card:${ev.data.msg_id}` };
  return undefined;
}

/**
 * An agent's harness session waits for its user (the live item harness_waiting, hub/control/harness.ts): one notice per
 * agent (its tag replaces the last one), opening the Fleet view. With push_content 'ids', only a generic line.
 */
export function waitingDraft(hub: NoticeHub, v: HubLive['harness_waiting']): Job {
  const tag = `waiting:${v.agent.id}`;
  if (pushContent(hub) === 'ids')
    return {
      draft: { kind: 'waiting', tag, title: 'Perch: an agent is waiting for you', body: 'Open Perch to see which.', path: '/#/fleet' },
    };
  const body = waitingNoticeBody(v.agent.name, v.message, v.cwd); // the harness's words, marked as the agent's
  return {
    draft: {
      kind: 'waiting',
      tag,
      title: clip(`${v.agent.name} is waiting for you`, TITLE_CHARS),
      body: clip(body, SUMMARY_CHARS),
      path: '/#/fleet',
    },
  };
}

/** The payload for one device (its own action tokens), cut to fit MAX_PAYLOAD_BYTES. */
export function payloadFor(hub: NoticeHub, draft: Draft, deviceId: string): PushPayload {
  const base = publicBase(hub);
  const actions: NoticeAction[] =
    draft.buttons && draft.request_id
      ? (['approve', 'reject'] as const).map((d) => ({
          action: d,
          title: d === 'approve' ? 'Approve' : 'Reject',
          token: mintActionToken(hub, draft.request_id!, d, deviceId, draft.buttons!.expires_at),
        }))
      : [];
  const p: PushPayload = {
    type: 'notice',
    kind: draft.kind,
    tag: draft.tag,
    title: draft.title,
    body: draft.body,
    url: base + draft.path,
    actions,
  };
  if (draft.request_id) p.request_id = draft.request_id;
  if (draft.conv_id) p.conv_id = draft.conv_id;
  if (draft.read !== undefined && p.type === 'notice') p.read_token = mintReadToken(hub, draft.tag, deviceId, draft.read);
  while (Buffer.byteLength(JSON.stringify(p)) > MAX_PAYLOAD_BYTES && (p.body.length > 20 || p.title.length > 20)) {
    p.body = clip(p.body, Math.max(20, Math.floor(p.body.length / 2)));
    p.title = clip(p.title, Math.max(20, Math.floor(p.title.length / 2)));
  }
  return p;
}
