// Paired devices: a phone reaches the hub through the owner's HTTPS front (tailscale serve) with a
// device credential of its own (`pd_…`, stored only as a hash, revocable one by one) and a scope (approvals:
// the approvals inbox only; full: the owner's actions except the laptop-only ones, see shared/api/owner-api.ts
// DEVICE_REACH). Every call a device makes is written to the device audit list (refusals of callers without a
// credential as tallies). Also the phone settings (public URL of the front, push content, ntfy) and the install's
// VAPID keys (made once). No HTTP here: owner/device-door.ts is the door.
import crypto from 'node:crypto';
import type { FeatureServices } from '../features/services';
import { newId, type Hub } from '../core/hub';
import { HubError } from '../../../shared/errors';
import { deviceActions, deviceLaptopFields, deviceReachOf, isOwnerAction } from '../../../shared/api/owner-api';
import {
  DEVICE_SCOPES,
  MAX_DEVICES,
  MAX_DEVICE_NAME_CHARS,
  PUSH_CONTENT,
  type DeviceAuditEntry,
  type DeviceScope,
  type DeviceView,
  type NtfySettings,
  type PhoneSettings,
  type PushContent,
} from '../../../shared/features/devices';
import {
  allDevices,
  auditRows,
  countLiveDevices,
  deviceById,
  deviceByTokenHash,
  insertAudit,
  insertDevice,
  tallyAudit,
  revokeDeviceRow,
  setDeviceToken,
  touchDeviceRow,
  type DeviceRow,
} from '../../store/tables/phone/devices';
import { getSetting, setSetting } from '../../store/tables/talk/settings';
import { PUBLIC_URL_SETTING, publicUrlSetting } from '../../store/tables/talk/start-settings';
import { deletePushSubscription } from '../../store/tables/phone/push';
export type { DeviceRow } from '../../store/tables/phone/devices';
import { messageById } from '../../store/tables/talk/messages';
import { activeHandoffsOf, handoffById } from '../../store/tables/talk/handoffs';
import type { HandoffItem } from '../../../shared/api/owner-api';
import { conversationById, member } from '../../store/tables/talk/conversations';
import { OutsideMemo, type OutsideWrites } from '../core/outside-writes';

/** The hub as this module reaches it: the services it uses (the whole set: src/main/hub/services.ts). */
type DevicesHub = Hub<FeatureServices & { pushTargets: OutsideMemo<boolean> }>;

/** Every device credential starts with this. */
export const DEVICE_TOKEN_PREFIX = 'pd_';
/** last_used_at is written at most this often per device. */
const TOUCH_EVERY_MS = 60_000;

export const hashDeviceToken = (token: string): Buffer => crypto.createHash('sha256').update(`perch-device-v1:${token}`).digest();

function mintToken(): { token: string; hash: Buffer; hint: string } {
  const token = DEVICE_TOKEN_PREFIX + crypto.randomBytes(32).toString('base64url');
  return { token, hash: hashDeviceToken(token), hint: token.slice(-4) };
}

export function isDeviceScope(s: unknown): s is DeviceScope {
  return typeof s === 'string' && (DEVICE_SCOPES as readonly string[]).includes(s);
}

/** A device name: trimmed, 1..MAX_DEVICE_NAME_CHARS, no control characters. */
export function cleanDeviceName(raw: unknown): string {
  const name =
    typeof raw === 'string'
      ? raw
          .replace(/[\p{Cc}\p{Cf}]/gu, ' ')
          .replace(/\s+/g, ' ')
          .trim()
      : '';
  if (!name || name.length > MAX_DEVICE_NAME_CHARS) {
    throw new HubError(
      'invalid_argument',
      `A device needs a name of 1-${MAX_DEVICE_NAME_CHARS} characters.`,
      'Name it after the phone, e.g. "Ana\'s Pixel".',
    );
  }
  return name;
}

export function deviceView(row: DeviceRow & { push?: number | boolean }): DeviceView {
  return {
    id: row.id,
    name: row.name,
    scope: isDeviceScope(row.scope) ? row.scope : 'approvals',
    token_hint: `…${row.token_hint}`,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    revoked: row.revoked_at != null,
    revoked_at: row.revoked_at,
    push: !!row.push,
  };
}

/**
 * Makes a device and its credential (the credential is in this answer only). Pairing (hub/phone/pairing.ts) calls it
 * inside its own transaction; the owner may hold at most MAX_DEVICES live devices.
 */
export function createDevice(hub: DevicesHub, input: { name: string; scope?: DeviceScope }): { device: DeviceView; token: string } {
  const name = cleanDeviceName(input.name);
  const scope = input.scope ?? 'approvals';
  if (!isDeviceScope(scope))
    throw new HubError(
      'invalid_argument',
      `Scope ${JSON.stringify(scope)} is not valid: give ${DEVICE_SCOPES.join(' or ')}.`,
      'Use approvals (the default) unless the phone needs every owner action.',
    );
  return hub.write(() => {
    if (countLiveDevices(hub.db) >= MAX_DEVICES) {
      throw new HubError(
        'conflict',
        `There are already ${MAX_DEVICES} paired devices.`,
        'Revoke a device you no longer use (perch device list, then perch device revoke <id>).',
      );
    }
    const { token, hash, hint } = mintToken();
    const row = { id: newId('dev'), name, scope, token_hash: hash, token_hint: hint, created_at: hub.now() };
    insertDevice(hub.db, row);
    return { device: deviceView({ ...row, last_used_at: null, revoked_at: null, push: false }), token };
  });
}

/** Gives a device a fresh credential, replacing the old one (pairing hands the credential out when it is collected). */
export function reissueDeviceToken(hub: DevicesHub, deviceId: string): string {
  const { token, hash, hint } = mintToken();
  hub.write(() => setDeviceToken(hub.db, deviceId, hash, hint));
  return token;
}

/** The live device behind a bearer credential, or undefined (unknown, malformed or revoked). */
export function authenticateDevice(hub: DevicesHub, bearer: string): DeviceRow | undefined {
  if (typeof bearer !== 'string' || !bearer.startsWith(DEVICE_TOKEN_PREFIX) || bearer.length > 200) return undefined;
  const hash = hashDeviceToken(bearer);
  const row = deviceByTokenHash(hub.db, hash);
  if (!row || row.revoked_at != null || !crypto.timingSafeEqual(row.token_hash, hash)) return undefined;
  return row;
}

/** Notes that a device was used (at most once a minute per device). */
export function touchDevice(hub: DevicesHub, row: DeviceRow): void {
  const now = hub.now();
  if (row.last_used_at != null && now - row.last_used_at < TOUCH_EVERY_MS) return;
  hub.write(() => touchDeviceRow(hub.db, row.id, now));
  row.last_used_at = now;
}

export function listDevices(hub: DevicesHub): DeviceView[] {
  return allDevices(hub.db).map(deviceView);
}

export function getDevice(hub: DevicesHub, deviceId: string): DeviceView {
  const row = deviceById(hub.db, deviceId);
  if (!row) throw new HubError('not_found', `No device ${deviceId}.`, 'List the devices (perch device list) to find its id.');
  return deviceView(row);
}

/** Revokes a device: its credential stops at once and its push subscription is deleted (one transaction). */
export function revokeDevice(hub: DevicesHub, deviceId: string): DeviceView {
  return hub.write(() => {
    const row = deviceById(hub.db, deviceId);
    if (!row) throw new HubError('not_found', `No device ${deviceId}.`, 'List the devices (perch device list) to find its id.');
    revokeDeviceRow(hub.db, row.id, hub.now());
    deletePushSubscription(hub.db, row.id);
    return deviceView(deviceById(hub.db, row.id)!);
  });
}

/** Whether the device is still paired (not revoked): a live event stream ends when it is not. */
export function isDeviceLive(hub: DevicesHub, deviceId: string): boolean {
  const row = deviceById(hub.db, deviceId);
  return !!row && row.revoked_at == null;
}

// ---- scopes --------------------------------------------------------------------------------

/** The owner actions a device of this scope may call. */
export function deviceAllowedActions(scope: DeviceScope): string[] {
  return deviceActions(scope);
}

/**
 * A card is addressed to the owner when its message's `to` names the owner, or it is in a direct conversation
 * the owner is a member of (the owner's direct conversation with the agent).
 */
export function cardAddressedToOwner(hub: DevicesHub, msgId: string): boolean {
  const msg = messageById(hub.db, msgId);
  if (!msg || msg.kind !== 'card') return false;
  if (msg.to_ids) {
    try {
      if ((JSON.parse(msg.to_ids) as unknown[]).includes(hub.ownerId)) return true;
    } catch {
      /* not a list: not addressed */
    }
  }
  const conv = conversationById(hub.db, msg.conv_id);
  return !!conv && conv.kind === 'direct' && !!member(hub.db, conv.id, hub.ownerId);
}

/**
 * A handoff is the owner's when it is handed to the owner. (Today the owner is the hub's only person, so every
 * handoff is; a handoff names its person, and an approvals device sees and hands back only the owner's.)
 */
export function handoffToOwner(hub: DevicesHub, handoffId: unknown): boolean {
  if (typeof handoffId !== 'number') return false;
  return handoffById(hub.db, handoffId)?.to_user === hub.ownerId;
}

/** What a device of this scope gets of an owner action's answer: approvals sees only the owner's handoffs. */
export function deviceScopedAnswer(hub: DevicesHub, device: { scope: string }, action: string, value: unknown): unknown {
  if (device.scope === 'full' || action !== 'handoffs.list') return value;
  const v = value as { handoffs: HandoffItem[] };
  return { ...v, handoffs: v.handoffs.filter((h) => h.to.id === hub.ownerId) };
}

/** Why a device may not call this owner action with this input (a forbidden HubError), or undefined when it may. */
export function deviceScopeRefusal(
  hub: DevicesHub,
  device: { name: string; scope: string },
  action: string,
  input: unknown,
): HubError | undefined {
  const scope = isDeviceScope(device.scope) ? device.scope : 'approvals';
  // An unknown action is the owner API's not_found for a full device (as for the laptop), forbidden for approvals.
  if (!isOwnerAction(action))
    return scope === 'full'
      ? undefined
      : new HubError(
          'forbidden',
          `This device (${device.name}) has the approvals scope: it may not call ${action}.`,
          `It may call ${deviceActions('approvals').join(', ')}.`,
        );
  const reach = deviceReachOf(action);
  if (reach === 'laptop') {
    return new HubError(
      'forbidden',
      `A paired device may not call ${action}: what starts processes, mints or shows credentials or secrets, and device and phone settings stay on the laptop.`,
      'Do it on the laptop (the Perch window or `perch owner`).',
    );
  }
  // Fields of the action kept for the laptop (the contract's laptopFields): sent at all, whatever the value, is refused.
  const sent = input && typeof input === 'object' ? deviceLaptopFields(action).filter((f) => Object.hasOwn(input, f)) : [];
  if (sent.length) {
    return new HubError(
      'forbidden',
      `${sent.join(', ')} can be changed only on the laptop: a paired device may not send ${sent.length > 1 ? 'them' : 'it'} with ${action} (what starts processes stays on the laptop).`,
      `Leave ${sent.join(', ')} out, or change ${sent.length > 1 ? 'them' : 'it'} on the laptop (the Perch window or \`perch owner\`).`,
    );
  }
  if (scope === 'approvals') {
    if (reach !== 'approvals') {
      const allowed = deviceActions('approvals');
      return new HubError(
        'forbidden',
        `This device (${device.name}) has the approvals scope: it may not call ${action}.`,
        `It may call ${allowed.join(', ')}. Pair it again with the full scope on the laptop if it needs more.`,
      );
    }
    if (action === 'cards.answer') {
      const msgId = (input as { msg_id?: unknown } | null)?.msg_id;
      if (typeof msgId !== 'string' || !cardAddressedToOwner(hub, msgId)) {
        return new HubError(
          'forbidden',
          'With the approvals scope a device answers only cards addressed to you.',
          'Answer this card on the laptop.',
        );
      }
    }
    if (action === 'handoffs.hand_back') {
      // Only a handoff to the owner: every active one in the conversation (of the named agent, if named) must be.
      const a = (input ?? {}) as { conv_id?: unknown; agent?: unknown };
      if (typeof a.conv_id === 'string') {
        const agent = typeof a.agent === 'string' ? a.agent : undefined;
        const candidates = activeHandoffsOf(hub.db, a.conv_id).filter(
          (h) => agent === undefined || h.agent_id === agent || hub.ref(h.agent_id).name === agent,
        );
        if (candidates.some((h) => h.to_user !== hub.ownerId)) {
          return new HubError(
            'forbidden',
            'With the approvals scope a device hands back only conversations handed to you.',
            'Hand it back on the laptop, or let the person it was handed to do it.',
          );
        }
      }
    }
  }
  return undefined;
}

// ---- audit ---------------------------------------------------------------------------------

export interface AuditInput {
  device_id: string | null;
  device_name: string;
  action: string;
  target?: string | null;
  /** ok, or refused:<error code>. */
  outcome: string;
}

/** The window of a tally of refusals from callers without a device credential. */
export const AUDIT_TALLY_WINDOW_MS = 10 * 60 * 1000;

/**
 * Writes one line of the device audit list (every device call through the front, allowed or refused). A refusal with
 * no device behind it (no credential, or one that does not verify) is only counted: one tally row per 10-minute
 * window and (action, outcome), so a stranger's junk never pushes a device's own entries out of the list.
 */
export function auditDevice(hub: DevicesHub, entry: AuditInput): void {
  const action = entry.action.slice(0, 100);
  const outcome = entry.outcome.slice(0, 100);
  if (entry.device_id === null && outcome.startsWith('refused')) {
    const at = Math.floor(hub.now() / AUDIT_TALLY_WINDOW_MS) * AUDIT_TALLY_WINDOW_MS;
    hub.write(() => tallyAudit(hub.db, { at, device_name: entry.device_name.slice(0, 100), action, outcome }));
    return;
  }
  hub.write(() =>
    insertAudit(hub.db, {
      at: hub.now(),
      device_id: entry.device_id,
      device_name: entry.device_name.slice(0, 100),
      action,
      target: entry.target == null ? null : String(entry.target).slice(0, 200),
      outcome,
    }),
  );
}

export function listAudit(hub: DevicesHub, opts: { device_id?: string; limit?: number } = {}): DeviceAuditEntry[] {
  return auditRows(hub.db, opts.device_id, Math.min(500, Math.max(1, opts.limit ?? 100)));
}

// ---- phone settings ------------------------------------------------------------------------

const PUSH_CONTENT_KEY = 'phone.push_content';
const NTFY_KEY = 'phone.ntfy';

/** The cache of whether pushes go anywhere, as the composition root makes it. */
export function pushTargetsCache(outside: OutsideWrites): OutsideMemo<boolean> {
  return new OutsideMemo(outside);
}

const VAPID_KEY = 'push.vapid';

function badUrl(what: string, raw: string, why: string): HubError {
  return new HubError(
    'invalid_argument',
    `The ${what} ${JSON.stringify(raw.slice(0, 100))} is not valid: ${why}.`,
    what === 'public URL'
      ? "Give the front's origin only, e.g. https://laptop.tail1234.ts.net (what `tailscale serve status` shows)."
      : 'Give an http(s) URL, e.g. https://ntfy.sh.',
  );
}

/**
 * The public URL of the HTTPS front, normalized to its origin (scheme, host, port when not the default): an
 * http(s) URL with a host and nothing after the host but an optional '/'. http is accepted (a test front or a
 * trusted LAN proxy), but phones need https for the app and notifications.
 */
export function normalizePublicUrl(raw: string): string {
  const s = raw.trim();
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw badUrl('public URL', raw, 'not a URL');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw badUrl('public URL', raw, 'it must start with https:// (or http://)');
  if (!u.hostname) throw badUrl('public URL', raw, 'it has no host');
  if (u.username || u.password) throw badUrl('public URL', raw, 'it must not carry a user name or password');
  if ((u.pathname !== '/' && u.pathname !== '') || u.search || u.hash || /[?#]/.test(s))
    throw badUrl('public URL', raw, 'it must be the origin only, with no path, query or fragment');
  return u.origin;
}

/** The public URL of the front, or null when remote access is off. */
export function publicUrl(hub: DevicesHub): string | null {
  return publicUrlSetting(hub.db);
}

/**
 * The ntfy channel as setPhoneSettings saved it, with its id: made anew whenever the setting changes or ntfy is turned
 * on (hub/phone/notify.ts binds ntfy buttons' tokens to it). null when off.
 */
export interface NtfyChannel extends NtfySettings {
  id: string;
}

export function ntfyChannel(hub: DevicesHub): NtfyChannel | null {
  const v = getSetting(hub.db, NTFY_KEY);
  if (!v) return null;
  try {
    const o = JSON.parse(v) as Partial<NtfyChannel> | null;
    return o && typeof o.server === 'string' && typeof o.topic === 'string' && o.server && o.topic
      ? { server: o.server, topic: o.topic, opaque: o.opaque === true, id: typeof o.id === 'string' ? o.id : '' }
      : null;
  } catch {
    return null;
  }
}

/** The ntfy channel as the owner sees it (phone.get), or null when off. */
export function ntfySettings(hub: DevicesHub): NtfySettings | null {
  const ch = ntfyChannel(hub);
  return ch ? { server: ch.server, topic: ch.topic, opaque: ch.opaque } : null;
}

export function pushContent(hub: DevicesHub): PushContent {
  const v = getSetting(hub.db, PUSH_CONTENT_KEY);
  return (PUSH_CONTENT as readonly string[]).includes(v ?? '') ? (v as PushContent) : 'summary';
}

/**
 * The install's VAPID keys (Web Push, RFC 8292): read from settings, made once and saved. An ECDSA P-256 key pair as
 * Web Push writes it: the public key as the uncompressed point (65 bytes), the private key as its 32-byte scalar,
 * both base64url (what the web-push package's generateVAPIDKeys makes, and what browsers take as applicationServerKey).
 */
export function vapidKeys(hub: DevicesHub): { publicKey: string; privateKey: string } {
  const read = (): { publicKey: string; privateKey: string } | undefined => {
    const v = getSetting(hub.db, VAPID_KEY);
    if (!v) return undefined;
    try {
      const o = JSON.parse(v) as { publicKey?: unknown; privateKey?: unknown };
      return typeof o.publicKey === 'string' && typeof o.privateKey === 'string'
        ? { publicKey: o.publicKey, privateKey: o.privateKey }
        : undefined;
    } catch {
      return undefined;
    }
  };
  const have = read();
  if (have) return have;
  return hub.write(() => {
    const again = read(); // another process on the same file may have made them meanwhile
    if (again) return again;
    const jwk = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ format: 'jwk' });
    const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
    const keys = { publicKey: point.toString('base64url'), privateKey: jwk.d! };
    setSetting(hub.db, VAPID_KEY, JSON.stringify(keys));
    return keys;
  });
}

export function getPhoneSettings(hub: DevicesHub): PhoneSettings {
  return {
    public_url: publicUrl(hub),
    push_content: pushContent(hub),
    ntfy: ntfySettings(hub),
    vapid_public_key: vapidKeys(hub).publicKey,
  };
}

export interface PhoneSettingsPatch {
  public_url?: string | null;
  push_content?: PushContent;
  ntfy?: { server: string; topic: string; opaque?: boolean } | null;
}

/** Changes phone settings; everything is checked before anything is saved. */
export function setPhoneSettings(hub: DevicesHub, patch: PhoneSettingsPatch): PhoneSettings {
  const url =
    patch.public_url === undefined
      ? undefined
      : patch.public_url === null || patch.public_url.trim() === ''
        ? ''
        : normalizePublicUrl(patch.public_url);
  if (patch.push_content !== undefined && !(PUSH_CONTENT as readonly string[]).includes(patch.push_content)) {
    throw new HubError('invalid_argument', `push_content must be ${PUSH_CONTENT.join(' or ')}.`, 'Use summary (the default) or ids.');
  }
  let ntfy: string | undefined;
  if (patch.ntfy !== undefined) {
    if (patch.ntfy === null) ntfy = '';
    else {
      let server: URL;
      try {
        server = new URL(patch.ntfy.server.trim());
      } catch {
        throw badUrl('ntfy server', patch.ntfy.server, 'not a URL');
      }
      if (
        (server.protocol !== 'https:' && server.protocol !== 'http:') ||
        !server.hostname ||
        server.username ||
        server.password ||
        server.search ||
        server.hash
      ) {
        throw badUrl('ntfy server', patch.ntfy.server, 'it must be an http(s) URL with a host');
      }
      const topic = patch.ntfy.topic.trim();
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(topic)) {
        throw new HubError(
          'invalid_argument',
          `The ntfy topic ${JSON.stringify(topic.slice(0, 80))} is not valid: letters, digits, _ and - only (1-64).`,
          'Pick a long random topic name: anyone who knows it can read it.',
        );
      }
      const next = { server: server.href.replace(/\/+$/, ''), topic, opaque: patch.ntfy.opaque === true };
      // The same setting again keeps its channel id (its buttons keep working); any change, or turning it on, makes a
      // new one, so tokens minted for an earlier setting stop working (hub/phone/notify.ts).
      const now = ntfyChannel(hub);
      const same = !!now && now.server === next.server && now.topic === next.topic && now.opaque === next.opaque && now.id !== '';
      ntfy = JSON.stringify({ ...next, id: same ? now.id : crypto.randomBytes(12).toString('base64url') });
    }
  }
  hub.services.pushTargets.changing(() =>
    hub.write(() => {
      if (url !== undefined) setSetting(hub.db, PUBLIC_URL_SETTING, url);
      if (patch.push_content !== undefined) setSetting(hub.db, PUSH_CONTENT_KEY, patch.push_content);
      if (ntfy !== undefined) setSetting(hub.db, NTFY_KEY, ntfy);
    }),
  );
  return getPhoneSettings(hub);
}
