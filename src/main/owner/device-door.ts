// Remote access through the owner's HTTPS front, and the device door (/api/device/*).
// The hub binds 127.0.0.1 only; `tailscale serve` (or another reverse proxy the owner trusts) forwards the
// phone's requests to it. A request is REMOTE when its Host is not a loopback host, its Origin is the public
// URL's, or it carries a front's headers (X-Forwarded-*, Forwarded, X-Real-IP, Tailscale-*): loopback gives it
// no trust, only a paired device's credential (`Authorization: Bearer pd_…`) counts, with its scope. Funnel
// (Tailscale-Funnel-Request: the public internet) is refused always. Every device call is audited (refusals of
// callers without a credential as tallies, hub/phone/devices.ts auditDevice); pairing claims, pairing waits and failed
// credential checks are rate-limited per caller (and per code or pairing), never in one bucket for everyone.
import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PerchHub } from '../hub/services';
import { HubError, isHubError, type ErrorCode } from '../../shared/errors';
import { DEVICE_ME_PATH, DEVICE_PAIR_CLAIM_PATH, DEVICE_PAIR_WAIT_PATH, type DeviceScope } from '../../shared/features/devices';
import {
  bearerOf,
  BodyTooLarge,
  isLoopbackHost,
  isLoopbackOrigin,
  readBody,
  sendInternalError,
  sendJson,
  statusOfCode,
  type RequestTarget,
} from '../http-util';
import { RateLimiter } from '../hub/core/rate-limit';
import {
  auditDevice,
  authenticateDevice,
  deviceAllowedActions,
  deviceView,
  DEVICE_TOKEN_PREFIX,
  publicUrl,
  touchDevice,
  vapidKeys,
  type DeviceRow,
} from '../hub/phone/devices';
import { claimPairing, waitPairing } from '../hub/phone/pairing';

/** Headers a front (reverse proxy, tailscale serve) adds: any of them makes a request remote. */
const FRONT_HEADERS = ['x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'forwarded', 'x-real-ip'];
const FUNNEL_HEADER = 'tailscale-funnel-request';

export const PAIR_THIS_DEVICE_STEP =
  'Pair this device: Settings → Phone on the laptop (or `perch device pair`), then open the link it shows on this device.';

/** The request came through a front: it carries a forwarding or Tailscale header. */
export function hasFrontHeaders(req: IncomingMessage): boolean {
  for (const name of Object.keys(req.headers)) {
    if (FRONT_HEADERS.includes(name) || name.startsWith('tailscale-')) return true;
  }
  return false;
}

export function isFunnelRequest(req: IncomingMessage): boolean {
  return req.headers[FUNNEL_HEADER] !== undefined;
}

export interface Refusal {
  status: number;
  code: ErrorCode | 'method_not_allowed';
  message: string;
  next_step: string;
}

export interface FrontCheck {
  /** The request came through the front (or names the public URL): it needs a device credential. */
  remote: boolean;
  /** The public URL's origin, when set and the request names a non-loopback Host or sends an Origin (else null: not read). */
  publicOrigin: string | null;
  refusal?: Refusal;
}

/** host[:port] of an origin URL, lower-cased, with the default port also given explicitly. */
function hostForms(origin: string): string[] {
  const u = new URL(origin);
  const host = u.host.toLowerCase();
  return u.port ? [host] : [host, `${host}:${u.protocol === 'https:' ? 443 : 80}`];
}

/**
 * Host and Origin allow-list, Funnel refusal, and whether the request is remote. Host: a loopback host (any
 * port, as before) or exactly the public URL's host; Origin (when sent): a loopback origin or exactly the public
 * URL's origin. Anything else is 403.
 */
export function checkFront(hub: PerchHub, req: IncomingMessage): FrontCheck {
  if (isFunnelRequest(req)) {
    return {
      remote: true,
      publicOrigin: null,
      refusal: {
        status: 403,
        code: 'forbidden',
        message: 'Requests from Tailscale Funnel (the public internet) are refused.',
        next_step: 'Use `tailscale serve` (your tailnet only), not `tailscale funnel`.',
      },
    };
  }
  const host = req.headers.host;
  const origin = req.headers.origin;
  const loopHost = isLoopbackHost(host);
  // The public URL (a settings read) matters only to a request that is not plainly local: a loopback Host without an
  // Origin (the laptop's page loads, its event stream, the CLI) needs no read of it.
  const pub = loopHost && origin === undefined ? null : publicUrl(hub);
  const pubHost = !!pub && typeof host === 'string' && hostForms(pub).includes(host.toLowerCase());
  if (!loopHost && !pubHost) {
    return {
      remote: true,
      publicOrigin: pub,
      refusal: {
        status: 403,
        code: 'forbidden',
        message: 'The Host header must name this computer (or the public URL set in Settings → Phone).',
        next_step: 'Open http://127.0.0.1:PORT/ on this computer, or the public URL through your HTTPS front.',
      },
    };
  }
  const pubOrigin = origin !== undefined && !!pub && origin.toLowerCase() === pub.toLowerCase();
  if (origin !== undefined && !pubOrigin && !isLoopbackOrigin(origin)) {
    return {
      remote: true,
      publicOrigin: pub,
      refusal: {
        status: 403,
        code: 'forbidden',
        message: `Requests from origin ${origin.slice(0, 200)} are refused.`,
        next_step: 'Use the Perch UI.',
      },
    };
  }
  return { remote: !loopHost || pubOrigin || hasFrontHeaders(req), publicOrigin: pub };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  sendJson(res, status, body, { 'Cache-Control': 'no-store', ...headers });
}

export function sendRefusal(res: ServerResponse, r: Refusal, retryAfterSecs?: number) {
  send(
    res,
    r.status,
    { ok: false, error: { code: r.code, message: r.message, next_step: r.next_step } },
    retryAfterSecs ? { 'Retry-After': String(retryAfterSecs) } : {},
  );
}

function sendError(res: ServerResponse, err: HubError) {
  send(res, statusOfCode(err.code), { ok: false, error: err.toBody() });
}

/** A JSON object body (≤ 4 KiB on the device door), or a HubError. */
async function readJsonObject(req: IncomingMessage, limit = 4096): Promise<Record<string, unknown>> {
  let buf: Buffer;
  try {
    buf = await readBody(req, limit);
  } catch (err) {
    if (err instanceof BodyTooLarge) throw new HubError('too_large', `The body is over ${err.limit} bytes.`, 'Send a small JSON object.');
    throw new HubError('invalid_argument', 'The body did not arrive whole (the connection ended or broke).', 'Send the whole JSON object.');
  }
  let v: unknown;
  try {
    v = buf.length ? JSON.parse(buf.toString('utf8')) : {};
  } catch {
    throw new HubError('invalid_argument', 'The body is not valid JSON.', 'Send a JSON object.');
  }
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw new HubError('invalid_argument', 'The body must be a JSON object.', 'Send a JSON object.');
  return v as Record<string, unknown>;
}

function onlyKeys(o: Record<string, unknown>, keys: string[], what: string): void {
  const extra = Object.keys(o).filter((k) => !keys.includes(k));
  if (extra.length)
    throw new HubError(
      'invalid_argument',
      `Unknown field(s) for ${what}: ${extra.slice(0, 5).join(', ').slice(0, 200)}.`,
      `Send only ${keys.join(', ')}.`,
    );
}

/** What the push door (push-door.ts, and any later device route) gets to work with. */
export interface DeviceDoorTools {
  hub: PerchHub;
  /** The paired device behind the request's bearer (rate-limited, audited when refused), or undefined after answering 401/429. */
  requireDevice(req: IncomingMessage, res: ServerResponse, action: string): DeviceRow | undefined;
  /**
   * A notification token (action or read token) from this request's caller failed to verify: the milliseconds to wait
   * (0: answer the usual refusal). Per caller, like failed credentials, so a stranger's junk never makes another
   * caller's bad token 429; valid tokens are never counted here.
   */
  failedToken(req: IncomingMessage): number;
  /** A read of a notice by this device (read tokens): the milliseconds to wait, or 0. */
  noticeRead(deviceId: string): number;
  /** Writes one audit line for a device call. */
  audit(device: DeviceRow | null, action: string, target: string | null, outcome: string): void;
  readJsonObject(req: IncomingMessage, limit?: number): Promise<Record<string, unknown>>;
  /** Answers a HubError with its status (410 expired, 409 conflict, …) and the error body. */
  sendError(res: ServerResponse, err: HubError): void;
  send(res: ServerResponse, status: number, body: unknown): void;
}

export type DeviceRoute = (tools: DeviceDoorTools, req: IncomingMessage, res: ServerResponse, url: RequestTarget) => void | Promise<void>;

export interface DeviceDoor {
  /** /api/device/* (after the front's checks). */
  handle(req: IncomingMessage, res: ServerResponse, url: RequestTarget): void;
  /**
   * The device behind a `pd_` bearer for an owner-API call (rate-limited), or the refusal to answer. undefined:
   * the request carries no device credential.
   */
  deviceOf(req: IncomingMessage, action: string): { device: DeviceRow } | { refusal: Refusal; retryAfter?: number } | undefined;
  audit(device: DeviceRow | null, action: string, target: string | null, outcome: string): void;
  tools: DeviceDoorTools;
}

/** Rate limits of the device door (per minute). */
export interface DeviceDoorLimits {
  /** Pairing claims per caller, and per pairing code (default 10 each). */
  claimsPerMinute?: number;
  /** Failed device-credential checks per caller (default 20). */
  failuresPerMinute?: number;
}

/** Most keys (callers, codes, pairings) a limit of the device door remembers at once. */
const MAX_LIMIT_KEYS = 10_000;

/**
 * Who is calling, for the per-caller limits: the address the front saw (the last X-Forwarded-For entry: the one the
 * front itself added; `tailscale serve` sets it to the phone's tailnet address), else X-Real-IP, else the socket's
 * peer (a loopback caller). Not a credential: it only keeps one caller's bursts from using up another's allowance.
 */
export function callerKey(req: IncomingMessage): string {
  const xff = req.headers['x-forwarded-for'];
  const last = (Array.isArray(xff) ? xff.join(',') : (xff ?? ''))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .pop();
  const real = req.headers['x-real-ip'];
  const who = last ?? (typeof real === 'string' && real.trim() ? real.trim() : (req.socket.remoteAddress ?? '?'));
  return who.slice(0, 100).toLowerCase();
}

export function createDeviceDoor(opts: {
  hub: PerchHub;
  extraRoutes?: ReadonlyArray<[string, DeviceRoute]>;
  limits?: DeviceDoorLimits;
}): DeviceDoor {
  const { hub } = opts;
  const perMin = (n: number) => new RateLimiter(n / 60, n, MAX_LIMIT_KEYS);
  // Every limit is per caller (callerKey) or per thing, never one bucket for everyone: a stranger who uses up his own
  // allowance (wrong codes, junk pairings, forged credentials) does not stop the owner's phone.
  const claimsPerCaller = perMin(opts.limits?.claimsPerMinute ?? 10); // pairing claims: 10 a minute per caller
  const claimsPerCode = perMin(opts.limits?.claimsPerMinute ?? 10); // … and 10 a minute per pairing code
  const failures = perMin(opts.limits?.failuresPerMinute ?? 20); // failed device-credential checks: 20 a minute per caller
  const waitsPerCaller = new RateLimiter(1, 60, MAX_LIMIT_KEYS); // pairing waits (long-polls): 60 a minute per caller
  const waitsPerPairing = new RateLimiter(1, 60, MAX_LIMIT_KEYS); // … and per pairing
  const calls = new RateLimiter(5, 60); // calls per device: 5 a second, bursts of 60
  // Notification tokens (push-door.ts): ones that fail to verify, 20 a minute per caller (no hub-wide bucket: it would
  // turn another caller's mangled token into a 429); notice reads per device as calls.
  const tokenFailures = perMin(opts.limits?.failuresPerMinute ?? 20);
  const noticeReads = new RateLimiter(5, 60, MAX_LIMIT_KEYS);

  function audit(device: DeviceRow | null, action: string, target: string | null, outcome: string): void {
    try {
      auditDevice(hub, { device_id: device?.id ?? null, device_name: device?.name ?? '(not paired)', action, target, outcome });
    } catch {
      /* a full disk must not turn a refusal into a crash; the answer still goes out */
    }
  }

  const rateLimited = (ms: number, what: string): { refusal: Refusal; retryAfter: number } => ({
    refusal: {
      status: 429,
      code: 'rate_limited',
      message: `Too many ${what}; slow down.`,
      next_step: `Retry in ${Math.ceil(ms / 1000)} s.`,
    },
    retryAfter: Math.max(1, Math.ceil(ms / 1000)),
  });

  function deviceOf(req: IncomingMessage, action: string): { device: DeviceRow } | { refusal: Refusal; retryAfter?: number } | undefined {
    const token = bearerOf(req);
    if (!token?.startsWith(DEVICE_TOKEN_PREFIX)) return undefined;
    const device = authenticateDevice(hub, token);
    if (!device) {
      const wait = failures.take(callerKey(req));
      if (wait > 0) return rateLimited(wait, 'failed device credentials');
      return {
        refusal: {
          status: 401,
          code: 'unauthorized',
          message: 'This device credential is unknown or was revoked.',
          next_step: PAIR_THIS_DEVICE_STEP,
        },
      };
    }
    const wait = calls.take(device.id);
    if (wait > 0) {
      audit(device, action, null, 'refused:rate_limited');
      return rateLimited(wait, 'calls from this device');
    }
    try {
      touchDevice(hub, device);
    } catch {
      /* last use is a courtesy */
    }
    return { device };
  }

  function requireDevice(req: IncomingMessage, res: ServerResponse, action: string): DeviceRow | undefined {
    const got = deviceOf(req, action);
    if (got && 'device' in got) return got.device;
    if (got) {
      sendRefusal(res, got.refusal, got.retryAfter);
      return undefined;
    }
    const wait = failures.take(callerKey(req));
    if (wait > 0) {
      const r = rateLimited(wait, 'failed device credentials');
      sendRefusal(res, r.refusal, r.retryAfter);
    } else {
      sendRefusal(res, {
        status: 401,
        code: 'unauthorized',
        message: "This needs a paired device's credential (Authorization: Bearer pd_…).",
        next_step: PAIR_THIS_DEVICE_STEP,
      });
    }
    return undefined;
  }

  const tools: DeviceDoorTools = {
    hub,
    requireDevice,
    audit,
    readJsonObject,
    sendError,
    send,
    failedToken: (req) => tokenFailures.take(callerKey(req)),
    noticeRead: (deviceId) => noticeReads.take(deviceId),
  };

  async function claim(req: IncomingMessage, res: ServerResponse) {
    let body: Record<string, unknown>;
    try {
      body = await readJsonObject(req);
      onlyKeys(body, ['code', 'device_name'], 'a pairing claim');
      if (typeof body.code !== 'string')
        throw new HubError('invalid_argument', 'code must be the pairing code from the link (after #).', 'Scan the QR code again.');
      if (body.device_name !== undefined && typeof body.device_name !== 'string')
        throw new HubError('invalid_argument', 'device_name must be a string.', 'Name the phone, e.g. "Android phone".');
      // Well-formed claims count, per caller and per code (a code is 128 bits: the limit makes guessing pointless and
      // noisy); a stranger's wrong codes use up only his own allowance and theirs, never the owner's phone's.
      const wait =
        claimsPerCaller.take(callerKey(req)) || claimsPerCode.take(crypto.createHash('sha256').update(body.code).digest('base64url'));
      if (wait > 0) {
        const r = rateLimited(wait, 'pairing claims');
        audit(null, 'pair.claim', null, 'refused:rate_limited');
        return sendRefusal(res, r.refusal, r.retryAfter);
      }
      const out = claimPairing(hub, { code: body.code, device_name: body.device_name as string | undefined });
      audit(null, 'pair.claim', out.pairing_id, 'ok');
      send(res, 200, {
        ok: true,
        value: {
          pairing_id: out.pairing_id,
          phrase: out.phrase,
          claim_secret: out.claim_secret,
          expires_at: out.expires_at,
          device_name: out.device_name,
        },
      });
    } catch (err) {
      if (!isHubError(err)) throw err;
      audit(null, 'pair.claim', null, `refused:${err.code}`);
      sendError(res, err);
    }
  }

  async function waitForDevice(req: IncomingMessage, res: ServerResponse) {
    let pairingId: string | null = null;
    try {
      const limited = (wait: number) => {
        const r = rateLimited(wait, 'pairing waits');
        audit(null, 'pair.wait', null, 'refused:rate_limited');
        sendRefusal(res, r.refusal, r.retryAfter);
      };
      const wait = waitsPerCaller.take(callerKey(req));
      if (wait > 0) return limited(wait);
      const body = await readJsonObject(req);
      onlyKeys(body, ['pairing_id', 'claim_secret', 'wait_secs'], 'a pairing wait');
      const { pairing_id, claim_secret, wait_secs } = body;
      if (typeof pairing_id !== 'string' || pairing_id.length > 100 || typeof claim_secret !== 'string' || claim_secret.length > 100) {
        throw new HubError(
          'invalid_argument',
          'pairing_id and claim_secret must be the strings the claim answered.',
          'Send {pairing_id, claim_secret, wait_secs}.',
        );
      }
      if (wait_secs !== undefined && (typeof wait_secs !== 'number' || !Number.isInteger(wait_secs) || wait_secs < 0 || wait_secs > 30)) {
        throw new HubError('invalid_argument', 'wait_secs must be a whole number from 0 to 30.', 'Wait at most 30 s, then ask again.');
      }
      const pairingWait = waitsPerPairing.take(pairing_id);
      if (pairingWait > 0) return limited(pairingWait);
      pairingId = pairing_id;
      const ac = new AbortController();
      res.on('close', () => ac.abort());
      const out = await waitPairing(hub, { pairing_id, claim_secret, wait_secs }, ac.signal);
      if (res.destroyed) return; // the phone left; nothing was handed out unless it was answered
      if ('device_token' in out) {
        audit(null, 'pair.wait', pairing_id, 'ok:delivered');
      }
      send(res, 200, { ok: true, value: out });
    } catch (err) {
      if (!isHubError(err)) throw err;
      if (err.code === 'not_found') failures.take(callerKey(req));
      audit(null, 'pair.wait', pairingId, `refused:${err.code}`);
      sendError(res, err);
    }
  }

  function me(req: IncomingMessage, res: ServerResponse) {
    const device = requireDevice(req, res, 'me');
    if (!device) return;
    audit(device, 'me', null, 'ok');
    const scope: DeviceScope = device.scope === 'full' ? 'full' : 'approvals';
    send(res, 200, {
      ok: true,
      value: { device: deviceView(device), allowed_actions: deviceAllowedActions(scope), vapid_public_key: vapidKeys(hub).publicKey },
    });
  }

  function route(req: IncomingMessage, res: ServerResponse, url: RequestTarget): void | Promise<void> {
    const p = url.pathname;
    // ---- further device routes (push-door.ts: /api/device/push/*, /api/device/action) are dispatched HERE, from
    // opts.extraRoutes: [path or prefix ending in '/', handler]. Add a route by adding one entry in owner/http.ts.
    for (const [prefix, handler] of opts.extraRoutes ?? []) {
      if (prefix.endsWith('/') ? p.startsWith(prefix) : p === prefix) return handler(tools, req, res, url);
    }
    if (p === DEVICE_ME_PATH) {
      if (req.method !== 'GET')
        return sendRefusal(res, {
          status: 405,
          code: 'method_not_allowed',
          message: `${p} is a GET request.`,
          next_step: 'GET it with the device credential as bearer.',
        });
      return me(req, res);
    }
    if (p === DEVICE_PAIR_CLAIM_PATH || p === DEVICE_PAIR_WAIT_PATH) {
      if (req.method !== 'POST')
        return sendRefusal(res, {
          status: 405,
          code: 'method_not_allowed',
          message: `${p} is a POST request with a JSON body.`,
          next_step: 'POST JSON to this URL.',
        });
      return p === DEVICE_PAIR_CLAIM_PATH ? claim(req, res) : waitForDevice(req, res);
    }
    sendRefusal(res, {
      status: 404,
      code: 'not_found',
      message: `Nothing at ${p.slice(0, 200)}.`,
      next_step: 'The device door serves /api/device/pair/claim, /api/device/pair/wait and /api/device/me.',
    });
  }

  return {
    handle(req, res, url) {
      let answer: void | Promise<void>;
      try {
        answer = route(req, res, url);
      } catch (err) {
        return sendInternalError(res, err, `device door ${url.pathname.slice(0, 200)}`);
      }
      if (answer) answer.catch((err: unknown) => sendInternalError(res, err, `device door ${url.pathname.slice(0, 200)}`));
    },
    deviceOf,
    audit,
    tools,
  };
}
