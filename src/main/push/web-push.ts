// Sending one Web Push message (RFC 8030) with the `web-push` package: the payload is encrypted to the phone's
// subscription keys (RFC 8291, aes128gcm) and signed for the push service with the hub's VAPID key (RFC 8292).
// The push service (FCM, Mozilla, Apple) sees only the encrypted body, its size, its timing and the VAPID key.
// hub/phone/notify.ts decides what to send and to whom; this file only speaks to the push service.
import type { WebPushSend } from '../hub/phone/push-senders';

// Loaded on the first push, not at start: evaluating web-push (and its crypto/ASN.1 dependencies) takes tens of ms,
// and a hub without paired phones never needs it (cold start matters: see docs/performance.md).
let webpushModule: Promise<typeof import('web-push')> | undefined;
const loadWebPush = () =>
  (webpushModule ??= import('web-push').then((m) => (m as unknown as { default?: typeof import('web-push') }).default ?? m));

/** How long one push may take before it counts as failed. */
const PUSH_TIMEOUT_MS = 10_000;

/** The web-push package's sender (https.request to the subscription's endpoint). */
export const sendWebPush: WebPushSend = async (target, payload, opts) => {
  try {
    const webpush = await loadWebPush();
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
