// The hub's HTTP server with its limits (bounded reading, no crash on a socket error, CONNECT answered 405), apart
// from the doors it serves: \`perch serve\` binds it before the hub is built (cli/serve-front.ts) and the hub takes
// its requests over (app.ts startHub); listeners.ts makes its extra listeners with it.
import http from 'node:http';
import type { Duplex } from 'node:stream';
export { listenOn } from './held-listener';

/** Defaults of the hub's header and request timeouts (PERCH_HEADERS_TIMEOUT_MS / PERCH_REQUEST_TIMEOUT_MS override them). */
export const HEADERS_TIMEOUT_MS = 15_000;
export const REQUEST_TIMEOUT_MS = 30_000;

/** A whole number of ms > 0 from the environment, or undefined. */
export function envMs(name: string): number | undefined {
  const v = Number(process.env[name]);
  return Number.isInteger(v) && v > 0 ? v : undefined;
}

/** The hub's limits: the caller's, else the environment's, else the defaults (a request's at least its headers'). */
export function serverLimits(o: { headersTimeoutMs?: number; requestTimeoutMs?: number } = {}): ServerLimits {
  const headersTimeoutMs = o.headersTimeoutMs ?? envMs('PERCH_HEADERS_TIMEOUT_MS') ?? HEADERS_TIMEOUT_MS;
  const requestTimeoutMs = Math.max(o.requestTimeoutMs ?? envMs('PERCH_REQUEST_TIMEOUT_MS') ?? REQUEST_TIMEOUT_MS, headersTimeoutMs);
  return { headersTimeoutMs, requestTimeoutMs };
}

/** Node's options and the hub's timeouts, the same for every listener. */
export interface ServerLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

/** The raw answer to a request Node's parser refused (or did not receive in time): status line only. */
function clientErrorResponse(err: NodeJS.ErrnoException): string {
  const [status, text] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large']
        : [400, 'Bad Request'];
  const body = JSON.stringify({
    ok: false,
    error: {
      code: status === 408 ? 'timeout' : 'bad_request',
      message: status === 408 ? 'The request did not arrive in time.' : 'The request is not well-formed HTTP.',
      next_step: 'Send a complete, well-formed HTTP/1.1 request.',
    },
  });
  return `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** An HTTP server with the hub's limits: bounded reading, no crash on a socket error, CONNECT answered 405. */
export function hubServer(limits: ServerLimits, handler: http.RequestListener): http.Server {
  const server = http.createServer(
    // Node checks both timeouts on this interval: a stalled request is cut off within about one more tick.
    { connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))) },
    handler,
  );
  server.keepAliveTimeout = 65_000;
  // Reading a request is bounded (a few stalled sockets cannot tie the hub up); Node's requestTimeout ends
  // when the request has been received, so long waits for an answer (get_updates wait_secs) are not cut.
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.on('connection', (socket) => socket.on('error', () => undefined));
  // CONNECT (a proxy tunnel) is nothing this hub offers: answer 405 rather than drop the socket.
  server.on('connect', (_req: http.IncomingMessage, socket: Duplex) => {
    socket.on('error', () => undefined);
    const body = JSON.stringify({
      ok: false,
      error: { code: 'method_not_allowed', message: 'CONNECT is not served here.', next_step: 'MCP clients use POST /mcp.' },
    });
    socket.end(
      `HTTP/1.1 405 Method Not Allowed\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      () => socket.destroy(),
    );
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    socket.on('error', () => undefined);
    const inFlight = (socket as { _httpMessage?: http.ServerResponse })._httpMessage;
    if (err.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
      socket.end(clientErrorResponse(err), () => socket.destroy());
      setTimeout(() => socket.destroy(), 1000).unref();
    } else {
      socket.destroy();
    }
  });
  return server;
}
