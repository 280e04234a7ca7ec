// The device door's push paths: a paired phone registers or drops its Web Push subscription (device bearer), and a
// notification's Approve / Reject button (the service worker, or an ntfy http action) spends a single-use action
// token (no bearer: the token itself is bound to the device and to one decision); with push content 'ids' the
// service worker fetches a notice's details with its read token (bound to the device and the notice, not spent,
// never a decision). Every call is in the device audit. Tokens that fail to verify are limited per caller (the device
// door's failedToken); valid ones never count against that limit.
// Dispatched by the device door (device-door.ts) after the front's checks, through DEVICE_ROUTES in http.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isHubError, HubError } from '../../shared/errors';
import {
  DEVICE_ACTION_PATH,
  DEVICE_NOTICE_PATH,
  DEVICE_PUSH_SUBSCRIBE_PATH,
  DEVICE_PUSH_UNSUBSCRIBE_PATH,
} from '../../shared/features/devices';
import { getDevice } from '../hub/phone/devices';
import { decideByActionToken, noticeByReadToken, subscribePush, unsubscribePush } from '../hub/phone/device-push';
import { isNtfyDevice, verifyActionToken } from '../hub/phone/action-tokens';
import { sendRefusal, type DeviceDoorTools, type DeviceRoute } from './device-door';

const MAX_BODY_BYTES = 8 * 1024;

function postOnly(req: IncomingMessage, res: ServerResponse, path: string): boolean {
  if (req.method === 'POST') return true;
  req.resume();
  sendRefusal(res, {
    status: 405,
    code: 'method_not_allowed',
    message: `${path} takes a POST with a JSON body.`,
    next_step: 'POST JSON to this URL.',
  });
  return false;
}

/** POST {endpoint, keys: {p256dh, auth}} (subscribe) or {} (unsubscribe), with the device's bearer. */
function subscription(which: 'push.subscribe' | 'push.unsubscribe'): DeviceRoute {
  return async (tools, req, res, url) => {
    if (!postOnly(req, res, url.pathname)) return;
    const device = tools.requireDevice(req, res, which);
    if (!device) return void req.resume();
    const { hub } = tools;
    try {
      const input = await tools.readJsonObject(req, MAX_BODY_BYTES);
      const value = which === 'push.subscribe' ? subscribePush(hub, device.id, input) : unsubscribePush(hub, device.id);
      tools.audit(device, which, null, 'ok');
      tools.send(res, 200, { ok: true, value: { ...value, device: getDevice(hub, device.id) } });
    } catch (err) {
      if (!isHubError(err)) throw err;
      tools.audit(device, which, null, `refused:${err.code}`);
      tools.sendError(res, err);
    }
  };
}

function refuseLimited(res: Parameters<DeviceRoute>[2], wait: number, what: string) {
  sendRefusal(
    res,
    { status: 429, code: 'rate_limited', message: `Too many ${what}; slow down.`, next_step: `Retry in ${Math.ceil(wait / 1000)} s.` },
    Math.max(1, Math.ceil(wait / 1000)),
  );
}

/** POST {token}: decides the token's request as the owner (first decision wins; a replay is 409). */
const action: DeviceRoute = async (tools, req, res, url) => {
  if (!postOnly(req, res, url.pathname)) return;
  const { hub } = tools;
  let deviceId: string | null = null;
  let target: string | null = null;
  const audit = (outcome: string) => {
    let device: { id: string; name: string } | null = null;
    if (deviceId) {
      try {
        device = getDevice(hub, deviceId);
      } catch {
        device = { id: deviceId, name: deviceId };
      }
    }
    tools.audit(device as Parameters<DeviceDoorTools['audit']>[0], 'action', target, target && !deviceId ? `${outcome} (ntfy)` : outcome);
  };
  try {
    const body = await tools.readJsonObject(req, MAX_BODY_BYTES);
    const token = body.token;
    if (typeof token !== 'string' || !token)
      throw new HubError(
        'invalid_argument',
        'token: the action token of a notification button is required.',
        'Send {"token": "…"} as the button does.',
      );
    try {
      const claims = verifyActionToken(hub, token);
      deviceId = isNtfyDevice(claims.v) ? null : claims.v;
      target = claims.r;
    } catch {
      // decideByActionToken answers the refusal, unless tokens that do not verify come too fast from this caller
      const wait = tools.failedToken(req);
      if (wait > 0) {
        audit('refused:rate_limited');
        return refuseLimited(res, wait, 'refused action tokens');
      }
    }
    const { request } = decideByActionToken(hub, token);
    audit('ok');
    tools.send(res, 200, { ok: true, value: { request } });
  } catch (err) {
    if (!isHubError(err)) throw err;
    audit(`refused:${err.code}`);
    tools.sendError(res, err);
  }
};

/** POST {token}: a read token (push content 'ids') answers its notice's summary and current state; nothing is spent. */
const notice: DeviceRoute = async (tools, req, res, url) => {
  if (!postOnly(req, res, url.pathname)) return;
  const { hub } = tools;
  let device: { id: string; name: string } | null = null;
  let target: string | null = null;
  const audit = (outcome: string) => tools.audit(device as Parameters<DeviceDoorTools['audit']>[0], 'notice', target, outcome);
  const limited = (wait: number, what: string) => {
    audit('refused:rate_limited');
    refuseLimited(res, wait, what);
  };
  try {
    const body = await tools.readJsonObject(req, MAX_BODY_BYTES);
    const token = body.token;
    if (typeof token !== 'string' || !token)
      throw new HubError(
        'invalid_argument',
        'token: the read token of a notification is required.',
        'Send {"token": "…"}: the read_token the push carried.',
      );
    try {
      const claims = verifyActionToken(hub, token);
      target = claims.r;
      if (!isNtfyDevice(claims.v)) {
        try {
          device = getDevice(hub, claims.v);
        } catch {
          device = { id: claims.v, name: claims.v };
        }
      }
    } catch {
      const wait = tools.failedToken(req);
      if (wait > 0) return limited(wait, 'refused read tokens');
    }
    if (device) {
      const wait = tools.noticeRead(device.id);
      if (wait > 0) return limited(wait, 'reads from this device');
    }
    const { notice: value } = noticeByReadToken(hub, token);
    audit('ok');
    tools.send(res, 200, { ok: true, value: { notice: value } });
  } catch (err) {
    if (!isHubError(err)) throw err;
    audit(`refused:${err.code}`);
    tools.sendError(res, err);
  }
};

/** The push door's entries of the device door's routes (owner/http.ts DEVICE_ROUTES). */
export const PUSH_DOOR_ROUTES: ReadonlyArray<[string, DeviceRoute]> = [
  [DEVICE_PUSH_SUBSCRIBE_PATH, subscription('push.subscribe')],
  [DEVICE_PUSH_UNSUBSCRIBE_PATH, subscription('push.unsubscribe')],
  [DEVICE_ACTION_PATH, action],
  [DEVICE_NOTICE_PATH, notice],
];
