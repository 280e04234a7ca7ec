// Cursor's permission hooks for `perch hook permission-request`: Cursor runs the command from its hooks.json
// (`~/.cursor/hooks.json`, `version: 1`) before every agent shell command (beforeShellExecution) and MCP tool call
// (beforeMCPExecution), and reads a permission from its stdout. The prompt goes through the same approval path as
// Claude Code's and Codex's PermissionRequest (hook.ts); only the input and the output differ.
//
// Wire format, as Cursor's hooks reference gives it (cursor.com/docs/agent/hooks, "Common schema" and
// "beforeShellExecution / beforeMCPExecution"): stdin has the common fields conversation_id, generation_id, model,
// hook_event_name, cursor_version, workspace_roots, user_email; beforeShellExecution adds command and cwd;
// beforeMCPExecution adds tool_name, tool_input (the params as a JSON string) and the server's url or command.
// Stdout: {"permission": "allow" | "deny" | "ask", "user_message", "agent_message"}; "ask" leaves the decision to
// Cursor's own prompt, so it is what Perch prints whenever it cannot decide.
//
// How Perch names Cursor's prompts (the tool of a standing rule): a shell command is tool "Shell" with
// tool_input {command} (so command prefix rules work as for Claude Code's Bash); an MCP tool call is
// "MCP:<tool_name>@<server>" (never the same name as a built-in), the server as Cursor names it (its url, else its
// command), so a rule for one server's tool never decides the same tool name of another server. A server name
// longer than MAX_SERVER_CHARS is shortened and made unique by a hash of the whole; a prompt without a server is
// "MCP:<tool_name>@(unknown server)". Node built-ins only: part of dist/hook.js.
import { createHash } from 'node:crypto';
import { StepAside, parseStdinObject, type HookDecision, type PermissionRequestInput } from './hook-common';

export const CURSOR_EVENTS = ['beforeShellExecution', 'beforeMCPExecution'] as const;
/** The tool name Perch files Cursor's shell commands under. */
export const CURSOR_SHELL_TOOL = 'Shell';
/** The server part of an MCP tool's name, at most (the rest of the 200 characters a tool name may have is the tool's). */
const MAX_SERVER_CHARS = 100;

/** The name Perch files a Cursor MCP tool call under: the tool and its server (see the top of this file). */
export function cursorMcpToolName(tool: string, server: string | undefined): string {
  if (server === undefined || !server.trim()) return `MCP:${tool}@(unknown server)`;
  const s = server.trim();
  const named =
    s.length <= MAX_SERVER_CHARS ? s : `${s.slice(0, MAX_SERVER_CHARS - 20)}…#${createHash('sha256').update(s).digest('hex').slice(0, 16)}`;
  return `MCP:${tool}@${named}`;
}

type Json = Record<string, unknown>;

/** A Cursor prompt as the approval path takes it, plus what only Cursor says (the MCP server). */
export interface CursorPrompt {
  input: PermissionRequestInput;
  extra: Json;
}

function parseObject(text: string): Json {
  return parseStdinObject(text, 'Cursor') as Json;
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
function mcpParams(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? {};
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

/** The hook input of beforeShellExecution / beforeMCPExecution, or a StepAside saying what is wrong with it. */
export function parseCursorInput(text: string): CursorPrompt {
  const o = parseObject(text);
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
  const base = {
    session_id: typeof o.conversation_id === 'string' ? o.conversation_id : undefined,
    cwd,
    hook_event_name: 'PermissionRequest' as const,
  };
  if (event === 'beforeShellExecution') {
    if (typeof o.command !== 'string' || !o.command.trim()) throw new StepAside('the beforeShellExecution input has no command');
    return { input: { ...base, tool_name: CURSOR_SHELL_TOOL, tool_input: { command: o.command } }, extra: {} };
  }
  if (typeof o.tool_name !== 'string' || !o.tool_name) throw new StepAside('the beforeMCPExecution input has no tool_name');
  const server = typeof o.url === 'string' ? o.url : typeof o.command === 'string' ? o.command : undefined;
  return {
    input: { ...base, tool_name: cursorMcpToolName(o.tool_name, server), tool_input: mcpParams(o.tool_input) },
    extra: server ? { mcp_server: server } : {},
  };
}

/** The exact JSON Cursor reads: allow, deny (the message for the user and for the agent), or ask (no decision). */
export function cursorDecisionJson(decision: HookDecision | undefined): string {
  if (!decision) return JSON.stringify({ permission: 'ask' });
  if (decision.behavior === 'allow') return JSON.stringify({ permission: 'allow' });
  return JSON.stringify({ permission: 'deny', user_message: decision.message, agent_message: decision.message });
}
