// The optional ntfy channel (https://ntfy.sh or the owner's own server): one JSON publish to the server root.
// NOT end-to-end encrypted: the ntfy server reads the title and message (opaque mode sends a fixed line instead, with
// no buttons). Approve / Reject are ntfy "http" action buttons that POST a single-use action token to the hub's
// public URL; the token is bound to the ntfy setting it was sent for (hub/phone/notify.ts).
import type { NtfyMessage, NtfySend } from '../hub/phone/push-senders';

const NTFY_TIMEOUT_MS = 10_000;

/** The JSON body ntfy takes at its root (https://docs.ntfy.sh/publish/#publish-as-json). */
export function ntfyBody(msg: NtfyMessage): Record<string, unknown> {
  const body: Record<string, unknown> = { topic: msg.topic, title: msg.title, message: msg.message, tags: msg.tags };
  if (msg.click) body.click = msg.click;
  if (msg.actions.length) {
    body.actions = msg.actions.map((a) => ({
      action: 'http',
      label: a.label,
      url: a.url,
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: a.token }),
      clear: true,
    }));
  }
  return body;
}

export const sendNtfy: NtfySend = async (msg) => {
  try {
    const res = await fetch(msg.server.replace(/\/+$/, '') + '/', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(ntfyBody(msg)),
      signal: AbortSignal.timeout(NTFY_TIMEOUT_MS),
    });
    await res.arrayBuffer().catch(() => undefined);
    return res.ok ? { outcome: 'sent' } : { outcome: 'failed', detail: `the ntfy server answered ${res.status}` };
  } catch (err) {
    return { outcome: 'failed', detail: (err instanceof Error ? err.message : String(err)).slice(0, 300) };
  }
};
