// The harnesses' hook wire formats, pure: what Claude Code, Codex and Cursor write as a hook's input and read as its
// output, and how Perch maps them to its own terms (a prompt's PromptFiling, a harness status report). Used by the
// hub's harness hook doors (POST /hook/<harness>/<event>: src/main/mcp/hook-door.ts), which answer a harness's hook in
// one request; `perch hook` (src/main/cli/hook/) posts the harness's input to those doors unchanged. Wire formats: the
// comments below (the published references of Claude Code and Codex) and the Cursor section further down.
//
// PermissionRequest, run when the harness is about to show its own "may I run this?" dialog:
//   Claude Code, code.claude.com/docs/en/hooks ("PermissionRequest"): the input has session_id, transcript_path, cwd,
//   permission_mode, hook_event_name, tool_name, tool_input, permission_suggestions; the output
//   {"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"|"deny","message"?}}}.
//   Codex, developers.openai.com/codex/hooks ("PermissionRequest"): the same, plus turn_id and model, tool_name
//   "Bash" with tool_input.command (and tool_input.description, the justification); updatedInput,
//   updatedPermissions and interrupt are reserved there (a hook that sets them fails closed), so none is answered.
//   Both run a hook for up to 600 s unless its `timeout` says otherwise. No output (or {}) leaves the decision to the
//   harness's own dialog; a command hook never exits 2 (Claude Code reads exit 2 of a PermissionRequest as a denial).
// The status events:
//   Claude Code: every input has session_id, transcript_path, cwd, hook_event_name (and permission_mode for most
//   events). PreToolUse adds tool_name, tool_input, tool_use_id; its block is
//   {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":…}}
//   (the reason is shown to the model). Notification adds message, title?, notification_type (permission_prompt,
//   idle_prompt, …); Stop adds stop_hook_active; SessionStart adds source (startup, resume, clear, compact) and
//   model; SessionEnd adds reason. The output of SessionStart becomes context for the model: nothing is answered.
//   Codex: the same PreToolUse input plus turn_id and model, and the same hookSpecificOutput block; Stop and
//   SessionStart as Claude Code's (Stop with turn_id). Codex documents no Notification or SessionEnd event.
import { REPORT_FIELD_MAX, toolDetailOf, type HarnessName } from './harness';
import { visibleText } from '../text/text';
import { MAX_SENT_INPUT_BYTES, PROMPT_FILING_EVENT, cutOf, type PromptFiling } from '../api/prompt-filing';

type Json = Record<string, unknown>;

/** The harnesses the hook door answers per event (the path /hook/<harness>/<event>); Cursor's are its permission hooks. */
export const HOOK_DOOR_EVENTS = {
  'claude-code': ['permission-request', 'pre-tool-use', 'notification', 'stop', 'session-start', 'session-end'],
  codex: ['permission-request', 'pre-tool-use', 'notification', 'stop', 'session-start', 'session-end'],
  // Cursor's beforeShellExecution / beforeMCPExecution (permission-request) and afterShellExecution / afterMCPExecution /
  // afterFileEdit
  // (post-tool-use: the call's result, harnesses/cursor-wire.ts).
  cursor: ['permission-request', 'post-tool-use'],
  // GitHub Copilot CLI's own events (shared/agents/harnesses/copilot-wire.ts): permissionRequest, preToolUse, notification,
  // agentStop, sessionStart, sessionEnd.
  copilot: ['permission-request', 'pre-tool-use', 'notification', 'stop', 'session-start', 'session-end'],
  // Gemini CLI's command hooks (shared/agents/harnesses/gemini-wire.ts): BeforeTool, AfterTool, Notification,
  // AfterAgent, SessionStart, SessionEnd. No permission-request: Gemini's own approval cannot be answered by a hook.
  gemini: ['pre-tool-use', 'post-tool-use', 'notification', 'stop', 'session-start', 'session-end'],
  // OpenCode's plugin (shared/agents/opencode-wire.ts): tool.execute.before / after, session events, and each model
  // call's tokens (its step-finish parts).
  opencode: ['tool-before', 'tool-after', 'event', 'permission-asked', 'usage'],
} as const;
export type HookDoorHarness = keyof typeof HOOK_DOOR_EVENTS;

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** A PermissionRequest hook's input (Claude Code, Codex; Cursor's prompts are put in this shape: parseCursorInput). */
export interface PermissionRequestInput {
  session_id?: string;
  transcript_path?: string | null;
  cwd?: string;
  permission_mode?: string;
  hook_event_name: 'PermissionRequest';
  tool_name: string;
  tool_input: unknown;
  turn_id?: string;
  model?: string;
}

/** The owner's decision on a prompt, as the harness gets it. */
export type HookDecision = { behavior: 'allow' } | { behavior: 'deny'; message: string };

/** Why the hook steps aside: one stderr line, nothing on stdout, exit code 0. */
export class StepAside extends Error {}

/** The hook's stdin as one JSON object, or a StepAside saying what is wrong with it (who: what writes it). */
export function parseStdinObject(text: string, who = 'the harness'): Record<string, unknown> {
  if (!text.trim()) throw new StepAside(`no input on stdin (${who} writes one JSON object there)`);
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new StepAside(`stdin is not JSON (${(e as Error).message})`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new StepAside('stdin is not a JSON object');
  return v as Record<string, unknown>;
}

/** The hook input as a JSON object whose hook_event_name is the expected one, or a StepAside saying what is wrong. */
export function parseEventInput(text: string, expected: string): Record<string, unknown> {
  const o = parseStdinObject(text);
  if (o.hook_event_name !== expected) {
    throw new StepAside(
      `stdin is a ${typeof o.hook_event_name === 'string' ? `${JSON.stringify(o.hook_event_name)} hook event` : 'JSON object without hook_event_name'}, not ${expected}: configure this command under hooks.${expected}`,
    );
  }
  return o;
}

export const STATUS_HOOKS = ['pre-tool-use', 'notification', 'stop', 'session-start', 'session-end'] as const;
export type StatusHook = (typeof STATUS_HOOKS)[number];

/** The hook_event_name each subcommand reads. */
export const EVENT_NAME: Record<StatusHook, string> = {
  'pre-tool-use': 'PreToolUse',
  notification: 'Notification',
  stop: 'Stop',
  'session-start': 'SessionStart',
  'session-end': 'SessionEnd',
};

/** The PreToolUse block both references read: the tool call is not run and the reason goes to the model. */
export function preToolUseDenyJson(reason: string): string {
  return JSON.stringify({
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason },
  });
}

/** Which harness wrote the input: --harness, else Codex when it sends turn_id or keeps its transcript under .codex. */
export function harnessOfInput(input: Record<string, unknown>, flag: string | undefined): 'claude-code' | 'codex' {
  if (flag === 'codex' || flag === 'claude-code') return flag;
  if (input.turn_id !== undefined) return 'codex';
  return /[/\\]\.codex[/\\]/.test(str(input.transcript_path) ?? '') ? 'codex' : 'claude-code';
}

/** The report POST /hook takes (shared/agents/harness.ts HarnessReport), from the hook input. */
export function reportOf(sub: StatusHook, input: Record<string, unknown>, harness: HarnessName): Record<string, string> {
  const r: Record<string, string> = { event: sub, harness };
  for (const [k, max] of Object.entries(REPORT_FIELD_MAX)) {
    const v = str(input[k]);
    if (v !== undefined) r[k] = v.slice(0, max);
  }
  const detail = sub === 'pre-tool-use' ? toolDetailOf(input.tool_input) : '';
  if (detail) r.tool_detail = detail; // the feed's one line per tool call
  return r;
}

/** The exact JSON both references read from a PermissionRequest hook's stdout. */
export function decisionJson(decision: HookDecision): string {
  return JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } });
}

/** The longest window title a no-decision answer sets (the card's title holds the agent's whole command). */
const TERMINAL_TITLE_MAX = 200;

/**
 * No decision from Perch (Claude Code and Codex then ask in their own dialog), with a line the harness shows its user
 * (the hooks' common systemMessage field): which card gave up and why, so a terminal that waited says what it waited on.
 * For Claude Code (`terminal`) the same line is also its terminalSequence, an OSC 2 window title: an interactive
 * session sets it on its terminal while its own dialog asks (claude -p sets no title and prints no systemMessage;
 * both checked with the real 2.1.332: test/real/real-claude-code-waiting.test.ts, real-claude-code-interactive.test.ts).
 */
export function noDecisionJson(why: string, title?: string, terminal = false): string {
  // The title holds the agent's command: shown as text on the harness's terminal, never as control sequences.
  const line = visibleText(title ? `Perch: no decision on "${title}": ${why}` : `Perch: ${why}`);
  if (!terminal) return JSON.stringify({ systemMessage: line });
  const chars = [...line.replace(/\s+/g, ' ').trim()];
  const shown = chars.length > TERMINAL_TITLE_MAX ? `${chars.slice(0, TERMINAL_TITLE_MAX - 1).join('')}\u2026` : chars.join('');
  return JSON.stringify({ systemMessage: line, terminalSequence: `\u001b]2;${shown}\u0007` });
}

/** Is this door answer no decision at all (nothing, or only noDecisionJson's line and title)? */
export function isNoDecision(text: string): boolean {
  try {
    const o = JSON.parse(text) as unknown;
    return (
      !!o && typeof o === 'object' && !Array.isArray(o) && Object.keys(o).every((k) => k === 'systemMessage' || k === 'terminalSequence')
    );
  } catch {
    return false;
  }
}

/** The hook input, or a StepAside saying what is wrong with it. */
export function parseHookInput(text: string): PermissionRequestInput {
  const o = parseStdinObject(text) as Json;
  if (o.hook_event_name !== 'PermissionRequest') {
    throw new StepAside(
      `stdin is a ${typeof o.hook_event_name === 'string' ? `${JSON.stringify(o.hook_event_name)} hook event` : 'JSON object without hook_event_name'}, not PermissionRequest: configure this command under hooks.PermissionRequest`,
    );
  }
  if (typeof o.tool_name !== 'string' || !o.tool_name) throw new StepAside('the PermissionRequest input has no tool_name');
  for (const k of ['session_id', 'cwd', 'permission_mode', 'turn_id', 'model'] as const) {
    if (o[k] !== undefined && typeof o[k] !== 'string') throw new StepAside(`the PermissionRequest input's ${k} is not a string`);
  }
  return o as unknown as PermissionRequestInput;
}

// ---- what the hub is sent ---------------------------------------------------------------------------

/** Which harness wrote the input (Codex adds turn_id and model; Claude Code sends neither). */
export function harnessOf(input: PermissionRequestInput): 'codex' | 'claude-code' {
  return input.turn_id !== undefined || input.model !== undefined ? 'codex' : 'claude-code';
}

/**
 * The prompt as the hook door takes it (shared/api/prompt-filing.ts): the harness session, cwd, tool and its input
 * whole, or, when the input is too large to send, the head and the tail of its text (the hub then files it as cut:
 * shown as such, never decided by a standing rule).
 */
export function filingOf(input: PermissionRequestInput, harness: PromptFiling['harness'] = harnessOf(input), extra: Json = {}): Json {
  const base = {
    event: PROMPT_FILING_EVENT,
    harness,
    tool_name: input.tool_name,
    ...(input.session_id !== undefined ? { session_id: input.session_id } : {}),
    ...(input.cwd !== undefined ? { cwd: input.cwd } : {}),
    ...(input.permission_mode !== undefined ? { permission_mode: input.permission_mode } : {}),
    ...extra,
  };
  let size = Infinity;
  try {
    size = new TextEncoder().encode(JSON.stringify(input.tool_input ?? null)).length;
  } catch {
    // not serializable: its head and tail
  }
  return size <= MAX_SENT_INPUT_BYTES ? { ...base, tool_input: input.tool_input ?? null } : { ...base, input_cut: cutOf(input.tool_input) };
}

/** The deny message for a paused agent's prompt, from the `paused` error's details (hub/control/control.ts). */
export function pausedPromptMessage(details: Json): string {
  const reason = str(details.reason);
  if (details.by === 'budget')
    return `Paused in Perch: a daily cap was reached${str(details.detail) ? ` (${details.detail as string})` : ''}. Wait for the owner to resume this agent.`;
  return reason ? `Paused in Perch by the owner: ${reason}` : 'Paused in Perch by the owner.';
}

// ---- Cursor -----------------------------------------------------------------------------------------
// Cursor runs its permission hooks from its hooks.json (`~/.cursor/hooks.json`, `version: 1`) before every agent shell
// command (beforeShellExecution) and MCP tool call (beforeMCPExecution), and reads a permission from the hook's output.
// They go to POST /hook/cursor/permission-request and take the same approval path as Claude Code's and Codex's
// PermissionRequest; only the input and the output differ.
//
// Wire format, as Cursor's hooks reference gives it (cursor.com/docs/agent/hooks, "Common schema" and
// "beforeShellExecution / beforeMCPExecution"): the input has the common fields conversation_id, generation_id, model,
// hook_event_name, cursor_version, workspace_roots, user_email; beforeShellExecution adds command and cwd;
// beforeMCPExecution adds tool_name, tool_input (the params as a JSON string) and the server's url or command.
// Output: {"permission": "allow" | "deny" | "ask", "user_message", "agent_message"}; "ask" leaves the decision to
// Cursor's own prompt, so it is what Perch answers whenever it cannot decide.
//
// How Perch names Cursor's prompts (the tool of a standing rule): a shell command is tool "Shell" with
// tool_input {command} (so command prefix rules work as for Claude Code's Bash); an MCP tool call is
// "MCP:<tool_name>@<server>" (never the same name as a built-in), the server as Cursor names it (its url, else its
// command), so a rule for one server's tool never decides the same tool name of another server. The hub names the
// server (a long one shortened and made unique by a hash: src/main/mcp/cursor-tool-name.ts).

export const CURSOR_EVENTS = ['beforeShellExecution', 'beforeMCPExecution'] as const;
/** The tool name Perch files Cursor's shell commands under. */
export const CURSOR_SHELL_TOOL = 'Shell';

/** A Cursor prompt as the approval path takes it, plus what only Cursor says (the MCP server). */
export interface CursorPrompt {
  input: PermissionRequestInput;
  extra: Json;
  /** What its after hook will say of the same call: "shell" or "mcp:<tool name>", and the generation (harnesses/cursor-wire.ts). */
  call: { match: string; generation?: string };
}

/** Whether the text is a Cursor permission hook's input (told by its hook_event_name). */
export function isCursorInput(text: string): boolean {
  try {
    const o = JSON.parse(text) as Json | null;
    return !!o && typeof o === 'object' && (CURSOR_EVENTS as readonly unknown[]).includes(o.hook_event_name);
  } catch {
    return false;
  }
}

/** Cursor's MCP params: a JSON string in the reference (an object is taken as is). */
export function cursorMcpParams(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? {};
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

/**
 * The input of beforeShellExecution / beforeMCPExecution, or a StepAside saying what is wrong with it. mcpToolName:
 * the name an MCP tool call of a server is filed under (see above).
 */
export function parseCursorInput(text: string, mcpToolName: (tool: string, server: string | undefined) => string): CursorPrompt {
  const o = parseStdinObject(text, 'Cursor') as Json;
  const event = o.hook_event_name;
  if (!(CURSOR_EVENTS as readonly unknown[]).includes(event)) {
    throw new StepAside(
      `stdin is a ${typeof event === 'string' ? `${JSON.stringify(event)} hook event` : 'JSON object without hook_event_name'}, not ${CURSOR_EVENTS.join(' or ')}: configure this command under those hooks in Cursor's hooks.json`,
    );
  }
  for (const k of ['conversation_id', 'generation_id', 'cwd', 'model'] as const) {
    if (o[k] !== undefined && o[k] !== null && typeof o[k] !== 'string') throw new StepAside(`the ${event} input's ${k} is not a string`);
  }
  const roots = Array.isArray(o.workspace_roots) ? o.workspace_roots.filter((r): r is string => typeof r === 'string') : [];
  const cwd = typeof o.cwd === 'string' && o.cwd ? o.cwd : roots[0];
  const generation = typeof o.generation_id === 'string' && o.generation_id ? o.generation_id : undefined;
  const base = {
    session_id: typeof o.conversation_id === 'string' ? o.conversation_id : undefined,
    cwd,
    hook_event_name: 'PermissionRequest' as const,
  };
  if (event === 'beforeShellExecution') {
    if (typeof o.command !== 'string' || !o.command.trim()) throw new StepAside('the beforeShellExecution input has no command');
    return {
      input: { ...base, tool_name: CURSOR_SHELL_TOOL, tool_input: { command: o.command } },
      extra: {},
      call: { match: 'shell', generation },
    };
  }
  if (typeof o.tool_name !== 'string' || !o.tool_name) throw new StepAside('the beforeMCPExecution input has no tool_name');
  const server = typeof o.url === 'string' ? o.url : typeof o.command === 'string' ? o.command : undefined;
  return {
    input: { ...base, tool_name: mcpToolName(o.tool_name, server), tool_input: cursorMcpParams(o.tool_input) },
    extra: server ? { mcp_server: server } : {},
    call: { match: `mcp:${o.tool_name}`, generation },
  };
}

/** The exact JSON Cursor reads: allow, deny (the message for the user and for the agent), or ask (no decision). */
export function cursorDecisionJson(decision: HookDecision | undefined): string {
  if (!decision) return JSON.stringify({ permission: 'ask' });
  if (decision.behavior === 'allow') return JSON.stringify({ permission: 'allow' });
  return JSON.stringify({ permission: 'deny', user_message: decision.message, agent_message: decision.message });
}
