// JSON-RPC 2.0 for the MCP door: error codes, the refusal a step hands back, and parsing one request body.
import { LIMITS } from '../../shared/limits';

const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
/** The door refuses the request (Host, Origin, HTTP method). */
export const FORBIDDEN = -32000;
export const UNAUTHORIZED = -32001;
export const RATE_LIMITED = -32029;
export const HEADER_MISMATCH = -32020;
export const UNSUPPORTED_VERSION = -32022;
export const RESOURCE_NOT_FOUND_LEGACY = -32002;

/** One JSON-RPC request (or notification) as the body carried it; params are not checked here. */
export interface JsonRpcRequest {
  jsonrpc: '2.0';
  method: string;
  id?: string | number | null;
  /** Read field by field, each checked where it is used. */
  params?: any;
}

/** A step's "no": answered as a JSON-RPC error with this HTTP status (and headers). */
export class Refusal {
  constructor(
    readonly status: number,
    /** The request's id (answered as null unless a string or a number). */
    readonly id: unknown,
    readonly code: number,
    readonly message: string,
    readonly data?: unknown,
    readonly headers?: Record<string, string>,
  ) {}
}

export function refusal(
  status: number,
  id: unknown,
  code: number,
  message: string,
  data?: unknown,
  headers?: Record<string, string>,
): Refusal {
  return new Refusal(status, id, code, message, data, headers);
}

/** The JSON-RPC error body of a refusal. */
export function errorBody(r: Refusal): unknown {
  const id = typeof r.id === 'string' || typeof r.id === 'number' ? r.id : null;
  return { jsonrpc: '2.0', id, error: { code: r.code, message: r.message, ...(r.data !== undefined ? { data: r.data } : {}) } };
}

/** The body was a JSON-RPC response (a client answering): accepted with 202 and nothing else. */
export const A_RESPONSE = 'response' as const;

/**
 * One POST body as one JSON-RPC request: not JSON, a batch, not a request, a bad id, or a body over
 * LIMITS.maxBodyBytes that is not a send_file call, is a refusal.
 */
export function parseJsonRpc(buf: Buffer): JsonRpcRequest | Refusal | typeof A_RESPONSE {
  // Any JSON, checked below.
  let msg: any;
  try {
    msg = JSON.parse(buf.toString('utf8'));
  } catch {
    return refusal(400, null, PARSE_ERROR, 'Parse error: the body is not valid JSON.');
  }
  if (Array.isArray(msg))
    return refusal(400, null, INVALID_REQUEST, 'Invalid request: JSON-RPC batches are not supported; send one request per POST.');
  if (msg === null || typeof msg !== 'object' || msg.jsonrpc !== '2.0' || typeof msg.method !== 'string') {
    if (msg && typeof msg === 'object' && ('result' in msg || 'error' in msg)) return A_RESPONSE;
    return refusal(400, msg?.id, INVALID_REQUEST, 'Invalid request: expected a JSON-RPC 2.0 request with a method.');
  }
  if (!isNotification(msg) && typeof msg.id !== 'string' && typeof msg.id !== 'number') {
    return refusal(400, null, INVALID_REQUEST, 'Invalid request: id must be a string or a number.');
  }
  if (buf.length > LIMITS.maxBodyBytes && !(msg.method === 'tools/call' && msg.params?.name === 'send_file')) {
    return refusal(
      413,
      msg.id,
      INVALID_REQUEST,
      `Payload too large: the limit is ${LIMITS.maxBodyBytes} bytes (files up to ${LIMITS.maxFileBytes} bytes go through send_file).`,
      { limit: LIMITS.maxBodyBytes },
    );
  }
  return msg as JsonRpcRequest;
}

export function isNotification(msg: JsonRpcRequest): boolean {
  return msg.id === undefined || msg.id === null;
}
