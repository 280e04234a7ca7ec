// How a harness door has the owner decide a prompt: filed as POST /hook files one (the agent's request_human, door
// 'hook', so standing rules apply), joined to the card another hook of the same prompt filed, then waited for up to the
// door's timeout; the verdict says the decision or why there is none, and the ledger's record of who decided.
import type { ServerResponse } from 'node:http';
import type { PerchHub as Hub } from '../../hub/services';
import type { RequestPlace } from '../../../shared/agents/places';
import { LIMITS } from '../../../shared/limits';
import { StepAside, pausedPromptMessage, type HookDecision } from '../../../shared/agents/hook-wire';
import { keyStanding } from '../../hub/identity/key-login';
import { pauseExempt } from '../../hub/control/harness';
import { isHubError } from '../../../shared/errors';
import { callAgentTool } from '../../hub/tools/tools';
import { promptRequestInput } from '../../hub/features/requests/permission-rules';
import { recordDelivery, withdrawUnanswered } from '../../hub/features/requests/abandoned-prompts';
import { awaitJoinedPrompt } from '../../hub/features/requests/prompt-joins';
import { getRequestForOwner } from '../../hub/features/requests/owner-decisions';
import { perchDecisionOf } from '../../hub/features/ledger/decisions';
import type { PerchDecision } from '../../../shared/ledger/harness-events';
import { parsePromptFiling } from '../../../shared/api/prompt-filing';
import type { Admitted } from './admit';

/**
 * Files the prompt as POST /hook does (the hub builds title and context: promptRequestInput; door 'hook', so standing
 * rules apply), then waits for the owner: the decision, or why there is none (the harness's own dialog decides).
 */
export async function decide(
  hub: Hub,
  who: Admitted,
  at: RequestPlace | undefined,
  raw: Record<string, unknown>,
  timeoutSecs: number,
  signal: AbortSignal,
  opts: { joinKey?: string } = {},
): Promise<Verdict> {
  const filing = parsePromptFiling({ ...raw, ttl_secs: timeoutSecs + 60 });
  if (typeof filing === 'string') throw new StepAside(filing);
  const caller = { key: who.auth, standing: keyStanding(hub, who.key, who.agentId, at), at };
  const deadline = Date.now() + timeoutSecs * 1000;
  // Built first (it waits for the shell parser in a hub's first moments): from the join check below to the filing
  // nothing waits, so a second hook for the same prompt always finds the first one's card.
  const asked = await promptRequestInput(hub, who.agentId, filing);
  const title = asked.title;
  // Another hook of this agent already filed this very prompt of the session and waits for it: this one joins its card.
  const waits = hub.services.promptWaits;
  let joined = opts.joinKey ? waits.joinable(opts.joinKey) : undefined;
  // ... or is filing it right now (both hooks waited for the shell parser, say): this one joins the card it files.
  const inFlight = !joined && opts.joinKey ? waits.filing(opts.joinKey) : undefined;
  if (inFlight) {
    const id = await inFlight;
    joined = id !== undefined && waits.joinable(opts.joinKey!) === id ? id : undefined;
  }
  if (joined) {
    await awaitJoinedPrompt(hub, joined, deadline, signal);
    const r = getRequestForOwner(hub, joined);
    const decision = decisionOf(r as unknown as Record<string, unknown>);
    if (decision) return { decision, requestId: joined, cardId: joined, perch: perchDecisionOf(hub, joined) };
    return { decision: `the request was ${r.state} in Perch; the terminal dialog decides`, title: r.title, cardId: joined };
  }
  const filed = opts.joinKey ? waits.startFiling(opts.joinKey) : undefined;
  try {
    let r = (await callAgentTool(hub, who.agentId, 'request_human', asked, {
      ...caller,
      door: 'hook',
    })) as Record<string, unknown>;
    const requestId = r.request_id as string;
    // This hook waits for the prompt from now on: while it does, the owner may decide it (prompt-waits.ts).
    const release = waits.hold(requestId, signal, opts.joinKey);
    filed?.(requestId);
    try {
      for (let waited = false; ; waited = true) {
        const decision = decisionOf(r);
        // Decided while this hook waited: that decision is awaiting delivery (recorded once the answer is out).
        if (decision) return { decision, ...(waited ? { requestId } : {}), cardId: requestId, perch: perchDecisionOf(hub, requestId) };
        if (r.state !== 'pending' || signal.aborted)
          return { decision: `the request was ${String(r.state)} in Perch; the terminal dialog decides`, title, cardId: requestId };
        const left = Math.floor((deadline - Date.now()) / 1000);
        if (left <= 0) break;
        // get_request withdraws the prompt when the signal fires while it waits (hub/features/requests/requests.ts getRequest, abandoned-prompts.ts).
        r = (await callAgentTool(
          hub,
          who.agentId,
          'get_request',
          { request_id: requestId, wait_secs: Math.min(left, LIMITS.waitAnswerSecs) },
          { ...caller, signal },
        )) as Record<string, unknown>;
      }
      // No decision in time: the prompt leaves the Approvals inbox, its card saying why (unless a hook that joined it
      // still waits), and the harness's own dialog decides.
      release();
      if (!waits.isWaited(requestId))
        withdrawUnanswered(hub, requestId, `no decision within ${timeoutSecs} s; the harness's own dialog decides`);
    } finally {
      release();
    }
    return { decision: `no decision within ${timeoutSecs} s; the terminal dialog decides`, title, cardId: requestId };
  } catch (e) {
    if (isHubError(e) && e.code === 'paused') {
      // The paused agent's own Perch get_updates / whoami is not the pause's to deny (as at PreToolUse): the harness decides.
      if (pauseExempt(hub, who.agentId, filing.tool_name))
        return { decision: `paused in Perch, but ${filing.tool_name} is how a paused agent waits; the harness decides`, title };
      const message = pausedPromptMessage((e.details ?? {}) as Record<string, unknown>);
      return { decision: { behavior: 'deny', message }, perch: { decision: 'deny', by: 'pause', why: message } };
    }
    if (isHubError(e)) throw new StepAside(`${e.code}: ${e.message}`);
    throw e;
  } finally {
    filed?.(undefined);
  }
}

/** What a prompt's state tells the harness: allow, deny with the owner's comment, or nothing yet. */
export function decisionOf(r: Record<string, unknown>): HookDecision | undefined {
  if (r.state === 'approved') return { behavior: 'allow' };
  if (r.state !== 'rejected') return undefined;
  const comment = (r.outcome as { comment?: unknown } | undefined)?.comment;
  return {
    behavior: 'deny',
    message: typeof comment === 'string' && comment ? `Denied by the owner in Perch: ${comment}` : 'Denied by the owner in Perch.',
  };
}

/**
 * The door's verdict on a prompt: a decision or why there is none; requestId when the decision awaits delivery;
 * title: the card's, when one was filed (the no-decision answer names it).
 */
export interface Verdict {
  decision: HookDecision | string;
  requestId?: string;
  title?: string;
  /** The card filed (or joined) for the prompt; perch: who decided it, for the ledger (else nobody: nobody()). */
  cardId?: string;
  perch?: PerchDecision;
}

/** The ledger's word for a prompt Perch did not decide: the harness's own dialog did (why: the door's reason). */
export function nobody(d: HookDecision | string, cardId: string | undefined): PerchDecision {
  const why = typeof d === 'string' ? d : 'decided outside Perch';
  return { decision: 'none', by: 'nobody', why, ...(cardId ? { request_id: cardId } : {}) };
}

/** Records whether the answer carrying a decision reached the hook: written out (delivered), or the connection closed first. */
export function recordAnswer(hub: Hub, res: ServerResponse, requestId: string): void {
  if (res.writableFinished) return recordDelivery(hub, requestId, 'delivered');
  if (res.destroyed) return recordDelivery(hub, requestId, 'undelivered');
  res.once('finish', () => recordDelivery(hub, requestId, 'delivered'));
  res.once('close', () => {
    if (!res.writableFinished) recordDelivery(hub, requestId, 'undelivered');
  });
}
