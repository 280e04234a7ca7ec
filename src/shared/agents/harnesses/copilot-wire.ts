// GitHub Copilot CLI's hook wire format, pure: what its hooks post (an HTTP hook sends the hook input as the JSON
// body) and the output it reads back, mapped to Perch's terms like Claude Code's (hook-wire.ts). Used by the hub's
// door POST /hook/copilot/<event> (src/main/mcp/hook-door.ts), which `perch connect copilot` points Copilot's HTTP
// hooks at (copilot.ts).
//
// Wire format, as the Copilot CLI hooks reference gives it (docs.github.com/copilot/reference/hooks-reference), the
// camelCase events Perch configures, and as Copilot CLI 1.0.102 sent them (test/real/real-copilot.test.ts):
//   permissionRequest: {hookName: "permissionRequest", sessionId, timestamp, cwd, toolName, toolInput,
//     permissionSuggestions}; an MCP tool is named "<server>/<tool>". Output {"behavior": "allow" | "deny",
//     "message"?} decides before Copilot's own permission flow; {} falls through to it (its dialog, or in -p mode a
//     denial for want of a user).
//   preToolUse: {sessionId, timestamp, cwd, toolName, toolArgs}; an MCP tool is named "<server>-<tool>". Output
//     {"permissionDecision": "deny", "permissionDecisionReason"} blocks the tool (the reason goes to the model).
//   notification: {sessionId, timestamp, cwd, hook_event_name: "Notification", message, title?, notification_type}.
//   agentStop: {sessionId, timestamp, cwd, transcriptPath, stopReason, stop_hook_active}.
//   sessionStart: {sessionId, timestamp, cwd, source, initialPrompt?}; sessionEnd: {sessionId, timestamp, cwd, reason}.
// An HTTP preToolUse hook that fails (a non-2xx answer, the hub down) denies the tool in 1.0.102 ("hook errored"),
// though its reference calls HTTP preToolUse hooks fail-open, and so does a failing HTTP permissionRequest hook:
// connect writes those two as curl commands that answer {} when the request fails (copilot.ts).
import { StepAside, parseStdinObject, type HookDecision, type PermissionRequestInput, type StatusHook } from '../hook-wire';

/** Copilot's camelCase hook event of each door event. */
export const COPILOT_EVENT: Record<StatusHook | 'permission-request', string> = {
  'permission-request': 'permissionRequest',
  'pre-tool-use': 'preToolUse',
  notification: 'notification',
  stop: 'agentStop',
  'session-start': 'sessionStart',
  'session-end': 'sessionEnd',
};

/** The event name an input says it is (permissionRequest's hookName, notification's hook_event_name), if any. */
function namedEvent(o: Record<string, unknown>): string | undefined {
  if (typeof o.hookName === 'string') return o.hookName;
  if (typeof o.hook_event_name === 'string') return o.hook_event_name.charAt(0).toLowerCase() + o.hook_event_name.slice(1);
  return undefined;
}

function checked(text: string, event: StatusHook | 'permission-request'): Record<string, unknown> {
  const o = parseStdinObject(text, 'GitHub Copilot CLI');
  const expected = COPILOT_EVENT[event];
  const named = namedEvent(o);
  if (named !== undefined && named !== expected)
    throw new StepAside(
      `the body is a ${JSON.stringify(named.slice(0, 40))} hook input, not ${expected}: configure this URL under hooks.${expected}`,
    );
  for (const k of ['sessionId', 'cwd', 'toolName', 'message', 'notification_type', 'source', 'reason'] as const) {
    if (o[k] !== undefined && o[k] !== null && typeof o[k] !== 'string')
      throw new StepAside(`the ${expected} input's ${k} is not a string`);
  }
  if ((event === 'permission-request' || event === 'pre-tool-use') && (typeof o.toolName !== 'string' || !o.toolName))
    throw new StepAside(`the ${expected} input has no toolName`);
  return o;
}

/** A permissionRequest input as the approval path takes it (Claude Code's PermissionRequest shape), or a StepAside. */
export function parseCopilotPermissionInput(text: string): PermissionRequestInput {
  const o = checked(text, 'permission-request');
  return {
    hook_event_name: 'PermissionRequest',
    tool_name: o.toolName as string,
    tool_input: o.toolInput ?? {},
    ...(typeof o.sessionId === 'string' ? { session_id: o.sessionId } : {}),
    ...(typeof o.cwd === 'string' ? { cwd: o.cwd } : {}),
  };
}

/** A status event's input in the snake_case fields the report is built from (hook-wire.ts reportOf), or a StepAside. */
export function parseCopilotEventInput(text: string, event: StatusHook): Record<string, unknown> {
  const o = checked(text, event);
  const out: Record<string, unknown> = {};
  const put = (k: string, v: unknown) => {
    if (v !== undefined && v !== null) out[k] = v;
  };
  put('session_id', o.sessionId);
  put('cwd', o.cwd);
  put('tool_name', o.toolName);
  put('tool_input', o.toolArgs);
  put('message', o.message);
  put('notification_type', o.notification_type);
  put('source', o.source);
  put('reason', o.reason);
  return out;
}

/** Whether a permissionRequest's tool ("<server>/<tool>") is a tool of the Perch server `server` (the agent's perch-NAME). */
export function isOwnCopilotTool(tool: string, server: string): boolean {
  return tool.startsWith(`${server}/`) && !tool.slice(server.length + 1).includes('/');
}

/** The JSON Copilot reads from a permissionRequest hook: the decision, or {} (its own permission flow decides). */
export function copilotDecisionJson(decision: HookDecision | undefined): string {
  if (!decision) return '{}';
  if (decision.behavior === 'allow') return JSON.stringify({ behavior: 'allow' });
  return JSON.stringify({ behavior: 'deny', message: decision.message });
}

/** The preToolUse output that blocks the tool, the reason shown to the model. */
export function copilotPreToolDenyJson(reason: string): string {
  return JSON.stringify({ permissionDecision: 'deny', permissionDecisionReason: reason });
}
