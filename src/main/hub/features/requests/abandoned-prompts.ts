// Hook prompts whose asker is gone are withdrawn, so nobody decides what nobody waits for.
// The harness hook door files the harness's prompt and waits for it in get_request under the caller's connection
// (POST /hook/<harness>/permission-request: src/main/mcp/hook-door.ts, what `perch hook permission-request` posts to);
// when that wait goes away (the hook was killed, the hub stopped) the harness has already shown its own dialog and
// will never read a decision. Such a prompt is withdrawn (cancelled, saying why) as soon as its waiting call's
// connection closes, and at start for every one filed before it: approving it afterwards is refused.
// A prompt relayed by `perch channel` (context.via "channel") is not: the channel outlives hub restarts.
import { finishRequest, pendingRequests, requestById, type RequestRow } from '../../../store/tables/talk/requests';
import { PERMISSION_PROMPT_SOURCE } from '../../../../shared/features/permission-prompts';
import type { RequestsHub } from './request-expiry';

export const HOOK_GONE = 'the harness stopped waiting (its hook went away); its own dialog decides';
const HUB_RESTARTED = 'the harness stopped waiting (the hub restarted while it waited); its own dialog decides';

/** An agent's own permission prompt: how it came (a hook, or relayed by `perch channel`), or undefined if it is none. */
function promptVia(r: Pick<RequestRow, 'context'>): 'hook' | 'channel' | undefined {
  if (!r.context) return undefined;
  let ctx: unknown;
  try {
    ctx = JSON.parse(r.context);
  } catch {
    return undefined;
  }
  const c = ctx as { source?: unknown; via?: unknown } | null;
  if (!c || typeof c !== 'object' || c.source !== PERMISSION_PROMPT_SOURCE) return undefined;
  return c.via === 'channel' ? 'channel' : 'hook';
}

/** Whether a request is an agent's own permission prompt filed by its hook (not relayed by the channel). */
export function isHookPrompt(r: Pick<RequestRow, 'context'>): boolean {
  return promptVia(r) === 'hook';
}

/** Whether a request is an agent's own permission prompt relayed by `perch channel`. */
export function isRelayedPrompt(r: Pick<RequestRow, 'context'>): boolean {
  return promptVia(r) === 'channel';
}

/** Withdraws a pending request nobody waits for: cancelled, by its requester, with why (the card shows it). */
export function withdrawPrompt(hub: RequestsHub, r: RequestRow, why: string): RequestRow {
  try {
    hub.write(() => {
      if (
        !finishRequest(hub.db, r.id, { state: 'cancelled', outcome: JSON.stringify({ withdrawn: why }), at: hub.now(), by: r.requester_id })
      )
        return;
      hub.emit(r.conv_id, 'request.cancelled', r.requester_id, {
        msgId: r.msg_id,
        data: { request_id: r.id, state: 'cancelled' },
        wake: [],
      });
    });
    hub.services.requestExpiry.armSoon();
  } catch {
    // the disk is full or the hub is closing: the prompt expires on time instead
  }
  return requestById(hub.db, r.id) ?? r;
}

/** At start: every hook prompt still pending was filed before this hub, and its hook's wait ended with the last one. */
export function withdrawOrphanedPrompts(hub: RequestsHub): number {
  let n = 0;
  for (const r of pendingRequests(hub.db)) {
    if (isHookPrompt(r) && withdrawPrompt(hub, r, HUB_RESTARTED).state === 'cancelled') n++;
  }
  return n;
}
