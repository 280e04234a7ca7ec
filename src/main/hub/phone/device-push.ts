// Push notices, the device door's calls (owner/push-door.ts): a paired phone saves or drops its Web Push subscription
// (checked: an https endpoint on a known push service, a P-256 key and a 16-byte auth secret; a bad one is refused and
// nothing changes), a push button's action token decides its request, and a read token ('ids' mode) answers its
// notice's summary as it stands now.
import crypto from 'node:crypto';
import type { PhoneHub } from './services';
import { HubError } from '../../../shared/errors';
import type { OwnerRequestView } from '../../../shared/features/requests';
import { deletePushSubscription, putPushSubscription } from '../../store/tables/phone/push';
import { isDeviceLive, ntfyChannel } from './devices';
import { checkReadToken, isNtfyDevice, ntfyDevice, spendActionToken, type ActionTokenClaims } from './action-tokens';
import { isKnownPushService, PUSH_SERVICE_HOSTS } from './push-senders';
import { loopbackPush } from './notify';
import { noticeSummary, publicBase, type NoticeSummary } from './notice-drafts';

/** Longest endpoint URL accepted (real ones are a few hundred characters). */
const MAX_ENDPOINT_CHARS = 2048;

function badSub(message: string): HubError {
  return new HubError(
    'invalid_argument',
    message,
    "Send what the browser's PushSubscription.toJSON() gives: {endpoint, keys: {p256dh, auth}}.",
  );
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
export function subscribePush(hub: PhoneHub, deviceId: string, input: unknown): { endpoint: string } {
  const o = input as { endpoint?: unknown; keys?: { p256dh?: unknown; auth?: unknown } } | null;
  if (!o || typeof o !== 'object' || Array.isArray(o)) throw badSub('The body must be a JSON object.');
  if (typeof o.endpoint !== 'string' || !o.endpoint || o.endpoint.length > MAX_ENDPOINT_CHARS)
    throw badSub(`endpoint: must be an https URL of at most ${MAX_ENDPOINT_CHARS} characters.`);
  let url: URL;
  try {
    url = new URL(o.endpoint);
  } catch {
    throw badSub('endpoint: not a URL.');
  }
  if (url.protocol !== 'https:' || !url.hostname || url.username || url.password)
    throw badSub("endpoint: must be an https URL (the push service's).");
  if (!isKnownPushService(url.href, loopbackPush(hub))) {
    throw new HubError(
      'invalid_argument',
      `endpoint: ${url.host.slice(0, 100)} is not a Web Push service Perch sends to (${PUSH_SERVICE_HOSTS.join(', ')}, on port 443).`,
      "Subscribe with the browser's own push service (what PushManager.subscribe() gives in Chrome, Firefox, Safari or Edge).",
    );
  }
  if (!o.keys || typeof o.keys !== 'object') throw badSub('keys: missing ({p256dh, auth}).');
  const p256dh = b64urlBytes(o.keys.p256dh, 'keys.p256dh', 65);
  const auth = b64urlBytes(o.keys.auth, 'keys.auth', 16);
  try {
    crypto.ECDH.convertKey(Buffer.from(p256dh, 'base64url'), 'prime256v1'); // a point on the curve, or it throws
  } catch {
    throw badSub('keys.p256dh: not a P-256 public key.');
  }
  hub.services.pushTargets.changing(() =>
    hub.write(() => putPushSubscription(hub.db, { device_id: deviceId, endpoint: url.href, p256dh, auth, created_at: hub.now() })),
  );
  return { endpoint: url.href };
}

export function unsubscribePush(hub: PhoneHub, deviceId: string): { removed: boolean } {
  return { removed: hub.write(() => deletePushSubscription(hub.db, deviceId)) };
}

/**
 * Whether a button's device may still act: a paired, not revoked device; or the ntfy channel while the very setting
 * the token was minted for is on (not changed, not turned off and on again since) and not opaque.
 */
function deviceLive(hub: PhoneHub, deviceId: string): boolean {
  if (!isNtfyDevice(deviceId)) return isDeviceLive(hub, deviceId);
  const ch = ntfyChannel(hub);
  return !!ch && !ch.opaque && deviceId === ntfyDevice(ch.id);
}

/** POST /api/device/action: a push button's token decides its request (hub/phone/action-tokens.ts). */
export function decideByActionToken(hub: PhoneHub, token: unknown): { claims: ActionTokenClaims; request: OwnerRequestView } {
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
export function noticeByReadToken(hub: PhoneHub, token: unknown): { claims: ActionTokenClaims; notice: NoticeDetails } {
  const claims = checkReadToken(hub, token, (id) => !isNtfyDevice(id) && isDeviceLive(hub, id));
  const s = noticeSummary(hub, claims.r);
  const notice: NoticeDetails = { tag: s.tag, kind: s.kind, title: s.title, body: s.body, url: publicBase(hub) + s.path, state: s.state };
  if (s.request_id) notice.request_id = s.request_id;
  return { claims, notice };
}
