// The owner API over loopback HTTP, the live event stream (SSE), the login link, file links and the UI.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Hub } from '../hub/hub';
import { isHubError } from '../../shared/errors';
import { OWNER_API_PREFIX, OWNER_EVENTS_PATH, OWNER_LOGIN_PATH, OWNER_LOGOUT_PATH, OWNER_SESSION_PATH } from '../../shared/owner-api';
import { BodyTooLarge, isBadTarget, isLoopbackHost, isLoopbackOrigin, parseTarget, readBody, sendBadRequest, sendInternalError, sendJson, type RequestTarget } from '../http-util';
import { LIMITS } from '../../shared/limits';
import { runOwnerAction } from './actions';
import { createLoginToken, endSession, exchangeLoginToken, isValidSession } from '../hub/owner-sessions';
import { serveFileLink } from './files-door';

export interface OwnerDoor {
  /** Answers one request (target: req.url as parseTarget read it, when the caller parsed it already). */
  handle(req: IncomingMessage, res: ServerResponse, target?: RequestTarget): void;
  /** A fresh one-time login link for the browser UI. */
  loginLink(): string;
  close(): void;
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.woff2': 'font/woff2',
};

const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

export function createOwnerDoor(opts: { hub: Hub; cliToken: string; uiDir?: string }): OwnerDoor {
  const { hub, cliToken } = opts;
  const uiDir = opts.uiDir ?? path.resolve(__dirname, 'renderer');
  const streams = new Set<ServerResponse>();

  const unsubscribe = hub.bus.subscribe((item) => {
    if (streams.size === 0) return;
    const chunk = `data: ${JSON.stringify(item)}\n\n`;
    for (const s of streams) if (s.writable) s.write(chunk);
  });
  const heartbeat = setInterval(() => {
    for (const s of streams) if (s.writable) s.write(': keep-alive\n\n');
  }, 15_000);
  heartbeat.unref();

  /** The bearer token of the Authorization header, if any. */
  function bearerOf(req: IncomingMessage): string | undefined {
    const auth = req.headers.authorization;
    if (!auth?.startsWith('Bearer ')) return undefined;
    const token = auth.slice(7).trim();
    return token || undefined;
  }

  /**
   * How the caller proves to be the owner: the CLI's bearer token (runtime.json), or a session token from the login
   * exchange, sent as `Authorization: Bearer`. Never a cookie: browsers send cookies to every port of 127.0.0.1.
   */
  function ownerAuth(req: IncomingMessage): 'cli' | 'session' | undefined {
    const token = bearerOf(req);
    if (!token) return undefined;
    if (safeEqual(token, cliToken)) return 'cli';
    if (isValidSession(hub, token)) return 'session';
    return undefined;
  }

  /**
   * The hub's own origin only: http://127.0.0.1:PORT or http://localhost:PORT for this hub's port. Another port of
   * the same computer is another web site (its pages must not drive the owner API).
   */
  function isOwnOrigin(origin: string): boolean {
    const port = /:(\d+)$/.exec(hub.baseUrl)?.[1];
    return !!port && (origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`);
  }

  const UNAUTHORIZED_STEP = 'Open the login link printed by `perch serve` (or run `perch owner login-link`).';

  function refuse(res: ServerResponse, status: number, code: string, message: string, next_step: string) {
    sendJson(res, status, { ok: false, error: { code, message, next_step } });
  }

  /** decodedPath: the request path, percent-decoded by parseTarget (no NUL in it). */
  function serveStatic(req: IncomingMessage, res: ServerResponse, decodedPath: string) {
    let rel = decodedPath;
    if (rel === '/' || !path.extname(rel)) rel = '/index.html';
    const file = path.resolve(uiDir, `.${rel}`);
    if (!file.startsWith(uiDir + path.sep)) return refuse(res, 404, 'not_found', 'Not found.', 'Open /.');
    fs.readFile(file, (err, data) => {
      try {
        sendStatic(err, data);
      } catch (e) {
        sendInternalError(res, e, `static ${rel}`);
      }
    });
    function sendStatic(err: NodeJS.ErrnoException | null, data: Buffer) {
      if (res.destroyed) return;
      if (err) {
        if (rel === '/index.html') {
          res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' });
          return res.end('The Perch UI is not built. Run `npm run build` and reload.');
        }
        return refuse(res, 404, 'not_found', `No file ${rel}.`, 'Open /.');
      }
      res.writeHead(200, {
        'Content-Type': MIME[path.extname(file)] ?? 'application/octet-stream',
        'Content-Security-Policy': CSP,
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
        'Cache-Control': rel === '/index.html' ? 'no-cache' : 'public, max-age=31536000, immutable',
      });
      res.end(req.method === 'HEAD' ? undefined : data);
    }
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, action: string) {
    if (req.method !== 'POST') return refuse(res, 405, 'method_not_allowed', 'Owner actions are POST requests with a JSON body.', 'POST JSON to this URL.');
    if (!ownerAuth(req)) return refuse(res, 401, 'unauthorized', 'The owner session is missing or expired.', UNAUTHORIZED_STEP);
    let input: unknown = {};
    try {
      const buf = await readBody(req, LIMITS.maxBodyBytes);
      input = buf.length ? JSON.parse(buf.toString('utf8')) : {};
    } catch (err) {
      if (err instanceof BodyTooLarge) return refuse(res, 413, 'too_large', `The body is over ${err.limit} bytes.`, 'Send less.');
      return refuse(res, 400, 'invalid_argument', 'The body is not valid JSON.', 'Send a JSON object.');
    }
    try {
      const value = await runOwnerAction(hub, action, input);
      sendJson(res, 200, { ok: true, value });
    } catch (err) {
      if (isHubError(err)) {
        const status = err.code === 'storage_full' ? 507 : err.code === 'not_found' ? 404 : err.code === 'forbidden' ? 403 : err.code === 'invalid_argument' || err.code === 'too_large' ? 400 : err.code === 'rate_limited' ? 429 : 409;
        return sendJson(res, status, { ok: false, error: err.toBody() });
      }
      process.stderr.write(`perch: owner action ${action} failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      refuse(res, 500, 'internal', 'The hub failed on this action; nothing was changed.', 'Retry; see the hub log.');
    }
  }

  function handleEvents(req: IncomingMessage, res: ServerResponse) {
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, 'method_not_allowed', 'The event stream is a GET request.', 'GET this URL with the owner session as bearer.');
    if (!ownerAuth(req)) return refuse(res, 401, 'unauthorized', 'The owner session is missing or expired.', UNAUTHORIZED_STEP);
    const head = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' };
    // HEAD has no body, so it can never carry an event: answer the head alone (a stream would never flush).
    if (req.method === 'HEAD') return void res.writeHead(200, head).end();
    res.writeHead(200, { ...head, Connection: 'keep-alive' });
    res.write(`retry: 1000\ndata: ${JSON.stringify({ kind: 'hub', value: { connected: true, at: hub.now(), storage: hub.storage } })}\n\n`);
    streams.add(res);
    res.on('error', () => streams.delete(res));
    res.on('close', () => streams.delete(res));
  }

  /** POST {token}: spends a one-time login token and answers the session token the page keeps in its own storage. */
  async function handleSession(req: IncomingMessage, res: ServerResponse) {
    if (req.method !== 'POST') return refuse(res, 405, 'method_not_allowed', 'The login exchange is a POST with {"token"}.', 'Open the login link in the browser.');
    let token: unknown;
    try {
      const buf = await readBody(req, 4096);
      token = (JSON.parse(buf.toString('utf8')) as { token?: unknown } | null)?.token;
    } catch (err) {
      if (err instanceof BodyTooLarge) return refuse(res, 413, 'too_large', `The body is over ${err.limit} bytes.`, 'Send {"token": "…"}.');
      return refuse(res, 400, 'invalid_argument', 'The body is not valid JSON.', 'Send {"token": "…"}.');
    }
    if (typeof token !== 'string' || !token || token.length > 256) return refuse(res, 400, 'invalid_argument', 'token must be the one-time token of a login link.', 'Send {"token": "…"}.');
    const session = exchangeLoginToken(hub, token);
    if (!session) return refuse(res, 401, 'unauthorized', 'This login link was used already or has expired.', 'Run `perch owner login-link` for a new one.');
    sendJson(res, 200, { ok: true, value: session }, { 'Cache-Control': 'no-store' });
  }

  /** POST with the session as bearer: ends it (the CLI's token is not a session; nothing to end). */
  function handleLogout(req: IncomingMessage, res: ServerResponse) {
    if (req.method !== 'POST') return refuse(res, 405, 'method_not_allowed', 'Logout is a POST request.', 'POST to this URL with the session as bearer.');
    const token = bearerOf(req);
    const ended = token ? endSession(hub, token) : false;
    sendJson(res, 200, { ok: true, value: { ended } });
  }

  /** The login link's page is the UI itself: it reads the one-time token from the fragment and exchanges it. */
  function loginUrl(): string {
    return `${hub.baseUrl}${OWNER_LOGIN_PATH}#token=${createLoginToken(hub)}`;
  }

  return {
    handle(req, res, parsed) {
      if (!isLoopbackHost(req.headers.host)) return refuse(res, 403, 'forbidden', 'The Host header must name this computer.', 'Open http://127.0.0.1:PORT/.');
      const origin = req.headers.origin;
      if (origin !== undefined && !isLoopbackOrigin(origin)) return refuse(res, 403, 'forbidden', `Requests from origin ${origin} are refused.`, 'Use the Perch UI.');
      const url = parsed ?? parseTarget(req.url);
      if (isBadTarget(url)) return sendBadRequest(res, url.error);
      const p = url.pathname;
      if (p.startsWith(OWNER_API_PREFIX) && origin !== undefined && !isOwnOrigin(origin)) {
        return refuse(res, 403, 'forbidden', `The owner API answers only pages of this hub (${hub.baseUrl}), not ${origin}.`, `Open ${hub.baseUrl}/ in the browser.`);
      }
      if (p === OWNER_EVENTS_PATH) return handleEvents(req, res);
      if (p === OWNER_SESSION_PATH) {
        handleSession(req, res).catch((err: unknown) => sendInternalError(res, err, 'owner login exchange'));
        return;
      }
      if (p === OWNER_LOGOUT_PATH) return handleLogout(req, res);
      if (p === '/api/owner/login-link' && req.method === 'POST') {
        if (ownerAuth(req) !== 'cli') return refuse(res, 401, 'unauthorized', 'Only the local perch command can make login links.', 'Run `perch owner login-link`.');
        return sendJson(res, 200, { ok: true, value: { url: loginUrl() } });
      }
      if (p.startsWith(OWNER_API_PREFIX)) {
        handleApi(req, res, p.slice(OWNER_API_PREFIX.length)).catch((err: unknown) => sendInternalError(res, err, `owner ${req.method} ${p}`));
        return;
      }
      if (p.startsWith('/files/')) return serveFileLink(hub, req, res, url.path.slice('/files/'.length));
      if (req.method === 'GET' || req.method === 'HEAD') return serveStatic(req, res, url.path);
      refuse(res, 404, 'not_found', `Nothing at ${p}.`, 'MCP clients use POST /mcp.');
    },
    loginLink() {
      return loginUrl();
    },
    close() {
      unsubscribe();
      clearInterval(heartbeat);
      for (const s of streams) s.end();
      streams.clear();
    },
  };
}
