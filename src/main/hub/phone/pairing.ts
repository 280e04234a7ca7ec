// Pairing a phone. The laptop starts a pairing: a 128-bit code, single use, 5 minutes, in a link
// `${public_url}/pair#<code>` and its QR code. The phone claims the code (with a name) and gets a short phrase
// and a claim secret; both screens show the phrase; the owner confirms it on the laptop; the phone's waiting
// call then collects its device credential, once. Codes and claim secrets are stored only as hashes. Waits
// are promises woken on change, no polling. No HTTP here: owner/device-door.ts is the door.
import crypto from 'node:crypto';
import type { FeatureServices } from '../features/services';
import type { OutsideMemo } from '../core/outside-writes';
import { newId, type Hub } from '../core/hub';
import { Waiters } from '../core/bus';
import { HubError } from '../../../shared/errors';
import {
  PAIRING_TTL_MS,
  type DeviceScope,
  type DeviceView,
  type PairingStart,
  type PairingState,
  type PairingView,
} from '../../../shared/features/devices';
import {
  cancelPairingRow,
  claimPairingRow,
  confirmPairingRow,
  deleteOldPairings,
  deliverPairingRow,
  deviceById,
  insertPairing,
  pairingByCodeHash,
  pairingById,
  type PairingRow,
} from '../../store/tables/phone/devices';
import { cleanDeviceName, createDevice, deviceView, isDeviceScope, publicUrl, reissueDeviceToken } from './devices';

/** The hub as this module reaches it: the services it uses (the whole set: src/main/hub/services.ts). */
type PairingHub = Hub<FeatureServices & { pushTargets: OutsideMemo<boolean>; pairingWaits: Waiters }>;

/** After its code expires, a pairing's confirmed credential can still be collected this long. */
const COLLECT_GRACE_MS = PAIRING_TTL_MS;
/** Pairings are forgotten a day after they expire. */
const KEEP_MS = 24 * 60 * 60 * 1000;
/** Most concurrent waits on one pairing (the laptop's and the phone's; a few reloads). */
const MAX_WAITERS = 8;

const hashOf = (label: string, s: string): Buffer => crypto.createHash('sha256').update(`perch-pair-${label}-v1:${s}`).digest();

// Short words both screens show; 3 of them plus 2 digits: about 20 bits, enough to catch a wrong phone.
const WORDS = [
  'acorn',
  'amber',
  'apple',
  'arrow',
  'aspen',
  'badge',
  'bagel',
  'basil',
  'beach',
  'berry',
  'birch',
  'bison',
  'blaze',
  'bloom',
  'brave',
  'brick',
  'cabin',
  'cedar',
  'chalk',
  'cider',
  'cliff',
  'cloud',
  'clover',
  'comet',
  'coral',
  'crane',
  'creek',
  'daisy',
  'delta',
  'dune',
  'eagle',
  'ember',
  'fable',
  'fern',
  'field',
  'flint',
  'forest',
  'frost',
  'gale',
  'garden',
  'glade',
  'grape',
  'harbor',
  'hazel',
  'heron',
  'honey',
  'island',
  'ivory',
  'jade',
  'kayak',
  'kiwi',
  'lake',
  'lemon',
  'lilac',
  'lotus',
  'maple',
  'meadow',
  'mango',
  'marble',
  'melon',
  'mint',
  'moss',
  'night',
  'oak',
  'ocean',
  'olive',
  'orbit',
  'otter',
  'panda',
  'pearl',
  'pepper',
  'pine',
  'plum',
  'pond',
  'prism',
  'quartz',
  'quill',
  'raven',
  'reef',
  'river',
  'robin',
  'rose',
  'sage',
  'sand',
  'shell',
  'sky',
  'slate',
  'snow',
  'spruce',
  'star',
  'stone',
  'storm',
  'sun',
  'swan',
  'thyme',
  'tide',
  'tiger',
  'tulip',
  'valley',
  'violet',
  'walnut',
  'wave',
  'willow',
  'wind',
  'wolf',
  'wren',
  'yarrow',
  'zebra',
] as const;

function makePhrase(): string {
  const w = () => WORDS[crypto.randomInt(WORDS.length)]!;
  return `${w()} ${w()} ${w()} ${String(crypto.randomInt(100)).padStart(2, '0')}`;
}

// ---- waking waits ----------------------------------------------------------------------------

/** The waits on pairings, as the composition root makes them. */
export function pairingWaiters(): Waiters {
  return new Waiters();
}

function wakePairing(hub: PairingHub, id: string): void {
  hub.services.pairingWaits.wake(id);
}

/** Waits until the pairing changes, ms pass, or signal aborts. */
async function waitForChange(hub: PairingHub, id: string, ms: number, signal?: AbortSignal): Promise<void> {
  const waiters = hub.services.pairingWaits;
  if (waiters.count(id) >= MAX_WAITERS)
    throw new HubError('rate_limited', 'Too many waits on this pairing.', 'Wait with one call at a time.');
  await waiters.wait(id, ms, signal);
}

// ---- views -----------------------------------------------------------------------------------

function stateOf(hub: PairingHub, p: PairingRow): PairingState {
  if (p.cancelled_at != null) return 'cancelled';
  if (p.confirmed_at != null) return 'confirmed';
  if (p.expires_at <= hub.now()) return 'expired';
  if (p.claimed_at != null) return 'claimed';
  return 'waiting';
}

function pairingView(hub: PairingHub, p: PairingRow): PairingView {
  let device: DeviceView | null = null;
  if (p.device_id) {
    const row = deviceById(hub.db, p.device_id);
    if (row) device = deviceView(row);
  }
  return {
    pairing_id: p.id,
    state: stateOf(hub, p),
    name: p.name,
    scope: isDeviceScope(p.scope) ? p.scope : 'approvals',
    expires_at: p.expires_at,
    phrase: p.phrase,
    device_name: p.device_name,
    device,
  };
}

function requirePairing(hub: PairingHub, pairingId: string): PairingRow {
  const p = pairingById(hub.db, pairingId);
  if (!p) throw new HubError('not_found', `No pairing ${pairingId}.`, 'Start a new pairing (Settings → Phone, or perch device pair).');
  return p;
}

// ---- the laptop's side (owner actions) ---------------------------------------------------------

/** Starts a pairing: needs the public URL. The code is only in the link (and its QR code). */
export async function startPairing(hub: PairingHub, input: { name?: string; scope?: DeviceScope } = {}): Promise<PairingStart> {
  const base = publicUrl(hub);
  if (!base) {
    throw new HubError(
      'conflict',
      'Set the public URL of your HTTPS front first: the phone reaches the hub through it.',
      'Run `tailscale serve --bg --https=443 http://127.0.0.1:<port>`, then set the URL in Settings → Phone (or `perch serve --public-url https://<machine>.<tailnet>.ts.net`).',
    );
  }
  const name = input.name === undefined || input.name.trim() === '' ? '' : cleanDeviceName(input.name);
  const scope = input.scope ?? 'approvals';
  if (!isDeviceScope(scope))
    throw new HubError(
      'invalid_argument',
      `Scope ${JSON.stringify(scope)} is not valid: give approvals or full.`,
      'Use approvals (the default).',
    );
  const code = crypto.randomBytes(16).toString('base64url');
  const now = hub.now();
  const row = { id: newId('pair'), code_hash: hashOf('code', code), name, scope, created_at: now, expires_at: now + PAIRING_TTL_MS };
  hub.write(() => {
    deleteOldPairings(hub.db, now - KEEP_MS);
    insertPairing(hub.db, row);
  });
  const url = `${base}/pair#${code}`;
  // qrcode is loaded on the first pairing, not at start (evaluating it takes tens of ms of the cold start).
  const QRCode = (await import('qrcode')).default;
  const qr_svg = await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return { pairing: pairingView(hub, requirePairing(hub, row.id)), url, qr_svg };
}

/**
 * A pairing's state; with wait_secs, waits (no polling) until it changes or the wait ends. state: the state the
 * caller last saw; when the pairing has left it already (the phone claimed between two calls), no wait.
 */
export async function pairingStatus(
  hub: PairingHub,
  input: { pairing_id: string; wait_secs?: number; state?: PairingState },
  signal?: AbortSignal,
): Promise<PairingView> {
  let p = requirePairing(hub, input.pairing_id);
  const waitMs = Math.min(Math.max(input.wait_secs ?? 0, 0), 30) * 1000;
  const state = stateOf(hub, p);
  if (waitMs > 0 && (state === 'waiting' || state === 'claimed') && (input.state === undefined || input.state === state)) {
    // Also wake when the code runs out, so the laptop's countdown ends with the pairing.
    await waitForChange(hub, p.id, Math.max(0, Math.min(waitMs, p.expires_at - hub.now() + 50)), signal);
    p = requirePairing(hub, input.pairing_id);
  }
  return pairingView(hub, p);
}

/** The owner confirms the phrase matches: the device is made; the phone's wait collects its credential. */
export function confirmPairing(
  hub: PairingHub,
  input: { pairing_id: string; phrase?: string },
): { pairing: PairingView; device: DeviceView } {
  const result = hub.write(() => {
    const p = requirePairing(hub, input.pairing_id);
    const state = stateOf(hub, p);
    if (state === 'waiting')
      throw new HubError('conflict', 'No phone has claimed this pairing yet.', 'Scan the QR code (or open the link) on the phone first.');
    if (state === 'expired' || state === 'cancelled') throw new HubError('expired', `This pairing is ${state}.`, 'Start a new pairing.');
    if (state === 'confirmed') throw new HubError('conflict', 'This pairing is confirmed already.', 'See the device in the devices list.');
    if (input.phrase !== undefined && normalizePhrase(input.phrase) !== normalizePhrase(p.phrase ?? '')) {
      throw new HubError(
        'invalid_argument',
        'That phrase is not the one this pairing shows.',
        'Compare the words on both screens; cancel the pairing if they differ.',
      );
    }
    const { device } = createDevice(hub, {
      name: p.name || p.device_name || 'Phone',
      scope: isDeviceScope(p.scope) ? p.scope : 'approvals',
    });
    confirmPairingRow(hub.db, p.id, hub.now(), device.id);
    return { pairing: pairingView(hub, requirePairing(hub, p.id)), device };
  });
  wakePairing(hub, input.pairing_id);
  return result;
}

const normalizePhrase = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();

export function cancelPairing(hub: PairingHub, pairingId: string): PairingView {
  const view = hub.write(() => {
    const p = requirePairing(hub, pairingId);
    if (p.confirmed_at != null)
      throw new HubError('conflict', 'This pairing is confirmed already: revoke the device instead.', 'Revoke it in the devices list.');
    cancelPairingRow(hub.db, p.id, hub.now());
    return pairingView(hub, requirePairing(hub, p.id));
  });
  wakePairing(hub, pairingId);
  return view;
}

// ---- the phone's side (device door) ------------------------------------------------------------

const CODE_RE = /^[A-Za-z0-9_-]{16,64}$/;

/** The phone claims a code: a used, cancelled or expired code → 410 expired; an unknown one → 404. */
export function claimPairing(
  hub: PairingHub,
  input: { code: string; device_name?: string },
): { pairing_id: string; phrase: string; claim_secret: string; expires_at: number; device_name: string } {
  if (typeof input.code !== 'string' || !CODE_RE.test(input.code)) {
    throw new HubError('invalid_argument', 'code must be the pairing code from the link (after #).', 'Scan the QR code again.');
  }
  const deviceName = input.device_name === undefined || input.device_name === '' ? 'Phone' : cleanDeviceName(input.device_name);
  const claimSecret = crypto.randomBytes(32).toString('base64url');
  const phrase = makePhrase();
  const out = hub.write(() => {
    const p = pairingByCodeHash(hub.db, hashOf('code', input.code));
    if (!p) throw new HubError('not_found', 'No such pairing code.', 'Scan the QR code on the laptop again, or start a new pairing there.');
    if (p.claimed_at != null || p.cancelled_at != null || p.expires_at <= hub.now()) {
      throw new HubError(
        'expired',
        'This pairing code was used already, cancelled, or has expired.',
        'Start a new pairing on the laptop (Settings → Phone) and scan its QR code.',
      );
    }
    claimPairingRow(hub.db, p.id, hub.now(), hashOf('claim', claimSecret), phrase, deviceName);
    // device_name: the name the device will be paired as, the one the laptop shows too (the owner's, if they named it).
    return { pairing_id: p.id, phrase, claim_secret: claimSecret, expires_at: p.expires_at, device_name: p.name || deviceName };
  });
  wakePairing(hub, out.pairing_id);
  return out;
}

/** What the phone's wait answers: the state, and once (when confirmed) the device credential. */
export type PairWaitAnswer = { state: PairingState; phrase: string | null } & (
  { device_token: string; device: DeviceView } | Record<never, never>
);

/**
 * The phone waits for the owner's confirmation, then collects its credential ONCE: a second collection, a wrong
 * claim secret's pairing, or a pairing cancelled or expired → 410 expired (a wrong secret → 404, as unknown).
 */
export async function waitPairing(
  hub: PairingHub,
  input: { pairing_id: string; claim_secret: string; wait_secs?: number },
  signal?: AbortSignal,
): Promise<PairWaitAnswer> {
  const check = (): PairingRow => {
    const p = pairingById(hub.db, input.pairing_id);
    const h = hashOf('claim', input.claim_secret);
    if (!p || !p.claim_hash || p.claim_hash.length !== h.length || !crypto.timingSafeEqual(p.claim_hash, h)) {
      throw new HubError('not_found', 'No such pairing for this phone.', 'Scan the QR code on the laptop again.');
    }
    if (p.delivered_at != null)
      throw new HubError(
        'expired',
        "This pairing's credential was collected already.",
        'If this phone lost it, revoke the device on the laptop and pair again.',
      );
    const s = stateOf(hub, p);
    if (s === 'cancelled' || s === 'expired') throw new HubError('expired', `This pairing is ${s}.`, 'Start a new pairing on the laptop.');
    if (s === 'confirmed' && p.expires_at + COLLECT_GRACE_MS <= hub.now())
      throw new HubError(
        'expired',
        "This pairing's credential was not collected in time.",
        'Revoke the device on the laptop and pair again.',
      );
    return p;
  };
  let p = check();
  const waitMs = Math.min(Math.max(input.wait_secs ?? 0, 0), 30) * 1000;
  if (stateOf(hub, p) === 'claimed' && waitMs > 0) {
    await waitForChange(hub, p.id, Math.max(0, Math.min(waitMs, p.expires_at - hub.now() + 50)), signal);
    p = check();
  }
  const state = stateOf(hub, p);
  if (state !== 'confirmed' || !p.device_id) return { state, phrase: p.phrase };
  const deviceId = p.device_id;
  // Collect once: mark delivered and give the device a fresh credential in one step (a race loses with 410).
  // The credential is minted here (only its hash is kept), so it never sits anywhere waiting to be collected.
  const token = hub.write(() => {
    const dev = deviceById(hub.db, deviceId);
    if (!dev || dev.revoked_at != null)
      throw new HubError('expired', 'The device of this pairing was revoked.', 'Pair again from the laptop.');
    if (!deliverPairingRow(hub.db, p.id, hub.now()))
      throw new HubError('expired', "This pairing's credential was collected already.", 'Revoke the device on the laptop and pair again.');
    return reissueDeviceToken(hub, deviceId);
  });
  const row = deviceById(hub.db, deviceId)!;
  wakePairing(hub, p.id);
  return { state, phrase: p.phrase, device_token: token, device: deviceView(row) };
}
