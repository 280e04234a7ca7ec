// The MCP door: POST /mcp on 127.0.0.1, stateless per request, serving both protocol eras:
// the 2025 handshake revisions (initialize ...) and 2026-07-28 (server/discover, per-request _meta).
// Hand-written JSON-RPC on node:http: the hub's tools are the only work done per request.
//
// One request, top to bottom. Each step answers (and the request ends there) or hands it on:
//
//   checkOrigin     Host, and Origin when sent, name this computer (DNS rebinding)   403
//                   (the other listeners, the HTTPS front and a container runtime's proxy on the loopback,
//                   Host host.docker.internal, check theirs before: app.ts, listeners.ts)
//   authenticate    Authorization: Bearer <agent key>                                401
//                   that may be used from where the request came (local, containers,
//                   tailnet: hub/identity/places.ts)                                 403
//   checkMethod     POST only                                                        405
//   rateLimit       the agent's token bucket                                         429
//   readBody        at most LIMITS.maxFileBodyBytes                                  413, 400
//   parseJsonRpc    one JSON-RPC 2.0 request (jsonrpc.ts)                            400, 413; a response: 202
//   negotiateEra    2025 revisions or 2026-07-28, headers agree with body (era.ts)   400; a notification: 202
//   dispatch        initialize, server/discover, ping, tools/list, resources/*, tools/call
//   callTool        the tool (catalog), validateArguments (tool-call.ts), then run it (the hub's gates refuse
//                   what the key, asked first, or the agent may not do: hub/talk/gates.ts): in the
//                   group commit (group-commit.ts) when the catalog says groupCommitted, else alone
//   respond         after COMMIT: toolResultJson, or errorResult for a refusal (tool-call.ts)
//
// Every answer writes one log line (McpLogLine). Anything unexpected is a 500 with the request id.
import { isReadOnlyKey } from '../../shared/agents/scoped-keys';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PerchHub } from '../hub/services';
import type { KeyAuth, KeyStanding } from '../hub/identity/agent-keys';
import type { WaitStanding } from '../../shared/agents/scoped-keys';
import { authenticateKey, keyStanding } from '../hub/identity/key-login';
import { howToAllow, wrongPlaceMessage } from '../hub/identity/places';
import { LOCAL_PLACE, type RequestPlace } from '../../shared/agents/places';
import { callAgentTool, implementedTools } from '../hub/tools/tools';
import { gateRefusal } from '../hub/talk/gates';
import { notePresence } from '../hub/control/presence';
import {
  TOOLS,
  TOOL_BY_NAME,
  toolSchemaVersion,
  toolInputJsonSchema,
  toolOutputJsonSchema,
  type ToolName,
  type ToolSpec,
} from '../../shared/api/catalog';
import { unexpandedKeyVar } from '../../shared/agents/snippets';
import { HubError, isHubError } from '../../shared/errors';
import { LIMITS } from '../../shared/limits';
import { BodyTooLarge, isLoopbackHost, isLoopbackOrigin, newRequestId, readBody, sendInternalError, sendJson } from '../http-util';
import { GUIDE_MARKDOWN, GUIDE_URI, SERVER_INSTRUCTIONS } from './guide';
import { RateLimiter } from '../hub/core/rate-limit';
import { LEGACY_VERSIONS, MODERN_CACHE, MODERN_VERSIONS, NO_CACHE_HINT, SERVER_INFO, eraResult, negotiateEra, type Era } from './era';
import { GroupCommit, type Unit } from './group-commit';
import {
  A_RESPONSE,
  FORBIDDEN,
  INVALID_PARAMS,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  RATE_LIMITED,
  RESOURCE_NOT_FOUND_LEGACY,
  Refusal,
  UNAUTHORIZED,
  errorBody,
  isNotification,
  parseJsonRpc,
  refusal,
  type JsonRpcRequest,
} from './jsonrpc';
import { describe, errorResult, toolResultJson, validateArguments } from './tool-call';

export interface McpLogLine {
  request_id: string;
  agent?: string;
  method?: string;
  tool?: string;
  ms: number;
  status: number;
  error?: string;
}

export interface McpOptions {
  hub: PerchHub;
  /** Per-agent calls per second (0 = unlimited). */
  ratePerSecond?: number;
  rateBurst?: number;
  log?: (line: McpLogLine) => void;
}

const CAPABILITIES = { tools: { listChanged: false }, resources: { subscribe: false, listChanged: false } };
const RESOURCES = [
  {
    uri: GUIDE_URI,
    name: 'guide',
    title: 'Perch agent guide',
    description: 'How to work with Perch: the loop, acks, waking, asking your owner.',
    mimeType: 'text/markdown',
  },
];

/** What one MCP door keeps between requests. */
interface Door {
  hub: PerchHub;
  limiter: RateLimiter;
  commits: GroupCommit;
  /** The catalog's tools that have a handler: the ones listed and callable. */
  implemented: ReadonlySet<ToolName>;
  /** tools/list's answer in an era (built on first use, or just after start: it walks every tool's JSON schema). */
  listed(era: Era): { tools: unknown[]; meta: { tool_schema_version: string } };
  log: ((line: McpLogLine) => void) | undefined;
}

/**
 * The door's handler. `at`: where the request came from, when another listener or the HTTPS front received it and
 * has checked its Host and Origin (app.ts, listeners.ts; also a container runtime's proxy on the loopback listener:
 * proxiedMcp); without it, a request on the loopback listener with a loopback Host.
 */
export type McpHandler = (req: IncomingMessage, res: ServerResponse, at?: RequestPlace) => void;

/** The MCP door, and warm(): builds what tools/list answers (the hub calls it once its ready line is out). */
export function createMcpHandler(opts: McpOptions): McpHandler & { warm: () => void } {
  const rate = opts.ratePerSecond ?? LIMITS.ratePerSecond;
  // The burst scales with the rate (as LIMITS.rateBurst does with LIMITS.ratePerSecond): a fixed burst of
  // 400 would let `--rate 5` pass 400 calls before it limits anything.
  const burst = opts.rateBurst ?? Math.max(1, Math.ceil((rate * LIMITS.rateBurst) / LIMITS.ratePerSecond));
  const implemented = implementedTools();
  const lists: Partial<Record<Era, ReturnType<Door['listed']>>> = {};
  const door: Door = {
    hub: opts.hub,
    limiter: new RateLimiter(rate, burst),
    commits: new GroupCommit(opts.hub),
    implemented,
    listed: (era) =>
      (lists[era] ??= {
        tools: TOOLS.filter((t) => implemented.has(t.name as ToolName)).map((t) => toolListItem(t, era)),
        meta: { tool_schema_version: toolSchemaVersion() },
      }),
    log: opts.log,
  };
  // Built just after start-up rather than before it (the hub is ready sooner); a request that comes first builds it.
  const warm = () => void (door.listed('legacy'), door.listed('modern'));

  return Object.assign(
    function handle(req: IncomingMessage, res: ServerResponse, at?: RequestPlace) {
      const x = new Exchange(door, req, res);
      const refused = (at ? undefined : checkOrigin(req)) ?? authenticateAgent(x, at ?? LOCAL_PLACE) ?? checkMethod(x) ?? rateLimit(x);
      if (refused) return x.refuse(refused);
      readBody(req, LIMITS.maxFileBodyBytes)
        .then(
          (buf) => onBody(x, buf),
          (err) => onBodyError(x, err),
        )
        .catch((err: unknown) => x.internal(err));
    },
    { warm },
  );
}

/**
 * One tool as tools/list shows it. outputSchema (what structuredContent is) only in the 2026-07-28 era: a client of
 * the 2025 revisions may check a failed call's structuredContent (isError, {error, ...}) against it too, and then
 * throws instead of handing the agent the error (the sdk v1 client 1.32 does; test/mcp/mcp-tool-results.test.ts).
 */
function toolListItem(t: ToolSpec, era: Era) {
  return {
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: toolInputJsonSchema(t),
    ...(era === 'modern' ? { outputSchema: toolOutputJsonSchema(t) } : {}),
    annotations: { title: t.title, readOnlyHint: t.readOnly, destructiveHint: t.destructive, openWorldHint: false },
  };
}

// ---- one request ---------------------------------------------------------------------------------

/** One request on its way through the door, and the ways it is answered (each logged once). */
class Exchange {
  readonly started = performance.now();
  readonly requestId = newRequestId();
  /** Set by authenticate. */
  agentId = '';
  agentName: string | undefined = undefined;
  /** The key's scopes and expiry (scoped keys, hub/identity/agent-keys.ts). */
  keyAuth: KeyAuth | undefined = undefined;
  /** Where the request came from (set by authenticate). */
  at: RequestPlace = LOCAL_PLACE;
  /** Set by parseJsonRpc and negotiateEra. */
  msg: JsonRpcRequest = undefined as unknown as JsonRpcRequest;
  era: Era = 'legacy';

  constructor(
    readonly door: Door,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
  ) {}

  /** Sends the answer (no body when body is undefined) and writes its log line. */
  finish(status: number, body: unknown, extra?: Partial<McpLogLine>, headers?: Record<string, string>): void {
    if (body === undefined) {
      this.res.writeHead(status, headers);
      this.res.end();
    } else {
      sendJson(this.res, status, body, headers);
    }
    this.logLine(status, extra);
  }

  logLine(status: number, extra?: Partial<McpLogLine>): void {
    this.door.log?.({ request_id: this.requestId, ms: Math.round((performance.now() - this.started) * 100) / 100, status, ...extra });
  }

  /** A JSON-RPC error answer. */
  refuse(r: Refusal, tool?: string): void {
    this.finish(r.status, errorBody(r), { error: r.message, agent: this.agentName, tool }, r.headers);
  }

  /** 202 without a body: a notification, or a client's JSON-RPC response. */
  accepted(method?: string): void {
    this.finish(202, undefined, { method, agent: this.agentName });
  }

  /** A JSON-RPC result, dressed for the request's era. */
  reply(result: Record<string, unknown>, extra?: Partial<McpLogLine>): void {
    this.finish(
      200,
      { jsonrpc: '2.0', id: this.msg.id, result: eraResult(this.era, result) },
      { agent: this.agentName, method: this.msg.method, ...extra },
    );
  }

  /** Anything this door did not expect: 500 with the request id (logged), never a crash. */
  internal(err: unknown): void {
    sendInternalError(this.res, err, 'mcp request', this.requestId);
    this.logLine(500, { agent: this.agentName, error: 'internal' });
  }
}

// ---- the steps before the body -------------------------------------------------------------------

/** DNS-rebinding protection: a loopback Host, and a loopback Origin when one is sent. */
function checkOrigin(req: IncomingMessage): Refusal | undefined {
  if (!isLoopbackHost(req.headers.host))
    return refusal(403, null, FORBIDDEN, 'Forbidden: the Host header must name this computer (127.0.0.1 or localhost).');
  const origin = req.headers.origin;
  if (origin !== undefined && !isLoopbackOrigin(origin))
    return refusal(403, null, FORBIDDEN, `Forbidden: requests from origin ${origin} are refused.`);
  return undefined;
}

function bearerKey(req: IncomingMessage): string {
  const auth = req.headers.authorization;
  return auth && auth.startsWith('Bearer ') ? auth.slice(7).trim() : '';
}

/**
 * The 401 of a missing, wrong, revoked or expired key (also a wait whose key stopped working: hub/identity/key-waits.ts).
 * A header that holds a variable reference as written (`Bearer ${PERCH_KEY_KIT}`: the variable was not set) is no key.
 */
function keyRefusal(id: unknown, standing: Exclude<KeyStanding, 'ok'> | 'missing', unexpanded?: string): Refusal {
  const why =
    standing === 'expired'
      ? 'Unauthorized: this agent key has expired.'
      : standing === 'revoked'
        ? 'Unauthorized: the agent key is wrong or was revoked.'
        : unexpanded
          ? `Unauthorized: no key was sent (the header holds \${${unexpanded}} as written): set ${unexpanded} in the shell that starts the client.`
          : 'Unauthorized: no key was sent: send your agent key as "Authorization: Bearer <key>" (set PERCH_KEY_<NAME> in the shell that starts the client).';
  return refusal(401, id, UNAUTHORIZED, why, undefined, { 'WWW-Authenticate': 'Bearer realm="perch"' });
}

/** The agent whose key is the bearer token, if the key may be used from where the request came (`at`). */
function authenticateAgent(x: Exchange, at: RequestPlace): Refusal | undefined {
  const key = bearerKey(x.req);
  const unexpanded = unexpandedKeyVar(key);
  const found = key && !unexpanded ? authenticateKey(x.door.hub, key, at) : undefined; // every kind of key, and its places (hub/identity/key-login.ts)
  if (found?.standing === 'place') {
    x.req.resume();
    x.agentName = found.user.name;
    return placeRefusal(found.user.name, found.auth.id, found.auth.name, found.allowed, at);
  }
  if (found?.standing !== 'ok') {
    x.req.resume();
    // Through the HTTPS front, a request with no key is refused as before the front served /mcp: nothing there
    // invites a login.
    if (!found && at.place === 'tailnet')
      return refusal(
        403,
        null,
        FORBIDDEN,
        'Forbidden: /mcp through the HTTPS front serves only agents whose key may connect from the tailnet.',
        { allowed_here: ['tailnet'] },
      );
    return keyRefusal(null, found?.standing ?? 'missing', unexpanded);
  }
  const agent = found.user;
  x.agentId = agent.id;
  x.agentName = agent.name;
  x.keyAuth = found.auth;
  x.at = at;
  // Any request of the agent: it is connected, and from where (hub/control/presence.ts); not a read-only key's, which
  // is an observer of the agent, not the agent (shared/agents/scoped-keys.ts isReadOnlyKey).
  if (!isReadOnlyKey(found.auth)) notePresence(x.door.hub, agent.id, '', undefined, at);
  return undefined;
}

/** The 403 of a key used from a place it may not connect from: names its places and how to change them. */
function placeRefusal(
  agent: string,
  keyId: string | null,
  keyName: string,
  allowed: readonly string[],
  at: RequestPlace,
  id: unknown = null,
): Refusal {
  const how = howToAllow(agent, keyId, allowed, at);
  return refusal(403, id, FORBIDDEN, wrongPlaceMessage(agent, keyId, keyName, allowed, at), {
    code: 'wrong_place',
    allowed_from: [...allowed],
    place: at.place,
    how,
  });
}

function checkMethod(x: Exchange): Refusal | undefined {
  if (x.req.method === 'POST') return undefined;
  x.req.resume();
  return refusal(405, null, FORBIDDEN, 'Method not allowed: POST JSON-RPC to /mcp. This server sends no event stream.', undefined, {
    Allow: 'POST',
  });
}

function rateLimit(x: Exchange): Refusal | undefined {
  const wait = x.door.limiter.take(x.agentId);
  if (wait <= 0) return undefined;
  x.req.resume();
  const secs = Math.max(1, Math.ceil(wait / 1000));
  return refusal(
    429,
    null,
    RATE_LIMITED,
    `Too many requests: slow down and retry after ${secs} s.`,
    { code: 'rate_limited', retry_after_secs: secs },
    { 'Retry-After': String(secs) },
  );
}

function onBodyError(x: Exchange, err: unknown): void {
  if (err instanceof BodyTooLarge)
    return x.refuse(refusal(413, null, INVALID_REQUEST, `Payload too large: the limit is ${err.limit} bytes.`, { limit: err.limit }));
  if (x.res.destroyed) return; // the client went away mid-body: nobody to answer
  x.refuse(refusal(400, null, INVALID_REQUEST, 'Bad request body.'));
}

// ---- the body ------------------------------------------------------------------------------------

function onBody(x: Exchange, buf: Buffer): void {
  const msg = parseJsonRpc(buf);
  if (msg === A_RESPONSE) return x.accepted();
  if (msg instanceof Refusal) return x.refuse(msg);
  x.msg = msg;
  const era = negotiateEra(x.req.headers, msg);
  if (era instanceof Refusal) return x.refuse(era);
  x.era = era;
  if (isNotification(msg)) return x.accepted(msg.method);
  dispatch(x);
}

function dispatch(x: Exchange): void {
  const { msg, era } = x;
  const cache = era === 'modern' ? MODERN_CACHE : NO_CACHE_HINT;
  switch (msg.method) {
    case 'initialize': {
      const requested = msg.params?.protocolVersion;
      const protocolVersion = (LEGACY_VERSIONS as readonly string[]).includes(requested) ? requested : LEGACY_VERSIONS[0];
      return x.reply({ protocolVersion, capabilities: CAPABILITIES, serverInfo: SERVER_INFO, instructions: SERVER_INSTRUCTIONS });
    }
    case 'server/discover':
      if (era !== 'modern')
        return x.refuse(
          refusal(200, msg.id, METHOD_NOT_FOUND, 'server/discover belongs to protocol 2026-07-28; send MCP-Protocol-Version and _meta.'),
        );
      return x.reply({ supportedVersions: [...MODERN_VERSIONS], capabilities: CAPABILITIES, instructions: SERVER_INSTRUCTIONS, ...cache });
    case 'ping':
      return x.reply({});
    case 'tools/list':
      const { tools, meta } = x.door.listed(era);
      return x.reply({ tools, ...cache, _meta: meta });
    case 'resources/list':
      return x.reply({ resources: RESOURCES, ...cache });
    case 'resources/templates/list':
      return x.reply({ resourceTemplates: [], ...cache });
    case 'resources/read': {
      const uri = msg.params?.uri;
      if (uri !== GUIDE_URI) {
        return x.refuse(
          refusal(200, msg.id, era === 'modern' ? INVALID_PARAMS : RESOURCE_NOT_FOUND_LEGACY, `Resource not found: ${describe(uri)}`, {
            uri: typeof uri === 'string' ? uri : null,
          }),
        );
      }
      return x.reply({
        contents: [{ uri, mimeType: 'text/markdown', text: GUIDE_MARKDOWN }],
        ...(era === 'modern' ? { ttlMs: 0, cacheScope: 'private' } : {}),
      });
    }
    case 'tools/call':
      return callTool(x);
    default:
      return x.refuse(refusal(era === 'modern' ? 404 : 200, msg.id, METHOD_NOT_FOUND, `Method not found: ${msg.method}`));
  }
}

// ---- tools/call ----------------------------------------------------------------------------------

function callTool(x: Exchange): void {
  const name = x.msg.params?.name;
  const spec = typeof name === 'string' ? TOOL_BY_NAME.get(name) : undefined;
  if (!spec || !x.door.implemented.has(name as ToolName)) {
    return x.refuse(
      refusal(200, x.msg.id, INVALID_PARAMS, `Unknown tool: ${JSON.stringify(name)}. Call tools/list to see the tools.`, {
        code: 'unknown_tool',
      }),
      describe(name),
    );
  }
  // The hub's gates that read only the key and the tool (scope), before the arguments are read (hub/talk/gates.ts).
  const refused = gateRefusal({ hub: x.door.hub, agentId: x.agentId, tool: spec.name as ToolName, key: x.keyAuth }, ['key']);
  if (refused) return x.reply(errorResult(refused.error.toBody(), x.requestId), { tool: spec.name, error: refused.error.code });
  const checked = validateArguments(spec, x.msg.params.arguments ?? {});
  if (checked.refused) return x.reply(errorResult(checked.refused, x.requestId), { tool: spec.name, error: checked.refused.code });
  x.door.commits.submit(new ToolCall(x, spec.name as ToolName, checked.args), spec.groupCommitted);
}

/** One tool call: run (inside the group commit's transaction, or alone), then answered once settled. */
class ToolCall implements Unit {
  private result: unknown = undefined;
  /** Only a call that may wait (wait_secs) needs to learn that its client went away, or that its key stopped working. */
  private readonly ac: AbortController | undefined = undefined;
  private readonly onClose: (() => void) | undefined = undefined;
  private readonly standing: (() => WaitStanding) | undefined = undefined;

  constructor(
    private readonly x: Exchange,
    private readonly name: ToolName,
    private readonly args: Record<string, unknown>,
  ) {
    const waitSecs = args.wait_secs;
    if (typeof waitSecs === 'number' && waitSecs > 0) {
      const ac = (this.ac = new AbortController());
      const res = x.res;
      this.onClose = () => {
        if (!res.writableFinished) ac.abort();
      };
      res.on('close', this.onClose);
      this.standing = keyStanding(x.door.hub, bearerKey(x.req), x.agentId, x.at); // and from where it came (places)
    }
  }

  run(): void {
    try {
      this.result = callAgentTool(this.x.door.hub, this.x.agentId, this.name, this.args, {
        signal: this.ac?.signal,
        key: this.x.keyAuth,
        standing: this.standing,
        at: this.x.at,
      });
    } catch (err) {
      this.result = Promise.reject(err);
    }
  }

  settle(commitError: unknown): void {
    if (commitError === undefined) return this.answer();
    if (this.result instanceof Promise) this.result.catch(() => undefined);
    try {
      this.failed(commitError);
    } catch (err) {
      this.x.internal(err);
    }
  }

  private answer(): void {
    try {
      if (this.result instanceof Promise)
        this.result
          .then(
            (v: unknown) => this.succeeded(v),
            (err: unknown) => this.failed(err),
          )
          .catch((err: unknown) => this.x.internal(err));
      else this.succeeded(this.result);
    } catch (err) {
      this.x.internal(err);
    }
  }

  private succeeded(value: unknown): void {
    const x = this.x;
    if (this.onClose) x.res.off('close', this.onClose);
    const text = toolResultJson(x.era, x.msg.id, x.requestId, value as Record<string, unknown>);
    x.res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
    x.res.end(text);
    x.logLine(200, { agent: x.agentName, method: x.msg.method, tool: this.name });
  }

  private failed(err: unknown): void {
    const x = this.x;
    if (this.onClose) x.res.off('close', this.onClose);
    // A full or failing disk is storage_full (nothing was saved; reads go on), not internal.
    const refused = isHubError(err) ? err : x.door.hub.storageFailure(err);
    // A wait whose key stopped working (revoked, rotated, expired: hub/identity/key-waits.ts) is answered like a bad key.
    // One whose key may no longer be used from here (its places were narrowed) is answered as a request from here would be.
    if (refused?.code === 'unauthorized' && refused.details?.key === 'place') {
      const found = authenticateKey(x.door.hub, bearerKey(x.req), x.at);
      if (found.standing === 'place')
        return x.refuse(placeRefusal(found.user.name, found.auth.id, found.auth.name, found.allowed, x.at, x.msg.id), this.name);
    }
    if (refused?.code === 'unauthorized')
      return x.refuse(keyRefusal(x.msg.id, refused.details?.key === 'expired' ? 'expired' : 'revoked'), this.name);
    if (refused) return x.reply(errorResult(refused.toBody(), x.requestId), { tool: this.name, error: refused.code });
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`perch: ${x.requestId} ${this.name} failed: ${err instanceof Error ? err.stack : message}\n`);
    x.reply(
      errorResult(
        new HubError(
          'internal',
          `The hub failed on this call (request ${x.requestId}).`,
          'Retry; if it keeps failing, tell your owner the request_id.',
        ).toBody(),
        x.requestId,
      ),
      { tool: this.name, error: 'internal' },
    );
  }
}
