// `perch hook pre-tool-use | notification | stop | session-start | session-end`: a harness (Claude Code, Codex) runs
// these from its hooks config; each posts one small report to the hub's hook door (POST /hook with the agent's key:
// src/main/mcp/hook-door.ts), which makes it the agent's live status in the Fleet view and the progress feed, and
// notifies the owner when the session waits for them. pre-tool-use is the kill switch reaching the harness: while
// the owner has paused the agent, it prints the harness's PreToolUse block with the pause reason; otherwise, and
// whenever the hub does not answer within HUB_TIMEOUT_MS (down, busy), it prints nothing and exits 0, so the
// harness goes on as if there were no hook. Every path exits 0 with nothing on stdout unless it blocks.
//
// Wire format, as the published references give it:
//   Claude Code, code.claude.com/docs/en/hooks: every input has session_id, transcript_path, cwd, hook_event_name
//   (and permission_mode for most events). PreToolUse adds tool_name, tool_input, tool_use_id; its block is exit 0
//   with {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":…}}
//   (the reason is shown to the model). Notification adds message, title?, notification_type (permission_prompt,
//   idle_prompt, …); Stop adds stop_hook_active; SessionStart adds source (startup, resume, clear, compact) and
//   model; SessionEnd adds reason. Stdout of SessionStart becomes context for the model: nothing is printed.
//   Codex, developers.openai.com/codex/hooks: the same PreToolUse input plus turn_id and model, and the same
//   hookSpecificOutput block (permissionDecision "deny" with permissionDecisionReason); Stop and SessionStart as
//   Claude Code's (Stop with turn_id). Codex documents no Notification or SessionEnd event.
import http from 'node:http';
import https from 'node:https';
import { StepAside, keyEnvName, mcpUrl, parseEventInput, readStdin } from './hook-common';
import { hookDoorUrl } from '../channel/channel-hub';
import { PAUSE_EXEMPT_TOOL, PROMPT_HARNESS_LABEL } from '../../../shared/agents/harness';
import { EVENT_NAME, harnessOfInput, preToolUseDenyJson, reportOf, type StatusHook } from '../../../shared/agents/hook-wire';

export { STATUS_HOOKS, harnessOfInput, preToolUseDenyJson, reportOf, type StatusHook } from '../../../shared/agents/hook-wire';
import { noKeyMessage } from '../../../shared/agents/snippets';

/** The hub answers within this or the hook decides nothing: a harness waits for PreToolUse before every tool call. */
export const HUB_TIMEOUT_MS = 1_500;
/** A hub that is not listening refuses at once; one that does not even accept the connection is given this long. */
const CONNECT_TIMEOUT_MS = 500;

/** Perch's own tools the agent still needs while paused (shared/agents/harness.ts). */
const WAIT_TOOL = PAUSE_EXEMPT_TOOL;

/**
 * The hook door's URL beside the MCP URL (…/mcp → …/hook), naming the agent and the harness: a hook the door cannot
 * authenticate is then answered with what to set, and the owner is told (src/main/mcp/hook-door.ts).
 */
export function hookUrl(mcp: string, agent?: string, harness?: string): URL {
  const u = new URL(hookDoorUrl(mcp));
  if (agent !== undefined) u.searchParams.set('agent', agent);
  if (harness !== undefined) u.searchParams.set('harness', harness);
  return u;
}

/**
 * The hook has no key in its environment: the hook door is told so (without a key, naming the agent and harness), so
 * the owner hears of it once; the StepAside to throw says what to set, and where.
 */
export async function missingKey(mcp: string, agent: string | undefined, harness: string): Promise<StepAside> {
  await postReport(hookUrl(mcp, agent, harness), undefined, {}).catch(() => undefined);
  return new StepAside(
    `${noKeyMessage(keyEnvName(agent), PROMPT_HARNESS_LABEL[harness] ?? harness)} (its hooks run with that shell's environment)`,
  );
}

/** One POST to the hook door (key undefined: none sent); its JSON answer, or a StepAside (unreachable, slow, refused). */
export function postReport(
  url: URL,
  key: string | undefined,
  report: Record<string, string>,
): Promise<{ paused?: boolean; message?: string }> {
  const body = JSON.stringify(report);
  return new Promise((resolve, reject) => {
    // An https PERCH_URL (the HTTPS front) is posted to over TLS.
    const req = (url.protocol === 'https:' ? https : http).request(
      url,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          ...(key ? { Authorization: `Bearer ${key}` } : {}),
        },
        timeout: CONNECT_TIMEOUT_MS,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          clearTimeout(timer);
          let v: any;
          try {
            v = JSON.parse(text);
          } catch {
            v = undefined;
          }
          if (res.statusCode === 200 && v?.ok === true) return resolve(v);
          if (res.statusCode === 401)
            return reject(
              new StepAside(`the Perch hub at ${url.origin} refused the agent key (HTTP 401): check the key in the hook's environment`),
            );
          reject(new StepAside(`the Perch hub answered HTTP ${res.statusCode}: ${v?.error?.message ?? text.slice(0, 200)}`));
        });
        res.on('error', (e) => reject(new StepAside(`reading the hub's answer: ${e.message}`)));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      reject(new StepAside(`no answer from the Perch hub at ${url.origin} within ${HUB_TIMEOUT_MS} ms; deciding nothing`));
    }, HUB_TIMEOUT_MS);
    // Only the connect is bounded by the socket timeout: once connected, the whole request has HUB_TIMEOUT_MS.
    req.on('socket', (s) => s.once('connect', () => s.setTimeout(0)));
    req.on('timeout', () => req.destroy(new Error(`no connection within ${CONNECT_TIMEOUT_MS} ms`)));
    req.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        new StepAside(
          `cannot reach the Perch hub at ${url.origin} (${e.code ?? e.message}); is \`perch serve\` (or the app) running? Deciding nothing`,
        ),
      );
    });
    req.end(body);
  });
}

/** Runs one status hook: reads stdin, reports, and for a paused agent's PreToolUse prints the block. */
export async function runStatusHook(sub: StatusHook, opts: { agent?: string; url?: string; harness?: string }): Promise<void> {
  const input = parseEventInput(await readStdin(), EVENT_NAME[sub]);
  const key = process.env[keyEnvName(opts.agent)];
  const harness = harnessOfInput(input, opts.harness);
  if (!key) throw await missingKey(mcpUrl(opts.url), opts.agent, harness);
  const answer = await postReport(hookUrl(mcpUrl(opts.url), opts.agent, harness), key, reportOf(sub, input, harness));
  if (sub !== 'pre-tool-use' || !answer.paused) return;
  if (WAIT_TOOL.test(typeof input.tool_name === 'string' ? input.tool_name : '')) return; // how the paused agent waits for the owner
  process.stdout.write(
    `${preToolUseDenyJson(answer.message ?? 'Paused in Perch by the owner. Wait for the owner to resume this agent.')}\n`,
  );
}
