// Gemini CLI's hook wire format, pure: what its command hooks write on stdin and the output they read back, mapped to
// Perch's terms. Used by the hub's door POST /hook/gemini/<event> (src/main/mcp/hook-door/gemini.ts), which
// `perch connect gemini` points Gemini's hooks at with one curl request each (gemini.ts).
//
// Wire format, as the Gemini CLI hooks reference gives it (geminicli.com/docs/hooks/reference) and as Gemini CLI 0.61.0
// sent it (test/fixtures/gemini-hooks.ts, captured from the binary): every input has session_id, transcript_path,
// cwd, hook_event_name and timestamp.
//   BeforeTool: tool_name ("run_shell_command", "write_file", an MCP tool as "mcp_<server>_<tool>"), tool_input, and
//     for an MCP tool mcp_context {server_name, tool_name, url}. Output {"decision": "deny", "reason"} blocks the tool
//     (the reason goes to the model as the tool's error), even under --yolo; {} lets it go on to Gemini's own approval.
//     A hook cannot approve a call Gemini's own policy would ask about: it runs after that policy.
//   AfterTool: the same plus tool_response {llmContent, returnDisplay, error?}.
//   AfterAgent (the turn ended): prompt, prompt_response, stop_hook_active. SessionStart: source (startup, resume,
//   clear). SessionEnd: reason (exit, clear, …), not waited for. Notification: notification_type ("ToolPermission":
//   Gemini's own dialog is open), message, details.
// A hook that fails (exit code other than 0 and 2: curl's 22 on a refusal, 7 when the hub is down) is a warning and
// Gemini goes on: a connected Gemini runs its tools while the hub is stopped (the guide says so).
import { StepAside, parseStdinObject, type StatusHook } from '../hook-wire';

/** The door events of Gemini's hooks: the status events, and post-tool-use (AfterTool: the ledger's record of the call). */
export type GeminiDoorEvent = StatusHook | 'post-tool-use';

/** Gemini's hook event of each door event. */
export const GEMINI_EVENT: Record<GeminiDoorEvent, string> = {
  'pre-tool-use': 'BeforeTool',
  'post-tool-use': 'AfterTool',
  notification: 'Notification',
  stop: 'AfterAgent',
  'session-start': 'SessionStart',
  'session-end': 'SessionEnd',
};

/** The tools `--ask` sends to the owner when no standing rule decides them: Gemini's shell and file writes. */
export const GEMINI_ASK_TOOLS = ['run_shell_command', 'write_file', 'replace'] as const;

/** Gemini's shell tool (its input.command is what the standing rules read). */
export const GEMINI_SHELL_TOOL = 'run_shell_command';

/** A Gemini hook input of the door event, checked (its hook_event_name, the string fields), or a StepAside. */
export function parseGeminiInput(text: string, event: GeminiDoorEvent): Record<string, unknown> {
  const o = parseStdinObject(text, 'Gemini CLI');
  const expected = GEMINI_EVENT[event];
  if (o.hook_event_name !== expected)
    throw new StepAside(
      `the body is a ${typeof o.hook_event_name === 'string' ? `${JSON.stringify(o.hook_event_name.slice(0, 40))} hook input` : 'JSON object without hook_event_name'}, not ${expected}: configure this URL under hooks.${expected}`,
    );
  for (const k of ['session_id', 'cwd', 'tool_name', 'message', 'notification_type', 'source', 'reason'] as const) {
    if (o[k] !== undefined && o[k] !== null && typeof o[k] !== 'string')
      throw new StepAside(`the ${expected} input's ${k} is not a string`);
  }
  if ((event === 'pre-tool-use' || event === 'post-tool-use') && (typeof o.tool_name !== 'string' || !o.tool_name))
    throw new StepAside(`the ${expected} input has no tool_name`);
  return o;
}

/**
 * The tool as the pause's exemption reads it: an MCP tool (mcp_context names its server and tool) in Claude Code's
 * form mcp__<server>__<tool>, so that a server whose name has underscores is never taken for another; else Gemini's name.
 */
export function geminiToolForPause(o: Record<string, unknown>): string | undefined {
  const m = o.mcp_context as Record<string, unknown> | undefined;
  if (m && typeof m === 'object' && typeof m.server_name === 'string' && typeof m.tool_name === 'string')
    return `mcp__${m.server_name}__${m.tool_name}`;
  return typeof o.tool_name === 'string' ? o.tool_name : undefined;
}

/** Whether a BeforeTool's tool is one of the agent's own Perch server's (server: perch-NAME), by its mcp_context. */
export function isOwnGeminiTool(o: Record<string, unknown>, server: string): boolean {
  const m = o.mcp_context as Record<string, unknown> | undefined;
  return !!m && typeof m === 'object' && m.server_name === server;
}

/** The BeforeTool output that blocks the tool, the reason shown to the model. */
export function geminiDenyJson(reason: string): string {
  return JSON.stringify({ decision: 'deny', reason });
}

/** What an AfterTool's tool_response says: its output's first text, and its error if any. */
export function geminiToolResult(o: Record<string, unknown>): { output?: string; error?: string } {
  const r = o.tool_response as Record<string, unknown> | undefined;
  if (!r || typeof r !== 'object') return {};
  const text = (v: unknown): string | undefined => {
    if (typeof v === 'string') return v;
    if (Array.isArray(v))
      return v.map((p) => (typeof (p as { text?: unknown })?.text === 'string' ? (p as { text: string }).text : '')).join('');
    return undefined;
  };
  const err = r.error as unknown;
  const error =
    typeof err === 'string'
      ? err
      : err && typeof err === 'object' && typeof (err as { message?: unknown }).message === 'string'
        ? (err as { message: string }).message
        : undefined;
  const output = text(r.llmContent) ?? text(r.returnDisplay);
  return { ...(output !== undefined ? { output } : {}), ...(error !== undefined ? { error } : {}) };
}
