// The owner API over loopback HTTP, the live event stream (SSE), the login link, file links and the UI.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Hub } from '../hub/hub';
import { isHubError } from '../../shared/errors';
import { OWNER_API_PREFIX, OWNER_COOKIE, OWNER_CSRF_HEADER, OWNER_EVENTS_PATH, OWNER_LOGIN_PATH } from '../../shared/owner-api';
import { BodyTooLarge, isLoopbackHost, isLoopbackOrigin, readBody, sendJson } from '../http-util';
import { LIMITS } from '../../shared/limits';
import { runOwnerAction } from './actions';
import { createLoginToken, endSession, exchangeLoginToken, isValidSession } from './sessions';
import { serveFileLink } from './files-door';

export interface OwnerDoor {
  handles(url: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse): void;
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
  '.woff2': 'font/woff2',
};

const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

function cookieValue(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return decodeURIComponent(part.slice(i + 1).trim());
  }
  return undefined;
}

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
    for (const s of streams) s.write(chunk);
  });
  const heartbeat = setInterval(() => {
    for (const s of streams) s.write(': keep-alive\n\n');
  }, 15_000);
  heartbeat.unref();

  /** How the caller proves to be the owner: the CLI bearer token, or the session cookie. */
  function ownerAuth(req: IncomingMessage): 'bearer' | 'cookie' | undefined {
    const auth = req.headers.authorization;
    if (auth?.startsWith('Bearer ') && safeEqual(auth.slice(7).trim(), cliToken)) return 'bearer';
    const c = cookieValue(req, OWNER_COOKIE);
    if (c && isValidSession(hub, c)) return 'cookie';
    return undefined;
  }

  function refuse(res: ServerResponse, status: number, code: string, message: string, next_step: string) {
    sendJson(res, status, { ok: false, error: { code, message, next_step } });
  }

  function serveStatic(req: IncomingMessage, res: ServerResponse, pathname: string) {
    let rel = decodeURIComponent(pathname);
    if (rel === '/' || !path.extname(rel)) rel = '/index.html';
    const file = path.resolve(uiDir, `.${rel}`);
    if (!file.startsWith(uiDir + path.sep)) return refuse(res, 404, 'not_found', 'Not found.', 'Open /.');
    fs.readFile(file, (err, data) => {
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
    });
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, action: string) {
    if (req.method !== 'POST') return refuse(res, 405, 'method_not_allowed', 'Owner actions are POST requests with a JSON body.', 'POST JSON to this URL.');
    const how = ownerAuth(req);
    if (!how) return refuse(res, 401, 'unauthorized', 'The owner session is missing or expired.', 'Open the login link printed by `perch serve` (or run `perch owner login-link`).');
    if (how === 'cookie' && req.headers[OWNER_CSRF_HEADER] !== '1') {
      return refuse(res, 403, 'forbidden', `Owner requests from the browser must carry the ${OWNER_CSRF_HEADER} header.`, 'Use the Perch UI.');
    }
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
    if (!ownerAuth(req)) return refuse(res, 401, 'unauthorized', 'The owner session is missing or expired.', 'Open the login link printed by `perch serve`.');
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    res.write(`retry: 1000\ndata: ${JSON.stringify({ kind: 'hub', value: { connected: true, at: hub.now(), storage: hub.storage } })}\n\n`);
    streams.add(res);
    req.on('close', () => streams.delete(res));
  }

  function handleLogin(req: IncomingMessage, res: ServerResponse, url: URL) {
    const token = url.searchParams.get('token') ?? '';
    const session = token ? exchangeLoginToken(hub, token) : undefined;
    if (!session) {
      res.writeHead(403, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': CSP });
      return res.end('<!doctype html><title>Perch</title><p>This login link was used already or has expired. Run <code>perch owner login-link</code> for a new one.</p>');
    }
    res.writeHead(303, {
      Location: '/',
      'Set-Cookie': `${OWNER_COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${30 * 24 * 3600}`,
      'Cache-Control': 'no-store',
    });
    res.end();
  }

  return {
    handles: () => true,
    handle(req, res) {
      if (!isLoopbackHost(req.headers.host)) return refuse(res, 403, 'forbidden', 'The Host header must name this computer.', 'Open http://127.0.0.1:PORT/.');
      const origin = req.headers.origin;
      if (origin !== undefined && !isLoopbackOrigin(origin)) return refuse(res, 403, 'forbidden', `Requests from origin ${origin} are refused.`, 'Use the Perch UI.');
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const p = url.pathname;
      if (p === OWNER_EVENTS_PATH) return handleEvents(req, res);
      if (p === '/api/owner/logout' && req.method === 'POST') {
        const c = cookieValue(req, OWNER_COOKIE);
        if (c) endSession(hub, c);
        return sendJson(res, 200, { ok: true, value: {} }, { 'Set-Cookie': `${OWNER_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0` });
      }
      if (p === '/api/owner/login-link' && req.method === 'POST') {
        if (ownerAuth(req) !== 'bearer') return refuse(res, 401, 'unauthorized', 'Only the local perch command can make login links.', 'Run `perch owner login-link`.');
        return sendJson(res, 200, { ok: true, value: { url: `${hub.baseUrl}${OWNER_LOGIN_PATH}?token=${createLoginToken(hub)}` } });
      }
      if (p.startsWith(OWNER_API_PREFIX)) {
        void handleApi(req, res, p.slice(OWNER_API_PREFIX.length));
        return;
      }
      if (p === OWNER_LOGIN_PATH) return handleLogin(req, res, url);
      if (p.startsWith('/files/')) return serveFileLink(hub, req, res, p.slice('/files/'.length));
      if (req.method === 'GET' || req.method === 'HEAD') return serveStatic(req, res, p);
      refuse(res, 404, 'not_found', `Nothing at ${p}.`, 'MCP clients use POST /mcp.');
    },
    loginLink() {
      return `${hub.baseUrl}${OWNER_LOGIN_PATH}?token=${createLoginToken(hub)}`;
    },
    close() {
      unsubscribe();
      clearInterval(heartbeat);
      for (const s of streams) s.end();
      streams.clear();
    },
  };
}
