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
// and the owner is told once per agent (hub/control/harness.ts noteHookKeyProblem). The harness doors
// (POST /hook/<harness>/<event>, below) take the harness's own input and answer its own output.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PerchHub as Hub } from '../hub/services';
import type { RequestPlace } from '../../shared/agents/places';
import { LIMITS } from '../../shared/limits';
import { cursorMcpToolName } from './cursor-tool-name';
import { answeredByAnother } from './session-owner';
import {
  EVENT_NAME,
  HOOK_DOOR_EVENTS,
  StepAside,
  cursorDecisionJson,
  decisionJson,
  filingOf,
  noDecisionJson,
  parseCursorInput,
  parseEventInput,
  parseHookInput,
  pausedPromptMessage,
  preToolUseDenyJson,
  reportOf,
  type HookDecision,
  type HookDoorHarness,
  type StatusHook,
} from '../../shared/agents/hook-wire';
import {
  copilotDecisionJson,
  copilotPreToolDenyJson,
  isOwnCopilotTool,
  parseCopilotEventInput,
  parseCopilotPermissionInput,
} from '../../shared/agents/copilot-wire';
import { authenticateKey, keyStanding, type KeyKind } from '../hub/identity/key-login';
import { wrongPlaceMessage } from '../hub/identity/places';
import { LOCAL_PLACE } from '../../shared/agents/places';
import { isReadOnlyKey } from '../../shared/agents/scoped-keys';
import { noteHarness, noteHookKeyProblem, notePermissionMode, ownServerOf, pauseExempt } from '../hub/control/harness';
import { keyEnvVar, noKeyMessage, unexpandedKeyVar } from '../../shared/agents/snippets';
import {
  BodyTooLarge,
  bearerOf,
  isLoopbackHost,
  isLoopbackOrigin,
  newRequestId,
  readBody,
  sendInternalError,
  sendJson,
  statusOfCode,
} from '../http-util';
import { isHubError } from '../../shared/errors';
import { tooDeep } from '../../shared/text/json-depth';
import { RateLimiter } from '../hub/core/rate-limit';
import { callAgentTool } from '../hub/tools/tools';
import { promptRequestInput } from '../hub/features/requests/permission-rules';
import { recordDelivery, withdrawUnanswered } from '../hub/features/requests/abandoned-prompts';
import { awaitJoinedPrompt, promptJoinKey } from '../hub/features/requests/prompt-joins';
import { getRequestForOwner } from '../hub/features/requests/owner-decisions';
import { perchDecisionOf, recordPromptDecision } from '../hub/features/ledger/decisions';
import type { PerchDecision } from '../../shared/ledger/harness-events';
import type { KeyAuth } from '../hub/identity/agent-keys';
import { PROMPT_FILING_EVENT, parsePromptFiling, type PromptFiling } from '../../shared/api/prompt-filing';
import {
  HARNESSES,
  HARNESS_EVENTS,
  PROMPT_HARNESS_LABEL,
  type HarnessEvent,
  type HarnessName,
  type HarnessReport,
} from '../../shared/agents/harness';

export const HOOK_PATH = '/hook';
/** The harness doors: /hook/<harness>/<event>. */
export const HOOK_DOOR_PREFIX = '/hook/';
/** A harness's hook input may carry a whole file (a Write's content); what is filed is cut (shared/api/prompt-filing.ts). */
const MAX_INPUT_BYTES = 4 * 1024 * 1024;
/** How long a permission-request waits for the owner unless ?timeout= says: below the harnesses' 600 s hook timeout. */
export const DEFAULT_DECISION_SECS = 540;
const MAX_DECISION_SECS = 24 * 60 * 60;
/** Why a harness door decided nothing (URI-encoded), in a header the harness ignores. */
export const NOTE_HEADER = 'perch-hook-note';
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

/** How a door refuses once the key is known (Cursor's: "ask", the reason in the note; the others' the refusal). */
type Refuse = (status: number, code: string, message: string, headers?: Record<string, string>) => void;

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
  return reportOfObject(v as Record<string, unknown>);
}

/** A report from its fields (a parsed body, or what reportOf built from a harness's hook input), or why it is not one. */
function reportOfObject(o: Record<string, unknown>): HarnessReport | string {
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

interface Admitted {
  agentId: string;
  key: string;
  auth: KeyAuth;
  /** 'run': a wake run's own key (the hook is that run's, a session Perch started for this agent). */
  kind: KeyKind;
}

/**
 * The checks both doors share: where from (on the loopback listener: this computer; the other listeners and the front
 * check their own), the key and its places for where the request came from (exactly as /mcp), POST, JSON, a key that
 * may write. Refuses (and answers), or admits.
 */
function admit(
  hub: Hub,
  req: IncomingMessage,
  res: ServerResponse,
  at: RequestPlace | undefined,
  afterKey: Refuse = (status, code, message, headers) => refuse(res, status, code, message, headers),
): Admitted | undefined {
  if (!at && (!isLoopbackHost(req.headers.host) || (req.headers.origin !== undefined && !isLoopbackOrigin(req.headers.origin)))) {
    req.resume();
    refuse(res, 403, 'forbidden', 'The hook door answers requests from this computer only.');
    return undefined;
  }
  const place = at ?? LOCAL_PLACE;
  const key = bearerOf(req);
  // A header holding `${PERCH_KEY_KIT}` as written (the variable was not set where the harness started) is no key.
  const sent = unexpandedKeyVar(key) ? undefined : key;
  const found = sent ? authenticateKey(hub, sent, place) : undefined;
  if (found?.standing === 'place') {
    req.resume();
    sendJson(res, 403, {
      ok: false,
      error: {
        code: 'forbidden',
        message: wrongPlaceMessage(found.user.name, found.auth.id, found.auth.name, found.allowed, place),
        details: { code: 'wrong_place', allowed_from: [...found.allowed], place: place.place },
      },
    });
    return undefined;
  }
  if (!sent || found?.standing !== 'ok') {
    req.resume();
    const q = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams;
    const agent = q.get('agent')?.slice(0, 100) || undefined;
    // The harness: ?harness= (the old door), else the harness door's path.
    const harness = q.get('harness') ?? /^\/hook\/([^/?]+)\//.exec(req.url ?? '')?.[1] ?? null;
    const label = harness && Object.hasOwn(PROMPT_HARNESS_LABEL, harness) ? harness : null;
    if (agent) noteHookKeyProblem(hub, agent, label, sent ? 'refused' : 'missing');
    const message = sent
      ? 'The agent key is wrong or was revoked.'
      : `${noKeyMessage(agent ? keyEnvVar(agent) : 'PERCH_KEY_<NAME>', label ? PROMPT_HARNESS_LABEL[label] : undefined)}.`;
    refuse(res, 401, 'unauthorized', message, { 'WWW-Authenticate': 'Bearer realm="perch"' });
    return undefined;
  }
  if (req.method !== 'POST') {
    req.resume();
    afterKey(405, 'method_not_allowed', 'POST one hook report as JSON.', { Allow: 'POST' });
    return undefined;
  }
  if (!isJsonContentType(req.headers['content-type'])) {
    req.resume();
    const got = req.headers['content-type'] ? `"${req.headers['content-type'].slice(0, 100)}"` : 'none';
    afterKey(415, 'unsupported_media_type', `Send the hook report with "Content-Type: application/json" (got ${got}).`);
    return undefined;
  }
  if (isReadOnlyKey(found.auth)) {
    // A read-only key watches the agent; it is not its harness session, whose state the owner reads in Fleet.
    req.resume();
    afterKey(403, 'forbidden', "This key may only read: a harness reports its session with a key that may write (the agent's own key).");
    return undefined;
  }
  return { agentId: found.user.id, key: sent, auth: found.auth, kind: found.kind };
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

// ---- the harness doors ----------------------------------------------------------------------------
// POST /hook/<harness>/<event> (claude-code, codex, copilot: permission-request, pre-tool-use, notification, stop,
// session-start, session-end; cursor: permission-request, for its beforeShellExecution and beforeMCPExecution hooks)
// takes the hook input exactly as the harness writes it and answers exactly the JSON output the harness reads
// (shared/agents/hook-wire.ts, copilot-wire.ts), so Claude Code's and GitHub Copilot CLI's HTTP hooks post here directly, one request, no `perch` process
// (Codex's and Cursor's command hooks with curl, or `perch hook`, which posts its stdin here unchanged). permission-request builds the PromptFiling `perch hook` would send and files it through the
// same path as POST /hook (request_human marked door 'hook': standing rules, the Approvals inbox, phone push), waits
// for the decision up to ?timeout=SECS (default 540) and withdraws the prompt when the caller's connection closes
// first. A paused agent's prompt is denied and its PreToolUse blocked. No decision: 200 {} (the harness's own dialog
// decides; the reason in the perch-hook-note header; Cursor: {"permission":"ask"} with the same header), also for a
// tool input nested deeper than LIMITS.maxJsonDepth. Input that is not the event's: 400 with one line. Cursor, once
// its key is accepted, gets every refusal (405, 413, 415, 400, 403 read-only, 429, a failure) as that "ask".

/** The harness and event of /hook/<harness>/<event>, or why the path names none. */
export function parseHookDoorPath(path: string): { harness: HookDoorHarness; event: string } | string {
  const m = /^\/hook\/([^/]+)\/([^/]+)\/?$/.exec(path);
  const all = Object.keys(HOOK_DOOR_EVENTS).join(', ');
  if (!m) return `POST /hook/<harness>/<event>, harness one of ${all}`;
  if (!Object.hasOwn(HOOK_DOOR_EVENTS, m[1]!)) return `no hook door for harness ${JSON.stringify(m[1]!.slice(0, 40))}: one of ${all}`;
  const harness = m[1]! as HookDoorHarness;
  const events: readonly string[] = HOOK_DOOR_EVENTS[harness];
  if (!events.includes(m[2]!)) return `no ${harness} hook ${JSON.stringify(m[2]!.slice(0, 40))}: one of ${events.join(', ')}`;
  return { harness, event: m[2]! };
}

/** ?timeout=SECS of a permission-request (whole seconds, 1 to a day), or why not. */
function timeoutOf(url: string | undefined): number | string {
  const t = new URL(url ?? '/', 'http://127.0.0.1').searchParams.get('timeout');
  if (t === null) return DEFAULT_DECISION_SECS;
  const n = Number(t);
  return Number.isInteger(n) && n >= 1 && n <= MAX_DECISION_SECS
    ? n
    : `timeout must be whole seconds from 1 to ${MAX_DECISION_SECS}, not ${JSON.stringify(t.slice(0, 40))}`;
}

function sendOutput(res: ServerResponse, json: string, note?: string): void {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(json),
    'Cache-Control': 'no-store',
    ...(note ? { [NOTE_HEADER]: encodeURIComponent(note) } : {}),
  });
  res.end(json);
}

function harnessDoor(hub: Hub, req: IncomingMessage, res: ServerResponse, at: RequestPlace | undefined, limiter: RateLimiter): void {
  const route = parseHookDoorPath((req.url ?? '').split('?')[0]!);
  if (typeof route === 'string') {
    req.resume();
    return refuse(res, 404, 'not_found', route);
  }
  // Cursor reads only a permission: once the key is known, whatever the door cannot do is "ask" (its own prompt
  // decides), never a status curl -f would swallow. The other harnesses get the refusal.
  const cursor = route.harness === 'cursor';
  const refuseHere: Refuse = (status, code, message, headers) =>
    cursor ? sendOutput(res, cursorDecisionJson(undefined), message) : refuse(res, status, code, message, headers);
  const who = admit(hub, req, res, at, refuseHere);
  if (!who) return;
  const timeout = timeoutOf(req.url);
  if (typeof timeout === 'string') {
    req.resume();
    return refuseHere(400, 'invalid_input', timeout);
  }
  // The caller goes away (the harness answered in its own dialog, or gave up): the waiting prompt is withdrawn.
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  readBody(req, MAX_INPUT_BYTES)
    .then(
      async (buf) => {
        const text = buf.toString('utf8');
        try {
          // A wake run's hook (its own key, from the run's own --settings) is that run's agent's session, whatever
          // connections are recorded for its folder: it always answers.
          const other = who.kind === 'run' ? undefined : answeredByAnother(hub, route.harness, who.agentId, text);
          if (other !== undefined)
            return sendOutput(
              res,
              route.harness === 'cursor' ? cursorDecisionJson(undefined) : '{}',
              `${other} answers for sessions in this folder (perch connect); this hook stays silent`,
            );
          if (route.event !== 'permission-request')
            return sendOutput(res, answerStatus(hub, who.agentId, route.harness, route.event as StatusHook, text));
          const prompt = cursor
            ? parseCursorInput(text, cursorMcpToolName)
            : { input: route.harness === 'copilot' ? parseCopilotPermissionInput(text) : parseHookInput(text), extra: {} };
          // Copilot asks even for the agent's own Perch tools, which the hub governs call by call itself (Claude Code's
          // connect-written allow rule mcp__perch-NAME, at the door): allowed, nothing filed.
          const own = ownServerOf(hub, who.agentId).name;
          if (route.harness === 'copilot' && isOwnCopilotTool(prompt.input.tool_name, own))
            return sendOutput(res, copilotDecisionJson({ behavior: 'allow' }), `a tool of ${own}, Perch's own: the hub governs its calls`);
          if (limiter.take(who.agentId) > 0)
            return refuseHere(429, 'rate_limited', "Too many permission prompts at once; the harness's own dialog decides this one.");
          // An input nested past what anything here walks safely is not shown, so not decided: the harness's dialog decides.
          const deep = tooDeep(prompt.input.tool_input, LIMITS.maxJsonDepth);
          const v: Verdict =
            deep !== undefined
              ? {
                  decision: `the tool input nests more than ${LIMITS.maxJsonDepth} levels deep (at ${deep}); Perch cannot show it whole, the terminal dialog decides`,
                }
              : await decide(hub, who, at, filingOf(prompt.input, route.harness, prompt.extra), timeout, gone.signal, {
                  joinKey: promptJoinKey(route.harness, who.agentId, prompt.input as unknown as Record<string, unknown>),
                });
          const d = v.decision;
          // No decision: Claude Code, Codex and Copilot read {} as none; Cursor reads "ask" (its own prompt decides).
          if (cursor) sendOutput(res, cursorDecisionJson(typeof d === 'string' ? undefined : d), typeof d === 'string' ? d : undefined);
          else if (route.harness === 'copilot')
            sendOutput(res, copilotDecisionJson(typeof d === 'string' ? undefined : d), typeof d === 'string' ? d : undefined);
          else if (typeof d === 'string') sendOutput(res, noDecisionJson(d, v.title), d);
          else sendOutput(res, decisionJson(d));
          if (v.requestId) recordAnswer(hub, res, v.requestId);
          recordPromptDecision(hub, who.agentId, route.harness, prompt.input, v.perch ?? nobody(d, v.cardId));
        } catch (e) {
          if (e instanceof StepAside) return refuseHere(400, 'invalid_input', e.message);
          throw e;
        }
      },
      (err) => {
        if (err instanceof BodyTooLarge) return refuseHere(413, 'too_large', `The body is over ${MAX_INPUT_BYTES} bytes.`);
        if (!res.destroyed) refuseHere(400, 'invalid_input', 'Bad request body.');
      },
    )
    .catch((err: unknown) => {
      if (!cursor) return sendInternalError(res, err, 'hook request');
      const id = newRequestId();
      process.stderr.write(`perch: ${id} hook request failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      sendOutput(res, cursorDecisionJson(undefined), `the hub failed on this request (request ${id}); Cursor's own prompt decides`);
    });
}

/** PreToolUse, Notification, Stop, SessionStart, SessionEnd: the status is noted; a paused agent's tool is blocked. */
function answerStatus(hub: Hub, agentId: string, harness: HookDoorHarness, event: StatusHook, text: string): string {
  const copilot = harness === 'copilot';
  const input = copilot ? parseCopilotEventInput(text, event) : parseEventInput(text, EVENT_NAME[event]);
  const report = reportOfObject(reportOf(event, input, harness as HarnessName));
  if (typeof report === 'string') throw new StepAside(report);
  const answer = noteHarness(hub, agentId, report);
  if (event === 'pre-tool-use') hub.services.toolUseIds.note(agentId, harness, input); // which call a prompt is (the ledger)
  notePermissionMode(hub, agentId, harness as HarnessName, input.permission_mode); // a mode that never asks Perch: the owner is told
  if (event !== 'pre-tool-use' || !answer.paused) return '{}';
  // How the paused agent waits for the owner: its own Perch server's get_updates and whoami, no other server's.
  if (pauseExempt(hub, agentId, typeof input.tool_name === 'string' ? input.tool_name : undefined)) return '{}';
  const reason = answer.message ?? 'Paused in Perch by the owner. Wait for the owner to resume this agent.';
  return copilot ? copilotPreToolDenyJson(reason) : preToolUseDenyJson(reason);
}

/**
 * Files the prompt as POST /hook does (the hub builds title and context: promptRequestInput; door 'hook', so standing
 * rules apply), then waits for the owner: the decision, or why there is none (the harness's own dialog decides).
 */
async function decide(
  hub: Hub,
  who: Admitted,
  at: RequestPlace | undefined,
  raw: Record<string, unknown>,
  timeoutSecs: number,
  signal: AbortSignal,
  opts: { joinKey?: string } = {},
): Promise<Verdict> {
  const filing = parsePromptFiling({ ...raw, ttl_secs: timeoutSecs + 60 });
  if (typeof filing === 'string') throw new StepAside(filing);
  const caller = { key: who.auth, standing: keyStanding(hub, who.key, who.agentId, at), at };
  const deadline = Date.now() + timeoutSecs * 1000;
  // Built first (it waits for the shell parser in a hub's first moments): from the join check below to the filing
  // nothing waits, so a second hook for the same prompt always finds the first one's card.
  const asked = await promptRequestInput(hub, who.agentId, filing);
  const title = asked.title;
  // Another hook of this agent already filed this very prompt of the session and waits for it: this one joins its card.
  const waits = hub.services.promptWaits;
  let joined = opts.joinKey ? waits.joinable(opts.joinKey) : undefined;
  // ... or is filing it right now (both hooks waited for the shell parser, say): this one joins the card it files.
  const inFlight = !joined && opts.joinKey ? waits.filing(opts.joinKey) : undefined;
  if (inFlight) {
    const id = await inFlight;
    joined = id !== undefined && waits.joinable(opts.joinKey!) === id ? id : undefined;
  }
  if (joined) {
    await awaitJoinedPrompt(hub, joined, deadline, signal);
    const r = getRequestForOwner(hub, joined);
    const decision = decisionOf(r as unknown as Record<string, unknown>);
    if (decision) return { decision, requestId: joined, cardId: joined, perch: perchDecisionOf(hub, joined) };
    return { decision: `the request was ${r.state} in Perch; the terminal dialog decides`, title: r.title, cardId: joined };
  }
  const filed = opts.joinKey ? waits.startFiling(opts.joinKey) : undefined;
  try {
    let r = (await callAgentTool(hub, who.agentId, 'request_human', asked, {
      ...caller,
      door: 'hook',
    })) as Record<string, unknown>;
    const requestId = r.request_id as string;
    // This hook waits for the prompt from now on: while it does, the owner may decide it (prompt-waits.ts).
    const release = waits.hold(requestId, signal, opts.joinKey);
    filed?.(requestId);
    try {
      for (let waited = false; ; waited = true) {
        const decision = decisionOf(r);
        // Decided while this hook waited: that decision is awaiting delivery (recorded once the answer is out).
        if (decision) return { decision, ...(waited ? { requestId } : {}), cardId: requestId, perch: perchDecisionOf(hub, requestId) };
        if (r.state !== 'pending' || signal.aborted)
          return { decision: `the request was ${String(r.state)} in Perch; the terminal dialog decides`, title, cardId: requestId };
        const left = Math.floor((deadline - Date.now()) / 1000);
        if (left <= 0) break;
        // get_request withdraws the prompt when the signal fires while it waits (hub/features/requests/requests.ts getRequest, abandoned-prompts.ts).
        r = (await callAgentTool(
          hub,
          who.agentId,
          'get_request',
          { request_id: requestId, wait_secs: Math.min(left, LIMITS.waitAnswerSecs) },
          { ...caller, signal },
        )) as Record<string, unknown>;
      }
      // No decision in time: the prompt leaves the Approvals inbox, its card saying why (unless a hook that joined it
      // still waits), and the harness's own dialog decides.
      release();
      if (!waits.isWaited(requestId))
        withdrawUnanswered(hub, requestId, `no decision within ${timeoutSecs} s; the harness's own dialog decides`);
    } finally {
      release();
    }
    return { decision: `no decision within ${timeoutSecs} s; the terminal dialog decides`, title, cardId: requestId };
  } catch (e) {
    if (isHubError(e) && e.code === 'paused') {
      // The paused agent's own Perch get_updates / whoami is not the pause's to deny (as at PreToolUse): the harness decides.
      if (pauseExempt(hub, who.agentId, filing.tool_name))
        return { decision: `paused in Perch, but ${filing.tool_name} is how a paused agent waits; the harness decides`, title };
      const message = pausedPromptMessage((e.details ?? {}) as Record<string, unknown>);
      return { decision: { behavior: 'deny', message }, perch: { decision: 'deny', by: 'pause', why: message } };
    }
    if (isHubError(e)) throw new StepAside(`${e.code}: ${e.message}`);
    throw e;
  } finally {
    filed?.(undefined);
  }
}

/** What a prompt's state tells the harness: allow, deny with the owner's comment, or nothing yet. */
function decisionOf(r: Record<string, unknown>): HookDecision | undefined {
  if (r.state === 'approved') return { behavior: 'allow' };
  if (r.state !== 'rejected') return undefined;
  const comment = (r.outcome as { comment?: unknown } | undefined)?.comment;
  return {
    behavior: 'deny',
    message: typeof comment === 'string' && comment ? `Denied by the owner in Perch: ${comment}` : 'Denied by the owner in Perch.',
  };
}

/**
 * The door's verdict on a prompt: a decision or why there is none; requestId when the decision awaits delivery;
 * title: the card's, when one was filed (the no-decision answer names it).
 */
interface Verdict {
  decision: HookDecision | string;
  requestId?: string;
  title?: string;
  /** The card filed (or joined) for the prompt; perch: who decided it, for the ledger (else nobody: nobody()). */
  cardId?: string;
  perch?: PerchDecision;
}

/** The ledger's word for a prompt Perch did not decide: the harness's own dialog did (why: the door's reason). */
function nobody(d: HookDecision | string, cardId: string | undefined): PerchDecision {
  const why = typeof d === 'string' ? d : 'decided outside Perch';
  return { decision: 'none', by: 'nobody', why, ...(cardId ? { request_id: cardId } : {}) };
}

/** Records whether the answer carrying a decision reached the hook: written out (delivered), or the connection closed first. */
function recordAnswer(hub: Hub, res: ServerResponse, requestId: string): void {
  if (res.writableFinished) return recordDelivery(hub, requestId, 'delivered');
  if (res.destroyed) return recordDelivery(hub, requestId, 'undelivered');
  res.once('finish', () => recordDelivery(hub, requestId, 'delivered'));
  res.once('close', () => {
    if (!res.writableFinished) recordDelivery(hub, requestId, 'undelivered');
  });
}
