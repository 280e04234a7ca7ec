// OpenCode's doors, POST /hook/opencode/<event> (tool-before, tool-after, event), behind the agent's key and the
// checks every harness door has (hook-door.ts admits the request and routes it here). What the plugin
// `perch connect opencode` writes posts, and what it reads back: shared/agents/opencode-wire.ts.
//   tool-before: the call is noted as the session's status (working, a feed row); a paused agent's call is blocked
//     with Perch's reason (its own Perch whoami and get_updates still run), and so is a shell command the owner's
//     standing deny rules cover. Answer {} or {"block": reason}; a block is recorded in the ledger (perch_decision).
//   tool-after: the call's result in the ledger (tool_result: the tool, its exit code and the head of its output).
//   event: session.created / session.idle / session.deleted / permission.asked → started / turn ended / ended /
//     waiting (OpenCode asks its user), the live status as for the other harnesses.
//   usage: one model call's tokens and cost in the cost ledger (api_request, once per step: a resent report adds
//     nothing): OpenCode's own dollars when it has a price for the model, else priced by the price table.
// permission-asked (OpenCode's own permission prompt, which the plugin answers through OpenCode's SDK client) is filed
// and decided as the other harnesses' permission prompts are, in hook-door.ts: a card, or a standing rule.
import type { PerchHub as Hub } from '../../hub/services';
import { StepAside, reportOf, type StatusHook } from '../../../shared/agents/hook-wire';
import {
  openCodeBlockJson,
  parseOpenCodeEvent,
  parseOpenCodeToolCall,
  parseOpenCodeUsage,
  type OpenCodeDoorEvent,
  type OpenCodeUsage,
} from '../../../shared/agents/harnesses/opencode-wire';
import { noteHarness, pauseExempt } from '../../hub/control/harness';
import { standingDenial } from '../../hub/features/requests/permission-rules';
import { recordPromptDecision } from '../../hub/features/ledger/decisions';
import { dedupeOf, recordFacts } from '../../hub/features/ledger/recorder';
import { LEDGER_TEXT } from '../../../shared/ledger/harness-events';
import type { HarnessReport } from '../../../shared/agents/harness';

function cut(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}

/** A status report of OpenCode's (the fields hook-wire.ts reportOf reads), noted; the hub's answer (paused or not). */
function note(hub: Hub, agentId: string, event: StatusHook, input: Record<string, unknown>) {
  return noteHarness(hub, agentId, reportOf(event, input, 'opencode') as unknown as HarnessReport);
}

/** The door's answer to the plugin (JSON text), or a StepAside for input that is not the plugin's. */
export async function openCodeAnswer(
  hub: Hub,
  agentId: string,
  event: Exclude<OpenCodeDoorEvent, 'permission-asked'>,
  text: string,
): Promise<string> {
  if (event === 'event') {
    const e = parseOpenCodeEvent(text);
    if (e) note(hub, agentId, e.event, e.input);
    return '{}';
  }
  if (event === 'usage') {
    recordUsage(hub, agentId, parseOpenCodeUsage(text));
    return '{}';
  }
  const call = parseOpenCodeToolCall(text);
  const ask = { session_id: call.session_id, tool_name: call.tool, tool_input: call.args, tool_use_id: call.call_id };
  if (event === 'tool-after') {
    recordResult(hub, agentId, call);
    return '{}';
  }
  const answer = note(hub, agentId, 'pre-tool-use', {
    session_id: call.session_id,
    cwd: call.cwd,
    tool_name: call.tool,
    tool_input: call.args,
  });
  // How a paused agent waits for the owner: its own Perch server's get_updates and whoami, no other server's.
  if (pauseExempt(hub, agentId, call.tool)) return '{}';
  if (answer.paused) {
    const reason = answer.message ?? 'Paused in Perch by the owner. Wait for the owner to resume this agent.';
    recordPromptDecision(hub, agentId, 'opencode', ask, { decision: 'deny', by: 'pause', why: reason });
    return openCodeBlockJson(reason);
  }
  const denied = await standingDenial(hub, agentId, {
    tool_name: call.tool,
    tool_input: call.args,
    cwd: call.cwd,
    session_id: call.session_id,
  });
  if (!denied) return '{}';
  const reason = `Denied by the owner in Perch: ${denied.comment}`;
  recordPromptDecision(hub, agentId, 'opencode', ask, {
    decision: 'deny',
    by: denied.ruleId ? 'rule' : 'nobody',
    ...(denied.ruleId ? { rule_id: denied.ruleId } : {}),
    why: reason,
  });
  return openCodeBlockJson(reason);
}

/** A finished tool call in the ledger, once per call (a resent report adds nothing). */
function recordResult(hub: Hub, agentId: string, call: ReturnType<typeof parseOpenCodeToolCall>): void {
  if (!call.session_id || !call.call_id) throw new StepAside('the tool-after report has no session_id or call_id');
  let asked: string | undefined;
  try {
    asked = cut(JSON.stringify(call.args), LEDGER_TEXT.askedChars);
  } catch {
    asked = undefined;
  }
  const head = call.output_head?.split('\n').slice(0, LEDGER_TEXT.outputLines).join('\n');
  const fact = {
    kind: 'tool_result' as const,
    harness: 'opencode' as const,
    at: hub.now(),
    session_id: cut(call.session_id, LEDGER_TEXT.idChars),
    call_id: cut(call.call_id, LEDGER_TEXT.idChars),
    tool: cut(call.tool, LEDGER_TEXT.idChars),
    model: null,
    detail: {
      ...(asked !== undefined ? { asked } : {}),
      ...(call.exit !== undefined ? { exit_code: call.exit, success: call.exit === 0 } : {}),
      ...(head ? { output_head: cut(head, LEDGER_TEXT.outputChars) } : {}),
    },
    tokens: null,
    cost_usd: null,
  };
  recordFacts(hub, agentId, [{ fact, dedupe: dedupeOf(JSON.stringify(['opencode', 'tool_result', call.session_id, call.call_id])) }]);
}

/**
 * One model call in the cost ledger. OpenCode's input and output leave out the cached and the reasoning tokens; the
 * ledger's output counts reasoning in (as the providers bill it). Its cost is kept as the harness's own when it has
 * one (OpenCode prices a model it knows); 0 means it knows no price, and the price table prices the tokens.
 */
function recordUsage(hub: Hub, agentId: string, u: OpenCodeUsage): void {
  const fact = {
    kind: 'api_request' as const,
    harness: 'opencode' as const,
    at: hub.now(),
    session_id: cut(u.session_id, LEDGER_TEXT.idChars),
    call_id: null,
    tool: null,
    model: u.model ? cut(u.model, LEDGER_TEXT.idChars) : null,
    detail: u.tokens.reasoning ? { reasoning_tokens: u.tokens.reasoning } : {},
    tokens: {
      input: u.tokens.input,
      output: u.tokens.output + u.tokens.reasoning,
      cache_read: u.tokens.cache_read,
      cache_write: u.tokens.cache_write,
    },
    cost_usd: u.cost > 0 ? u.cost : null,
  };
  recordFacts(hub, agentId, [{ fact, dedupe: dedupeOf(JSON.stringify(['opencode', 'usage', u.session_id, u.step_id])) }]);
}
