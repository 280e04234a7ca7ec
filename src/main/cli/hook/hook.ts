// `perch hook EVENT`: a harness's command hook as a thin client of the hub's harness hook doors (POST
// /hook/<harness>/<event>: src/main/mcp/hook-door.ts, which files the prompt, applies the standing rules, waits for
// the owner, notes the harness status and blocks a paused agent's tools). It reads the hook input the harness writes on
// stdin, posts it unchanged to <base>/hook/<harness>/<event>?agent=NAME[&timeout=SECS] (the base: the hub's MCP URL
// without its final /mcp) with the agent's key from PERCH_KEY_<NAME>, and prints the door's answer, the harness's own
// output JSON, on stdout when it decides (nothing when it is {}). It is what `perch connect --hooks perch` writes,
// for a machine where the hooks cannot run curl.
//
// Whenever Perch cannot decide (no decision in time, hub down or slow, bad input, a refusal) it says why in one
// stderr line, prints nothing (Cursor: {"permission":"ask"}, its own prompt decides) and exits 0: the harness goes on
// as if there were no hook. It never exits 2 (Claude Code reads exit 2 of a PermissionRequest hook as a denial).
// A status hook waits for the hub at most HUB_TIMEOUT_MS (the harness waits for PreToolUse before every tool call);
// permission-request waits for the owner up to --timeout, below the harnesses' 600 s hook timeout. The harness stops
// the hook (SIGTERM: the prompt was answered in its own dialog): the connection closes and the door withdraws the
// prompt.
//
// Loaded on its own by bin/perch.js (dist/hook.js, node built-ins only): the harness waits for this process
// at every hook event, so it must start fast.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_PORT } from '../../paths';
import { PostFailed, StepAside, harnessDoorUrl, keyEnvName, mcpUrl, postHook, readStdin, type DoorAnswer } from './hook-common';
import { PROMPT_HARNESS_LABEL } from '../../../shared/agents/harness';
import {
  CURSOR_EVENTS,
  STATUS_HOOKS,
  cursorDecisionJson,
  harnessOf,
  harnessOfInput,
  isCursorInput,
  isNoDecision,
  type PermissionRequestInput,
} from '../../../shared/agents/hook-wire';
import { noKeyMessage } from '../../../shared/agents/snippets';
import { promptTitle } from '../../../shared/features/permission-prompts';
import { visibleText } from '../../../shared/text/text';

/** Below the harnesses' default hook timeout (600 s in both references), so Perch gives up before it is killed. */
const DEFAULT_HOOK_TIMEOUT_SECS = 540;
const MAX_HOOK_TIMEOUT_SECS = 24 * 60 * 60;
/** A status hook's answer comes within this or the hook decides nothing: a harness waits for PreToolUse before every tool call. */
const HUB_TIMEOUT_MS = 1_500;
/** A hub that is not listening refuses at once; one that does not even accept a status hook's connection is given this long. */
const CONNECT_TIMEOUT_MS = 500;
/** permission-request: the connection, and how much longer than --timeout the door may take to answer. */
const PROMPT_CONNECT_TIMEOUT_MS = 10_000;
const PROMPT_GRACE_MS = 15_000;

export const HOOK_HELP = `perch hook EVENT [--agent NAME] [--timeout SECS] [--harness claude-code|codex|cursor] [--url URL]

Posts the hook's JSON from stdin to the Perch hub's hook door for the harness and event
(<hub>/hook/<harness>/<event>, see docs/guide/harnesses.md) and prints the door's answer.
  --agent NAME   the agent's key is PERCH_KEY_<NAME> (upper case, other characters as _), else PERCH_KEY
  --harness H    claude-code, codex or cursor (default: told by the input; Codex sends turn_id)
  --url URL      the hub's MCP URL (default PERCH_URL, else the running hub of the data dir, else port ${DEFAULT_PORT})

perch hook permission-request

Run by Claude Code or Codex as their PermissionRequest hook, and by Cursor as its beforeShellExecution and
beforeMCPExecution hooks: files the prompt in your Perch Approvals inbox (phone push included), waits for your
decision and prints the harness's allow/deny JSON. A paused agent's prompts are denied with the pause reason.
  --timeout SECS how long to wait for your decision (default ${DEFAULT_HOOK_TIMEOUT_SECS}, below the harnesses' 600 s hook timeout)
No decision in time, the hub down, or input that is not a PermissionRequest: decides nothing and exits 0
(the harness's own dialog takes over); when the hub gave up on the card, for Claude Code it prints the hub's
line naming it (systemMessage, and the terminal's window title); for Cursor it prints {"permission": "ask"}
(Cursor's own prompt decides).

perch hook pre-tool-use | notification | stop | session-start | session-end

Run as the harness's PreToolUse, Notification, Stop, SessionStart and SessionEnd hooks: the agent's live status in
Perch's Fleet view and feed ("waiting for you", "turn ended", session started / ended), a notification when the
session waits for you. pre-tool-use blocks every tool call while you have paused the agent (the pause reason
and the instruction to wait); otherwise, and whenever the hub cannot answer within 1.5 s, it decides nothing.`;

interface HookOptions {
  agent?: string;
  timeoutSecs?: number;
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
  const t = values.timeout !== undefined ? Number(values.timeout) : undefined;
  if (t !== undefined && (!Number.isInteger(t) || t < 1 || t > MAX_HOOK_TIMEOUT_SECS))
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

/** Which harness's door the input goes to: --harness, else told by the input (an input that is no JSON object: Claude Code's, whose door says what is wrong). */
function harnessFor(sub: string, text: string, flag: string | undefined): string {
  if (flag) return flag;
  if (sub === 'permission-request' && isCursorInput(text)) return 'cursor';
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    return 'claude-code';
  }
  if (!o || typeof o !== 'object' || Array.isArray(o)) return 'claude-code';
  const input = o as Record<string, unknown>;
  return sub === 'permission-request' ? harnessOf(input as unknown as PermissionRequestInput) : harnessOfInput(input, undefined);
}

/** What the door's answer means for the hook: the output to print ('' when it decided nothing), or a StepAside. */
function outputOf(answer: DoorAnswer, door: URL, claudePrompt: boolean): string {
  if (answer.status === 200) {
    if (answer.note) process.stderr.write(`perch hook: ${answer.note.replace(/\s+/g, ' ')}\n`);
    // No decision: nothing on stdout (this command tells the terminal itself, tellTerminal below), but to Claude Code's
    // PermissionRequest, which runs its hooks with no terminal of their own: the door's line and window title.
    return isNoDecision(answer.text.trim()) && !claudePrompt ? '' : answer.text.trim();
  }
  let message: string | undefined;
  try {
    const m = (JSON.parse(answer.text) as { error?: { message?: unknown } }).error?.message;
    message = typeof m === 'string' ? m : undefined;
  } catch {
    // not the door's JSON: its start below
  }
  if (answer.status === 401)
    throw new StepAside(`the Perch hub at ${door.origin} refused the agent key (HTTP 401): check the key in the hook's environment`);
  // Input the door cannot take: its own line says what is wrong with it.
  if (answer.status === 400 && message) throw new StepAside(message);
  throw new StepAside(`the Perch hub answered HTTP ${answer.status}: ${message ?? answer.text.slice(0, 200)}`);
}

/**
 * One line to the terminal the harness runs in (its controlling terminal, /dev/tty), where a person sees it even when
 * the harness shows nothing of its hooks; nothing when there is no terminal. Claude Code (2.1.332) runs its hooks in a
 * session of their own with none, so its terminal never shows these lines (test/real/real-claude-code-waiting.test.ts).
 */
function tellTerminal(line: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync('/dev/tty', 'w');
    // The card's title holds the agent's command: no escape sequence or bidi control in it acts on the terminal.
    fs.writeSync(fd, `${visibleText(line).replace(/\s+/g, ' ')}\n`);
  } catch {
    // no controlling terminal (a harness started without one): the stderr line stands
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The card's title for a prompt's input, as the hub will file it ("Allow Bash: npm test?"), or undefined. */
function cardTitle(text: string, harness: string): string | undefined {
  try {
    const o = JSON.parse(text) as Record<string, unknown>;
    if (harness === 'cursor') return typeof o.command === 'string' ? promptTitle('Shell', { command: o.command }) : undefined;
    return typeof o.tool_name === 'string' ? promptTitle(o.tool_name, o.tool_input) : undefined;
  } catch {
    return undefined;
  }
}

/** `perch hook SUB ...` (SUB: permission-request, or a status hook). Always resolves; the process should then exit 0. */
export async function cmdHook(argv: string[]): Promise<void> {
  // Cursor reads a permission on every path: "ask" (its own prompt decides) where the others get nothing.
  let cursor = false;
  const stop = new AbortController();
  const onSignal = () => {
    // The harness stops waiting: closing the connection withdraws the prompt (the door sees it close).
    stop.abort();
    process.exit(0);
  };
  try {
    const { sub, help, opts } = parseHookArgs(argv);
    if (help || sub === undefined) {
      process.stdout.write(`${HOOK_HELP}\n`);
      return;
    }
    const prompt = sub === 'permission-request';
    if (!prompt && !(STATUS_HOOKS as readonly string[]).includes(sub))
      throw new StepAside(`unknown hook ${JSON.stringify(sub)}: use permission-request, ${STATUS_HOOKS.join(', ')}`);
    if (!prompt && opts.harness === 'cursor')
      throw new StepAside(`--harness cursor is for permission-request (Cursor's ${CURSOR_EVENTS.join(' and ')} hooks) only`);
    cursor = opts.harness === 'cursor';
    const text = await readStdin();
    const harness = harnessFor(sub, text, opts.harness);
    cursor = harness === 'cursor';
    const mcp = mcpUrl(opts.url);
    let door: URL;
    try {
      door = harnessDoorUrl(mcp, harness, sub, { agent: opts.agent, timeout: prompt ? opts.timeoutSecs?.toString() : undefined });
    } catch {
      throw new StepAside(`the hub's URL ${JSON.stringify(mcp.slice(0, 200))} is not a URL`);
    }
    const key = process.env[keyEnvName(opts.agent)];
    const bounds = prompt
      ? { connectMs: PROMPT_CONNECT_TIMEOUT_MS, totalMs: (opts.timeoutSecs ?? DEFAULT_HOOK_TIMEOUT_SECS) * 1000 + PROMPT_GRACE_MS }
      : { connectMs: CONNECT_TIMEOUT_MS, totalMs: HUB_TIMEOUT_MS };
    if (!key) {
      // Posted without a key all the same: the door tells the owner once that this agent's hooks have none.
      await postHook(door, undefined, text, { connectMs: CONNECT_TIMEOUT_MS, totalMs: HUB_TIMEOUT_MS }).catch(() => undefined);
      throw new StepAside(
        `${noKeyMessage(keyEnvName(opts.agent), PROMPT_HARNESS_LABEL[harness] ?? harness)} (its hooks run with that shell's environment)`,
      );
    }
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    // Where the hub is, as the user gave it: the MCP URL for a prompt, the origin for a status hook.
    const shown = prompt ? mcp : door.origin;
    const title = prompt ? cardTitle(text, harness) : undefined;
    if (title) tellTerminal(`perch: waiting for the owner in Perch: ${title}`);
    let answer: DoorAnswer;
    try {
      answer = await postHook(door, key, text, bounds, stop.signal);
    } catch (e) {
      if (!(e instanceof PostFailed)) throw e;
      if (e.timedOut) throw new StepAside(`no answer from the Perch hub at ${shown} within ${bounds.totalMs} ms; deciding nothing`);
      throw new StepAside(`cannot reach the Perch hub at ${shown} (${e.why}); is \`perch serve\` (or the app) running? Deciding nothing`);
    }
    const out = outputOf(answer, door, prompt && harness === 'claude-code');
    if (out) process.stdout.write(`${out}\n`);
    if (title && answer.note) tellTerminal(`perch: no decision in Perch on "${title}": ${answer.note.replace(/\s+/g, ' ')}`);
  } catch (e) {
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
