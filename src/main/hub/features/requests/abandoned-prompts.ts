// Hook prompts whose asker is gone are withdrawn, so nobody decides what nobody waits for.
// The harness hook door files the harness's prompt and waits for it in get_request under the caller's connection
// (POST /hook/<harness>/permission-request: src/main/mcp/hook-door.ts, what `perch hook permission-request` posts to);
// when that wait goes away (the hook was killed, the hub stopped) the harness has already shown its own dialog and
// will never read a decision. Such a prompt is withdrawn (cancelled, saying why) as soon as its waiting call's
// connection closes, and at start for every one filed before it: approving it afterwards is refused.
// A prompt relayed by `perch channel` (context.via "channel") is not: the channel outlives hub restarts.
// A withdrawal the disk had no room for is written once it has (retryUnwritten); until then, and whenever no hook of
// this hub waits for a prompt (prompt-waits.ts), deciding it is refused (refuseUnwaited).
import {
  finishRequest,
  pendingRequests,
  promptsAwaitingDelivery,
  requestById,
  setPromptDelivery,
  type RequestRow,
} from '../../../store/tables/talk/requests';
import { HubError } from '../../../../shared/errors';
import { noteWaitingInDialog } from '../../control/harness';
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
    hub.services.promptWaits.unwrittenWithdrawals.delete(r.id);
    hub.services.requestExpiry.armSoon();
  } catch (err) {
    if (!hub.storageFailure(err)) throw err;
    // The disk is full: kept, and written as soon as it can be; meanwhile nobody may decide it (refuseUnwaited).
    hub.services.promptWaits.unwrittenWithdrawals.set(r.id, why);
    retrySoon(hub);
  }
  return requestById(hub.db, r.id) ?? r;
}

/** The hook door gave up on a prompt (no decision in time): withdrawn, saying why, if still pending. */
export function withdrawUnanswered(hub: RequestsHub, requestId: string, why: string): void {
  const r = requestById(hub.db, requestId);
  if (r?.state === 'pending') withdrawPrompt(hub, r, why);
}

/** At start: every hook prompt still pending was filed before this hub, and its hook's wait ended with the last one. */
export function withdrawOrphanedPrompts(hub: RequestsHub): number {
  let n = 0;
  for (const r of pendingRequests(hub.db)) {
    if (!isHookPrompt(r) || withdrawPrompt(hub, r, HUB_RESTARTED).state !== 'cancelled') continue;
    n++;
    // Its harness now asks in its own dialog: the agent's session waits for its user (Fleet says so until a hook speaks).
    const ctx = JSON.parse(r.context!) as Record<string, unknown>;
    noteWaitingInDialog(hub, r.requester_id, { harness: ctx.harness, session_id: ctx.session_id, cwd: ctx.cwd, title: r.title });
  }
  return n;
}

/**
 * Whether the owner may decide this request now as far as its asker goes: a hook door's prompt (door 'hook', not
 * relayed by the channel) only while a hook of this hub waits for it. One nobody waits for is withdrawn (or kept to be
 * withdrawn once the disk has room) and the decision refused, saying why: approving it would tell nobody.
 */
export function refuseUnwaited(hub: RequestsHub, r: RequestRow): void {
  if (r.state !== 'pending' || r.door !== 'hook' || !isHookPrompt(r) || hub.services.promptWaits.isWaited(r.id)) return;
  const waits = hub.services.promptWaits;
  const why = waits.unwrittenWithdrawals.get(r.id) ?? HOOK_GONE;
  let now = r;
  if (!hub.db.inTransaction) now = withdrawPrompt(hub, r, why);
  else {
    // Inside the caller's transaction (a phone button), which this refusal rolls back: withdrawn right after.
    waits.unwrittenWithdrawals.set(r.id, why);
    retrySoon(hub);
  }
  const withdrawn = now.state === 'cancelled' ? (JSON.parse(now.outcome ?? '{}') as { withdrawn?: unknown }).withdrawn : why;
  throw new HubError(
    'conflict',
    `Request ${r.id} was withdrawn: ${typeof withdrawn === 'string' ? withdrawn : why}.`,
    'Nothing to decide: nobody waits for this decision any more.',
  );
}

/** Writes again what a full disk refused (withdrawals, deliveries), until it is written or no longer applies. */
export function retryUnwritten(hub: RequestsHub): void {
  const waits = hub.services.promptWaits;
  for (const [id, why] of [...waits.unwrittenWithdrawals]) {
    const r = requestById(hub.db, id);
    if (!r || r.state !== 'pending') waits.unwrittenWithdrawals.delete(id);
    else withdrawPrompt(hub, r, why);
  }
  for (const [id, to] of [...waits.unwrittenDeliveries]) recordDelivery(hub, id, to);
  if (waits.unwrittenWithdrawals.size || waits.unwrittenDeliveries.size) retrySoon(hub);
}

function retrySoon(hub: RequestsHub): void {
  hub.services.promptWaits.retrySoon(
    () => retryUnwritten(hub),
    (stop) => hub.onClose(stop),
  );
}

// ---- delivery: whether the waiting hook got the decision -------------------------------------------------------------
// A hook door's prompt decided while its hook waits is recorded as awaiting delivery (outcome.delivery, in the same
// write as the decision: owner-decisions.ts, a standing rule at filing in requests.ts); the door records 'delivered'
// once its answer is written to the hook, or 'undelivered' when the hook's connection closed first. The hub stopped
// between the two (a crash, a kill): at start the prompt is marked undelivered, and its card says the harness's own
// dialog decided, whatever the owner chose.

/** The outcome to store for a decision of r: with delivery awaited when a hook of this hub waits for it. */
export function outcomeToStore(hub: RequestsHub, r: Pick<RequestRow, 'id' | 'door' | 'context'>, outcome: object): string {
  const awaited = r.door === 'hook' && isHookPrompt(r) && hub.services.promptWaits.isWaited(r.id);
  return JSON.stringify(awaited ? { ...outcome, delivery: 'awaiting' } : outcome);
}

/** The hook door answered (delivered) or lost its hook first (undelivered); a full disk: written later. */
export function recordDelivery(hub: RequestsHub, requestId: string, to: 'delivered' | 'undelivered'): void {
  try {
    hub.write(() => setPromptDelivery(hub.db, requestId, 'awaiting', to));
    hub.services.promptWaits.unwrittenDeliveries.delete(requestId);
  } catch (err) {
    if (!hub.storageFailure(err)) throw err;
    hub.services.promptWaits.unwrittenDeliveries.set(requestId, to);
    retrySoon(hub);
  }
}

/** At start: a decision still awaiting delivery never reached its hook (the hub stopped first). Returns how many. */
export function markUndeliveredPrompts(hub: RequestsHub): number {
  let n = 0;
  for (const r of promptsAwaitingDelivery(hub.db)) {
    try {
      if (hub.write(() => setPromptDelivery(hub.db, r.id, 'awaiting', 'undelivered'))) n++;
    } catch (err) {
      if (!hub.storageFailure(err)) throw err;
      hub.services.promptWaits.unwrittenDeliveries.set(r.id, 'undelivered');
      retrySoon(hub);
    }
  }
  return n;
}
