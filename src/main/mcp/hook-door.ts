// The hook door: POST /hook on 127.0.0.1, behind the agent's key like /mcp. `perch hook pre-tool-use | notification |
// stop | session-start | session-end` (src/main/cli/hook-status.ts) posts one small JSON object here per harness hook
// event; the hub notes the agent's harness status (hub/control/harness.ts) and answers whether the agent is paused,
// which is all pre-tool-use needs. One request, no MCP handshake: a harness may run pre-tool-use before every tool.
//
//   Host / Origin on this computer 403 · Bearer <agent key> 401 · POST 405 · Content-Type application/json 415 ·
//   body ≤ 16 KB 413 · a HarnessReport 400
//   → 200 HarnessAnswer { ok, paused, message? }
// The URL may name the agent and the harness (`/hook?agent=NAME&harness=claude-code`, as `perch hook --agent NAME`
// sends): a 401 then says what to set ("no key was sent: set PERCH_KEY_NAME in the shell that starts Claude Code"),
// and the owner is told once per agent (hub/control/harness.ts noteHookKeyProblem).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Hub } from '../hub/core/hub';
import { authenticateKey } from '../hub/identity/key-login';
import { isReadOnlyKey } from '../../shared/sessions';
import { noteHarness, noteHookKeyProblem } from '../hub/control/harness';
import { keyEnvVar, noKeyMessage, unexpandedKeyVar } from '../../shared/snippets';
import { BodyTooLarge, bearerOf, isLoopbackHost, isLoopbackOrigin, readBody, sendInternalError, sendJson } from '../http-util';
import { HARNESSES, HARNESS_EVENTS, PROMPT_HARNESS_LABEL, type HarnessEvent, type HarnessName, type HarnessReport } from '../../shared/harness';

export const HOOK_PATH = '/hook';
const MAX_BODY_BYTES = 16 * 1024;
const STRING_FIELDS = ['session_id', 'cwd', 'message', 'notification_type', 'source', 'reason'] as const;

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

export function createHookDoor(hub: Hub): (req: IncomingMessage, res: ServerResponse) => void {
  return function handle(req, res) {
    if (!isLoopbackHost(req.headers.host) || (req.headers.origin !== undefined && !isLoopbackOrigin(req.headers.origin))) {
      req.resume();
      return refuse(res, 403, 'forbidden', 'The hook door answers requests from this computer only.');
    }
    const key = bearerOf(req);
    // A header holding `${PERCH_KEY_KIT}` as written (the variable was not set where the harness started) is no key.
    const sent = unexpandedKeyVar(key) ? undefined : key;
    const found = sent ? authenticateKey(hub, sent) : undefined;
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
    readBody(req, MAX_BODY_BYTES).then(
      (buf) => {
        const r = parseReport(buf);
        if (typeof r === 'string') return refuse(res, 400, 'invalid_input', r);
        sendJson(res, 200, noteHarness(hub, agentId, r));
      },
      (err) => {
        if (err instanceof BodyTooLarge) return refuse(res, 413, 'too_large', `The body is over ${MAX_BODY_BYTES} bytes.`);
        if (!res.destroyed) refuse(res, 400, 'invalid_input', 'Bad request body.');
      },
    ).catch((err: unknown) => sendInternalError(res, err, 'hook request'));
  };
}
