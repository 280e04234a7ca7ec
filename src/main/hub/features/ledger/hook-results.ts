// A tool call's result as a harness's own after-tool hook reports it (Gemini CLI's AfterTool, through its hook door:
// mcp/hook-door/gemini.ts), in the flight recorder: one tool_result record with what was asked, whether it failed, and
// the first lines of its output, cut as telemetry's are (LEDGER_TEXT). Gemini names no call id: the door gives each
// BeforeTool one of its own (tool-use-ids.ts, under what it asked), which its AfterTool and Perch's decision on it
// (decisions.ts) find, so the call's records join (calls.ts foldCall).
import crypto from 'node:crypto';
import type { FeaturesHub } from '../services';
import { LEDGER_TEXT, type LedgerHarness } from '../../../../shared/ledger/harness-events';
import { recordFacts } from './recorder';
import type { ToolUseAsk } from './tool-use-ids';

function cut(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}

/** A new call id for a harness that names none (Gemini CLI): noted under what its BeforeTool asked. */
export function noteNewCallId(hub: FeaturesHub, agentId: string, harness: LedgerHarness, ask: ToolUseAsk): void {
  hub.services.toolUseIds.note(agentId, harness, { ...ask, tool_use_id: `${harness}-${crypto.randomUUID()}` });
}

/** Records one tool call's result. Never fails the hook's answer: a full disk loses this record. */
export function recordHookToolResult(
  hub: FeaturesHub,
  agentId: string,
  harness: LedgerHarness,
  ask: ToolUseAsk,
  result: { output?: string; error?: string },
): void {
  let asked: string | undefined;
  try {
    asked = ask.tool_input === undefined ? undefined : cut(JSON.stringify(ask.tool_input), LEDGER_TEXT.askedChars);
  } catch {
    asked = undefined;
  }
  const head =
    result.output === undefined
      ? undefined
      : cut(result.output.split('\n').slice(0, LEDGER_TEXT.outputLines).join('\n'), LEDGER_TEXT.outputChars);
  const fact = {
    kind: 'tool_result' as const,
    harness,
    at: hub.now(),
    session_id: typeof ask.session_id === 'string' ? cut(ask.session_id, LEDGER_TEXT.idChars) : null,
    call_id: hub.services.toolUseIds.of(agentId, harness, ask) ?? `${harness}-${crypto.randomUUID()}`,
    tool: typeof ask.tool_name === 'string' ? cut(ask.tool_name, LEDGER_TEXT.idChars) : null,
    model: null,
    detail: {
      ...(asked !== undefined ? { asked } : {}),
      success: result.error === undefined,
      ...(head !== undefined ? { output_head: head } : {}),
      ...(result.error !== undefined ? { error: cut(result.error, LEDGER_TEXT.fieldChars) } : {}),
    },
    tokens: null,
    cost_usd: null,
  };
  try {
    recordFacts(hub, agentId, [{ fact, dedupe: crypto.randomBytes(32) }]);
  } catch (err) {
    if (!hub.storageFailure(err)) throw err;
  }
}
