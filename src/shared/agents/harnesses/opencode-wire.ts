// OpenCode's side of the hook door, pure: what the plugin `perch connect opencode` writes (opencode.ts) posts
// to the hub's doors POST /hook/opencode/<event> (src/main/mcp/hook-door/opencode.ts) and what it reads back.
//
// OpenCode has no command or HTTP hooks: a plugin is an ES module it imports in-process, whose hooks it awaits. As
// OpenCode 1.18.33 calls them (test/real/real-opencode.test.ts; fixtures in test/harness/hook-opencode.test.ts):
//   tool.execute.before(input {tool, sessionID, callID}, output {args}): before every tool call, before OpenCode's own
//     permission check; a throw blocks the call, its message is the tool's error the model reads. An MCP tool is
//     named "<server>_<tool>" (perch-kit_whoami), the shell tool "bash" with args {command, description}.
//   tool.execute.after(input {tool, sessionID, callID, args}, output {title, output, metadata}): after it ran (bash's
//     metadata has exit and output).
//   event({event}): every bus event, e.g. session.created, session.status {status: {type: busy | idle}},
//     session.idle, session.error, permission.asked {id, permission, patterns, metadata, tool: {callID}} and
//     permission.replied {sessionID, requestID, reply}. No plugin hook decides a permission prompt (the plugin type's
//     permission.ask is never called by 1.18.33): the plugin sees the prompt as an event and may answer it through
//     the SDK client OpenCode hands it (POST /session/<id>/permissions/<permissionID> {response: once | reject}), as
//     its own dialog does. `opencode run` rejects every prompt itself at once (it has no dialog).
// The plugin posts the few fields below (one request per hook, the key from PERCH_KEY_<NAME> in its environment, or
// in a wake run of its own agent the run's PERCH_KEY: opencode.ts):
//   tool-before, tool-after: {session_id, call_id, tool, args, cwd} (tool-after adds title, exit, output_head)
//   event:                   {type, session_id, cwd, message?}, only for the event types in OPENCODE_STATUS_EVENTS
//   permission-asked:        {session_id, id, permission, patterns, metadata, call_id, cwd} (a permission.asked)
//   usage:                   {session_id, message_id, step_id, model, provider, tokens, cost}: one model call, a
//                            step-finish part (message.part.updated) with OpenCode's own counts {input, output,
//                            reasoning, cache: {read, write}} (input and output without the cached and reasoning
//                            tokens) and its cost (dollars by its model's price; 0 when it knows none), the model
//                            from its assistant message (message.updated)
// and the door answers {} (go on) or, to tool-before only, {"block": reason} (the plugin throws the reason); to
// permission-asked {"reply": "once"} or {"reply": "reject", "message"} (the plugin replies so) or {} (OpenCode's own
// dialog decides). The plugin withdraws its permission-asked request when OpenCode's prompt is answered elsewhere.
import { StepAside, parseStdinObject, type HookDecision, type PermissionRequestInput, type StatusHook } from '../hook-wire';

/** The doors of OpenCode's plugin: POST /hook/opencode/<event>. */
export const OPENCODE_DOOR_EVENTS = ['tool-before', 'tool-after', 'event', 'permission-asked', 'usage'] as const;
export type OpenCodeDoorEvent = (typeof OPENCODE_DOOR_EVENTS)[number];

/** The OpenCode events the plugin forwards to the event door, and the status event each is. */
export const OPENCODE_STATUS_EVENTS: Readonly<Record<string, StatusHook>> = {
  'session.created': 'session-start',
  'session.idle': 'stop',
  'session.deleted': 'session-end',
  'permission.asked': 'notification',
};

/** One tool call as the plugin posts it (tool-before, tool-after). */
export interface OpenCodeToolCall {
  session_id?: string;
  call_id?: string;
  tool: string;
  args: unknown;
  cwd?: string;
  /** tool-after: bash's exit code, the tool's title and the head of its output (the plugin cuts it). */
  exit?: number;
  title?: string;
  output_head?: string;
}

const STRINGS = [
  'session_id',
  'call_id',
  'tool',
  'cwd',
  'title',
  'output_head',
  'type',
  'message',
  'id',
  'permission',
  'message_id',
  'step_id',
  'model',
  'provider',
] as const;

function checked(text: string): Record<string, unknown> {
  const o = parseStdinObject(text, "OpenCode's Perch plugin");
  for (const k of STRINGS) {
    if (o[k] !== undefined && o[k] !== null && typeof o[k] !== 'string') throw new StepAside(`the plugin's ${k} is not a string`);
  }
  return o;
}

/** A tool call posted to tool-before or tool-after, or a StepAside saying what is wrong with it. */
export function parseOpenCodeToolCall(text: string): OpenCodeToolCall {
  const o = checked(text);
  if (typeof o.tool !== 'string' || !o.tool) throw new StepAside('the tool call has no tool');
  if (o.exit !== undefined && o.exit !== null && typeof o.exit !== 'number') throw new StepAside("the plugin's exit is not a number");
  const out: OpenCodeToolCall = { tool: o.tool, args: o.args ?? {} };
  for (const k of ['session_id', 'call_id', 'cwd', 'title', 'output_head'] as const) if (typeof o[k] === 'string') out[k] = o[k];
  if (typeof o.exit === 'number') out.exit = o.exit;
  return out;
}

/** An event posted to the event door as the status event it is (snake_case fields, as hook-wire.ts reportOf reads), or undefined for one Perch does not use. */
export function parseOpenCodeEvent(text: string): { event: StatusHook; input: Record<string, unknown> } | undefined {
  const o = checked(text);
  if (typeof o.type !== 'string' || !o.type) throw new StepAside('the event has no type');
  const event = Object.hasOwn(OPENCODE_STATUS_EVENTS, o.type) ? OPENCODE_STATUS_EVENTS[o.type] : undefined;
  if (!event) return undefined;
  const input: Record<string, unknown> = {};
  if (typeof o.session_id === 'string') input.session_id = o.session_id;
  if (typeof o.cwd === 'string') input.cwd = o.cwd;
  if (event === 'notification') {
    input.message = typeof o.message === 'string' ? o.message : 'OpenCode asks for permission';
    input.notification_type = 'permission_prompt';
  }
  return { event, input };
}

/** The tool-before answer that blocks the call: the plugin throws the reason, which OpenCode hands the model. */
export function openCodeBlockJson(reason: string): string {
  return JSON.stringify({ block: reason });
}

/**
 * A permission.asked as the approval path takes it (Claude Code's PermissionRequest shape): the tool is OpenCode's
 * permission (bash, edit, webfetch, …), its input the prompt's metadata (bash: {command}) or else its patterns.
 */
export function parseOpenCodePermissionInput(text: string): PermissionRequestInput {
  const o = checked(text);
  if (typeof o.permission !== 'string' || !o.permission) throw new StepAside('the permission.asked has no permission');
  const meta =
    o.metadata && typeof o.metadata === 'object' && !Array.isArray(o.metadata) ? (o.metadata as Record<string, unknown>) : undefined;
  const patterns = Array.isArray(o.patterns) ? o.patterns.filter((p): p is string => typeof p === 'string') : [];
  const input = meta && Object.keys(meta).length ? meta : { patterns };
  return {
    hook_event_name: 'PermissionRequest',
    tool_name: o.permission,
    tool_input: input,
    ...(typeof o.session_id === 'string' ? { session_id: o.session_id } : {}),
    ...(typeof o.cwd === 'string' ? { cwd: o.cwd } : {}),
  };
}

/** The permission-asked answer: the reply the plugin gives OpenCode's prompt, or {} (its own dialog decides). */
export function openCodeDecisionJson(decision: HookDecision | undefined): string {
  if (!decision) return '{}';
  if (decision.behavior === 'allow') return JSON.stringify({ reply: 'once' });
  return JSON.stringify({ reply: 'reject', message: decision.message });
}

/** One model call's tokens and cost as the plugin posts them (usage), OpenCode's own counts. */
export interface OpenCodeUsage {
  session_id: string;
  step_id: string;
  message_id?: string;
  model?: string;
  provider?: string;
  tokens: { input: number; output: number; reasoning: number; cache_read: number; cache_write: number };
  /** OpenCode's dollars (0 when it has no price for the model). */
  cost: number;
}

function count(v: unknown, what: string): number {
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1e15)
    throw new StepAside(`the usage's ${what} is not a number from 0 to 1e15`);
  return v;
}

/** A usage report (a step-finish's tokens and cost), or a StepAside saying what is wrong with it. */
export function parseOpenCodeUsage(text: string): OpenCodeUsage {
  const o = checked(text);
  if (typeof o.session_id !== 'string' || !o.session_id || typeof o.step_id !== 'string' || !o.step_id)
    throw new StepAside('the usage report has no session_id or step_id');
  const t = o.tokens;
  if (!t || typeof t !== 'object' || Array.isArray(t)) throw new StepAside("the usage's tokens is not an object");
  const tokens = t as Record<string, unknown>;
  const cache = tokens.cache ?? {};
  if (typeof cache !== 'object' || cache === null || Array.isArray(cache)) throw new StepAside("the usage's tokens.cache is not an object");
  const c = cache as Record<string, unknown>;
  const out: OpenCodeUsage = {
    session_id: o.session_id,
    step_id: o.step_id,
    tokens: {
      input: count(tokens.input, 'tokens.input'),
      output: count(tokens.output, 'tokens.output'),
      reasoning: count(tokens.reasoning, 'tokens.reasoning'),
      cache_read: count(c.read, 'tokens.cache.read'),
      cache_write: count(c.write, 'tokens.cache.write'),
    },
    cost: count(o.cost, 'cost'),
  };
  for (const k of ['message_id', 'model', 'provider'] as const) if (typeof o[k] === 'string' && o[k]) out[k] = o[k];
  return out;
}
