// The hook door: POST /hook, behind the agent's key like /mcp and served wherever /mcp is (the loopback, a container
// listener, a runtime's proxy, the HTTPS front), the key's places checked for where the request came from as for /mcp.
// It takes one small status report ({event, harness, session_id, …}: HarnessReport) per harness hook event; the hub
// notes the agent's harness status (hub/control/harness.ts) and answers whether the agent is paused. One request, no
// MCP handshake: a harness may run pre-tool-use before every tool. (The harness doors below take the harness's own
// input instead; `perch hook` posts there.)
//
// It is also the door a harness's permission prompt is filed through: `perch channel` posts {event:
// "permission-request", harness, tool_name, tool_input | input_cut, …} (shared/api/prompt-filing.ts PromptFiling), and
// the harness doors build the same; the hub builds the request's title and context itself and runs it as the
// agent's request_human (every gate of an agent's call: scope, paused, archived, review) in its direct conversation
// with the owner, marked as this door's prompt (Caller.door). Only such a prompt may be decided by a standing rule
// (hub/features/requests/permission-rules.ts); an agent's own request_human never is, whatever its context says.
//
//   on the loopback: Host / Origin on this computer 403 · Bearer <agent key> 401 · a key whose places leave out
//   where the request came from 403 (as /mcp) ·
//   POST 405 · Content-Type application/json 415 · body ≤ 16 KB (a prompt: 96 KB) 413 · a HarnessReport 400
//   → 200 HarnessAnswer { ok, paused, message? }
//   a prompt: 200 { ok: true, request } (request_human's answer: request_id, state, outcome…); a refusal
//   { ok: false, error: { code, message, next_step, details? } } with its HTTP status (paused 409, invalid 400 …)
// The URL may name the agent and the harness (`/hook?agent=NAME&harness=claude-code`, or
// `/hook/<harness>/<event>?agent=NAME` as `perch hook --agent NAME` and the written hooks send): a 401 then says what to set ("no key was sent: set PERCH_KEY_NAME in the shell that starts Claude Code"),
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PerchHub as Hub } from '../../hub/services';
import type { RequestPlace } from '../../../shared/agents/places';
import { noteHarness } from '../../hub/control/harness';
import { BodyTooLarge, readBody, sendInternalError, sendJson, statusOfCode } from '../../http-util';
import { isHubError } from '../../../shared/errors';
import { RateLimiter } from '../../hub/core/rate-limit';
import { callAgentTool } from '../../hub/tools/tools';
import { promptRequestInput } from '../../hub/features/requests/permission-rules';
import type { KeyAuth } from '../../hub/identity/agent-keys';
import { PROMPT_FILING_EVENT, parsePromptFiling, type PromptFiling } from '../../../shared/api/prompt-filing';
import { admit, refuse } from './admit';
import { parseReport } from './report';
import { harnessDoor } from './harness-door';

export const HOOK_PATH = '/hook';
/** The harness doors: /hook/<harness>/<event>. */
export const HOOK_DOOR_PREFIX = '/hook/';
const MAX_BODY_BYTES = 16 * 1024;
/** A prompt's body: the tool input whole up to MAX_SENT_INPUT_BYTES as JSON (escaped), or its head and tail. */
const MAX_PROMPT_BODY_BYTES = 96 * 1024;
/** Prompts filed per agent and second (and burst): a harness shows one dialog at a time, so more is already odd. */
const PROMPTS_PER_SECOND = 2;
const PROMPT_BURST = 20;

/** The prompt in the body (or why it is not one), or undefined when the body is not a prompt's filing. */
function promptFilingOf(buf: Buffer): PromptFiling | string | undefined {
  let v: unknown;
  try {
    v = JSON.parse(buf.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!v || typeof v !== 'object' || Array.isArray(v) || (v as Record<string, unknown>).event !== PROMPT_FILING_EVENT) return undefined;
  return parsePromptFiling(v as Record<string, unknown>);
}

/** Files a harness's prompt as the agent's request_human, marked as this door's (see the top of this file). */
async function filePrompt(
  hub: Hub,
  res: ServerResponse,
  agentId: string,
  key: KeyAuth,
  filing: PromptFiling,
  limiter: RateLimiter,
): Promise<void> {
  if (limiter.take(agentId) > 0)
    return refuse(res, 429, 'rate_limited', "Too many permission prompts at once; the harness's own dialog decides this one.");
  try {
    const door = filing.via === 'channel' ? 'channel' : 'hook';
    const request = await callAgentTool(hub, agentId, 'request_human', await promptRequestInput(hub, agentId, filing), { key, door });
    sendJson(res, 200, { ok: true, request });
  } catch (err) {
    const refused = isHubError(err) ? err : hub.storageFailure(err);
    if (!refused) throw err;
    sendJson(res, statusOfCode(refused.code), { ok: false, error: refused.toBody() });
  }
}

/** A hook request's path: the report door (/hook) or a harness door (/hook/<harness>/<event>). */
export function isHookPath(p: string): boolean {
  return p === HOOK_PATH || p.startsWith(HOOK_DOOR_PREFIX);
}

/** The hook door: POST /hook (a report, a prompt's filing) and POST /hook/<harness>/<event> (the harness's own input); `at`: where from (absent: the loopback). */
export function createHookDoor(hub: Hub): (req: IncomingMessage, res: ServerResponse, at?: RequestPlace) => void {
  const promptLimiter = new RateLimiter(PROMPTS_PER_SECOND, PROMPT_BURST, 10_000);
  return function handle(req, res, at) {
    const path = (req.url ?? '').split('?')[0]!;
    if (path !== HOOK_PATH) return harnessDoor(hub, req, res, at, promptLimiter);
    const who = admit(hub, req, res, at);
    if (!who) return;
    const agentId = who.agentId;
    readBody(req, MAX_PROMPT_BODY_BYTES)
      .then(
        async (buf) => {
          const filing = promptFilingOf(buf);
          if (filing !== undefined) {
            if (typeof filing === 'string') return refuse(res, 400, 'invalid_input', filing);
            return filePrompt(hub, res, agentId, who.auth, filing, promptLimiter);
          }
          if (buf.length > MAX_BODY_BYTES) return refuse(res, 413, 'too_large', `The body is over ${MAX_BODY_BYTES} bytes.`);
          const r = parseReport(buf);
          if (typeof r === 'string') return refuse(res, 400, 'invalid_input', r);
          sendJson(res, 200, noteHarness(hub, agentId, r));
        },
        (err) => {
          if (err instanceof BodyTooLarge) return refuse(res, 413, 'too_large', `The body is over ${MAX_PROMPT_BODY_BYTES} bytes.`);
          if (!res.destroyed) refuse(res, 400, 'invalid_input', 'Bad request body.');
        },
      )
      .catch((err: unknown) => sendInternalError(res, err, 'hook request'));
  };
}
