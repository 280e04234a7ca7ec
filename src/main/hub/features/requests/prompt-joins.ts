// Two hooks for one prompt: a harness session covered by two of an agent's connections (a user-scope and a
// project-scope one) runs both connections' PermissionRequest hooks for the same prompt. The first files the card; the
// second joins it instead of filing another, and both hooks get the owner's one decision. Two hooks are for the same
// prompt when they come from the same agent and name the same harness session and tool call (tool_use_id, when the
// harness sends one) with the same tool and input, so a joining hook is never allowed anything the owner was not shown.
// Never across agents: another agent's hook (two agents' connections covering one folder are settled by
// mcp/session-owner.ts; a hook that still arrives, or one that copied the ids) files its own card through its own
// agent's gates (paused, archived, rules), and the owner's decision on the first agent's card is never its answer.
// Only while the first card is pending and a hook of this hub waits for it (prompt-waits.ts).
import { createHash } from 'node:crypto';
import { requestById, type RequestRow } from '../../../store/tables/talk/requests';
import { expireDueRequests, type RequestsHub } from './request-expiry';
import { HOOK_GONE, withdrawPrompt } from './abandoned-prompts';

const NO_DECISION_IN_TIME = "no decision in time; the harness's own dialog decides";

/** Which prompt of which agent's harness session a hook's input is, or undefined when it names no session (then it never joins). */
export function promptJoinKey(
  harness: string,
  agentId: string,
  input: { session_id?: unknown; tool_use_id?: unknown; tool_name?: unknown; tool_input?: unknown },
): string | undefined {
  if (typeof input.session_id !== 'string' || !input.session_id) return undefined;
  let what: string;
  try {
    what = JSON.stringify([input.tool_name, input.tool_input ?? null]);
  } catch {
    return undefined; // an input that cannot be written out whole is not compared
  }
  const call = typeof input.tool_use_id === 'string' ? input.tool_use_id : '';
  return createHash('sha256')
    .update(JSON.stringify([agentId, harness, input.session_id, call, what]))
    .digest('base64url');
}

/**
 * A second hook for a prompt another hook filed: waits with it (no polling: woken with the requester, as an observer)
 * until the prompt is decided or ended, the time is up (untilMs, on Date.now) or the hook goes away (signal). When it
 * leaves and no other hook waits any more, the prompt is withdrawn. Returns the request as it stands then.
 */
export async function awaitJoinedPrompt(hub: RequestsHub, requestId: string, untilMs: number, signal: AbortSignal): Promise<RequestRow> {
  const waits = hub.services.promptWaits;
  const release = waits.hold(requestId, signal);
  try {
    for (;;) {
      expireDueRequests(hub);
      const r = requestById(hub.db, requestId)!;
      if (r.state !== 'pending') return r;
      const left = untilMs - Date.now();
      if (left <= 0 || signal.aborted) {
        release();
        return waits.isWaited(requestId) ? r : withdrawPrompt(hub, r, signal.aborted ? HOOK_GONE : NO_DECISION_IN_TIME);
      }
      await hub.bus.wait(r.requester_id, Math.max(1, Math.min(left, r.expires_at - hub.now() + 1)), signal, true);
    }
  } finally {
    release();
  }
}
