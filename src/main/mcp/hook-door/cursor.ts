// Cursor's after-execution hooks at the hub: POST /hook/cursor/post-tool-use, what `perch connect cursor --write`
// points its afterShellExecution, afterMCPExecution and afterFileEdit hooks at (one curl request each; the wire format in
// shared/agents/harnesses/cursor-wire.ts). Each records the call's result in the flight recorder (tool_result: the
// output's first lines, the duration, an MCP call's success), joined to the call its permission hook opened
// (hub/features/ledger/cursor-calls.ts), once: the same hook input again adds nothing and closes no other call.
// Cursor reads nothing back from these hooks; the door answers {} whatever happens once the key is accepted
// (harness-door.ts), the reason for recording nothing in the perch-hook-note header.
import crypto from 'node:crypto';
import type { PerchHub as Hub } from '../../hub/services';
import { parseCursorResult } from '../../../shared/agents/harnesses/cursor-wire';
import { cursorMcpToolName } from '../cursor-tool-name';
import type { CursorAsk } from '../../hub/features/ledger/cursor-calls';
import { recordCursorResult } from '../../hub/features/ledger/hook-results';

/** The door's answer to an after hook: always {} (Cursor reads nothing), and why nothing was recorded. */
export const CURSOR_RESULT_ANSWER = '{}';

/** What a Cursor permission hook asked, as its after hook will say it (the key of its open call). */
export function cursorAskOf(
  agentId: string,
  call: { match: string; generation?: string },
  input: { session_id?: string; tool_input: unknown },
): CursorAsk {
  return { agentId, conversation: input.session_id, match: call.match, input: input.tool_input, generation: call.generation };
}

/** Records one after hook's result; the note when nothing was recorded. Throws StepAside for input that is not one. */
export function answerCursorResult(hub: Hub, agentId: string, text: string): string | undefined {
  const r = parseCursorResult(text, cursorMcpToolName);
  // The hook's input as sent: Cursor running the same hook again sends it again.
  return recordCursorResult(hub, agentId, r, crypto.hash('sha256', `cursor ${r.event} ${text}`, 'buffer'));
}
