// The device door's push paths: a paired phone registers or drops its Web Push subscription (device bearer), and a
// notification's Approve / Reject button (the service worker, or an ntfy http action) spends a single-use action
// token (no bearer: the token itself is bound to the device and to one decision). Every call is in the device audit.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Hub } from '../hub/hub';
import { isHubError, HubError } from '../../shared/errors';
import { DEVICE_ACTION_PATH, DEVICE_PUSH_SUBSCRIBE_PATH, DEVICE_PUSH_UNSUBSCRIBE_PATH } from '../../shared/devices';
import { BodyTooLarge, readBody, sendInternalError, sendJson } from '../http-util';
import { auditDevice, authenticateDevice, getDevice, touchDevice } from '../hub/devices';
import { decideByActionToken, subscribePush, unsubscribePush } from '../hub/notify';
import { NTFY_DEVICE, verifyActionToken } from '../hub/action-tokens';

/** The paths this file answers (the device door dispatches them here). */
export const PUSH_DOOR_PATHS: readonly string[] = [DEVICE_PUSH_SUBSCRIBE_PATH, DEVICE_PUSH_UNSUBSCRIBE_PATH, DEVICE_ACTION_PATH];

const MAX_BODY_BYTES = 8 * 1024;

const STATUS: Record<string, number> = {
  invalid_argument: 400, too_large: 413, unauthorized: 401, forbidden: 403, not_found: 404, expired: 410, conflict: 409, rate_limited: 429, storage_full: 507,
};

function refuse(res: ServerResponse, err: HubError): void {
  sendJson(res, STATUS[err.code] ?? 409, { ok: false, error: err.toBody() });
}

async function jsonBody(req: IncomingMessage): Promise<unknown> {
  let buf: Buffer;
  try {
    buf = await readBody(req, MAX_BODY_BYTES);
  } catch (err) {
    if (err instanceof BodyTooLarge) throw new HubError('too_large', `The body is over ${err.limit} bytes.`, 'Send a small JSON object.');
    throw err;
  }
  try {
    return buf.length ? JSON.parse(buf.toString('utf8')) : {};
  } catch {
    throw new HubError('invalid_argument', 'The body is not valid JSON.', 'Send a JSON object.');
  }
}

function bearerOf(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  return auth?.startsWith('Bearer ') ? auth.slice(7).trim() || undefined : undefined;
}

/**
 * Answers one of PUSH_DOOR_PATHS (a POST). Returns false for any other path (nothing answered). The caller has
 * checked Host / Origin / Funnel and the rate limit (the device door).
 */
export function handlePushDoor(hub: Hub, req: IncomingMessage, res: ServerResponse, pathname: string): boolean {
  if (!PUSH_DOOR_PATHS.includes(pathname)) return false;
  run(hub, req, res, pathname).catch((err: unknown) => sendInternalError(res, err, `device ${pathname}`));
  return true;
}

async function run(hub: Hub, req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
  if (req.method !== 'POST') {
    req.resume();
    return sendJson(res, 405, { ok: false, error: { code: 'method_not_allowed', message: `${pathname} takes a POST with a JSON body.`, next_step: 'POST JSON to this URL.' } });
  }
  if (pathname === DEVICE_ACTION_PATH) return action(hub, req, res);

  const device = authenticateDevice(hub, bearerOf(req) ?? '');
  const what = pathname === DEVICE_PUSH_SUBSCRIBE_PATH ? 'push.subscribe' : 'push.unsubscribe';
  if (!device) {
    req.resume();
    auditDevice(hub, { device_id: null, device_name: '(no device)', action: what, outcome: 'refused:unauthorized' });
    return refuse(res, new HubError('unauthorized', 'This device is not paired (its credential is missing, wrong or revoked).', 'Pair this device: Settings → Phone on the laptop.'));
  }
  touchDevice(hub, device);
  try {
    const input = await jsonBody(req);
    const value = pathname === DEVICE_PUSH_SUBSCRIBE_PATH ? subscribePush(hub, device.id, input) : unsubscribePush(hub, device.id);
    auditDevice(hub, { device_id: device.id, device_name: device.name, action: what, outcome: 'ok' });
    sendJson(res, 200, { ok: true, value: { ...value, device: getDevice(hub, device.id) } });
  } catch (err) {
    if (!isHubError(err)) throw err;
    auditDevice(hub, { device_id: device.id, device_name: device.name, action: what, outcome: `refused:${err.code}` });
    refuse(res, err);
  }
}

/** POST {token}: decides the token's request as the owner (first decision wins; a replay is 409). */
async function action(hub: Hub, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let token: unknown;
  let deviceId: string | null = null;
  let target: string | null = null;
  try {
    const body = await jsonBody(req);
    token = (body as { token?: unknown } | null)?.token;
    if (typeof token !== 'string' || !token) throw new HubError('invalid_argument', 'token: the action token of a notification button is required.', 'Send {"token": "…"} as the button does.');
    try {
      const claims = verifyActionToken(hub, token);
      deviceId = claims.v === NTFY_DEVICE ? null : claims.v;
      target = claims.r;
    } catch { /* spent below gives the refusal */ }
    const { request } = decideByActionToken(hub, token);
    audit(hub, deviceId, target, 'ok');
    sendJson(res, 200, { ok: true, value: { request } });
  } catch (err) {
    if (!isHubError(err)) throw err;
    audit(hub, deviceId, target, `refused:${err.code}`);
    refuse(res, err);
  }
}

function audit(hub: Hub, deviceId: string | null, target: string | null, outcome: string): void {
  let name = deviceId ? deviceId : target ? 'ntfy' : '(unknown)';
  if (deviceId) {
    try { name = getDevice(hub, deviceId).name; } catch { /* a device that no longer exists */ }
  }
  auditDevice(hub, { device_id: deviceId, device_name: name, action: 'action', target, outcome });
}
