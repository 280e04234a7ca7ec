// The hook door: POST /hook on 127.0.0.1, behind the agent's key like /mcp. `perch hook pre-tool-use | notification |
// stop | session-start | session-end` (src/main/cli/hook/hook-status.ts) posts one small JSON object here per harness hook
// event; the hub notes the agent's harness status (hub/control/harness.ts) and answers whether the agent is paused,
// which is all pre-tool-use needs. One request, no MCP handshake: a harness may run pre-tool-use before every tool.
//
// It is also the one door a harness's permission prompt is filed through: `perch hook permission-request` and
// `perch channel` post {event: "permission-request", harness, tool_name, tool_input | input_cut, …}
// (shared/api/prompt-filing.ts PromptFiling); the hub builds the request's title and context itself and runs it as the
// agent's request_human (every gate of an agent's call: scope, paused, archived, review) in its direct conversation
// with the owner, marked as this door's prompt (Caller.door). Only such a prompt may be decided by a standing rule
// (hub/features/permission-rules.ts); an agent's own request_human never is, whatever its context says.
//
//   Host / Origin on this computer 403 · Bearer <agent key> 401 · a key whose places leave out local 403 (as /mcp) ·
//   POST 405 · Content-Type application/json 415 · body ≤ 16 KB (a prompt: 96 KB) 413 · a HarnessReport 400
//   → 200 HarnessAnswer { ok, paused, message? }
//   a prompt: 200 { ok: true, request } (request_human's answer: request_id, state, outcome…); a refusal
//   { ok: false, error: { code, message, next_step, details? } } with its HTTP status (paused 409, invalid 400 …)
// The URL may name the agent and the harness (`/hook?agent=NAME&harness=claude-code`, as `perch hook --agent NAME`
// sends): a 401 then says what to set ("no key was sent: set PERCH_KEY_NAME in the shell that starts Claude Code"),
// and the owner is told once per agent (hub/control/harness.ts noteHookKeyProblem).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Hub } from '../hub/core/hub';
import { authenticateKey } from '../hub/identity/key-login';
import { wrongPlaceMessage } from '../hub/identity/places';
import { LOCAL_PLACE } from '../../shared/agents/places';
import { isReadOnlyKey } from '../../shared/agents/scoped-keys';
import { noteHarness, noteHookKeyProblem } from '../hub/control/harness';
import { keyEnvVar, noKeyMessage, unexpandedKeyVar } from '../../shared/agents/snippets';
import { BodyTooLarge, bearerOf, isLoopbackHost, isLoopbackOrigin, readBody, sendInternalError, sendJson, statusOfCode } from '../http-util';
import { isHubError } from '../../shared/errors';
import { RateLimiter } from '../hub/core/rate-limit';
import { callAgentTool } from '../hub/tools/tools';
import { promptRequestInput } from '../hub/features/permission-rules';
import type { KeyAuth } from '../hub/identity/agent-keys';
import { PROMPT_FILING_EVENT, parsePromptFiling, type PromptFiling } from '../../shared/api/prompt-filing';
import { HARNESSES, HARNESS_EVENTS, PROMPT_HARNESS_LABEL, type HarnessEvent, type HarnessName, type HarnessReport } from '../../shared/agents/harness';

export const HOOK_PATH = '/hook';
const MAX_BODY_BYTES = 16 * 1024;
/** A prompt's body: the tool input whole up to MAX_SENT_INPUT_BYTES as JSON (escaped), or its head and tail. */
const MAX_PROMPT_BODY_BYTES = 96 * 1024;
/** Prompts filed per agent and second (and burst): a harness shows one dialog at a time, so more is already odd. */
const PROMPTS_PER_SECOND = 2;
const PROMPT_BURST = 20;
const STRING_FIELDS = ['session_id', 'cwd', 'message', 'notification_type', 'source', 'reason', 'tool_name', 'tool_detail'] as const;

function refuse(res: ServerResponse, status: number, code: string, message: string, headers?: Record<string, string>): void {
  sendJson(res, status, { ok: false, error: { code, message } }, headers);
}

/** Whether a Content-Type header names JSON (`application/json`, parameters such as `; charset=utf-8` allowed). */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/** The report in the body, or why it is not one. */
export function parseReport(buf: Buffer): HarnessReport | string {
  let v: unknown;
  try {
    v = JSON.parse(buf.toString('utf8'));
  } catch {
    return 'the body is not JSON';
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return 'the body is not a JSON object';
  const o = v as Record<string, unknown>;
  if (!HARNESS_EVENTS.includes(o.event as HarnessEvent)) return `event must be one of ${HARNESS_EVENTS.join(', ')}`;
  if (!HARNESSES.includes(o.harness as HarnessName)) return `harness must be one of ${HARNESSES.join(', ')}`;
  const r: HarnessReport = { event: o.event as HarnessEvent, harness: o.harness as HarnessName };
  for (const k of STRING_FIELDS) {
    if (o[k] === undefined || o[k] === null) continue;
    if (typeof o[k] !== 'string') return `${k} must be a string`;
    r[k] = o[k] as string;
  }
  return r;
}

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
async function filePrompt(hub: Hub, res: ServerResponse, agentId: string, key: KeyAuth, filing: PromptFiling, limiter: RateLimiter): Promise<void> {
  if (limiter.take(agentId) > 0) return refuse(res, 429, 'rate_limited', 'Too many permission prompts at once; the harness\'s own dialog decides this one.');
  try {
    const door = filing.via === 'channel' ? 'channel' : 'hook';
    const request = await callAgentTool(hub, agentId, 'request_human', promptRequestInput(hub, agentId, filing), { key, door });
    sendJson(res, 200, { ok: true, request });
  } catch (err) {
    const refused = isHubError(err) ? err : hub.storageFailure(err);
    if (!refused) throw err;
    sendJson(res, statusOfCode(refused.code), { ok: false, error: refused.toBody() });
  }
}

export function createHookDoor(hub: Hub): (req: IncomingMessage, res: ServerResponse) => void {
  const promptLimiter = new RateLimiter(PROMPTS_PER_SECOND, PROMPT_BURST, 10_000);
  return function handle(req, res) {
    if (!isLoopbackHost(req.headers.host) || (req.headers.origin !== undefined && !isLoopbackOrigin(req.headers.origin))) {
      req.resume();
      return refuse(res, 403, 'forbidden', 'The hook door answers requests from this computer only.');
    }
    const key = bearerOf(req);
    // A header holding `${PERCH_KEY_KIT}` as written (the variable was not set where the harness started) is no key.
    const sent = unexpandedKeyVar(key) ? undefined : key;
    // The hook door is on the loopback listener only (never the front, a bridge listener or a runtime's proxy): the
    // key's places are checked for the loopback, exactly as /mcp checks them there.
    const found = sent ? authenticateKey(hub, sent, LOCAL_PLACE) : undefined;
    if (found?.standing === 'place') {
      req.resume();
      return sendJson(res, 403, { ok: false, error: { code: 'forbidden', message: wrongPlaceMessage(found.user.name, found.auth.id, found.auth.name, found.allowed, LOCAL_PLACE), details: { code: 'wrong_place', allowed_from: [...found.allowed], place: LOCAL_PLACE.place } } });
    }
    if (found?.standing !== 'ok') {
      req.resume();
      const q = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams;
      const agent = q.get('agent')?.slice(0, 100) || undefined;
      const harness = q.get('harness') ?? null;
      const label = harness && Object.hasOwn(PROMPT_HARNESS_LABEL, harness) ? harness : null;
      if (agent) noteHookKeyProblem(hub, agent, label, sent ? 'refused' : 'missing');
      const message = sent ? 'The agent key is wrong or was revoked.' : `${noKeyMessage(agent ? keyEnvVar(agent) : 'PERCH_KEY_<NAME>', label ? PROMPT_HARNESS_LABEL[label] : undefined)}.`;
      return refuse(res, 401, 'unauthorized', message, { 'WWW-Authenticate': 'Bearer realm="perch"' });
    }
    if (req.method !== 'POST') {
      req.resume();
      return refuse(res, 405, 'method_not_allowed', 'POST one hook report as JSON.', { Allow: 'POST' });
    }
    if (!isJsonContentType(req.headers['content-type'])) {
      req.resume();
      const sent = req.headers['content-type'] ? `"${req.headers['content-type'].slice(0, 100)}"` : 'none';
      return refuse(res, 415, 'unsupported_media_type', `Send the hook report with "Content-Type: application/json" (got ${sent}).`);
    }
    if (isReadOnlyKey(found.auth)) {
      // A read-only key watches the agent; it is not its harness session, whose state the owner reads in Fleet.
      req.resume();
      return refuse(res, 403, 'forbidden', 'This key may only read: a harness reports its session with a key that may write (the agent\'s own key).');
    }
    const agentId = found.user.id;
    readBody(req, MAX_PROMPT_BODY_BYTES).then(
      async (buf) => {
        const filing = promptFilingOf(buf);
        if (filing !== undefined) {
          if (typeof filing === 'string') return refuse(res, 400, 'invalid_input', filing);
          return filePrompt(hub, res, agentId, found.auth, filing, promptLimiter);
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
    ).catch((err: unknown) => sendInternalError(res, err, 'hook request'));
  };
}
