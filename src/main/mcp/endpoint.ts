// The MCP door: POST /mcp on 127.0.0.1, stateless per request, serving both protocol eras:
// the 2025 handshake revisions (initialize ...) and 2026-07-28 (server/discover, per-request _meta).
// Hand-written JSON-RPC on node:http: the hub's tools are the only work done per request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Hub } from '../hub/hub';
import { authenticate } from '../hub/identities';
import { callAgentTool, implementedTools } from '../hub/tools';
import { TOOLS, TOOL_BY_NAME, TOOL_SCHEMA_VERSION, toolInputJsonSchema, type ToolName } from '../../shared/catalog';
import { HubError, isHubError, type ErrorBody } from '../../shared/errors';
import { LIMITS } from '../../shared/limits';
import { tooDeep } from '../../shared/json-depth';
import { PERCH_VERSION } from '../../shared/version';
import { BodyTooLarge, isLoopbackHost, isLoopbackOrigin, newRequestId, readBody, sendInternalError, sendJson } from '../http-util';
import { GUIDE_MARKDOWN, GUIDE_URI, SERVER_INSTRUCTIONS } from './guide';
import { RateLimiter } from '../hub/rate-limit';

export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
export const MODERN_VERSIONS = ['2026-07-28'] as const;

const K_VERSION = 'io.modelcontextprotocol/protocolVersion';
const K_CLIENT_CAPS = 'io.modelcontextprotocol/clientCapabilities';
const K_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
const HEADER_MISMATCH = -32020;
const UNSUPPORTED_VERSION = -32022;
const RESOURCE_NOT_FOUND_LEGACY = -32002;

/** Most writing calls committed together (group commit). */
const MAX_BATCH = 64;
/** progress publishes its report to the owner right after its own commit, so it is not batched. */
const GROUP_COMMITTED = (name: ToolName) => name !== 'progress';

const SERVER_INFO = { name: 'perch', title: 'Perch', version: PERCH_VERSION };
const CAPABILITIES = { tools: { listChanged: false }, resources: { subscribe: false, listChanged: false } };

class RpcError extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown, readonly httpStatus = 200) {
    super(message);
  }
}

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
  hub: Hub;
  /** Per-agent calls per second (0 = unlimited). */
  ratePerSecond?: number;
  rateBurst?: number;
  log?: (line: McpLogLine) => void;
}

type Era = 'legacy' | 'modern';

function toolListItem(name: ToolName) {
  const t = TOOL_BY_NAME.get(name)!;
  return {
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: toolInputJsonSchema(t),
    annotations: { title: t.title, readOnlyHint: t.readOnly, destructiveHint: ['recall_message', 'state_delete'].includes(t.name), openWorldHint: false },
  };
}

/** Mcp-* header values that are not plain ASCII travel as =?base64?<UTF-8 in base64>?= (2026-07-28). */
function decodeHeaderValue(v: string): string {
  const m = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(v);
  return m ? Buffer.from(m[1]!, 'base64').toString('utf8') : v;
}

/** A short, printable picture of any JSON value (what a bad argument was), never throwing. */
function describe(v: unknown): string {
  if (typeof v === 'string') return v.slice(0, 200);
  try {
    return (JSON.stringify(v) ?? String(v)).slice(0, 200);
  } catch {
    return typeof v;
  }
}

export function createMcpHandler(opts: McpOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { hub } = opts;
  const rate = opts.ratePerSecond ?? LIMITS.ratePerSecond;
  // The burst scales with the rate (as LIMITS.rateBurst does with LIMITS.ratePerSecond): a fixed burst of
  // 400 would let `--rate 5` pass 400 calls before it limits anything.
  const burst = opts.rateBurst ?? Math.max(1, Math.ceil((rate * LIMITS.rateBurst) / LIMITS.ratePerSecond));
  const limiter = new RateLimiter(rate, burst);
  const implemented = implementedTools();
  const listed = TOOLS.filter((t) => implemented.has(t.name as ToolName)).map((t) => toolListItem(t.name as ToolName));
  const listMeta = { tool_schema_version: TOOL_SCHEMA_VERSION };
  const resources = [{ uri: GUIDE_URI, name: 'guide', title: 'Perch agent guide', description: 'How to work with Perch: the loop, acks, waking, asking your owner.', mimeType: 'text/markdown' }];

  function log(line: McpLogLine) {
    opts.log?.(line);
  }

  // Group commit. Writing tool calls that arrive together (in one turn of the event loop) run one
  // after the other in ONE transaction with one COMMIT (each call is its own savepoint, so a
  // failing call changes nothing and the others still commit). Every answer is sent after that
  // commit: a successful call is on disk before it returns, as without batching. Under load this
  // turns N commits (each writing the same B-tree pages again) into one. Read-only tools do not
  // wait for it.
  interface Unit {
    run(): void;
    settle(commitError: unknown): void;
  }
  const queue: Unit[] = [];
  let drainScheduled = false;
  function enqueue(unit: Unit) {
    queue.push(unit);
    if (!drainScheduled) {
      drainScheduled = true;
      setImmediate(drain);
    }
  }
  function drain() {
    drainScheduled = false;
    const units = queue.splice(0, MAX_BATCH);
    if (queue.length) {
      drainScheduled = true;
      setImmediate(drain);
    }
    let commitError: unknown;
    try {
      hub.batch(() => {
        for (const u of units) u.run();
      });
    } catch (err) {
      commitError = err ?? new Error('commit failed');
    }
    for (const u of units) u.settle(commitError);
  }

  return function handle(req, res) {
    const started = performance.now();
    const requestId = newRequestId();
    const finish = (status: number, body: unknown, extra: Partial<McpLogLine> = {}, headers: Record<string, string> = {}) => {
      if (body === undefined) {
        res.writeHead(status, headers);
        res.end();
      } else {
        sendJson(res, status, body, headers);
      }
      log({ request_id: requestId, ms: Math.round((performance.now() - started) * 100) / 100, status, ...extra });
    };
    const rpcError = (status: number, id: unknown, code: number, message: string, data?: unknown, extra: Partial<McpLogLine> = {}, headers: Record<string, string> = {}) =>
      finish(status, { jsonrpc: '2.0', id: typeof id === 'string' || typeof id === 'number' ? id : null, error: { code, message, ...(data !== undefined ? { data } : {}) } }, { error: message, ...extra }, headers);

    // DNS-rebinding protection: loopback Host, and a loopback Origin when one is sent.
    if (!isLoopbackHost(req.headers.host)) return rpcError(403, null, -32000, 'Forbidden: the Host header must name this computer (127.0.0.1 or localhost).');
    const origin = req.headers.origin;
    if (origin !== undefined && !isLoopbackOrigin(origin)) return rpcError(403, null, -32000, `Forbidden: requests from origin ${origin} are refused.`);

    const auth = req.headers.authorization;
    const key = auth && auth.startsWith('Bearer ') ? auth.slice(7).trim() : '';
    const agent = key ? authenticate(hub, key) : undefined;
    if (!agent) {
      req.resume();
      return rpcError(401, null, -32001, key ? 'Unauthorized: the agent key is wrong or was revoked.' : 'Unauthorized: send your agent key as "Authorization: Bearer <key>".', undefined, {}, { 'WWW-Authenticate': 'Bearer realm="perch"' });
    }
    const agentId = agent.id;
    if (req.method !== 'POST') {
      req.resume();
      return rpcError(405, null, -32000, 'Method not allowed: POST JSON-RPC to /mcp. This server sends no event stream.', undefined, { agent: agent.name }, { Allow: 'POST' });
    }
    const wait = limiter.take(agentId);
    if (wait > 0) {
      req.resume();
      const secs = Math.max(1, Math.ceil(wait / 1000));
      return rpcError(429, null, -32029, `Too many requests: slow down and retry after ${secs} s.`, { code: 'rate_limited', retry_after_secs: secs }, { agent: agent.name }, { 'Retry-After': String(secs) });
    }

    readBody(req, LIMITS.maxFileBodyBytes)
      .then(
        (buf) => onBody(buf),
        (err) => {
          if (err instanceof BodyTooLarge) return rpcError(413, null, INVALID_REQUEST, `Payload too large: the limit is ${err.limit} bytes.`, { limit: err.limit }, { agent: agent.name });
          if (res.destroyed) return; // the client went away mid-body: nobody to answer
          return rpcError(400, null, INVALID_REQUEST, 'Bad request body.');
        },
      )
      .catch((err: unknown) => internal(err));

    /** Anything this door did not expect: 500 with the request id (logged), never a crash. */
    function internal(err: unknown) {
      sendInternalError(res, err, 'mcp request', requestId);
      log({ request_id: requestId, ms: Math.round((performance.now() - started) * 100) / 100, status: 500, agent: agent!.name, error: 'internal' });
    }

    function onBody(buf: Buffer) {
      let msg: any;
      try {
        msg = JSON.parse(buf.toString('utf8'));
      } catch {
        return rpcError(400, null, PARSE_ERROR, 'Parse error: the body is not valid JSON.', undefined, { agent: agent!.name });
      }
      if (Array.isArray(msg)) return rpcError(400, null, INVALID_REQUEST, 'Invalid request: JSON-RPC batches are not supported; send one request per POST.');
      if (msg === null || typeof msg !== 'object' || msg.jsonrpc !== '2.0' || typeof msg.method !== 'string') {
        if (msg && typeof msg === 'object' && ('result' in msg || 'error' in msg)) return finish(202, undefined);
        return rpcError(400, msg?.id, INVALID_REQUEST, 'Invalid request: expected a JSON-RPC 2.0 request with a method.');
      }
      const isNotification = msg.id === undefined || msg.id === null;
      if (!isNotification && typeof msg.id !== 'string' && typeof msg.id !== 'number') {
        return rpcError(400, null, INVALID_REQUEST, 'Invalid request: id must be a string or a number.');
      }
      const fileSized = buf.length > LIMITS.maxBodyBytes;
      if (fileSized && !(msg.method === 'tools/call' && msg.params?.name === 'send_file')) {
        return rpcError(413, msg.id, INVALID_REQUEST, `Payload too large: the limit is ${LIMITS.maxBodyBytes} bytes (files up to ${LIMITS.maxFileBytes} bytes go through send_file).`, { limit: LIMITS.maxBodyBytes });
      }

      const headerVersion = req.headers['mcp-protocol-version'] as string | undefined;
      const meta = msg.params && typeof msg.params === 'object' ? msg.params._meta : undefined;
      const claimed = meta && typeof meta === 'object' ? meta[K_VERSION] : undefined;
      const era: Era = claimed !== undefined || (typeof headerVersion === 'string' && headerVersion >= MODERN_VERSIONS[0]) ? 'modern' : 'legacy';

      if (era === 'legacy') {
        if (headerVersion !== undefined && !(LEGACY_VERSIONS as readonly string[]).includes(headerVersion)) {
          return rpcError(400, msg.id, INVALID_REQUEST, `Bad request: unsupported protocol version ${headerVersion}.`, { supported: [...LEGACY_VERSIONS, ...MODERN_VERSIONS] });
        }
        if (isNotification) return finish(202, undefined, { method: msg.method, agent: agent!.name });
      } else {
        if (isNotification) return finish(202, undefined, { method: msg.method, agent: agent!.name });
        if (typeof claimed !== 'string' || !meta || typeof meta[K_CLIENT_CAPS] !== 'object') {
          return rpcError(400, msg.id, INVALID_PARAMS, `Invalid params: _meta needs ${K_VERSION} and ${K_CLIENT_CAPS}.`);
        }
        if (headerVersion !== claimed) {
          return rpcError(400, msg.id, HEADER_MISMATCH, `Header mismatch: MCP-Protocol-Version header ${JSON.stringify(headerVersion ?? null)} does not match _meta ${JSON.stringify(claimed)}.`);
        }
        if (!(MODERN_VERSIONS as readonly string[]).includes(claimed)) {
          return rpcError(400, msg.id, UNSUPPORTED_VERSION, `Unsupported protocol version ${claimed}.`, { supported: [...MODERN_VERSIONS], requested: claimed });
        }
        const mcpMethod = req.headers['mcp-method'];
        if (mcpMethod !== undefined && mcpMethod !== msg.method) {
          return rpcError(400, msg.id, HEADER_MISMATCH, `Header mismatch: Mcp-Method ${JSON.stringify(mcpMethod)} does not match ${JSON.stringify(msg.method)}.`);
        }
        // Gateways may route or filter on Mcp-Name: it must name what the body does.
        const mcpName = req.headers['mcp-name'];
        const bodyName = msg.method === 'tools/call' || msg.method === 'prompts/get' ? msg.params?.name : msg.method === 'resources/read' ? msg.params?.uri : undefined;
        if (typeof mcpName === 'string' && bodyName !== undefined && decodeHeaderValue(mcpName) !== bodyName) {
          return rpcError(400, msg.id, HEADER_MISMATCH, `Header mismatch: Mcp-Name ${JSON.stringify(mcpName)} does not match ${JSON.stringify(bodyName)}.`);
        }
      }

      const reply = (result: Record<string, unknown>, extra: Partial<McpLogLine> = {}) => {
        const body = era === 'modern' ? { resultType: 'complete', ...result, _meta: { ...((result._meta as object) ?? {}), [K_SERVER_INFO]: SERVER_INFO } } : result;
        finish(200, { jsonrpc: '2.0', id: msg.id, result: body }, { agent: agent!.name, method: msg.method, ...extra });
      };
      const cache = era === 'modern' ? { ttlMs: 60_000, cacheScope: 'private' } : {};

      switch (msg.method) {
        case 'initialize': {
          const requested = msg.params?.protocolVersion;
          const protocolVersion = (LEGACY_VERSIONS as readonly string[]).includes(requested) ? requested : LEGACY_VERSIONS[0];
          return reply({ protocolVersion, capabilities: CAPABILITIES, serverInfo: SERVER_INFO, instructions: SERVER_INSTRUCTIONS });
        }
        case 'server/discover':
          if (era !== 'modern') return rpcError(200, msg.id, METHOD_NOT_FOUND, 'server/discover belongs to protocol 2026-07-28; send MCP-Protocol-Version and _meta.');
          return reply({ supportedVersions: [...MODERN_VERSIONS], capabilities: CAPABILITIES, instructions: SERVER_INSTRUCTIONS, ...cache });
        case 'ping':
          return reply({});
        case 'tools/list':
          return reply({ tools: listed, ...cache, _meta: listMeta });
        case 'resources/list':
          return reply({ resources, ...cache });
        case 'resources/templates/list':
          return reply({ resourceTemplates: [], ...cache });
        case 'resources/read': {
          const uri = msg.params?.uri;
          if (uri !== GUIDE_URI) {
            return rpcError(200, msg.id, era === 'modern' ? INVALID_PARAMS : RESOURCE_NOT_FOUND_LEGACY, `Resource not found: ${describe(uri)}`, { uri: typeof uri === 'string' ? uri : null });
          }
          return reply({ contents: [{ uri, mimeType: 'text/markdown', text: GUIDE_MARKDOWN }], ...(era === 'modern' ? { ttlMs: 0, cacheScope: 'private' } : {}) });
        }
        case 'tools/call':
          return callTool(msg, reply, era);
        default:
          return rpcError(era === 'modern' ? 404 : 200, msg.id, METHOD_NOT_FOUND, `Method not found: ${msg.method}`);
      }
    }

    function callTool(msg: any, reply: (r: Record<string, unknown>, extra?: Partial<McpLogLine>) => void, era: Era) {
      const name = msg.params?.name;
      const spec = typeof name === 'string' ? TOOL_BY_NAME.get(name) : undefined;
      if (!spec || !implemented.has(name as ToolName)) {
        return rpcError(200, msg.id, INVALID_PARAMS, `Unknown tool: ${JSON.stringify(name)}. Call tools/list to see the tools.`, { code: 'unknown_tool' }, { agent: agent!.name, tool: describe(name) });
      }
      const rawArgs = msg.params.arguments ?? {};
      const extra = { tool: name as string };
      // Before anything walks the arguments (zod, JSON.stringify of a value): deep nesting would overflow the stack.
      const deep = tooDeep(rawArgs, LIMITS.maxJsonDepth);
      if (deep !== undefined) {
        return reply(errorResult({ code: 'invalid_argument', message: `Invalid arguments for ${name}: ${deep}: arrays and objects are nested more than ${LIMITS.maxJsonDepth} levels deep (limits.maxJsonDepth).`, next_step: 'Nest the value less deeply (whoami lists the limits).' }), { ...extra, error: 'invalid_argument' });
      }
      const parsed = spec.input.safeParse(rawArgs);
      if (!parsed.success) {
        const issues = parsed.error.issues;
        const detail = issues.map((i) => `${i.path.length ? i.path.join('.') : '(arguments)'}: ${i.message}`).join('; ');
        // Text or lists over a size limit are too_large (the stable code of a size limit), not a malformed call.
        const oversize = issues.every((i) => i.code === 'too_big' && (i.origin === 'string' || i.origin === 'array'));
        if (oversize) {
          return reply(errorResult({ code: 'too_large', message: `Over a size limit in ${name}: ${detail}`, next_step: 'Shorten it (whoami lists the limits), or send long material as a file and point to it with refs.' }), { ...extra, error: 'too_large' });
        }
        return reply(errorResult({ code: 'invalid_argument', message: `Invalid arguments for ${name}: ${detail}`, next_step: `Check the arguments against the ${name} schema in tools/list.` }), { ...extra, error: 'invalid_argument' });
      }
      // Only a call that may wait (wait_secs) needs to learn that its client went away.
      const waitSecs = (parsed.data as { wait_secs?: unknown }).wait_secs;
      const ac = typeof waitSecs === 'number' && waitSecs > 0 ? new AbortController() : undefined;
      const onClose = () => { if (!res.writableFinished) ac?.abort(); };
      if (ac) res.on('close', onClose);
      let result: unknown;
      const start = () => {
        try {
          result = callAgentTool(hub, agentId, name as ToolName, parsed.data as Record<string, unknown>, ac?.signal);
        } catch (err) {
          result = Promise.reject(err);
        }
      };
      const answer = () => {
        try {
          if (result instanceof Promise) result.then(succeeded, failed).catch(internal);
          else succeeded(result);
        } catch (err) {
          internal(err);
        }
      };
      // While the disk is full, every call commits (or fails) alone: a failure then rolls back only its own
      // call, and get_updates, which saves the agent's position, still answers when that save fails.
      if (spec.readOnly || !GROUP_COMMITTED(name as ToolName) || hub.storageFull) {
        start();
        return answer();
      }
      enqueue({
        run: start,
        settle(commitError) {
          if (commitError === undefined) return answer();
          if (result instanceof Promise) result.catch(() => undefined);
          try {
            failed(commitError);
          } catch (err) {
            internal(err);
          }
        },
      });

      function succeeded(value: unknown) {
        if (ac) res.off('close', onClose);
        const v = value as Record<string, unknown>;
        // request_human / get_request / cancel_request return the contract's request_id (the request to a
        // person); it must not be overwritten by this call's id, which then goes in call_request_id.
        const structured = typeof v.request_id === 'string' ? { ...v, call_request_id: requestId } : { ...v, request_id: requestId };
        // The same body reply() would send, with the result serialized once (not once for the text copy
        // and again for structuredContent): for a page of events that is most of the call's JSON work.
        const json = JSON.stringify(structured);
        const content = `[{"type":"text","text":${JSON.stringify(json)}}]`;
        const result = era === 'modern'
          ? `{"resultType":"complete","content":${content},"structuredContent":${json},"_meta":${JSON.stringify({ [K_SERVER_INFO]: SERVER_INFO })}}`
          : `{"content":${content},"structuredContent":${json}}`;
        const text = `{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":${result}}`;
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
        res.end(text);
        log({ request_id: requestId, ms: Math.round((performance.now() - started) * 100) / 100, status: 200, agent: agent!.name, method: msg.method, ...extra });
      }
      function failed(err: unknown) {
        if (ac) res.off('close', onClose);
        // A full or failing disk is storage_full (nothing was saved; reads go on), not internal.
        const refusal = isHubError(err) ? err : hub.storageFailure(err);
        if (refusal) return reply(errorResult(refusal.toBody()), { ...extra, error: refusal.code });
        const message = err instanceof Error ? err.message : String(err);
        process.stderr.write(`perch: ${requestId} ${name} failed: ${err instanceof Error ? err.stack : message}\n`);
        return reply(errorResult(new HubError('internal', `The hub failed on this call (request ${requestId}).`, 'Retry; if it keeps failing, tell your owner the request_id.').toBody()), { ...extra, error: 'internal' });
      }
    }

    function errorResult(body: ErrorBody): Record<string, unknown> {
      const structured = { error: body, request_id: requestId, tool_schema_version: TOOL_SCHEMA_VERSION };
      return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured, isError: true };
    }
  };
}

export { INTERNAL_ERROR };
