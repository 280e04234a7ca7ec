// A paired phone (issue 13): the /pair page (claim the code, show the phrase, wait for the laptop's confirmation,
// keep the credential), the device credential's scope at boot, and "Turn on notifications" (the service worker and
// the push subscription). Every write of the device store is here.
import { DEVICE_PAIR_PAGE } from '../../shared/devices';
import { deviceDoor, storeDeviceToken, type DoorReply } from '../transport';
import { deviceStore, type PairStep } from '../stores/device';
import { sessionStore } from '../stores/session';

/** The device name the /pair page suggests, from the user agent. */
export function defaultDeviceName(ua: string = navigator.userAgent): string {
  if (/iPhone/i.test(ua)) return 'iPhone';
  if (/iPad/i.test(ua)) return 'iPad';
  if (/Android/i.test(ua)) return /Mobile/i.test(ua) ? 'Android phone' : 'Android tablet';
  if (/Macintosh/i.test(ua)) return 'Mac';
  if (/Windows/i.test(ua)) return 'Windows computer';
  if (/Linux/i.test(ua)) return 'Linux computer';
  return 'Phone';
}

/** Whether this page is the pairing page (/pair#<code>): it then shows instead of the app. */
export function openPairPageIfAsked(): boolean {
  if (location.pathname !== DEVICE_PAIR_PAGE) return false;
  // The code is in the fragment (never sent to a server); keep it in memory and take it out of the address bar.
  const frag = location.hash.slice(1);
  const code = frag.includes('=') ? new URLSearchParams(frag).get('code') : frag;
  if (code) history.replaceState(null, '', DEVICE_PAIR_PAGE);
  deviceStore.setState({ code: code ? decodeURIComponent(code) : deviceStore.getState().code, pair: { step: 'form' } });
  sessionStore.setState({ status: 'pairing' });
  return true;
}

const setPair = (pair: PairStep) => deviceStore.setState({ pair });

function pairingError(r: DoorReply<unknown> & { ok: false }): string {
  switch (r.status) {
    case 410:
      return 'This pairing code was used or has expired — start a new pairing on the laptop (Settings → Phone).';
    case 404:
      return 'This pairing code is not known — open the link from the QR code again, or start a new pairing on the laptop.';
    case 429:
      return 'Too many pairing attempts — wait a minute, then try again.';
    case 0:
      return "Cannot reach the laptop's Perch (network). Check that this phone is on the same tailnet and the laptop is awake, then try again.";
    default:
      return `${r.error.message} ${r.error.next_step}`.trim();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Pairs this phone: claims the code with a device name, shows the phrase, waits (long-poll) until the owner confirms
 * on the laptop, keeps the credential and calls onPaired (which opens the inbox). Bounded by the pairing's expiry.
 */
export async function pairThisDevice(deviceName: string, onPaired: () => void): Promise<void> {
  const code = deviceStore.getState().code;
  if (!code) return setPair({ step: 'error', message: 'This link has no pairing code — scan the QR code on the laptop (Settings → Phone) again.' });
  setPair({ step: 'claiming' });
  const claim = await deviceDoor.claim(code, deviceName.trim() || defaultDeviceName());
  if (!claim.ok) return setPair({ step: 'error', message: pairingError(claim) });
  const { pairing_id, claim_secret, phrase, expires_at } = claim.value;
  setPair({ step: 'phrase', phrase, expiresAt: expires_at });
  const deadline = Math.max(expires_at, Date.now()) + 10_000;
  let networkFailures = 0;
  for (let i = 0; i < 200 && Date.now() < deadline; i++) {
    const w = await deviceDoor.wait(pairing_id, claim_secret, 25);
    if (w.ok) {
      networkFailures = 0;
      if (w.value.device_token) {
        storeDeviceToken(w.value.device_token);
        deviceStore.setState({ code: null, revoked: false });
        setPair({ step: 'done' });
        onPaired();
        return;
      }
      if (w.value.state === 'expired') return setPair({ step: 'error', message: 'The pairing expired before the laptop confirmed it — start a new pairing on the laptop.' });
      if (w.value.state === 'cancelled') return setPair({ step: 'error', message: 'The pairing was cancelled on the laptop — start a new one there if you want to pair this phone.' });
      continue;
    }
    if (w.status === 0 && ++networkFailures <= 5) {
      await sleep(2000); // a dropped connection while waiting: try again a few times
      continue;
    }
    if (w.status === 429) {
      await sleep(5000);
      continue;
    }
    return setPair({ step: 'error', message: pairingError(w) });
  }
  setPair({ step: 'error', message: 'The pairing expired before the laptop confirmed it — start a new pairing on the laptop.' });
}

/** Starts over on the /pair page (after an error), keeping the code. */
export function resetPairing(): void {
  setPair({ step: 'form' });
}

/**
 * In device mode, reads the device's scope (GET /api/device/me). false: the credential was refused (revoked; it is
 * forgotten and the sign-in screen says so) or the hub did not answer.
 */
export async function loadDevice(): Promise<boolean> {
  const r = await deviceDoor.me();
  if (r.ok) {
    deviceStore.setState({ me: r.value.device, revoked: false, push: r.value.device.push ? { state: 'on', message: null } : deviceStore.getState().push });
    return true;
  }
  if (r.status === 401) {
    deviceGone();
    return false;
  }
  sessionStore.setState({ status: 'error', error: `${r.error.message} ${r.error.next_step}`.trim() });
  return false;
}

/** The hub refused the device credential: show the pairing-revoked screen. */
export function deviceGone(): void {
  deviceStore.setState({ me: null, revoked: true });
  sessionStore.setState({ status: 'signed-out', error: null });
}

/** Forgets this phone's credential (it stays listed on the laptop until revoked there). */
export function forgetThisDevice(): void {
  storeDeviceToken(null);
  deviceStore.setState({ me: null, revoked: false });
  sessionStore.setState({ status: 'signed-out', error: null });
}

function base64UrlToBytes(s: string): Uint8Array<ArrayBuffer> {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(new ArrayBuffer(bin.length));
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

const setPush = (state: 'idle' | 'working' | 'on' | 'error', message: string | null = null) => deviceStore.setState({ push: { state, message } });

/** Why this browser cannot take push notifications, or null when it can try. */
export function pushUnsupportedReason(): string | null {
  const ua = navigator.userAgent;
  const ios = /iPhone|iPad|iPod/i.test(ua);
  const standalone = matchMedia('(display-mode: standalone)').matches || (navigator as { standalone?: boolean }).standalone === true;
  if (ios && !standalone) return 'On iPhone and iPad, notifications work only from the Home Screen app: tap Share → Add to Home Screen, open Perch from there, then turn them on.';
  if (!window.isSecureContext) return 'Notifications need a secure (https) address: open Perch through its https link.';
  if (!('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window)) return 'This browser cannot receive push notifications.';
  return null;
}

/**
 * "Turn on notifications": permission, the service worker (/sw.js), a push subscription with the hub's VAPID key,
 * and POST /api/device/push/subscribe. Each failure says what to do.
 */
export async function enableNotifications(): Promise<void> {
  const unsupported = pushUnsupportedReason();
  if (unsupported) return setPush('error', unsupported);
  setPush('working');
  try {
    const permission = await Notification.requestPermission();
    if (permission !== 'granted') return setPush('error', "Notifications are blocked for this site — allow them in the browser's site settings, then try again.");
    const me = await deviceDoor.me();
    if (!me.ok) {
      if (me.status === 401) return deviceGone();
      return setPush('error', `${me.error.message} ${me.error.next_step}`.trim());
    }
    const reg = await navigator.serviceWorker.register('/sw.js', { scope: '/' });
    await navigator.serviceWorker.ready;
    let sub: PushSubscription;
    try {
      sub = (await reg.pushManager.getSubscription()) ?? (await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: base64UrlToBytes(me.value.vapid_public_key) }));
    } catch (err) {
      return setPush('error', `This browser has no push service available (${err instanceof Error ? err.message : String(err)}).`);
    }
    const json = sub.toJSON();
    const r = await deviceDoor.subscribe({ endpoint: sub.endpoint, keys: { p256dh: json.keys?.p256dh ?? '', auth: json.keys?.auth ?? '' } });
    if (!r.ok) {
      if (r.status === 401) return deviceGone();
      return setPush('error', `${r.error.message} ${r.error.next_step}`.trim());
    }
    setPush('on', 'Notifications are on: new requests arrive on this phone.');
  } catch (err) {
    setPush('error', `Could not turn on notifications: ${err instanceof Error ? err.message : String(err)}`);
  }
}
