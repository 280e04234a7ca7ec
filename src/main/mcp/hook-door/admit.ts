// The hook door's shared parts: who may use it (admit: where from, the key and its places, POST, JSON, a key that may
// write, exactly as /mcp checks them), how it refuses, and how a harness door writes the harness's own output
// (sendOutput, the reason for no decision in the perch-hook-note header). door.ts (POST /hook) and every harness door
// (harness-door.ts, one file per harness beside it when its hooks differ) use them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PerchHub as Hub } from '../../hub/services';
import type { RequestPlace } from '../../../shared/agents/places';
import { LOCAL_PLACE } from '../../../shared/agents/places';
import { authenticateKey, type KeyKind } from '../../hub/identity/key-login';
import { wrongPlaceMessage } from '../../hub/identity/places';
import { isReadOnlyKey } from '../../../shared/agents/scoped-keys';
import { noteHookKeyProblem } from '../../hub/control/harness';
import { keyEnvVar, noKeyMessage, unexpandedKeyVar } from '../../../shared/agents/snippets';
import { bearerOf, isLoopbackHost, isLoopbackOrigin, sendJson } from '../../http-util';
import type { KeyAuth } from '../../hub/identity/agent-keys';
import { PROMPT_HARNESS_LABEL } from '../../../shared/agents/harness';

/** Why a harness door decided nothing (URI-encoded), in a header the harness ignores. */
export const NOTE_HEADER = 'perch-hook-note';

export function refuse(res: ServerResponse, status: number, code: string, message: string, headers?: Record<string, string>): void {
  sendJson(res, status, { ok: false, error: { code, message } }, headers);
}

/** How a door refuses once the key is known (Cursor's: "ask", the reason in the note; the others' the refusal). */
export type Refuse = (status: number, code: string, message: string, headers?: Record<string, string>) => void;

/** Whether a Content-Type header names JSON (`application/json`, parameters such as `; charset=utf-8` allowed). */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

export interface Admitted {
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
export function admit(
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

/** Writes a harness door's answer: the harness's own JSON output, and why there is no decision in the note header. */
export function sendOutput(res: ServerResponse, json: string, note?: string): void {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(json),
    'Cache-Control': 'no-store',
    ...(note ? { [NOTE_HEADER]: encodeURIComponent(note) } : {}),
  });
  res.end(json);
}
