// The owner API over loopback HTTP, the live event stream (SSE), the login link, file links and the UI.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PerchHub } from '../hub/services';
import { isHubError } from '../../shared/errors';
import {
  OWNER_API_PREFIX,
  OWNER_EVENTS_PATH,
  OWNER_LOGIN_PATH,
  OWNER_LOGOUT_PATH,
  OWNER_SESSION_PATH,
  ownerBodyLimit,
} from '../../shared/api/owner-api';
import { OWNER_EXPORT_PATH } from '../../shared/api/owner-paths';
import { serveExport } from './export-door';
import {
  bearerOf,
  BodyTooLarge,
  isBadTarget,
  parseTarget,
  readBody,
  sendBadRequest,
  sendInternalError,
  sendJson,
  statusOfCode,
  type RequestTarget,
} from '../http-util';
import { LIMITS } from '../../shared/limits';
import { runOwnerAction } from './actions';
import { createLoginToken, endOwnerLogin, exchangeLoginToken, isValidOwnerLogin } from '../hub/identity/owner-logins';
import { serveFileLink } from './files-door';
import { PUSH_DOOR_ROUTES } from './push-door';
import { DEVICE_API_PREFIX } from '../../shared/features/devices';
import type { LiveItem } from '../../shared/api/event-log';
import type { EventType } from '../../shared/types';
import {
  cardAddressedToOwner,
  deviceScopedAnswer,
  deviceScopeRefusal,
  handoffToOwner,
  isDeviceLive,
  type DeviceRow,
} from '../hub/phone/devices';
import { checkFront, createDeviceDoor, PAIR_THIS_DEVICE_STEP, sendRefusal, type DeviceDoorLimits, type DeviceRoute } from './device-door';

/**
 * Further device routes (the push door: /api/device/push/*, /api/device/action), dispatched by the device door
 * (device-door.ts). One entry each: [exact path, or a prefix ending in '/', handler].
 */
const DEVICE_ROUTES: ReadonlyArray<[string, DeviceRoute]> = [...PUSH_DOOR_ROUTES];

/**
 * What a device of scope approvals gets of the live stream, by allow-list (a kind of item, event type or hub status
 * added later is left out until it is added here): requests, handoffs to the owner, cards addressed to the owner
 * (and their responses), and of the hub's status only what its own calls tell (connected, storage). Not progress,
 * wake runs, waiting, read receipts, budget pauses or anything else. Answers the item to send, or undefined.
 */
const APPROVALS_HUB_KEYS: readonly string[] = ['connected', 'at', 'storage'];
const APPROVALS_EVENT_TYPES: ReadonlySet<EventType> = new Set<EventType>([
  'request.created',
  'request.decided',
  'request.expired',
  'request.cancelled',
  'handoff.created',
  'handoff.returned',
  'message.created',
  'card.response',
]);

function approvalsItem(hub: PerchHub, item: LiveItem): LiveItem | undefined {
  if (item.kind === 'hub') {
    const value = Object.fromEntries(Object.entries(item.value).filter(([k]) => APPROVALS_HUB_KEYS.includes(k)));
    return Object.keys(value).length ? { kind: 'hub', value } : undefined;
  }
  if (item.kind !== 'event') return undefined;
  const ev = item.value.event;
  if (!APPROVALS_EVENT_TYPES.has(ev.type)) return undefined;
  if (ev.type.startsWith('request.')) return item;
  if (ev.type === 'handoff.created' || ev.type === 'handoff.returned') return handoffToOwner(hub, ev.data.handoff_id) ? item : undefined;
  if (ev.type === 'message.created') {
    if (ev.request) return item; // the message that carries a request
    return ev.message?.kind === 'card' && cardAddressedToOwner(hub, ev.message.msg_id) ? item : undefined;
  }
  if (ev.type === 'card.response') return cardAddressedToOwner(hub, ev.data.msg_id) ? item : undefined;
  return undefined;
}

/** files.send with more than a file may hold: the body over the door's limit, or a file over LIMITS.maxFileBytes decoded. */
const FILE_TOO_LARGE = `The file is over the ${LIMITS.maxFileBytes / 1048576} MiB limit of a file in Perch; nothing was stored.`;
const FILE_TOO_LARGE_STEP = `Send a smaller file (compress it), or split it into parts of at most ${LIMITS.maxFileBytes / 1048576} MiB each and send each part.`;

/**
 * The HTTP status of an owner action's refusal: its code's (statusOfCode), but a file over the file limit is content
 * too large (413), as a body over the door's limit is, wherever the size was found (door or hub).
 */
function statusOfRefusal(action: string, err: { code: string; details?: Record<string, unknown> }): number {
  if (action === 'files.send' && err.code === 'too_large' && err.details?.limit === LIMITS.maxFileBytes) return 413;
  return statusOfCode(err.code);
}

/** What an owner-API call's device audit line names as its target. */
function targetOf(input: unknown): string | null {
  if (!input || typeof input !== 'object') return null;
  const o = input as Record<string, unknown>;
  for (const k of ['request_id', 'msg_id', 'conv_id', 'handoff_id', 'agent', 'device_id', 'pairing_id'])
    if (typeof o[k] === 'string') return (o[k] as string).slice(0, 200);
  return null;
}

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

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

export function createOwnerDoor(opts: { hub: PerchHub; cliToken: string; uiDir?: string; deviceLimits?: DeviceDoorLimits }): OwnerDoor {
  const { hub, cliToken } = opts;
  const uiDir = opts.uiDir ?? path.resolve(__dirname, 'renderer');
  /** Open event streams; a device's stream has its id and, for scope approvals, a filter. */
  const streams = new Map<ServerResponse, { deviceId: string; approvalsOnly: boolean } | null>();
  const devices = createDeviceDoor({ hub, extraRoutes: DEVICE_ROUTES, limits: opts.deviceLimits });

  const unsubscribe = hub.bus.subscribe((item) => {
    if (streams.size === 0) return;
    const chunk = `data: ${JSON.stringify(item)}\n\n`;
    let approvalsChunk: string | null | undefined; // what approvals devices get of it (null: nothing), made once
    for (const [s, dev] of streams) {
      if (!s.writable) continue;
      if (dev) {
        if (!isDeviceLive(hub, dev.deviceId)) {
          // revoked: its stream ends at once
          streams.delete(s);
          s.end();
          continue;
        }
        if (dev.approvalsOnly) {
          if (approvalsChunk === undefined) {
            const got = approvalsItem(hub, item);
            approvalsChunk = got === undefined ? null : got === item ? chunk : `data: ${JSON.stringify(got)}\n\n`;
          }
          if (approvalsChunk !== null) s.write(approvalsChunk);
          continue;
        }
      }
      s.write(chunk);
    }
  });
  const uncount = hub.bus.countViewers(() => streams.size); // the live fleet is built only while someone watches (hub/control/fleet-live.ts)
  const heartbeat = setInterval(() => {
    for (const [s, dev] of streams) {
      if (dev && !isDeviceLive(hub, dev.deviceId)) {
        streams.delete(s);
        s.end();
      } else if (s.writable) s.write(': keep-alive\n\n');
    }
  }, 15_000);
  heartbeat.unref();

  /**
   * How the caller proves to be the owner: the CLI's bearer token (runtime.json), or a session token from the login
   * exchange, sent as `Authorization: Bearer`. Never a cookie: browsers send cookies to every port of 127.0.0.1.
   */
  function ownerAuth(req: IncomingMessage): 'cli' | 'session' | undefined {
    const token = bearerOf(req);
    if (!token) return undefined;
    if (safeEqual(token, cliToken)) return 'cli';
    if (isValidOwnerLogin(hub, token)) return 'session';
    return undefined;
  }

  /**
   * The hub's own origin only: http://127.0.0.1:PORT or http://localhost:PORT for this hub's port. Another port of
   * the same computer is another web site (its pages must not drive the owner API).
   */
  function isOwnOrigin(origin: string): boolean {
    const port = /:(\d+)$/.exec(hub.doors.baseUrl)?.[1];
    return !!port && (origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`);
  }

  const UNAUTHORIZED_STEP = 'Open the login link printed by `perch serve` (or run `perch owner login-link`).';

  function refuse(res: ServerResponse, status: number, code: string, message: string, next_step: string) {
    sendJson(res, status, { ok: false, error: { code, message, next_step } });
  }

  /** decodedPath: the request path, percent-decoded by parseTarget (no NUL in it). */
  function serveStatic(req: IncomingMessage, res: ServerResponse, decodedPath: string) {
    let rel = decodedPath;
    // The request page /r/<request_id> (a notification opens it) is the UI; its relative links (./assets/…,
    // ./favicon.svg) resolve under /r/, so files there are served from the UI's root.
    if (rel.startsWith('/r/') && path.extname(rel)) rel = rel.slice(2);
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
        // Only the bundler's hashed files (/assets/*) never change under their name; the page, the service worker, the
        // manifest and its icons keep their names across versions, so browsers revalidate them.
        'Cache-Control': rel.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
        ...(rel === '/sw.js' ? { 'Service-Worker-Allowed': '/' } : {}),
      });
      res.end(req.method === 'HEAD' ? undefined : data);
    }
  }

  /**
   * Who calls the owner API: a paired device (its `pd_` bearer, on loopback or through the front), or the owner
   * (CLI token or session, on loopback only). A remote request gets no trust from loopback: without a device
   * credential it is 401. Answers the refusal itself and returns undefined when the caller may not go on.
   */
  function callerOf(req: IncomingMessage, res: ServerResponse, remote: boolean, action: string): { device: DeviceRow | null } | undefined {
    const dev = devices.deviceOf(req, action);
    if (dev && 'device' in dev) return { device: dev.device };
    if (dev) return void sendRefusal(res, dev.refusal, dev.retryAfter);
    if (remote)
      return void refuse(
        res,
        401,
        'unauthorized',
        "Through the HTTPS front only a paired device's credential counts.",
        PAIR_THIS_DEVICE_STEP,
      );
    if (!ownerAuth(req)) return void refuse(res, 401, 'unauthorized', 'The owner session is missing or expired.', UNAUTHORIZED_STEP);
    return { device: null };
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, action: string, remote: boolean) {
    if (req.method !== 'POST')
      return refuse(res, 405, 'method_not_allowed', 'Owner actions are POST requests with a JSON body.', 'POST JSON to this URL.');
    const caller = callerOf(req, res, remote, action);
    if (!caller) return;
    const device = caller.device;
    const audit = (target: string | null, outcome: string) => {
      if (device) devices.audit(device, action.slice(0, 100), target, outcome);
    };
    let input: unknown = {};
    try {
      // Checked only once the caller is known: a file's base64 (files.send) may be larger than other bodies.
      const buf = await readBody(req, ownerBodyLimit(action));
      input = buf.length ? JSON.parse(buf.toString('utf8')) : {};
    } catch (err) {
      if (err instanceof BodyTooLarge) {
        audit(null, 'refused:too_large');
        if (action === 'files.send') return refuse(res, 413, 'too_large', FILE_TOO_LARGE, FILE_TOO_LARGE_STEP);
        return refuse(res, 413, 'too_large', `The body is over ${err.limit} bytes.`, 'Send less (a file goes through files.send).');
      }
      audit(null, 'refused:invalid_argument');
      return refuse(res, 400, 'invalid_argument', 'The body is not valid JSON.', 'Send a JSON object.');
    }
    const target = targetOf(input);
    try {
      if (device) {
        const refusal = deviceScopeRefusal(hub, device, action, input);
        if (refusal) throw refusal;
      }
      const answer = await runOwnerAction(hub, action, input, device ? { device: { id: device.id, name: device.name } } : {});
      const value = device ? deviceScopedAnswer(hub, device, action, answer) : answer;
      audit(target, 'ok');
      sendJson(res, 200, { ok: true, value });
    } catch (err) {
      if (isHubError(err)) {
        audit(target, `refused:${err.code}`);
        return sendJson(res, statusOfRefusal(action, err), { ok: false, error: err.toBody() });
      }
      audit(target, 'refused:internal');
      sendInternalError(res, err, `owner action ${action.slice(0, 100)}`);
    }
  }

  function handleEvents(req: IncomingMessage, res: ServerResponse, remote: boolean) {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return refuse(res, 405, 'method_not_allowed', 'The event stream is a GET request.', 'GET this URL with the owner session as bearer.');
    const caller = callerOf(req, res, remote, 'events');
    if (!caller) return;
    if (caller.device) devices.audit(caller.device, 'events', null, 'ok');
    const head = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' };
    // HEAD has no body, so it can never carry an event: answer the head alone (a stream would never flush).
    if (req.method === 'HEAD') return void res.writeHead(200, head).end();
    res.writeHead(200, { ...head, Connection: 'keep-alive' });
    res.write(`retry: 1000\ndata: ${JSON.stringify({ kind: 'hub', value: { connected: true, at: hub.now(), storage: hub.storage } })}\n\n`);
    streams.set(res, caller.device ? { deviceId: caller.device.id, approvalsOnly: caller.device.scope !== 'full' } : null);
    res.on('error', () => streams.delete(res));
    res.on('close', () => streams.delete(res));
  }

  /** POST {token}: spends a one-time login token and answers the session token the page keeps in its own storage. */
  async function handleSession(req: IncomingMessage, res: ServerResponse) {
    if (req.method !== 'POST')
      return refuse(res, 405, 'method_not_allowed', 'The login exchange is a POST with {"token"}.', 'Open the login link in the browser.');
    let token: unknown;
    try {
      const buf = await readBody(req, 4096);
      token = (JSON.parse(buf.toString('utf8')) as { token?: unknown } | null)?.token;
    } catch (err) {
      if (err instanceof BodyTooLarge) return refuse(res, 413, 'too_large', `The body is over ${err.limit} bytes.`, 'Send {"token": "…"}.');
      return refuse(res, 400, 'invalid_argument', 'The body is not valid JSON.', 'Send {"token": "…"}.');
    }
    if (typeof token !== 'string' || !token || token.length > 256)
      return refuse(res, 400, 'invalid_argument', 'token must be the one-time token of a login link.', 'Send {"token": "…"}.');
    const session = exchangeLoginToken(hub, token);
    if (!session)
      return refuse(
        res,
        401,
        'unauthorized',
        'This login link was used already or has expired.',
        'Run `perch owner login-link` for a new one.',
      );
    sendJson(res, 200, { ok: true, value: session }, { 'Cache-Control': 'no-store' });
  }

  /** POST with the session as bearer: ends it (the CLI's token is not a session; nothing to end). */
  function handleLogout(req: IncomingMessage, res: ServerResponse) {
    if (req.method !== 'POST')
      return refuse(res, 405, 'method_not_allowed', 'Logout is a POST request.', 'POST to this URL with the session as bearer.');
    const token = bearerOf(req);
    const ended = token ? endOwnerLogin(hub, token) : false;
    sendJson(res, 200, { ok: true, value: { ended } });
  }

  /** The login link's page is the UI itself: it reads the one-time token from the fragment and exchanges it. */
  function loginUrl(): string {
    return `${hub.doors.baseUrl}${OWNER_LOGIN_PATH}#token=${createLoginToken(hub)}`;
  }

  return {
    handle(req, res, parsed) {
      // Host and Origin allow-list (loopback, or the public URL of the HTTPS front), Funnel refused (device-door.ts).
      const front = checkFront(hub, req);
      if (front.refusal) return sendRefusal(res, front.refusal);
      const { remote } = front;
      const origin = req.headers.origin;
      const url = parsed ?? parseTarget(req.url);
      if (isBadTarget(url)) return sendBadRequest(res, url.error);
      const p = url.pathname;
      if (
        (p.startsWith(OWNER_API_PREFIX) || p.startsWith(DEVICE_API_PREFIX)) &&
        origin !== undefined &&
        !isOwnOrigin(origin) &&
        origin !== front.publicOrigin
      ) {
        return refuse(
          res,
          403,
          'forbidden',
          `The owner API answers only pages of this hub (${hub.doors.baseUrl}), not ${origin}.`,
          `Open ${hub.doors.baseUrl}/ in the browser.`,
        );
      }
      if (p.startsWith(DEVICE_API_PREFIX)) return devices.handle(req, res, url);
      // Through the front: no login link, login exchange or session, and no file links (they are for the laptop's UI).
      if (
        remote &&
        (p === OWNER_SESSION_PATH ||
          p === OWNER_LOGOUT_PATH ||
          p === '/api/owner/login-link' ||
          p === OWNER_LOGIN_PATH ||
          p.startsWith('/files/'))
      ) {
        return refuse(
          res,
          403,
          'forbidden',
          `${p.startsWith('/files/') ? 'File links' : 'Logging in'} is only for this computer, not through the HTTPS front.`,
          p.startsWith('/files/') ? 'Open the file on the laptop.' : PAIR_THIS_DEVICE_STEP,
        );
      }
      if (p === OWNER_EVENTS_PATH) return handleEvents(req, res, remote);
      if (p === OWNER_SESSION_PATH) {
        handleSession(req, res).catch((err: unknown) => sendInternalError(res, err, 'owner login exchange'));
        return;
      }
      if (p === OWNER_LOGOUT_PATH) return handleLogout(req, res);
      if (p === '/api/owner/login-link' && req.method === 'POST') {
        if (ownerAuth(req) !== 'cli')
          return refuse(res, 401, 'unauthorized', 'Only the local perch command can make login links.', 'Run `perch owner login-link`.');
        return sendJson(res, 200, { ok: true, value: { url: loginUrl() } });
      }
      if (p === OWNER_EXPORT_PATH) {
        // The archive download (export-door.ts): the laptop's owner only, never a paired device.
        if (req.method !== 'POST')
          return refuse(res, 405, 'method_not_allowed', 'The export is a POST request with a JSON body.', 'POST {} to this URL.');
        if (remote || !ownerAuth(req))
          return refuse(res, 401, 'unauthorized', 'Only the owner on this computer can export.', UNAUTHORIZED_STEP);
        serveExport(hub, req, res).catch((err: unknown) => sendInternalError(res, err, 'owner archive export'));
        return;
      }
      if (p.startsWith(OWNER_API_PREFIX)) {
        handleApi(req, res, p.slice(OWNER_API_PREFIX.length), remote).catch((err: unknown) =>
          sendInternalError(res, err, `owner ${req.method} ${p}`),
        );
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
      uncount();
      clearInterval(heartbeat);
      for (const s of streams.keys()) s.end();
      streams.clear();
    },
  };
}
