// Small HTTP helpers shared by the doors (MCP endpoint, owner API, files). No framework on the hot path.
// Every door reads the request target and cookies through parseTarget and parseCookies here: they never
// throw, whatever a request carries (bad percent-encodings, NUL bytes, absolute-form targets, junk cookies).
import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** Host header names a loopback host (any port). Guards against DNS rebinding. */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const colon = host.indexOf(':'); // (asked on every request: no split, and no lower-casing of an exact match)
  const h = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : colon < 0 ? host : host.slice(0, colon);
  return LOOPBACK_HOSTS.has(h) || LOOPBACK_HOSTS.has(h.toLowerCase());
}

/** Origin (when sent) is a loopback http(s) origin. */
export function isLoopbackOrigin(origin: string): boolean {
  const m = /^https?:\/\/([^/:]+|\[[^\]]+\])(:\d+)?$/i.exec(origin);
  return !!m && LOOPBACK_HOSTS.has(m[1]!.toLowerCase());
}

// ---- request ids -------------------------------------------------------------------------------

let requestCounter = 0;
const requestPrefix = crypto.randomBytes(3).toString('hex');
/** A short id for one request, unique in this process: in answers, in X-Request-Id and in the log. */
export function newRequestId(): string {
  requestCounter = (requestCounter + 1) % 0x7fffffff;
  return `r${requestPrefix}${requestCounter.toString(36)}`;
}

// ---- the request target ------------------------------------------------------------------------

export interface RequestTarget {
  /** The path as sent (percent-encoded), dot segments resolved: what routes compare against. */
  pathname: string;
  /** The same path percent-decoded (no NUL in it): what names a file. */
  path: string;
  searchParams: URLSearchParams;
}

export interface BadTarget {
  error: string;
}

/**
 * The request target (req.url) parsed once, never throwing: origin-form (`/a/b?c`) or absolute-form
 * (`http://127.0.0.1:PORT/a`). A target that does not parse, carries a bad percent-encoding, or a NUL
 * byte (encoded or not) anywhere, is a BadTarget (answer 400).
 */
export function parseTarget(raw: string | undefined): RequestTarget | BadTarget {
  const target = raw ?? '/';
  if (target.includes('\0') || /%00/i.test(target)) return { error: 'The request path holds a NUL byte.' };
  let url: URL;
  try {
    // Origin-form is appended to a fixed origin (never resolved against it): `//x` stays a path, not a host.
    url = target.startsWith('/') ? new URL(`http://127.0.0.1${target}`) : new URL(target);
  } catch {
    return { error: 'The request target is not a URL path.' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { error: 'The request target is not an http URL.' };
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return { error: 'The request path has a bad percent-encoding.' };
  }
  return { pathname: url.pathname, path, searchParams: url.searchParams };
}

export function isBadTarget(t: RequestTarget | BadTarget): t is BadTarget {
  return (t as BadTarget).error !== undefined;
}

/**
 * A listener's request handler made total: a stream error on the request or the answer is ignored, a target that does
 * not parse is answered 400, anything `handle` throws is a 500: nothing a request carries may crash the hub.
 */
export function totalHandler(
  handle: (req: IncomingMessage, res: ServerResponse, target: RequestTarget) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    try {
      const target = parseTarget(req.url);
      if (isBadTarget(target)) {
        req.resume();
        return sendBadRequest(res, target.error);
      }
      handle(req, res, target);
    } catch (err) {
      sendInternalError(res, err, `${req.method} ${String(req.url).slice(0, 200)}`);
    }
  };
}

// ---- cookies -----------------------------------------------------------------------------------

/**
 * The cookies of a Cookie header, never throwing: a value with a bad percent-encoding is kept as sent
 * (it then matches no session); the first of two cookies with one name wins.
 */
export function parseCookies(header: string | string[] | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const line of Array.isArray(header) ? header : [header]) {
    for (const part of line.split(';')) {
      const i = part.indexOf('=');
      if (i <= 0) continue;
      const name = part.slice(0, i).trim();
      if (!name || out.has(name)) continue;
      let value = part.slice(i + 1).trim();
      if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
      if (value.includes('%')) {
        try {
          value = decodeURIComponent(value);
        } catch {
          /* kept as sent */
        }
      }
      out.set(name, value);
    }
  }
  return out;
}

export function cookieValue(req: IncomingMessage, name: string): string | undefined {
  return parseCookies(req.headers.cookie).get(name);
}

/** The token of an `Authorization: Bearer …` header, if any. */
export function bearerOf(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  if (typeof auth !== 'string' || !auth.startsWith('Bearer ')) return undefined;
  return auth.slice(7).trim() || undefined;
}

// ---- bodies and answers ------------------------------------------------------------------------

export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`body over ${limit} bytes`);
  }
}

/** Reads the request body up to limit bytes; rejects with BodyTooLarge beyond it (and stops reading). */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? -1);
  if (declared > limit) {
    req.resume();
    return Promise.reject(new BodyTooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new BodyTooLarge(limit));
        req.removeAllListeners('data');
        req.resume();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on('error', reject);
    // A request cut off mid-body (client gone, or the server's request timeout) never ends: settle anyway.
    req.on('close', () => {
      if (!req.complete) reject(new Error('the request was closed before its body was read'));
    });
  });
}

/**
 * The HTTP status of a hub refusal (HubError code), the same on every door that answers JSON (owner API, device
 * door, push door): 400 bad input, 401/403 credentials and scope, 404, 410 expired, 429, 507 disk full, 409 otherwise.
 */
export function statusOfCode(code: string): number {
  switch (code) {
    case 'invalid_argument':
    case 'too_large':
      return 400;
    case 'unauthorized':
      return 401;
    case 'forbidden':
      return 403;
    case 'not_found':
      return 404;
    case 'expired':
      return 410;
    case 'rate_limited':
      return 429;
    case 'storage_full':
      return 507;
    case 'internal':
      return 500;
    default:
      return 409;
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** 400 for a request that cannot be read as sent (bad target, bad encoding). */
export function sendBadRequest(res: ServerResponse, message: string): void {
  res.setHeader('Connection', 'close');
  sendJson(res, 400, {
    ok: false,
    error: {
      code: 'bad_request',
      message,
      next_step: 'Send a well-formed request: a URL path with valid percent-encoding and no NUL bytes.',
    },
  });
}

/**
 * The answer to anything a door did not expect: logged on stderr with its request id, then 500 with that
 * id in the body and in X-Request-Id (or, when an answer had already begun, the connection is closed).
 */
export function sendInternalError(res: ServerResponse, err: unknown, where: string, requestId: string = newRequestId()): void {
  process.stderr.write(`perch: ${requestId} ${where} failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  try {
    if (res.headersSent || res.writableEnded || res.destroyed) {
      res.destroy();
      return;
    }
    sendJson(
      res,
      500,
      {
        ok: false,
        error: {
          code: 'internal',
          message: `The hub failed on this request (request ${requestId}); nothing was changed.`,
          next_step: 'Retry; if it keeps failing, see the hub log for this request id.',
        },
        request_id: requestId,
      },
      { 'X-Request-Id': requestId, Connection: 'close' },
    );
  } catch {
    res.destroy();
  }
}
