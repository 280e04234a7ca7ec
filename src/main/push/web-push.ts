// Sending one Web Push message (RFC 8030) with the `web-push` package: the payload is encrypted to the phone's
// subscription keys (RFC 8291, aes128gcm) and signed for the push service with the hub's VAPID key (RFC 8292).
// The push service (FCM, Mozilla, Apple) sees only the encrypted body, its size, its timing and the VAPID key.
// hub/notify.ts decides what to send and to whom; this file only speaks to the push service.
import crypto from 'node:crypto';
import webpush from 'web-push';

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

/** How long one push may take before it counts as failed. */
const PUSH_TIMEOUT_MS = 10_000;

/** A topic is at most 32 base64url characters: the tag's hash. */
export function pushTopic(tag: string): string {
  return crypto.createHash('sha256').update(tag).digest('base64url').slice(0, 32);
}

/** The web-push package's sender (https.request to the subscription's endpoint). */
export const sendWebPush: WebPushSend = async (target, payload, opts) => {
  try {
    await webpush.sendNotification({ endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } }, payload, {
      vapidDetails: opts.vapid,
      TTL: opts.ttlSecs,
      urgency: 'high',
      contentEncoding: 'aes128gcm',
      timeout: PUSH_TIMEOUT_MS,
      ...(opts.topic ? { topic: opts.topic } : {}),
    });
    return { outcome: 'sent' };
  } catch (err) {
    const status = (err as { statusCode?: unknown }).statusCode;
    if (status === 404 || status === 410) return { outcome: 'gone', status };
    const detail = typeof status === 'number' ? `the push service answered ${status}` : err instanceof Error ? err.message : String(err);
    return { outcome: 'failed', detail: detail.slice(0, 300) };
  }
};

/** A new VAPID key pair (base64url: the public key is the uncompressed P-256 point browsers take as applicationServerKey). */
export function generateVapidKeys(): { publicKey: string; privateKey: string } {
  return webpush.generateVAPIDKeys();
}
