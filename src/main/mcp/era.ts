// Protocol eras of the MCP door. The 2025 revisions (legacy) open with an initialize handshake;
// 2026-07-28 (modern) carries the version and client capabilities in every request's _meta, mirrored
// in the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers. Which era a request speaks, whether its
// headers agree with its body, and how a result is dressed for that era.
import type { IncomingHttpHeaders } from 'node:http';
import { PERCH_VERSION } from '../../shared/version';
import {
  HEADER_MISMATCH,
  INVALID_PARAMS,
  INVALID_REQUEST,
  UNSUPPORTED_VERSION,
  isNotification,
  refusal,
  type JsonRpcRequest,
  type Refusal,
} from './jsonrpc';

export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
export const MODERN_VERSIONS = ['2026-07-28'] as const;

export type Era = 'legacy' | 'modern';

const K_VERSION = 'io.modelcontextprotocol/protocolVersion';
const K_CLIENT_CAPS = 'io.modelcontextprotocol/clientCapabilities';
const K_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

export const SERVER_INFO = { name: 'perch', title: 'Perch', version: PERCH_VERSION };
/** The _meta every modern result carries, as JSON (for results built by hand). */
export const MODERN_META_JSON = JSON.stringify({ [K_SERVER_INFO]: SERVER_INFO });

/**
 * The era a request speaks, or why it is refused. Modern when _meta names a version or the header names
 * 2026-07-28 or later. A legacy request's header must name a known revision; a modern request (not a
 * notification) needs _meta version + capabilities, agreeing MCP-Protocol-Version, a supported version,
 * and Mcp-Method / Mcp-Name headers (when sent) that match the body.
 */
export function negotiateEra(headers: IncomingHttpHeaders, msg: JsonRpcRequest): Era | Refusal {
  const headerVersion = headers['mcp-protocol-version'] as string | undefined;
  const meta = msg.params && typeof msg.params === 'object' ? msg.params._meta : undefined;
  const claimed = meta && typeof meta === 'object' ? meta[K_VERSION] : undefined;
  const modern = claimed !== undefined || (typeof headerVersion === 'string' && headerVersion >= MODERN_VERSIONS[0]);

  if (!modern) {
    if (headerVersion !== undefined && !(LEGACY_VERSIONS as readonly string[]).includes(headerVersion)) {
      return refusal(400, msg.id, INVALID_REQUEST, `Bad request: unsupported protocol version ${headerVersion}.`, {
        supported: [...LEGACY_VERSIONS, ...MODERN_VERSIONS],
      });
    }
    return 'legacy';
  }
  if (isNotification(msg)) return 'modern';
  if (typeof claimed !== 'string' || !meta || typeof meta[K_CLIENT_CAPS] !== 'object') {
    return refusal(400, msg.id, INVALID_PARAMS, `Invalid params: _meta needs ${K_VERSION} and ${K_CLIENT_CAPS}.`);
  }
  if (headerVersion !== claimed) {
    return refusal(
      400,
      msg.id,
      HEADER_MISMATCH,
      `Header mismatch: MCP-Protocol-Version header ${JSON.stringify(headerVersion ?? null)} does not match _meta ${JSON.stringify(claimed)}.`,
    );
  }
  if (!(MODERN_VERSIONS as readonly string[]).includes(claimed)) {
    return refusal(400, msg.id, UNSUPPORTED_VERSION, `Unsupported protocol version ${claimed}.`, {
      supported: [...MODERN_VERSIONS],
      requested: claimed,
    });
  }
  const mcpMethod = headers['mcp-method'];
  if (mcpMethod !== undefined && mcpMethod !== msg.method) {
    return refusal(
      400,
      msg.id,
      HEADER_MISMATCH,
      `Header mismatch: Mcp-Method ${JSON.stringify(mcpMethod)} does not match ${JSON.stringify(msg.method)}.`,
    );
  }
  // Gateways may route or filter on Mcp-Name: it must name what the body does.
  const mcpName = headers['mcp-name'];
  const bodyName =
    msg.method === 'tools/call' || msg.method === 'prompts/get'
      ? msg.params?.name
      : msg.method === 'resources/read'
        ? msg.params?.uri
        : undefined;
  if (typeof mcpName === 'string' && bodyName !== undefined && decodeHeaderValue(mcpName) !== bodyName) {
    return refusal(
      400,
      msg.id,
      HEADER_MISMATCH,
      `Header mismatch: Mcp-Name ${JSON.stringify(mcpName)} does not match ${JSON.stringify(bodyName)}.`,
    );
  }
  return 'modern';
}

/** A result as the era answers it: modern results say resultType and carry the server's info in _meta. */
export function eraResult(era: Era, result: Record<string, unknown>): Record<string, unknown> {
  return era === 'modern'
    ? { resultType: 'complete', ...result, _meta: { ...((result._meta as object) ?? {}), [K_SERVER_INFO]: SERVER_INFO } }
    : result;
}

/** Cache hints of a modern list or discovery result (none in the legacy era). */
export const MODERN_CACHE = { ttlMs: 60_000, cacheScope: 'private' } as const;
export const NO_CACHE_HINT = {} as const;

/** Mcp-* header values that are not plain ASCII travel as =?base64?<UTF-8 in base64>?= (2026-07-28). */
function decodeHeaderValue(v: string): string {
  const m = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(v);
  return m ? Buffer.from(m[1]!, 'base64').toString('utf8') : v;
}
