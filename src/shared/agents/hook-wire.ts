// The harnesses' hook wire formats, pure: what Claude Code and Codex write as a hook's input and read as its output,
// and how Perch maps them to its own terms (a prompt's PromptFiling, a harness status report). Shared by the hub's
// harness hook door (POST /hook/<harness>/<event>: src/main/mcp/hook-door.ts), which answers a harness's hook in one
// request, and `perch hook` (src/main/cli/hook/), which runs as a command hook. Wire formats: the comments at the top
// of src/main/cli/hook/hook.ts and hook-status.ts (the published references of Claude Code and Codex).
import { REPORT_FIELD_MAX, toolDetailOf } from './harness';
import { promptTitle } from '../features/permission-prompts';
import { MAX_SENT_INPUT_BYTES, PROMPT_FILING_EVENT, cutOf, type PromptFiling } from '../api/prompt-filing';

type Json = Record<string, unknown>;

/** The harnesses the hook door answers per event (the path /hook/<harness>/<event>); Cursor keeps `perch hook`. */
export const HOOK_DOOR_EVENTS = {
  'claude-code': ['permission-request', 'pre-tool-use', 'notification', 'stop', 'session-start', 'session-end'],
  codex: ['permission-request', 'pre-tool-use', 'notification', 'stop', 'session-start', 'session-end'],
} as const;
export type HookDoorHarness = keyof typeof HOOK_DOOR_EVENTS;

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** A PermissionRequest hook's input (Claude Code, Codex; Cursor's prompts are put in this shape: hook-cursor.ts). */
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
export function reportOf(sub: StatusHook, input: Record<string, unknown>, harness: 'claude-code' | 'codex'): Record<string, string> {
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

/** The request's title: what the agent wants to do, in one line (the hub builds the same from what it is sent). */
export function titleOf(input: PermissionRequestInput): string {
  return promptTitle(input.tool_name, input.tool_input);
}

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
