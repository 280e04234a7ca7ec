// Cursor's after-execution hooks, pure: what its afterShellExecution, afterMCPExecution and afterFileEdit hooks write
// on stdin, read into one tool call's result for the flight recorder (the hub's door POST /hook/cursor/post-tool-use:
// src/main/mcp/hook-door/cursor.ts). Cursor reads nothing back from them (they observe only); the door answers {}.
//
// Wire format, as Cursor's hooks reference gives it (cursor.com/docs/agent/hooks): the common fields conversation_id,
// generation_id, model, hook_event_name, cursor_version, workspace_roots, user_email (and transcript_path);
// afterShellExecution adds command, output (the command's output) and duration (ms); afterMCPExecution adds tool_name,
// tool_input (the params as a JSON string), result_json (the tool's result as a JSON string) and duration (ms);
// afterFileEdit adds file_path and edits ([{old_string, new_string}]). None names a call id of its own, nor the shell
// command's exit code, nor (afterMCPExecution) the MCP server; and no hook of Cursor's carries a cost or its tokens.
// A file edit has no permission hook before it: it is a call of its own, tool "Edit", asked {file_path, edits}.
//
// How a result finds its call: the door opened one for each beforeShellExecution / beforeMCPExecution that reached it
// (hub/features/ledger/cursor-calls.ts), under the conversation and what it asked (the command; the MCP tool and its
// params); the after hook closes the oldest open call that asked the same in the same conversation, one of its own
// generation (generation_id) first.
import { LIMITS } from '../../limits';
import { tooDeep } from '../../text/json-depth';
import { CURSOR_SHELL_TOOL, StepAside, cursorMcpParams, parseStdinObject } from '../hook-wire';

/** The after-execution hooks `perch connect cursor --write` writes, beside its permission hooks. */
export const CURSOR_RESULT_EVENTS = ['afterShellExecution', 'afterMCPExecution', 'afterFileEdit'] as const;
/** The tool Perch records Cursor's file edits under. */
export const CURSOR_EDIT_TOOL = 'Edit';
export type CursorResultEvent = (typeof CURSOR_RESULT_EVENTS)[number];

/** One call's result as Cursor's after hook reports it. */
export interface CursorResult {
  event: CursorResultEvent;
  conversation_id?: string;
  generation_id?: string;
  /** What joins it to its call: "shell" or "mcp:<tool name as Cursor names it>" ("edit": none opens such a call). */
  match: string;
  /** The tool as Perch names it: Shell, or MCP:<tool>@<server> (the server of its open call; Cursor does not name it here). */
  tool: string;
  /** What was asked: {command}, or the MCP params. */
  tool_input: unknown;
  output?: string;
  duration_ms?: number;
  /** Known for an MCP call (its result's isError); Cursor does not report a shell command's exit code. */
  success?: boolean;
  error?: string;
}

function optionalString(o: Record<string, unknown>, k: string, event: string): string | undefined {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new StepAside(`the ${event} input's ${k} is not a string`);
  return v;
}

/** Cursor's duration (ms): a number from 0 to a year, or absent. */
function durationOf(o: Record<string, unknown>, event: string): number | undefined {
  const v = o.duration;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 365 * 86_400_000)
    throw new StepAside(`the ${event} input's duration is not a number of milliseconds`);
  return Math.round(v);
}

/** An MCP tool result (CallToolResult: content[].text, isError), or the text as Cursor sent it. */
function mcpResult(v: unknown): { output?: string; success?: boolean; error?: string } {
  let r: unknown = v;
  if (typeof v === 'string') {
    try {
      r = JSON.parse(v);
    } catch {
      return { output: v };
    }
  }
  if (!r || typeof r !== 'object' || Array.isArray(r)) return r === undefined ? {} : { output: JSON.stringify(r) };
  const o = r as Record<string, unknown>;
  const texts = Array.isArray(o.content)
    ? o.content.flatMap((c) => (typeof (c as { text?: unknown } | null)?.text === 'string' ? [(c as { text: string }).text] : []))
    : [];
  const output = texts.length ? texts.join('\n') : JSON.stringify(o);
  if (o.isError === true) return { output, success: false, error: texts[0] ?? 'the tool returned an error' };
  return { output, success: true };
}

/**
 * The input of afterShellExecution / afterMCPExecution, or a StepAside saying what is wrong with it. mcpToolName: the
 * name an MCP tool call is filed under when its open call is not known (hook-wire.ts, "How Perch names Cursor's prompts").
 */
export function parseCursorResult(text: string, mcpToolName: (tool: string, server: string | undefined) => string): CursorResult {
  const o = parseStdinObject(text, 'Cursor');
  const event = o.hook_event_name;
  if (!(CURSOR_RESULT_EVENTS as readonly unknown[]).includes(event))
    throw new StepAside(
      `the body is a ${typeof event === 'string' ? `${JSON.stringify(event.slice(0, 60))} hook event` : 'JSON object without hook_event_name'}, not ${CURSOR_RESULT_EVENTS.join(' or ')}: configure this URL under those hooks in Cursor's hooks.json`,
    );
  const e = event as CursorResultEvent;
  const deep = tooDeep(o, LIMITS.maxJsonDepth);
  if (deep !== undefined) throw new StepAside(`the ${e} input nests more than ${LIMITS.maxJsonDepth} levels deep (at ${deep})`);
  const base = {
    event: e,
    conversation_id: optionalString(o, 'conversation_id', e),
    generation_id: optionalString(o, 'generation_id', e),
    duration_ms: durationOf(o, e),
  };
  if (e === 'afterFileEdit') {
    const file = optionalString(o, 'file_path', e);
    if (!file) throw new StepAside('the afterFileEdit input has no file_path');
    if (o.edits !== undefined && o.edits !== null && !Array.isArray(o.edits))
      throw new StepAside("the afterFileEdit input's edits is not a list");
    const edits = Array.isArray(o.edits) ? { edits: o.edits } : {};
    return clean({ ...base, match: 'edit', tool: CURSOR_EDIT_TOOL, tool_input: { file_path: file, ...edits }, success: true });
  }
  if (e === 'afterShellExecution') {
    const command = optionalString(o, 'command', e);
    if (!command?.trim()) throw new StepAside('the afterShellExecution input has no command');
    const output = optionalString(o, 'output', e);
    return clean({ ...base, match: 'shell', tool: CURSOR_SHELL_TOOL, tool_input: { command }, output });
  }
  const tool = optionalString(o, 'tool_name', e);
  if (!tool) throw new StepAside('the afterMCPExecution input has no tool_name');
  const params = cursorMcpParams(o.tool_input);
  const paramsDeep = tooDeep(params, LIMITS.maxJsonDepth);
  if (paramsDeep !== undefined)
    throw new StepAside(`the afterMCPExecution input's tool_input nests more than ${LIMITS.maxJsonDepth} levels deep (at ${paramsDeep})`);
  const server = optionalString(o, 'url', e) ?? optionalString(o, 'command', e);
  return clean({ ...base, match: `mcp:${tool}`, tool: mcpToolName(tool, server), tool_input: params, ...mcpResult(o.result_json) });
}

function clean<T extends object>(o: T): T {
  for (const k of Object.keys(o) as Array<keyof T>) if (o[k] === undefined) delete o[k];
  return o;
}
