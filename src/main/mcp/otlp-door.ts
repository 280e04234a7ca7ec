// The OTLP door: POST /v1/logs, /v1/metrics and /v1/traces, OpenTelemetry's OTLP/HTTP with JSON bodies, as a
// harness's exporter sends them (Claude Code with OTEL_EXPORTER_OTLP_PROTOCOL=http/json, Codex with protocol = "json",
// GitHub Copilot CLI's spans: shared/ledger/copilot-spans.ts, Gemini CLI with otlpProtocol "http"). Served wherever
// /mcp is, behind the agent's telemetry-only token (hub/features/ledger/telemetry-tokens.ts: in the Authorization header,
// or in the path, /otlp/<token>/v1/…, for Gemini CLI, which cannot send a header of its settings) and the agent's places.
// What it keeps goes to the flight recorder and the cost ledger (hub/features/ledger/recorder.ts); metrics are checked
// and answered, not kept (the cost comes from the log events, one per API request, which carry the request's own figure).
//
//   on the loopback: Host / Origin on this computer 403 · Bearer <telemetry token> 401 (an agent key is not one) ·
//   a token whose agent's places leave out where the request came from 403 · POST 405 ·
//   Content-Type application/json 415 (protobuf is refused: set the exporter to JSON) · Content-Encoding gzip or none 415 ·
//   per agent OTLP_LIMITS.requestsPerSecond 429 with Retry-After · body ≤ OTLP_LIMITS.maxBodyBytes 413 ·
//   not an OTLP request, or a kept event with a field of the wrong type: 400, nothing stored
//   → 200 {} (ExportLogsServiceResponse / ExportMetricsServiceResponse / ExportTraceServiceResponse: every record
//   accepted; events and spans the ledger does not keep are accepted too).
// Every refusal's body is OTLP's Status as JSON ({code, message}: gRPC's code numbers), which exporters log.
import type { IncomingMessage, ServerResponse } from 'node:http';
import zlib from 'node:zlib';
import type { PerchHub as Hub } from '../hub/services';
import { LOCAL_PLACE, type RequestPlace } from '../../shared/agents/places';
import { OTLP_LIMITS, parseOtlpLogs, parseOtlpMetrics, parseOtlpTraces } from '../../shared/ledger/otlp';
import { factOf } from '../../shared/ledger/harness-events';
import { copilotSpanFact, spanToolArgs } from '../../shared/ledger/copilot-spans';
import { telemetryLogin } from '../hub/features/ledger/telemetry-tokens';
import { dedupeOf, recordFacts, type Reported } from '../hub/features/ledger/recorder';
import { RateLimiter } from '../hub/core/rate-limit';
import { StepLane } from '../hub/core/step-lane';
import { BodyTooLarge, bearerOf, isLoopbackHost, isLoopbackOrigin, readBody, sendInternalError, sendJson } from '../http-util';

export const OTLP_LOGS_PATH = '/v1/logs';
export const OTLP_METRICS_PATH = '/v1/metrics';
export const OTLP_TRACES_PATH = '/v1/traces';

/**
 * A request's OTLP path (/v1/logs, /v1/metrics, /v1/traces) and the token its path carries, or undefined when not the
 * door's. A telemetry token may stand in the path instead of the Authorization header, /otlp/<token>/v1/logs: Gemini
 * CLI's settings can name an endpoint but no header (it takes headers from its environment only), so `perch connect
 * gemini` writes the endpoint <base>/otlp/<token>.
 */
export function otlpRoute(p: string): { path: string; token?: string } | undefined {
  const q = p.endsWith('/') ? p.slice(0, -1) : p;
  const m = /^\/otlp\/([^/]{1,200})(\/v1\/[a-z]+)$/.exec(q);
  const path = m ? m[2]! : q;
  if (path !== OTLP_LOGS_PATH && path !== OTLP_METRICS_PATH && path !== OTLP_TRACES_PATH) return undefined;
  return m ? { path, token: decodeURIComponent(m[1]!) } : { path };
}

/** Whether a request's path is the OTLP door's. */
export function isOtlpPath(p: string): boolean {
  try {
    return otlpRoute(p) !== undefined;
  } catch {
    return false; // a token that is not percent-encoded right
  }
}

/** gRPC status codes OTLP's Status carries. */
const STATUS = {
  INVALID_ARGUMENT: 3,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  UNAUTHENTICATED: 16,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
} as const;

function status(res: ServerResponse, http: number, code: number, message: string, headers?: Record<string, string>): void {
  if (res.headersSent || res.destroyed) return;
  sendJson(res, http, { code, message }, { 'Cache-Control': 'no-store', ...headers });
}

function refuse(
  req: IncomingMessage,
  res: ServerResponse,
  http: number,
  code: number,
  message: string,
  headers?: Record<string, string>,
): void {
  req.resume();
  status(res, http, code, message, headers);
}

function gunzip(buf: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    zlib.gunzip(buf, { maxOutputLength: OTLP_LIMITS.maxBodyBytes }, (err, out) => (err ? reject(err) : resolve(out))),
  );
}

/** The OTLP door; `at`: where the request came from (absent: the loopback). */
export function createOtlpDoor(hub: Hub): (req: IncomingMessage, res: ServerResponse, at?: RequestPlace) => void {
  const limiter = new RateLimiter(OTLP_LIMITS.requestsPerSecond, OTLP_LIMITS.requestBurst, 10_000);
  return function handle(req, res, at) {
    let route: ReturnType<typeof otlpRoute>;
    try {
      route = otlpRoute((req.url ?? '').split('?')[0]!);
    } catch {
      route = undefined;
    }
    const path = route?.path ?? '';
    if (!at && (!isLoopbackHost(req.headers.host) || (req.headers.origin !== undefined && !isLoopbackOrigin(req.headers.origin))))
      return refuse(req, res, 403, STATUS.PERMISSION_DENIED, 'The OTLP receiver answers requests from this computer only.');
    // The header wins; a token in the path is for a harness that cannot send one (Gemini CLI).
    const token = bearerOf(req) ?? route?.token;
    const login = token ? telemetryLogin(hub, token, at ?? LOCAL_PLACE) : undefined;
    if (!login || login.standing === 'refused')
      return refuse(
        req,
        res,
        401,
        STATUS.UNAUTHENTICATED,
        token
          ? "The telemetry token is wrong or was replaced, or its agent's key was rotated or revoked: run `perch connect … --write` again."
          : 'No telemetry token: send "Authorization: Bearer <telemetry token>" (perch connect … --write sets it).',
        { 'WWW-Authenticate': 'Bearer realm="perch"' },
      );
    if (login.standing === 'place')
      return refuse(
        req,
        res,
        403,
        STATUS.PERMISSION_DENIED,
        `Agent ${login.user.name} may not connect from here (allowed: ${login.allowed.join(', ')}).`,
      );
    if (req.method !== 'POST') return refuse(req, res, 405, STATUS.UNIMPLEMENTED, 'POST an OTLP export request.', { Allow: 'POST' });
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json')
      return refuse(
        req,
        res,
        415,
        STATUS.INVALID_ARGUMENT,
        type === 'application/x-protobuf'
          ? 'Perch reads OTLP as JSON only: set the exporter to http/json (OTEL_EXPORTER_OTLP_PROTOCOL=http/json; Codex: protocol = "json").'
          : `Send OTLP as JSON ("Content-Type: application/json"), not ${JSON.stringify(type.slice(0, 100) || 'none')}.`,
      );
    const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    if (encoding !== 'identity' && encoding !== 'gzip')
      return refuse(
        req,
        res,
        415,
        STATUS.INVALID_ARGUMENT,
        `Content-Encoding ${JSON.stringify(encoding.slice(0, 40))} is not read here: gzip or none.`,
      );
    const wait = limiter.take(login.user.id);
    if (wait > 0)
      return refuse(req, res, 429, STATUS.RESOURCE_EXHAUSTED, 'Too many OTLP requests from this agent; retry later.', {
        'Retry-After': String(Math.max(1, Math.ceil(wait / 1000))),
      });
    const agentId = login.user.id;
    readBody(req, OTLP_LIMITS.maxBodyBytes)
      .then(
        async (raw) => {
          let buf = raw;
          if (encoding === 'gzip') {
            try {
              buf = await gunzip(raw);
            } catch {
              return status(
                res,
                400,
                STATUS.INVALID_ARGUMENT,
                `The gzip body does not unpack to at most ${OTLP_LIMITS.maxBodyBytes} bytes.`,
              );
            }
          }
          const text = buf.toString('utf8');
          if (path === OTLP_METRICS_PATH) {
            const points = parseOtlpMetrics(text);
            if (typeof points === 'string') return status(res, 400, STATUS.INVALID_ARGUMENT, points);
            return sendJson(res, 200, {});
          }
          const recorded = await (path === OTLP_TRACES_PATH ? recordSpans : recordLogs)(hub, agentId, text);
          if (typeof recorded === 'string') return status(res, 400, STATUS.INVALID_ARGUMENT, recorded);
          sendJson(res, 200, {});
        },
        (err) => {
          if (err instanceof BodyTooLarge)
            return status(res, 413, STATUS.RESOURCE_EXHAUSTED, `The body is over ${OTLP_LIMITS.maxBodyBytes} bytes: send smaller batches.`);
          status(res, 400, STATUS.INVALID_ARGUMENT, 'The body could not be read.');
        },
      )
      .catch((err: unknown) => {
        const full = hub.storageFailure(err);
        if (full) return status(res, 503, STATUS.INTERNAL, full.message, { 'Retry-After': '30' });
        sendInternalError(res, err, 'otlp request');
      });
  };
}

/** The facts of a logs request, the whole request checked first (a refusal stores nothing), or why it is refused. */
export function logFacts(hub: Hub, text: string): Reported[] | string {
  const records = parseOtlpLogs(text);
  if (typeof records === 'string') return records;
  const now = hub.now();
  const reported: Reported[] = [];
  for (const r of records) {
    const fact = factOf(r, now);
    if (typeof fact === 'string') return fact;
    if (!fact) continue;
    reported.push({ fact, dedupe: dedupeOf(JSON.stringify([r.name, r.timeMs ?? null, [...r.attrs], [...r.resource]])) });
  }
  return reported;
}

/** Records written in one step of a request's batch; the event loop is free between steps. */
export const RECORD_STEP = 25;

/** Each hub's lane for telemetry batches (step-lane.ts): one batch at a time, one step per turn of the event loop. */
const lanes = new WeakMap<Hub, StepLane>();

function laneOf(hub: Hub): StepLane {
  let lane = lanes.get(hub);
  if (!lane) lanes.set(hub, (lane = new StepLane()));
  return lane;
}

/** Writes the facts RECORD_STEP at a time, a step per next(); returns how many records were added. */
function* recordSteps(hub: Hub, agentId: string, facts: readonly Reported[]): Generator<void, number> {
  let added = 0;
  for (let i = 0; i < facts.length; i += RECORD_STEP) {
    if (i > 0) yield;
    added += recordFacts(hub, agentId, facts.slice(i, i + RECORD_STEP)).added;
  }
  return added;
}

/**
 * Records a request's facts a step at a time in the hub's lane, giving the event loop back between steps, so an
 * agent's send that arrives meanwhile is answered after one step (about 1 ms of CPU) rather than after the whole batch
 * (a batch of 100 Claude Code records is about 6 ms, the 5,000 a request may hold far more), and after one step of one
 * batch, not one of each batch in flight. The request is answered once every step is written; a batch cut short (a
 * crash, a full disk) is not acknowledged, and the exporter's resend adds only what is missing (each record is kept
 * once: its dedupe).
 */
export function recordInSteps(hub: Hub, agentId: string, facts: readonly Reported[]): Promise<number> {
  return laneOf(hub).run(recordSteps(hub, agentId, facts));
}

/**
 * A logs request's body, parsed and checked whole (a refusal stores nothing) on its turn in the hub's lane, then
 * recorded in steps; the number of records added, or why the request is refused.
 */
export function recordLogs(hub: Hub, agentId: string, text: string): Promise<number | string> {
  return laneOf(hub).run(
    (function* (): Generator<void, number | string> {
      const facts = logFacts(hub, text);
      if (typeof facts === 'string') return facts;
      if (facts.length === 0) return 0;
      yield;
      return yield* recordSteps(hub, agentId, facts);
    })(),
  );
}

/**
 * A traces request: checked whole first (a refusal stores nothing) on its turn in the hub's lane, then the spans the
 * ledger keeps (Copilot's) recorded in steps; the number of records added, or why the request is refused.
 */
export function recordSpans(hub: Hub, agentId: string, text: string): Promise<number | string> {
  return laneOf(hub).run(
    (function* (): Generator<void, number | string> {
      const spans = parseOtlpTraces(text);
      if (typeof spans === 'string') return spans;
      const now = hub.now();
      const kept: Array<{ fact: NonNullable<ReturnType<typeof copilotSpanFact>> & object; args: string | undefined; id: string }> = [];
      for (const s of spans) {
        const fact = copilotSpanFact(s, now);
        if (typeof fact === 'string') return fact;
        if (fact) kept.push({ fact, args: spanToolArgs(s), id: `${s.traceId}/${s.spanId}` });
      }
      if (kept.length === 0) return 0;
      yield;
      const reported: Reported[] = kept.map(({ fact, args, id }) => {
        // A tool call whose preToolUse reached the door is that call, under the id its permission prompt's record has.
        const opened =
          fact.kind === 'tool_result' ? hub.services.toolUseIds.closeCopilotCall(agentId, fact.session_id, fact.tool, args) : undefined;
        return { fact: opened ? { ...fact, call_id: opened } : fact, dedupe: dedupeOf(JSON.stringify(['span', id, fact.kind])) };
      });
      return yield* recordSteps(hub, agentId, reported);
    })(),
  );
}
