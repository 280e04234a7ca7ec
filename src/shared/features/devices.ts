// Phone approvals: paired devices, pairing, remote access through an HTTPS front, push settings.
// Pure TypeScript: no Node, no DOM. The shapes every door shows (owner API, device door, UI, CLI).

/**
 * What a paired device may do. approvals (the default): the approvals inbox only; full: the owner's actions except
 * the laptop-only ones. Each owner action says which devices may call it (its `device` in shared/api/owner-api.ts:
 * approvals, full or laptop); anything else answers 403 forbidden (and is written to the device audit list).
 */
/** What `perch serve` and Settings → Phone say of a public URL that is http:, not https: (it is allowed, but phones need https). */
export const HTTP_PUBLIC_URL_NOTE = 'phones need https for the app and notifications (tailscale serve gives you https)';

export const DEVICE_SCOPES = ['approvals', 'full'] as const;
export type DeviceScope = (typeof DEVICE_SCOPES)[number];

/** A pairing code lives 5 minutes and works once. */
export const PAIRING_TTL_MS = 5 * 60 * 1000;
/** How many paired devices one hub keeps (live, not revoked). */
export const MAX_DEVICES = 20;
export const MAX_DEVICE_NAME_CHARS = 60;

/** A paired device as the owner lists it (the credential itself is never shown again). */
export interface DeviceView {
  id: string;
  name: string;
  scope: DeviceScope;
  /** Last 4 characters of its credential, to tell two devices apart. */
  token_hint: string;
  created_at: number;
  last_used_at: number | null;
  revoked: boolean;
  revoked_at: number | null;
  /** Whether it has a Web Push subscription. */
  push: boolean;
}

export type PairingState = 'waiting' | 'claimed' | 'confirmed' | 'expired' | 'cancelled';

/** A pairing as the laptop sees it while it runs. */
export interface PairingView {
  pairing_id: string;
  state: PairingState;
  /** The name the owner gave when starting (the phone may suggest its own; the owner's wins when given). */
  name: string;
  scope: DeviceScope;
  expires_at: number;
  /** Set once a phone claimed the code: the short phrase both screens show, and the name the phone sent. */
  phrase: string | null;
  device_name: string | null;
  /** Set once confirmed. */
  device: DeviceView | null;
}

/** What devices.pair_start answers: the link the QR code carries (the code is in its fragment). */
export interface PairingStart {
  pairing: PairingView;
  url: string;
  /** The QR code of url, as an SVG document (show it as an <img src="data:image/svg+xml,…">). */
  qr_svg: string;
}

/** One line of the device audit list: every call a device made through the front, allowed or refused. */
export interface DeviceAuditEntry {
  id: number;
  at: number;
  device_id: string | null;
  device_name: string;
  /** The owner action, or pair.claim / pair.wait / push.subscribe / push.unsubscribe / action (a push button) / notice (a read token). */
  action: string;
  /** What it acted on (request id, conversation id…), if anything. */
  target: string | null;
  /** ok, or refused:<error code>. */
  outcome: string;
  /**
   * null: one call. A number: a tally of refusals from callers without a device credential (junk pairing claims,
   * tokens that do not verify …) with this action and outcome in the 10 minutes from `at`; they are counted, not
   * written one by one, and kept apart from the devices' own entries, so they never push those out.
   */
  count: number | null;
}

/**
 * What a push carries: a short summary (default) or only ids and a generic line, with a read token the phone's
 * service worker uses to fetch the summary from the hub through the front (DEVICE_NOTICE_PATH).
 */
export const PUSH_CONTENT = ['summary', 'ids'] as const;
export type PushContent = (typeof PUSH_CONTENT)[number];

export interface NtfySettings {
  /** e.g. https://ntfy.sh or the owner's own server. */
  server: string;
  topic: string;
  /** Send an opaque line ("Perch needs you") instead of the summary. */
  opaque: boolean;
}

/** Phone settings (phone.get / phone.set). */
export interface PhoneSettings {
  /** The HTTPS front's URL (tailscale serve), e.g. https://laptop.tail1234.ts.net; null: no remote access. */
  public_url: string | null;
  push_content: PushContent;
  ntfy: NtfySettings | null;
  /** The Web Push application server key (VAPID public key, base64url), made once per install. */
  vapid_public_key: string;
}

/** The device door's paths (no owner session: the phone's own credential, or none while pairing). */
export const DEVICE_API_PREFIX = '/api/device/';
/** POST {code, device_name} → {pairing_id, phrase, claim_secret, expires_at, device_name: the name it will be paired as (the owner's, if the laptop named it)}; a used or expired code → 410. */
export const DEVICE_PAIR_CLAIM_PATH = '/api/device/pair/claim';
/** POST {pairing_id, claim_secret, wait_secs?} → {state} and, once confirmed (only once), {device_token, device}. */
export const DEVICE_PAIR_WAIT_PATH = '/api/device/pair/wait';
/** GET with the device bearer → {device, allowed_actions, vapid_public_key}. */
export const DEVICE_ME_PATH = '/api/device/me';
/** POST {endpoint, keys: {p256dh, auth}} with the device bearer: the device's one push subscription (replaces). */
export const DEVICE_PUSH_SUBSCRIBE_PATH = '/api/device/push/subscribe';
/** POST with the device bearer: drop the device's push subscription. */
export const DEVICE_PUSH_UNSUBSCRIBE_PATH = '/api/device/push/unsubscribe';
/** POST {token}: a push button's single-use action token decides a request (first decision wins; replay → 409). */
export const DEVICE_ACTION_PATH = '/api/device/action';
/**
 * POST {token}: a notice's read token (push content 'ids': the push carries only ids) → {notice: {tag, kind, title,
 * body, url, state, request_id?}}, the summary as it stands now (state: a request's state, so a decided one shows
 * as decided). No bearer (the token is bound to the device and the notice); it is not spent and decides nothing.
 */
export const DEVICE_NOTICE_PATH = '/api/device/notice';
/** The UI's pairing page: /pair#<code>. */
export const DEVICE_PAIR_PAGE = '/pair';
/** Where the phone's UI keeps its device credential. */
export const DEVICE_TOKEN_STORAGE_KEY = 'perch.device.token';
