// Push notices to the owner's paired phones (Web Push) and the optional ntfy channel. Listens on hub.bus: a new
// pending request for the owner, a handoff to the owner, or a card addressed to the owner makes one notice per
// device with a push subscription; a request decided, expired or cancelled anywhere (a handoff handed back, a
// card answered) makes a 'clear' with the same tag, which closes the notification on the phone. Sending is
// injected (app.ts gives the real senders, src/main/push/*), as hub/waking/wake-runs.ts takes its launcher; nothing
// here speaks HTTP. Pushes go out after the commit, one job at a time, never blocking a write.
import crypto from 'node:crypto';
import type { Hub } from '../core/hub';
import { HubError } from '../../../shared/errors';
import type { OwnerRequestView } from '../../../shared/requests';
import type { EventView } from '../../../shared/event-log';
import type { EventType } from '../../../shared/types';
import { DEVICE_ACTION_PATH } from '../../../shared/devices';
import { anyPushSubscription, deletePushSubscription, notePushResult, pushSubscriptionOf, pushTargets, putPushSubscription, type PushSubscriptionRow } from '../../store/push';
import { getRequestForOwner } from '../features/requests';
import { cardAddressedToOwner, isDeviceLive, ntfyChannel, publicUrl, pushContent, pushTargetsKnown, vapidKeys, type NtfyChannel } from './devices';
import { checkReadToken, isNtfyDevice, mintActionToken, mintReadToken, ntfyDevice, spendActionToken, type ActionDecision, type ActionTokenClaims } from './action-tokens';
import { messageById } from '../../store/messages';
import { activeHandoffsOf } from '../../store/handoffs';
import { conversationById } from '../../store/conversations';
import { messageView } from '../core/views';
import { listCardResponses } from '../features/cards';
import { eventTypeOf } from '../core/bus';
import { isKnownPushService, pushTopic, PUSH_SERVICE_HOSTS, type NtfySend, type VapidDetails, type WebPushSend } from './push-senders';

export interface NoticeAction {
  action: ActionDecision;
  /** The button's label. */
  title: string;
  token: string;
}

/** What a push carries (JSON, under 3 KB): the service worker shows a notice and closes the notifications of a clear's tag. */
export type PushPayload =
  | {
    type: 'notice'; kind: 'request' | 'handoff' | 'card' | 'test'; tag: string; title: string; body: string; url: string; request_id?: string; conv_id?: string; actions: NoticeAction[];
    /**
     * push_content 'ids': title and body are only a generic line with ids; the service worker POSTs this token to
     * /api/device/notice (DEVICE_NOTICE_PATH) for the real title, body and state, and shows the actions only when
     * they arrived and the request is still pending. A read token never decides anything.
     */
    read_token?: string;
  }
  | { type: 'clear'; tag: string };

export interface NotifySenders {
  webPush: WebPushSend;
  ntfy: NtfySend;
  log?: (line: string) => void;
}

/** A notice before it is made per device: action tokens (and, in 'ids' mode, a read token) are minted for each device. */
interface Draft {
  kind: 'request' | 'handoff' | 'card';
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

type Job = { draft: Draft } | { clear: string };

const MAX_PAYLOAD_BYTES = 3000;
const SUMMARY_CHARS = 240;
const TITLE_CHARS = 120;
/** How long the push service keeps an undelivered notice (seconds). */
const NOTICE_TTL_SECS = 24 * 3600;
const QUEUE_MAX = 1000;

const notifiers = new WeakMap<Hub, Notifier>();

function clip(s: string, n: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
}

/** Where links in pushes point: the HTTPS front (phone.public_url) or, without one, this hub's loopback address. */
function publicBase(hub: Hub): string {
  return (publicUrl(hub) ?? hub.baseUrl).replace(/\/+$/, '');
}

/** The install's VAPID key pair (hub/phone/devices.ts makes it once) and the subject push services may contact. */
function vapidDetails(hub: Hub): VapidDetails {
  const url = publicUrl(hub);
  return { ...vapidKeys(hub), subject: url && url.startsWith('https://') ? url : 'mailto:perch@localhost.invalid' };
}

/** A new card message addressed to the owner (hub/phone/devices.ts: `to` names the owner, or the owner's direct conversation). */
function cardForOwner(hub: Hub, ev: EventView): boolean {
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
export function noticeSummary(hub: Hub, tag: string): NoticeSummary {
  const gone = () => new HubError('not_found', `Nothing to show for ${tag.slice(0, 100)}.`, 'Open Perch to see what waits for you.');
  if (tag.startsWith('handoff:')) {
    const convId = tag.slice('handoff:'.length);
    const h = activeHandoffsOf(hub.db, convId).filter((x) => x.to_user === hub.ownerId).pop();
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
    const title = typeof card.title === 'string' ? card.title : m.text ?? '';
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
    body: clip(`${full.requester.name}${where}${context ? `: ${context}` : ''}`, SUMMARY_CHARS),
    path: `/r/${encodeURIComponent(full.request_id)}`,
    state: full.state,
    request_id: full.request_id,
    conv_id: full.conv_id,
    expires_at: full.expires_at,
    buttons: full.kind === 'approve' ? { expires_at: full.expires_at } : undefined,
  };
}

/** push_content 'ids': the generic line a notice carries instead of its summary (the phone fetches the rest). */
function idsOnly(s: NoticeSummary): Draft {
  const line = s.kind === 'request' ? ['Perch: a request waits for you', `Request ${s.request_id}`]
    : s.kind === 'handoff' ? ['Perch: work was handed to you', `Conversation ${s.conv_id}`]
    : ['Perch: a card waits for you', `Card ${s.tag.slice('card:'.length)}`];
  return { ...s, title: line[0]!, body: line[1]!, read: s.expires_at ?? Number.POSITIVE_INFINITY };
}

/**
 * The kinds of events draftFor() may make a notice or a clear of: checked first, from the type the hub tagged (hub/core/bus.ts)
 * without reading the event, so most events (progress, reactions, …) cost nothing here. An untagged item is looked at.
 */
const NOTICE_EVENTS: ReadonlySet<EventType> = new Set<EventType>(['request.created', 'request.decided', 'request.expired', 'request.cancelled', 'handoff.created', 'handoff.returned', 'message.created', 'card.response']);

function mayNotify(type: EventType | undefined): boolean {
  return type === undefined || NOTICE_EVENTS.has(type);
}

function draftFor(hub: Hub, ev: EventView): Job | undefined {
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

/** The payload for one device (its own action tokens), cut to fit MAX_PAYLOAD_BYTES. */
function payloadFor(hub: Hub, draft: Draft, deviceId: string): PushPayload {
  const base = publicBase(hub);
  const actions: NoticeAction[] = draft.buttons && draft.request_id
    ? (['approve', 'reject'] as const).map((d) => ({ action: d, title: d === 'approve' ? 'Approve' : 'Reject', token: mintActionToken(hub, draft.request_id!, d, deviceId, draft.buttons!.expires_at) }))
    : [];
  const p: PushPayload = { type: 'notice', kind: draft.kind, tag: draft.tag, title: draft.title, body: draft.body, url: base + draft.path, actions };
  if (draft.request_id) p.request_id = draft.request_id;
  if (draft.conv_id) p.conv_id = draft.conv_id;
  if (draft.read !== undefined && p.type === 'notice') p.read_token = mintReadToken(hub, draft.tag, deviceId, draft.read);
  while (Buffer.byteLength(JSON.stringify(p)) > MAX_PAYLOAD_BYTES && (p.body.length > 20 || p.title.length > 20)) {
    p.body = clip(p.body, Math.max(20, Math.floor(p.body.length / 2)));
    p.title = clip(p.title, Math.max(20, Math.floor(p.title.length / 2)));
  }
  return p;
}

class Notifier {
  private queue: Job[] = [];
  private running = false;
  private closed = false;
  private idleWaiters: Array<() => void> = [];

  constructor(private hub: Hub, readonly senders: NotifySenders, readonly loopbackPush: boolean) {}

  /** Whether anything would be sent at all (read for every event: a cheap check before the event is read). */
  hasTargets(): boolean {
    const hub = this.hub;
    return pushTargetsKnown.get(hub, '', () => anyPushSubscription(hub.db) || ntfyChannel(hub) !== null)!;
  }

  enqueue(job: Job): void {
    if (this.closed) return;
    if (this.queue.length >= QUEUE_MAX) {
      this.log(`push queue full: dropped a ${'draft' in job ? 'notice' : 'clear'}`);
      return;
    }
    this.queue.push(job);
    if (!this.running) {
      this.running = true;
      setImmediate(() => void this.drain());
    }
  }

  private async drain(): Promise<void> {
    try {
      while (!this.closed && this.queue.length) {
        const job = this.queue.shift()!;
        try {
          await this.run(job);
        } catch (err) {
          this.log(`push failed: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    } finally {
      this.running = false;
      for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  /** Resolves once every queued push was sent (tests; and close). */
  idle(): Promise<void> {
    if (!this.running && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async run(job: Job): Promise<void> {
    const hub = this.hub;
    const targets = pushTargets(hub.db).filter((t) => (t.scope === 'approvals' || t.scope === 'full') && this.knownService(t));
    const sends: Array<Promise<unknown>> = [];
    if (targets.length) {
      const vapid = vapidDetails(hub);
      for (const t of targets) {
        const payload: PushPayload = 'draft' in job ? payloadFor(hub, job.draft, t.device_id) : { type: 'clear', tag: job.clear };
        sends.push(this.sendOne(t, payload, vapid));
      }
    }
    const ntfy = ntfyChannel(hub);
    if (ntfy && 'draft' in job) sends.push(this.sendNtfy(ntfy, job.draft));
    await Promise.all(sends);
  }

  /** A subscription saved before endpoints were checked may name any host: it is dropped, never sent to. */
  knownService(t: PushSubscriptionRow): boolean {
    if (isKnownPushService(t.endpoint, this.loopbackPush)) return true;
    this.hub.write(() => deletePushSubscription(this.hub.db, t.device_id, t.endpoint));
    this.log(`push subscription of device ${t.device_id} names no known push service: dropped`);
    return false;
  }

  async sendOne(t: PushSubscriptionRow, payload: PushPayload, vapid: VapidDetails): Promise<'sent' | 'gone' | 'failed'> {
    const r = await this.senders.webPush(t, JSON.stringify(payload), { vapid, ttlSecs: NOTICE_TTL_SECS, topic: pushTopic(payload.tag) });
    if (this.closed) return r.outcome;
    const hub = this.hub;
    if (r.outcome === 'gone') {
      hub.write(() => deletePushSubscription(hub.db, t.device_id, t.endpoint));
      this.log(`push subscription of device ${t.device_id} is gone (${r.status}): dropped`);
    } else {
      hub.write(() => notePushResult(hub.db, t.device_id, t.endpoint, r.outcome === 'sent', hub.now()));
      if (r.outcome === 'failed') this.log(`push to device ${t.device_id} failed: ${r.detail}`);
    }
    return r.outcome;
  }

  /**
   * One ntfy publish. Opaque: a fixed line, no buttons and no tokens (a button would make the owner decide blind, and
   * its bearer token would sit on the ntfy server), and a tap opens Perch itself. Otherwise the summary and, for a
   * request of kind approve, Approve / Reject with tokens bound to this ntfy setting (its channel id).
   */
  async sendNtfy(ntfy: NtfyChannel, draft: Draft): Promise<'sent' | 'failed'> {
    const hub = this.hub;
    const base = publicBase(hub);
    const actions = !ntfy.opaque && draft.buttons && draft.request_id
      ? (['approve', 'reject'] as const).map((d) => ({ label: d === 'approve' ? 'Approve' : 'Reject', url: base + DEVICE_ACTION_PATH, token: mintActionToken(hub, draft.request_id!, d, ntfyDevice(ntfy.id), draft.buttons!.expires_at) }))
      : [];
    const r = await this.senders.ntfy({
      server: ntfy.server,
      topic: ntfy.topic,
      title: ntfy.opaque ? 'Perch' : draft.title,
      message: ntfy.opaque ? 'Perch needs you: open it to see what.' : draft.body,
      tags: ntfy.opaque ? ['perch'] : ['perch', draft.kind],
      click: base + (ntfy.opaque ? '/' : draft.path),
      actions,
    });
    if (r.outcome === 'failed') this.log(`ntfy publish failed: ${r.detail}`);
    return r.outcome;
  }

  log(line: string): void {
    (this.senders.log ?? ((l: string) => process.stderr.write(`perch: ${l}\n`)))(line);
  }

  close(): void {
    this.closed = true;
    this.queue = [];
  }
}

export interface NotifyOptions {
  /** Tests only: push subscriptions may also name a loopback push service (hub/phone/push-senders.ts isKnownPushService). */
  loopbackPushServices?: boolean;
}

/** Whether this hub takes loopback push services (set by startNotify; off without it). */
function loopbackPush(hub: Hub): boolean {
  return notifiers.get(hub)?.loopbackPush === true;
}

/**
 * Starts push notices for this hub (app.ts, once the senders are known). Stopped by hub.close(). Returns the
 * notifier's idle() for tests that wait for queued pushes.
 */
export function startNotify(hub: Hub, senders: NotifySenders, opts: NotifyOptions = {}): { idle(): Promise<void> } {
  const n = new Notifier(hub, senders, opts.loopbackPushServices === true);
  notifiers.set(hub, n);
  const unsubscribe = hub.bus.subscribe((item) => {
    if (item.kind !== 'event' || !mayNotify(eventTypeOf(item)) || !n.hasTargets()) return;
    let job: Job | undefined;
    try {
      job = draftFor(hub, item.value.event);
    } catch (err) {
      n.log(`push notice not made: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (job) n.enqueue(job);
  });
  hub.onClose(() => {
    unsubscribe();
    n.close();
    notifiers.delete(hub);
  });
  return { idle: () => n.idle() };
}

export interface TestPushResult {
  web_push: 'sent' | 'no_subscription' | 'gone' | 'failed';
  ntfy: 'sent' | 'off' | 'failed';
  detail: string | null;
}

/** devices.test_push: one test notice to the device (and to ntfy when it is set), answered when sent. */
export async function sendTestPush(hub: Hub, deviceId: string): Promise<TestPushResult> {
  const n = notifiers.get(hub);
  if (!n) return { web_push: 'failed', ntfy: 'off', detail: 'Pushes are not running in this hub.' };
  const draft: Draft = { kind: 'request', tag: `test:${deviceId}`, title: 'Perch: test notification', body: 'Pushes reach this phone.', path: '/' };
  const sub = pushSubscriptionOf(hub.db, deviceId);
  let web_push: TestPushResult['web_push'] = 'no_subscription';
  if (sub && n.knownService(sub)) {
    const payload = payloadFor(hub, draft, deviceId);
    if (payload.type === 'notice') payload.kind = 'test';
    web_push = await n.sendOne(sub, payload, vapidDetails(hub));
  }
  const ntfy = ntfyChannel(hub);
  const ntfyOutcome: TestPushResult['ntfy'] = ntfy ? await n.sendNtfy(ntfy, draft) : 'off';
  const detail = web_push === 'no_subscription' ? 'This device has not turned on notifications (on the phone: Turn on notifications).'
    : web_push === 'gone' ? 'The push service says this subscription is gone: it was dropped; turn notifications on again on the phone.'
    : web_push === 'failed' ? 'The push service did not take the push; see the hub log.'
    : null;
  return { web_push, ntfy: ntfyOutcome, detail };
}

// ---- the device door's push calls (owner/push-door.ts) --------------------------------------------------

/** Longest endpoint URL accepted (real ones are a few hundred characters). */
const MAX_ENDPOINT_CHARS = 2048;

function badSub(message: string): HubError {
  return new HubError('invalid_argument', message, 'Send what the browser\'s PushSubscription.toJSON() gives: {endpoint, keys: {p256dh, auth}}.');
}

function b64urlBytes(v: unknown, field: string, length: number): string {
  if (typeof v !== 'string' || !/^[A-Za-z0-9_-]+={0,2}$/.test(v) || v.length > 200) throw badSub(`${field}: must be base64url text.`);
  const bytes = Buffer.from(v.replace(/=+$/, ''), 'base64url');
  if (bytes.length !== length) throw badSub(`${field}: must be ${length} bytes (got ${bytes.length}).`);
  return bytes.toString('base64url');
}

/**
 * A device's Web Push subscription (replaces its earlier one). endpoint: an https URL (web-push speaks only https);
 * keys.p256dh: the browser's uncompressed P-256 public key (65 bytes); keys.auth: its 16-byte auth secret.
 */
export function subscribePush(hub: Hub, deviceId: string, input: unknown): { endpoint: string } {
  const o = input as { endpoint?: unknown; keys?: { p256dh?: unknown; auth?: unknown } } | null;
  if (!o || typeof o !== 'object' || Array.isArray(o)) throw badSub('The body must be a JSON object.');
  if (typeof o.endpoint !== 'string' || !o.endpoint || o.endpoint.length > MAX_ENDPOINT_CHARS) throw badSub(`endpoint: must be an https URL of at most ${MAX_ENDPOINT_CHARS} characters.`);
  let url: URL;
  try { url = new URL(o.endpoint); } catch { throw badSub('endpoint: not a URL.'); }
  if (url.protocol !== 'https:' || !url.hostname || url.username || url.password) throw badSub('endpoint: must be an https URL (the push service\'s).');
  if (!isKnownPushService(url.href, loopbackPush(hub))) {
    throw new HubError('invalid_argument', `endpoint: ${url.host.slice(0, 100)} is not a Web Push service Perch sends to (${PUSH_SERVICE_HOSTS.join(', ')}, on port 443).`,
      'Subscribe with the browser\'s own push service (what PushManager.subscribe() gives in Chrome, Firefox, Safari or Edge).');
  }
  if (!o.keys || typeof o.keys !== 'object') throw badSub('keys: missing ({p256dh, auth}).');
  const p256dh = b64urlBytes(o.keys.p256dh, 'keys.p256dh', 65);
  const auth = b64urlBytes(o.keys.auth, 'keys.auth', 16);
  try {
    crypto.ECDH.convertKey(Buffer.from(p256dh, 'base64url'), 'prime256v1'); // a point on the curve, or it throws
  } catch {
    throw badSub('keys.p256dh: not a P-256 public key.');
  }
  pushTargetsKnown.changing(hub, () => hub.write(() => putPushSubscription(hub.db, { device_id: deviceId, endpoint: url.href, p256dh, auth, created_at: hub.now() })));
  return { endpoint: url.href };
}

export function unsubscribePush(hub: Hub, deviceId: string): { removed: boolean } {
  return { removed: hub.write(() => deletePushSubscription(hub.db, deviceId)) };
}

/**
 * Whether a button's device may still act: a paired, not revoked device; or the ntfy channel while the very setting
 * the token was minted for is on (not changed, not turned off and on again since) and not opaque.
 */
function deviceLive(hub: Hub, deviceId: string): boolean {
  if (!isNtfyDevice(deviceId)) return isDeviceLive(hub, deviceId);
  const ch = ntfyChannel(hub);
  return !!ch && !ch.opaque && deviceId === ntfyDevice(ch.id);
}

/** POST /api/device/action: a push button's token decides its request (hub/phone/action-tokens.ts). */
export function decideByActionToken(hub: Hub, token: unknown): { claims: ActionTokenClaims; request: OwnerRequestView } {
  return spendActionToken(hub, token, (id) => deviceLive(hub, id));
}

/** What POST /api/device/notice answers: the summary the 'summary' mode would have pushed, as it stands now. */
export interface NoticeDetails {
  tag: string;
  kind: NoticeSummary['kind'];
  title: string;
  body: string;
  url: string;
  state: string;
  request_id?: string;
}

/**
 * POST /api/device/notice: a read token (push content 'ids') answers its notice's summary and current state. The
 * token is checked (MAC, expiry, device still paired) and not spent; it decides nothing.
 */
export function noticeByReadToken(hub: Hub, token: unknown): { claims: ActionTokenClaims; notice: NoticeDetails } {
  const claims = checkReadToken(hub, token, (id) => !isNtfyDevice(id) && isDeviceLive(hub, id));
  const s = noticeSummary(hub, claims.r);
  const notice: NoticeDetails = { tag: s.tag, kind: s.kind, title: s.title, body: s.body, url: publicBase(hub) + s.path, state: s.state };
  if (s.request_id) notice.request_id = s.request_id;
  return { claims, notice };
}
