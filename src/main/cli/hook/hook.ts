// `perch hook permission-request`: a coding agent's harness (Claude Code, Codex) runs this as its
// PermissionRequest hook when it is about to show its own "may I run this?" dialog. The prompt is filed as an
// ordinary owner request (request_human, so the Approvals inbox, phone push and requests.decide work unchanged),
// the owner's decision is waited for (get_request), and the harness gets the decision JSON on stdout.
// Whenever Perch cannot decide (no decision in time, hub down, bad input) it prints nothing and exits 0: the
// harness then shows its terminal dialog as if there were no hook. It never exits 2 (Claude Code reads exit 2
// of a PermissionRequest hook as a denial).
//
// Wire format, as the published references give it:
//   Claude Code, code.claude.com/docs/en/hooks ("PermissionRequest"): stdin has session_id, transcript_path, cwd,
//   permission_mode, hook_event_name, tool_name, tool_input, permission_suggestions; stdout
//   {"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"|"deny","message"?}}}.
//   Codex, developers.openai.com/codex/hooks ("PermissionRequest"): the same, plus turn_id and model, tool_name
//   "Bash" with tool_input.command (and tool_input.description, the justification); updatedInput,
//   updatedPermissions and interrupt are reserved there (a hook that sets them fails closed), so none is printed.
//   Both run a command hook for up to 600 s unless its `timeout` says otherwise: --timeout defaults below that.
//   Cursor's beforeShellExecution / beforeMCPExecution (permission allow | deny | ask) take the same path with
//   their own input and output: hook-cursor.ts.
//
// Loaded on its own by bin/perch.js (dist/hook.js, node built-ins only): the harness waits for this process
// at every prompt, so it must start fast.
import { parseArgs } from 'node:util';
import { DEFAULT_PORT } from '../../paths';
import { PostFailed, StepAside, keyEnvName, mcpUrl, postText, readStdin, type HookDecision } from './hook-common';
import { CURSOR_EVENTS, cursorDecisionJson, isCursorInput, parseCursorInput } from './hook-cursor';
import { hookUrl, missingKey, runStatusHook } from './hook-status';
import {
  STATUS_HOOKS,
  decisionJson,
  filingOf,
  harnessOf,
  parseHookInput,
  pausedPromptMessage,
  type StatusHook,
} from '../../../shared/agents/hook-wire';

/** Below the harnesses' default hook timeout (600 s in both references), so Perch gives up before it is killed. */
export const DEFAULT_HOOK_TIMEOUT_SECS = 540;
const MAX_HOOK_TIMEOUT_SECS = 24 * 60 * 60;
/** get_request waits at most this long per call (LIMITS.maxWaitSecs; not imported, to keep this module small). */
const MAX_WAIT_PER_CALL_SECS = 60;
/** A call that does not wait (open_direct, request_human, cancel_request) must answer within this. */
const CALL_TIMEOUT_MS = 10_000;

export const HOOK_HELP = `perch hook EVENT [--agent NAME] [--timeout SECS] [--harness claude-code|codex|cursor] [--url URL]

perch hook permission-request

Run by Claude Code or Codex as their PermissionRequest hook (see docs/guide/harnesses.md).
Reads the hook's JSON on stdin, files the prompt in your Perch Approvals inbox (phone push included) and
waits for your decision; prints the harness's allow/deny JSON.
  --agent NAME   the agent's key is PERCH_KEY_<NAME> (upper case, other characters as _), else PERCH_KEY
  --timeout SECS how long to wait for your decision (default ${DEFAULT_HOOK_TIMEOUT_SECS}, below the harnesses' 600 s hook timeout)
  --url URL      the hub's MCP URL (default PERCH_URL, else the running hub of the data dir, else port ${DEFAULT_PORT})
No decision in time, the hub down, or input that is not a PermissionRequest: prints nothing and exits 0
(the harness's own dialog takes over). A paused agent's prompts are denied with the pause reason.
Cursor runs it as its beforeShellExecution and beforeMCPExecution hooks (--harness cursor, or told by the
input): it prints Cursor's {"permission": "allow" | "deny"}, and {"permission": "ask"} (Cursor's own prompt
decides) wherever the others get nothing.

perch hook pre-tool-use | notification | stop | session-start | session-end

Run as the harness's PreToolUse, Notification, Stop, SessionStart and SessionEnd hooks: the agent's live status in
Perch's Fleet view and feed ("waiting for you", "turn ended", session started / ended), a notification when the
session waits for you. pre-tool-use blocks every tool call while you have paused the agent (the pause reason
and the instruction to wait); otherwise, and whenever the hub cannot answer within 1.5 s, it decides
nothing. --harness says which harness runs it (default: told by the input; Codex sends turn_id).`;

type Json = Record<string, unknown>;

export type { PermissionRequestInput, HookDecision } from '../../../shared/agents/hook-wire';
export { decisionJson, filingOf, harnessOf, parseHookInput, titleOf } from '../../../shared/agents/hook-wire';

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

// ---- talking to the hub ------------------------------------------------------------------------

/** A tool error from the hub (result.isError), with its code and details. */
class ToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details: Json,
  ) {
    super(message);
  }
}

class Hub {
  constructor(
    private readonly url: string,
    private readonly key: string,
  ) {}

  /** Files the prompt through the hook door (POST /hook): request_human's answer, or its refusal as a ToolError. */
  async file(filing: Json, timeoutMs = CALL_TIMEOUT_MS): Promise<Json> {
    const door = hookUrl(this.url).toString();
    let res: { status: number; text: string };
    try {
      res = await postText(
        door,
        { 'Content-Type': 'application/json', Authorization: `Bearer ${this.key}` },
        JSON.stringify(filing),
        timeoutMs,
      );
    } catch (e) {
      const why = e instanceof PostFailed ? e.why : (e as Error).message;
      throw new StepAside(`cannot reach the Perch hub at ${this.url} (${why}); is \`perch serve\` (or the app) running?`);
    }
    if (res.status === 401)
      throw new StepAside(`the Perch hub at ${door} refused the agent key (HTTP 401): check the key in the hook's environment`);
    let body: any;
    try {
      body = JSON.parse(res.text);
    } catch {
      body = undefined;
    }
    if (body?.ok === true && body.request && typeof body.request === 'object') return body.request as Json;
    const err = body?.error;
    if (err && typeof err === 'object')
      throw new ToolError(String(err.code ?? 'error'), String(err.message ?? 'filing the prompt failed'), (err.details ?? {}) as Json);
    throw new StepAside(`unexpected answer from ${door} (HTTP ${res.status})`);
  }

  /** One tools/call, bounded by timeoutMs; the hub being unreachable or answering oddly is a StepAside. */
  async call(tool: string, args: Json, timeoutMs = CALL_TIMEOUT_MS): Promise<Json> {
    let res: { status: number; text: string };
    try {
      res = await postText(
        this.url,
        {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          Authorization: `Bearer ${this.key}`,
          'MCP-Protocol-Version': '2025-11-25',
        },
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } }),
        timeoutMs,
      );
    } catch (e) {
      const why = e instanceof PostFailed ? e.why : (e as Error).message;
      throw new StepAside(`cannot reach the Perch hub at ${this.url} (${why}); is \`perch serve\` (or the app) running?`);
    }
    const text = res.text;
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (res.status === 401)
      throw new StepAside(`the Perch hub at ${this.url} refused the agent key (HTTP 401): check the key in the hook's environment`);
    if (body?.error) throw new StepAside(`${tool}: ${body.error.message ?? JSON.stringify(body.error)}`);
    const result = body?.result;
    if (!result) throw new StepAside(`${tool}: unexpected answer from ${this.url} (HTTP ${res.status})`);
    const out = (result.structuredContent ?? {}) as Json;
    if (result.isError) {
      const err = (out.error ?? {}) as Json;
      throw new ToolError(String(err.code ?? 'error'), String(err.message ?? `${tool} failed`), (err.details ?? {}) as Json);
    }
    return out;
  }
}

// ---- the command -------------------------------------------------------------------------------

interface HookOptions {
  agent?: string;
  timeoutSecs: number;
  url?: string;
  harness?: string;
}

function parseHookArgs(argv: string[]): { sub: string | undefined; help: boolean; opts: HookOptions } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        agent: { type: 'string' },
        timeout: { type: 'string' },
        url: { type: 'string' },
        harness: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    throw new StepAside((e as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1) throw new StepAside(`unexpected ${JSON.stringify(positionals[1])}`);
  const t = values.timeout !== undefined ? Number(values.timeout) : DEFAULT_HOOK_TIMEOUT_SECS;
  if (!Number.isInteger(t) || t < 1 || t > MAX_HOOK_TIMEOUT_SECS)
    throw new StepAside(`--timeout must be whole seconds from 1 to ${MAX_HOOK_TIMEOUT_SECS}, not ${JSON.stringify(values.timeout)}`);
  if (values.agent !== undefined && !values.agent.trim()) throw new StepAside('--agent needs a NAME');
  if (values.harness !== undefined && values.harness !== 'claude-code' && values.harness !== 'codex' && values.harness !== 'cursor')
    throw new StepAside(`--harness must be claude-code, codex or cursor, not ${JSON.stringify(values.harness)}`);
  return {
    sub: positionals[0],
    help: !!values.help,
    opts: { agent: values.agent, timeoutSecs: t, url: values.url, harness: values.harness },
  };
}

/** Files the prompt, waits for the owner, returns the decision (undefined: the terminal dialog decides). */
async function decide(
  filing: Json,
  hub: Hub,
  timeoutSecs: number,
  onRequest: (id: string | undefined) => void,
): Promise<HookDecision | undefined> {
  const deadline = Date.now() + timeoutSecs * 1000;
  let requestId: string | undefined;
  try {
    // Filed through the hook door (the hub builds the request in the direct conversation with the owner), so a
    // standing rule may decide it; an agent's own request_human never is.
    const req = await hub.file({ ...filing, ttl_secs: timeoutSecs + 60 });
    requestId = str(req.request_id);
    if (!requestId) throw new StepAside('request_human gave no request_id');
    onRequest(requestId);
    // A standing rule of the owner decides at once (request_human answers decided); else wait for the owner.
    let r = req;
    for (;;) {
      if (r.state === 'approved') return { behavior: 'allow' };
      if (r.state === 'rejected') {
        const comment = str((r.outcome as Json | undefined)?.comment);
        return { behavior: 'deny', message: comment ? `Denied by the owner in Perch: ${comment}` : 'Denied by the owner in Perch.' };
      }
      if (r.state !== 'pending') throw new StepAside(`the request was ${String(r.state)} in Perch; the terminal dialog decides`);
      const left = Math.floor((deadline - Date.now()) / 1000);
      if (left <= 0 && r !== req) break;
      const wait = Math.min(MAX_WAIT_PER_CALL_SECS, Math.max(0, left));
      r = await hub.call('get_request', { request_id: requestId, wait_secs: wait }, wait * 1000 + CALL_TIMEOUT_MS);
    }
    throw new StepAside(`no decision within ${timeoutSecs} s; the terminal dialog decides`);
  } catch (e) {
    if (e instanceof ToolError && e.code === 'paused') return { behavior: 'deny', message: pausedPromptMessage(e.details) };
    if (e instanceof ToolError) throw new StepAside(`${e.code}: ${e.message}`);
    throw e;
  }
}

/** `perch hook SUB ...` (SUB: permission-request, or a status hook: hook-status.ts). Always resolves; the process should then exit 0. */
export async function cmdHook(argv: string[]): Promise<void> {
  let hub: Hub | undefined;
  let requestId: string | undefined;
  // Cursor reads a permission on every path: "ask" (its own prompt decides) where the others get nothing.
  let cursor = false;
  const withdraw = async () => {
    // The harness stops waiting (or Perch gives up): the prompt leaves the Approvals inbox.
    const id = requestId;
    requestId = undefined;
    if (hub && id) await hub.call('cancel_request', { request_id: id }, 3_000).catch(() => undefined);
  };
  const onSignal = () => {
    void withdraw().finally(() => process.exit(0));
  };
  try {
    const { sub, help, opts } = parseHookArgs(argv);
    if (help || sub === undefined) {
      process.stdout.write(`${HOOK_HELP}\n`);
      return;
    }
    if ((STATUS_HOOKS as readonly string[]).includes(sub)) {
      if (opts.harness === 'cursor')
        throw new StepAside(`--harness cursor is for permission-request (Cursor's ${CURSOR_EVENTS.join(' and ')} hooks) only`);
      await runStatusHook(sub as StatusHook, opts);
      return;
    }
    if (sub !== 'permission-request')
      throw new StepAside(`unknown hook ${JSON.stringify(sub)}: use permission-request, ${STATUS_HOOKS.join(', ')}`);
    cursor = opts.harness === 'cursor';
    const text = await readStdin();
    cursor ||= opts.harness === undefined && isCursorInput(text);
    const prompt = cursor ? parseCursorInput(text) : { input: parseHookInput(text), extra: {} };
    const { input } = prompt;
    const key = process.env[keyEnvName(opts.agent)];
    if (!key) throw await missingKey(mcpUrl(opts.url), opts.agent, cursor ? 'cursor' : harnessOf(input));
    hub = new Hub(mcpUrl(opts.url), key);
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    const filing = filingOf(input, cursor ? 'cursor' : harnessOf(input), prompt.extra);
    const decision = await decide(filing, hub, opts.timeoutSecs, (id) => (requestId = id));
    requestId = undefined;
    if (cursor) process.stdout.write(`${cursorDecisionJson(decision)}\n`);
    else if (decision) process.stdout.write(`${decisionJson(decision)}\n`);
  } catch (e) {
    await withdraw();
    const msg = e instanceof StepAside ? e.message : `unexpected error: ${(e as Error)?.message ?? String(e)}`;
    process.stderr.write(`perch hook: ${msg}\n`);
    if (cursor) process.stdout.write(`${cursorDecisionJson(undefined)}\n`);
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}

/** The entry of dist/hook.js, which bin/perch.js loads alone for `perch hook ...`. */
export async function main(argv: string[]): Promise<void> {
  await cmdHook(argv[0] === 'hook' ? argv.slice(1) : argv);
}
