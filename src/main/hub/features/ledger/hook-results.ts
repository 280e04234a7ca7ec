// A tool call's result as a harness's own after-tool hook reports it (Gemini CLI's AfterTool, through its hook door:
// mcp/hook-door/gemini.ts; Cursor's afterShellExecution / afterMCPExecution / afterFileEdit: mcp/hook-door/cursor.ts), in the flight
// recorder: one tool_result record with what was asked, whether it failed, and the first lines of its output, cut as
// telemetry's are (LEDGER_TEXT). Gemini names no call id: the door gives each BeforeTool one of its own (tool-use-ids.ts,
// under what it asked), which its AfterTool and Perch's decision on it (decisions.ts) find, so the call's records join
// (calls.ts foldCall). Cursor names none either: its permission hook opens a call, its after hook closes it (cursor-calls.ts).
import crypto from 'node:crypto';
import type { FeaturesHub } from '../services';
import { LEDGER_TEXT, type LedgerHarness } from '../../../../shared/ledger/harness-events';
import { recordFacts } from './recorder';
import { turnOfAsk, type ToolUseAsk } from './tool-use-ids';
import type { CursorResult } from '../../../../shared/agents/harnesses/cursor-wire';
import { hasDedupe } from '../../../store/tables/ledger/records';

function cut(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}

/** A new call id for a harness that names none (Gemini CLI): noted under what its BeforeTool asked. */
export function noteNewCallId(hub: FeaturesHub, agentId: string, harness: LedgerHarness, ask: ToolUseAsk): void {
  hub.services.toolUseIds.note(agentId, harness, { ...ask, tool_use_id: `${harness}-${crypto.randomUUID()}` });
}

/** A call's result as an after-tool hook says it: success unknown (absent) unless said, or known from an error. */
export interface HookToolResult {
  output?: string;
  error?: string;
  success?: boolean;
  duration_ms?: number;
}

/**
 * Records one tool call's result: under the call id given (Cursor's, cursor-calls.ts), else the one noted for what it
 * asked, else a new one; once per dedupe given (a repeated hook adds nothing), else always. Whether it was added.
 * Never fails the hook's answer: a full disk loses this record.
 */
export function recordHookToolResult(
  hub: FeaturesHub,
  agentId: string,
  harness: LedgerHarness,
  ask: ToolUseAsk,
  result: HookToolResult,
  how: { callId?: string; dedupe?: Buffer } = {},
): boolean {
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
  const success = 'success' in result ? result.success : result.error === undefined;
  const turn = turnOfAsk(ask);
  const fact = {
    kind: 'tool_result' as const,
    harness,
    at: hub.now(),
    session_id: typeof ask.session_id === 'string' ? cut(ask.session_id, LEDGER_TEXT.idChars) : null,
    call_id: how.callId ?? hub.services.toolUseIds.of(agentId, harness, ask) ?? `${harness}-${crypto.randomUUID()}`,
    tool: typeof ask.tool_name === 'string' ? cut(ask.tool_name, LEDGER_TEXT.idChars) : null,
    model: null,
    detail: {
      ...(asked !== undefined ? { asked } : {}),
      ...(turn !== undefined ? { turn } : {}),
      ...(success !== undefined ? { success } : {}),
      ...(result.duration_ms !== undefined ? { duration_ms: result.duration_ms } : {}),
      ...(head !== undefined ? { output_head: head } : {}),
      ...(result.error !== undefined ? { error: cut(result.error, LEDGER_TEXT.fieldChars) } : {}),
    },
    tokens: null,
    cost_usd: null,
  };
  try {
    return recordFacts(hub, agentId, [{ fact, dedupe: how.dedupe ?? crypto.randomBytes(32) }]).added > 0;
  } catch (err) {
    if (!hub.storageFailure(err)) throw err;
    return false;
  }
}

/**
 * Records the result of Cursor's after hook (dedupe: of the hook's input as sent) under the call it closes, or as a
 * call of its own; once: the same input again adds nothing and closes no other call. The note when nothing was recorded.
 */
export function recordCursorResult(hub: FeaturesHub, agentId: string, r: CursorResult, dedupe: Buffer): string | undefined {
  if (hasDedupe(hub.db, agentId, dedupe)) return 'this result is recorded already';
  const call = hub.services.cursorCalls.closeCall({
    agentId,
    conversation: r.conversation_id,
    match: r.match,
    input: r.tool_input,
    generation: r.generation_id,
  });
  const added = recordHookToolResult(
    hub,
    agentId,
    'cursor',
    { session_id: r.conversation_id, tool_name: call?.tool ?? r.tool, tool_input: r.tool_input, turn: r.generation_id },
    {
      ...(r.output !== undefined ? { output: r.output } : {}),
      ...(r.error !== undefined ? { error: r.error } : {}),
      ...(r.duration_ms !== undefined ? { duration_ms: r.duration_ms } : {}),
      success: r.success, // unknown (absent) for a shell command: Cursor does not say its exit code
    },
    { callId: call?.id ?? `cursor-${crypto.randomUUID()}`, dedupe },
  );
  return added ? undefined : 'the result could not be recorded';
}
