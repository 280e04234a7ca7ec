// What hub/phone/notify.ts needs of a push channel, and nothing of how it is done: the senders (src/main/push/*: Web Push
// with the web-push package, ntfy over HTTP) implement these and app.ts hands them in, as it hands wake runs their
// launcher. The hub decides what to send and to whom; it never speaks HTTP itself.
import crypto from 'node:crypto';

// ---- Web Push ----

export interface VapidDetails {
  subject: string;
  publicKey: string;
  privateKey: string;
}

export interface WebPushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
}

export interface WebPushOptions {
  vapid: VapidDetails;
  /** How long the push service keeps an undelivered message (seconds). */
  ttlSecs: number;
  /** A later message with the same topic replaces an undelivered earlier one (a clear replaces its notice). */
  topic?: string;
}

/** sent; gone: the push service answered 404/410 (the subscription is dead: drop it); failed: anything else. */
export type WebPushResult = { outcome: 'sent' } | { outcome: 'gone'; status: number } | { outcome: 'failed'; detail: string };

export type WebPushSend = (target: WebPushTarget, payload: string, opts: WebPushOptions) => Promise<WebPushResult>;

/**
 * The Web Push services a subscription's endpoint may name (the hub POSTs to it): FCM (Chrome, Android, Edge on
 * Android), Mozilla (Firefox), Apple (Safari) and Windows (Edge), on the default https port. Anything else would let a
 * paired phone make the hub send requests wherever it likes (into the LAN), so it is refused when subscribing.
 * loopback: also 127.0.0.1 / localhost / [::1] on any port (a test push service; PERCH_TEST_LOOPBACK_PUSH=1).
 */
export const PUSH_SERVICE_HOSTS: readonly string[] = [
  'fcm.googleapis.com',
  '*.push.services.mozilla.com',
  '*.push.apple.com',
  '*.notify.windows.com',
];

export function isKnownPushService(endpoint: string, loopback: boolean): boolean {
  let u: URL;
  try {
    u = new URL(endpoint);
  } catch {
    return false;
  }
  if (u.protocol !== 'https:' || u.username || u.password) return false;
  const host = u.hostname.toLowerCase();
  if (loopback && (host === '127.0.0.1' || host === 'localhost' || host === '[::1]')) return true;
  if (u.port !== '') return false;
  return PUSH_SERVICE_HOSTS.some((h) => (h.startsWith('*.') ? host.endsWith(h.slice(1)) && host.length > h.length - 1 : host === h));
}

/** A topic is at most 32 base64url characters: the tag's hash. */
export function pushTopic(tag: string): string {
  return crypto.createHash('sha256').update(tag).digest('base64url').slice(0, 32);
}

// ---- ntfy ----

export interface NtfyAction {
  label: string;
  /** The public URL's /api/device/action. */
  url: string;
  token: string;
}

export interface NtfyMessage {
  server: string;
  topic: string;
  title: string;
  message: string;
  tags: string[];
  /** What a tap opens. */
  click: string | null;
  actions: NtfyAction[];
}

export type NtfyResult = { outcome: 'sent' } | { outcome: 'failed'; detail: string };
export type NtfySend = (msg: NtfyMessage) => Promise<NtfyResult>;
