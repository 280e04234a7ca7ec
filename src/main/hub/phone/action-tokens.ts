// Action tokens: what a push's Approve / Reject button carries. A token names one request, one decision, one
// device (or the ntfy channel) and an expiry, and is MACed with the hub's 'push.secret' (HMAC-SHA256):
//   base64url(JSON {r, d, v, e}) "." base64url(HMAC(secret, that first part))
// Spending one decides the request as the owner, once: a token spent before (a replay) or a request decided
// elsewhere first is a conflict; an unknown MAC or a revoked device is unauthorized; past its expiry, expired.
// A READ token (push content 'ids') has the same shape with d = 'read' and r = the notice's tag: it lets the
// phone fetch one notice's details (POST /api/device/notice), is not spent by reading, and never decides anything.
import type { Hub } from '../core/hub';
import crypto from 'node:crypto';
import type { FeatureServices } from '../features/services';
import { HubError } from '../../../shared/errors';
import type { OwnerRequestView } from '../../../shared/features/requests';
import { getSetting, setSetting } from '../../store/tables/talk/settings';
import { actionTokenSpent, spendActionTokenRow } from '../../store/tables/phone/push';
import { tx } from '../../store/db/db';
import { deviceById } from '../../store/tables/phone/devices';
import { decideRequest } from '../features/requests/owner-decisions';

/** The hub as this module reaches it: the services it uses (the whole set: src/main/hub/services.ts). */
type ActionTokensHub = Hub<FeatureServices & { actionSecret: ActionSecret }>;

/** The decisions a push button can make (requests of kind approve). */
export type ActionDecision = 'approve' | 'reject';
/** What a token allows: one decision, or reading one notice's details (never a decision). */
export type TokenUse = ActionDecision | 'read';
/**
 * The pseudo-device of ntfy buttons (ntfy is one channel, not a paired device): `ntfy:<channel id>`, the id of the
 * ntfy setting the token was minted for (hub/phone/devices.ts ntfyChannel). Changing the setting, or turning ntfy off and on
 * again, makes a new id, so earlier tokens stop working. A bare 'ntfy' is an older token: never valid now.
 */
export const NTFY_DEVICE_PREFIX = 'ntfy:';

export function ntfyDevice(channelId: string): string {
  return NTFY_DEVICE_PREFIX + channelId;
}

/** Whether a token's device is the ntfy channel (of any setting, current or not), not a paired device. */
export function isNtfyDevice(v: string): boolean {
  return v === 'ntfy' || v.startsWith(NTFY_DEVICE_PREFIX);
}
/** A token never lives longer than this, whatever the request's deadline. */
export const ACTION_TOKEN_MAX_MS = 24 * 3600 * 1000;
/** Longest token accepted at the door (a real one is about 150 characters). */
export const MAX_ACTION_TOKEN_CHARS = 1024;

export interface ActionTokenClaims {
  /** request id (a read token: the notice's tag) */
  r: string;
  d: TokenUse;
  /** device id, or `ntfy:<channel id>` */
  v: string;
  /** expiry, ms since epoch */
  e: number;
}

/** The HMAC key of action tokens (settings 'push.secret', 32 random bytes made once per install), read on first use. */
export class ActionSecret {
  private known: Buffer | undefined = undefined;

  constructor(private readonly hub: ActionTokensHub) {}

  get value(): Buffer {
    if (this.known) return this.known;
    const hub = this.hub;
    const stored = getSetting(hub.db, 'push.secret');
    if (!stored) {
      tx(hub.db, () => {
        if (!getSetting(hub.db, 'push.secret')) setSetting(hub.db, 'push.secret', crypto.randomBytes(32).toString('base64url'));
      });
    }
    return (this.known = Buffer.from(getSetting(hub.db, 'push.secret')!, 'base64url'));
  }
}

function mac(hub: ActionTokensHub, body: string): Buffer {
  return crypto.createHmac('sha256', hub.services.actionSecret.value).update(body).digest();
}

function mint(hub: ActionTokensHub, r: string, d: TokenUse, deviceId: string, expiresAt: number): string {
  const claims: ActionTokenClaims = { r, d, v: deviceId, e: Math.min(expiresAt, hub.now() + ACTION_TOKEN_MAX_MS) };
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${body}.${mac(hub, body).toString('base64url')}`;
}

/** A token for one decision of one request by one device; it expires with the request or after 24 h, whichever first. */
export function mintActionToken(
  hub: ActionTokensHub,
  requestId: string,
  decision: ActionDecision,
  deviceId: string,
  requestExpiresAt: number,
): string {
  return mint(hub, requestId, decision, deviceId, requestExpiresAt);
}

/** A read token: one device may fetch one notice's details (tag) until expiresAt (the request's deadline) or 24 h. */
export function mintReadToken(hub: ActionTokensHub, tag: string, deviceId: string, expiresAt = Number.POSITIVE_INFINITY): string {
  return mint(hub, tag, 'read', deviceId, expiresAt);
}

/** The token's claims if its MAC is this hub's (expiry not checked); otherwise unauthorized. */
export function verifyActionToken(hub: ActionTokensHub, token: unknown): ActionTokenClaims {
  const bad = () =>
    new HubError(
      'unauthorized',
      'This action token is not valid (altered, or from another Perch).',
      'Open the request in Perch and decide it there.',
    );
  if (typeof token !== 'string' || token.length > MAX_ACTION_TOKEN_CHARS) throw bad();
  const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) throw bad();
  const given = Buffer.from(m[2]!, 'base64url');
  // One spelling per MAC (the last character carries 2 unused bits): a token is spent by its text, so no twin may pass.
  if (given.toString('base64url') !== m[2]) throw bad();
  const want = mac(hub, m[1]!);
  if (given.length !== want.length || !crypto.timingSafeEqual(given, want)) throw bad();
  let claims: ActionTokenClaims;
  try {
    claims = JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8')) as ActionTokenClaims;
  } catch {
    throw bad();
  }
  if (
    !claims ||
    typeof claims.r !== 'string' ||
    (claims.d !== 'approve' && claims.d !== 'reject' && claims.d !== 'read') ||
    typeof claims.v !== 'string' ||
    typeof claims.e !== 'number'
  )
    throw bad();
  return claims;
}

function tokenHash(token: string): Buffer {
  return crypto.createHash('sha256').update(token).digest();
}

/**
 * Spends a token: checks its MAC, expiry and device (deviceLive: whether that device may still act — not revoked,
 * or ntfy still set), then in one transaction marks it spent and decides the request as the owner. First decision
 * wins: a replay, or a request decided (or cancelled) elsewhere, is a conflict and changes nothing.
 */
export function spendActionToken(
  hub: ActionTokensHub,
  token: unknown,
  deviceLive: (deviceId: string) => boolean,
): { claims: ActionTokenClaims; request: OwnerRequestView } {
  const claims = verifyActionToken(hub, token);
  if (claims.d === 'read') {
    // Checked before anything is spent or read: a read token is never a decision, whatever its state.
    throw new HubError(
      'unauthorized',
      "This is a read token: it shows a notification's details and cannot decide a request.",
      "Use the notification's Approve / Reject button (its own token), or open the request in Perch.",
    );
  }
  const hash = tokenHash(token as string);
  if (actionTokenSpent(hub.db, hash)) {
    throw new HubError(
      'conflict',
      'This button was used already (an action token works once).',
      'Open the request in Perch to see its decision.',
      { request_id: claims.r },
    );
  }
  if (claims.e <= hub.now()) {
    throw new HubError('expired', 'This button has expired.', 'Open the request in Perch and decide it there.', { request_id: claims.r });
  }
  if (!deviceLive(claims.v)) {
    throw new HubError(
      'unauthorized',
      'The device this button was sent to is no longer paired.',
      'Pair the phone again: Settings → Phone on the laptop.',
    );
  }
  const request = hub.write(() => {
    if (!spendActionTokenRow(hub.db, hash, hub.now(), claims.e)) {
      throw new HubError(
        'conflict',
        'This button was used already (an action token works once).',
        'Open the request in Perch to see its decision.',
        { request_id: claims.r },
      );
    }
    // Decided on the phone the button was pushed to (a paired device, or the ntfy channel).
    const name = isNtfyDevice(claims.v) ? 'ntfy' : (deviceById(hub.db, claims.v)?.name ?? '');
    return decideRequest(
      hub,
      hub.ownerId,
      { request_id: claims.r, decision: claims.d as ActionDecision },
      { via: 'device', device_id: claims.v, name },
    );
  });
  return { claims, request };
}

/**
 * Checks a read token (MAC, kind, expiry, device: deviceLive as for spending) and answers its claims; it is not
 * spent. An action token here is refused (a button's token is for deciding, and only once).
 */
export function checkReadToken(hub: ActionTokensHub, token: unknown, deviceLive: (deviceId: string) => boolean): ActionTokenClaims {
  const claims = verifyActionToken(hub, token);
  if (claims.d !== 'read') {
    throw new HubError('unauthorized', "This is a button's action token, not a read token.", "Send the notification's read_token.");
  }
  if (claims.e <= hub.now()) {
    throw new HubError('expired', 'This notification is too old to fetch its details.', 'Open Perch to see it.', { tag: claims.r });
  }
  if (!deviceLive(claims.v)) {
    throw new HubError(
      'unauthorized',
      'The device this notification was sent to is no longer paired.',
      'Pair the phone again: Settings → Phone on the laptop.',
    );
  }
  return claims;
}
