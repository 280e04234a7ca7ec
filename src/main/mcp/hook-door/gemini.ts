// Gemini CLI's hook door: POST /hook/gemini/<event>, what `perch connect gemini` points its command hooks at (one curl
// request each; the wire format in shared/agents/harnesses/gemini-wire.ts). Gemini has no hook that answers its own
// approval dialog (its BeforeTool runs after its approval policy, and a hook cannot approve), so Perch governs a call
// at BeforeTool, in this order:
//   1. the status is noted (working, the feed's tool line), as at any harness's pre-tool-use;
//   2. a paused agent's call is denied with the pause's reason, except its own Perch server's get_updates and whoami
//      (how a paused agent waits);
//   3. a tool of the agent's own Perch server goes on (the hub governs those calls itself);
//   4. the standing rules decide: a deny rule's call is denied with the rule, an allow rule's goes on;
//   5. with ?ask=1 (`perch connect gemini NAME --ask`), a shell command or file write no rule decided is filed as a
//      card in the Approvals inbox (the same filing as a permission prompt's: decide.ts) and waited for: approved, it
//      goes on; rejected, or no decision within the timeout, it is denied (nothing else would stop it under --yolo);
//   6. anything else goes on to Gemini's own approval.
// "Goes on" is {}: Gemini's own approval still applies after it. Denied is {"decision":"deny","reason"}, which Gemini
// honours even under --yolo. Every decision Perch made is recorded in the ledger (perch_decision); AfterTool records the
// call's result (tool_result), joined to it by a call id the door gives each BeforeTool. AfterAgent (the turn ended),
// SessionStart, SessionEnd and Notification are live status only.
import type { ServerResponse } from 'node:http';
import type { PerchHub as Hub } from '../../hub/services';
import type { RequestPlace } from '../../../shared/agents/places';
import type { RateLimiter } from '../../hub/core/rate-limit';
import { StepAside, filingOf, reportOf, type HookDecision, type StatusHook } from '../../../shared/agents/hook-wire';
import {
  GEMINI_ASK_TOOLS,
  geminiDenyJson,
  geminiToolForPause,
  geminiToolResult,
  isOwnGeminiTool,
  parseGeminiInput,
  type GeminiDoorEvent,
} from '../../../shared/agents/harnesses/gemini-wire';
import { isPaused } from '../../hub/control/control';
import { noteHarness, ownServerOf, pauseExempt } from '../../hub/control/harness';
import { rulesDecide } from '../../hub/features/requests/permission-rules';
import { recordPromptDecision } from '../../hub/features/ledger/decisions';
import { noteNewCallId, recordHookToolResult } from '../../hub/features/ledger/hook-results';
import type { PerchDecision } from '../../../shared/ledger/harness-events';
import type { Admitted } from './admit';
import { reportOfObject } from './report';
import { decide, nobody, recordAnswer } from './decide';

export interface GeminiHook {
  who: Admitted;
  at: RequestPlace | undefined;
  event: GeminiDoorEvent;
  text: string;
  /** ?ask=1: a shell command or file write no standing rule decides waits for the owner. */
  ask: boolean;
  timeoutSecs: number;
  signal: AbortSignal;
  limiter: RateLimiter;
}

/** Answers one Gemini hook on res (the JSON Gemini reads; the note: why, in the perch-hook-note header). */
export async function answerGemini(
  hub: Hub,
  res: ServerResponse,
  h: GeminiHook,
  send: (json: string, note?: string) => void,
): Promise<void> {
  const input = parseGeminiInput(h.text, h.event);
  const agentId = h.who.agentId;
  if (h.event === 'post-tool-use') {
    recordHookToolResult(hub, agentId, 'gemini', input, geminiToolResult(input));
    // Still working (a paused agent's session reports nothing to the owner).
    if (!isPaused(hub, agentId).paused)
      noteHarness(hub, agentId, { event: 'pre-tool-use', harness: 'gemini', session_id: str(input.session_id), cwd: str(input.cwd) });
    return send('{}');
  }
  const report = reportOfObject(reportOf(h.event as StatusHook, input, 'gemini'));
  if (typeof report === 'string') throw new StepAside(report);
  const answer = noteHarness(hub, agentId, report);
  if (h.event !== 'pre-tool-use') return send('{}');
  noteNewCallId(hub, agentId, 'gemini', input);
  const record = (perch: PerchDecision) => recordPromptDecision(hub, agentId, 'gemini', input, perch);
  if (answer.paused) {
    if (pauseExempt(hub, agentId, geminiToolForPause(input))) return send('{}', 'paused in Perch, but this is how a paused agent waits');
    const reason = answer.message ?? 'Paused in Perch by the owner. Wait for the owner to resume this agent.';
    record({ decision: 'deny', by: 'pause', why: reason });
    return send(geminiDenyJson(reason));
  }
  const own = ownServerOf(hub, agentId).name;
  if (isOwnGeminiTool(input, own)) return send('{}', `a tool of ${own}, Perch's own: the hub governs its calls`);
  const tool = input.tool_name as string;
  const rule = await rulesDecide(hub, agentId, {
    tool_name: tool,
    tool_input: input.tool_input,
    cwd: input.cwd,
    session_id: input.session_id,
  });
  if (rule) {
    record({ decision: rule.behavior, by: 'rule', rule_id: rule.ruleId });
    if (rule.behavior === 'deny') return send(geminiDenyJson(`Denied in Perch by the owner's ${rule.comment}`));
    return send('{}', `allowed by ${rule.comment}`);
  }
  if (!h.ask || !(GEMINI_ASK_TOOLS as readonly string[]).includes(tool))
    return send('{}', h.ask ? `${tool} is not one Perch asks about` : 'no standing rule decides it; Gemini decides');
  if (h.limiter.take(agentId) > 0) {
    const why = 'too many calls waiting for the owner at once';
    record({ decision: 'deny', by: 'nobody', why });
    return send(geminiDenyJson(`Not run: ${why} in Perch. Try again later.`), why);
  }
  const prompt = {
    hook_event_name: 'PermissionRequest' as const,
    tool_name: tool,
    tool_input: input.tool_input ?? {},
    ...(typeof input.session_id === 'string' ? { session_id: input.session_id } : {}),
    ...(typeof input.cwd === 'string' ? { cwd: input.cwd } : {}),
  };
  const v = await decide(hub, h.who, h.at, filingOf(prompt, 'gemini'), h.timeoutSecs, h.signal);
  const d: HookDecision | string = v.decision;
  if (typeof d === 'string') {
    // No decision (no answer in time, withdrawn, expired): under --yolo nothing else would stop it, so it is not run.
    const why = d.replace(/; the terminal dialog decides$/, '');
    record(v.perch ?? nobody(why, v.cardId));
    return send(geminiDenyJson(`Not run: the owner's approval in Perch is needed, and ${why}.`), why);
  }
  if (d.behavior === 'deny') send(geminiDenyJson(d.message));
  else send('{}', 'approved by the owner in Perch');
  if (v.requestId) recordAnswer(hub, res, v.requestId);
  record(v.perch ?? nobody(d, v.cardId));
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
