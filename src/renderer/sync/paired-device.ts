// A paired phone: the /pair page (claim the code, show the phrase, wait for the laptop's confirmation,
// keep the credential), the device credential's scope at boot, and "Turn on notifications" (the service worker and
// the push subscription). Every write of the device store is here.
import { DEVICE_PAIR_PAGE } from '../../shared/features/devices';
import { api, deviceDoor, storeDeviceToken, type DoorReply } from '../transport';
import { pairedDeviceStore, type PairStep } from '../stores/paired-device';
import { sessionStore } from '../stores/session';
import { attempt, toast } from './common';

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
  pairedDeviceStore.setState({ code: code ? decodeURIComponent(code) : pairedDeviceStore.getState().code, pair: { step: 'form' } });
  sessionStore.setState({ status: 'pairing' });
  return true;
}

const setPair = (pair: PairStep) => pairedDeviceStore.setState({ pair });

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
  const code = pairedDeviceStore.getState().code;
  if (!code)
    return setPair({ step: 'error', message: 'This link has no pairing code — scan the QR code on the laptop (Settings → Phone) again.' });
  setPair({ step: 'claiming' });
  const claim = await deviceDoor.claim(code, deviceName.trim() || defaultDeviceName());
  if (!claim.ok) return setPair({ step: 'error', message: pairingError(claim) });
  const { pairing_id, claim_secret, phrase, expires_at } = claim.value;
  const name = claim.value.device_name ?? (deviceName.trim() || defaultDeviceName());
  setPair({ step: 'phrase', phrase, expiresAt: expires_at, name });
  const deadline = Math.max(expires_at, Date.now()) + 10_000;
  let networkFailures = 0;
  for (let i = 0; i < 200 && Date.now() < deadline; i++) {
    const w = await deviceDoor.wait(pairing_id, claim_secret, 25);
    if (w.ok) {
      networkFailures = 0;
      if (w.value.device_token) {
        storeDeviceToken(w.value.device_token);
        pairedDeviceStore.setState({ code: null, revoked: false, forgotten: false });
        setPair({ step: 'done' });
        onPaired();
        return;
      }
      if (w.value.state === 'expired')
        return setPair({
          step: 'error',
          message: 'The pairing expired before the laptop confirmed it — start a new pairing on the laptop.',
        });
      if (w.value.state === 'cancelled')
        return setPair({
          step: 'error',
          message: 'The pairing was cancelled on the laptop — start a new one there if you want to pair this phone.',
        });
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
    pairedDeviceStore.setState({
      me: r.value.device,
      revoked: false,
      push: r.value.device.push ? { state: 'on', message: null } : pairedDeviceStore.getState().push,
    });
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
  pairedDeviceStore.setState({ me: null, revoked: true });
  sessionStore.setState({ status: 'signed-out', error: null });
}

/**
 * "Forget this phone": stops its notifications (the browser's push subscription, and the hub's copy when the push
 * door answers), forgets the credential, and shows the pairing instructions. The laptop still lists the device until
 * it is revoked there. The caller (live.ts) closes the live stream first.
 */
export async function forgetThisDevice(): Promise<void> {
  try {
    const reg = 'serviceWorker' in navigator ? await navigator.serviceWorker.getRegistration('/') : undefined;
    const sub = reg ? await reg.pushManager.getSubscription() : null;
    if (sub) {
      await deviceDoor.unsubscribe().catch(() => undefined); // best effort: the hub also drops it when the push service answers 404/410
      await sub.unsubscribe().catch(() => false);
    }
  } catch {
    /* no service worker here: nothing to stop */
  }
  storeDeviceToken(null);
  pairedDeviceStore.setState({
    me: null,
    revoked: false,
    forgotten: true,
    handoffs: [],
    handoffsLoaded: false,
    push: { state: 'idle', message: null },
  });
  sessionStore.setState({ status: 'signed-out', error: null, info: null, link: 'unauthorized' });
}

// ---- handoffs on a device of scope approvals (it has no conversation list: handoffs.list is its source) ----

/** Loads the handoffs waiting for the owner (handoffs.list). */
export async function loadHandoffs(): Promise<void> {
  const r = await api('handoffs.list', {});
  pairedDeviceStore.setState({ handoffs: r.handoffs, handoffsLoaded: true });
}

let handoffTimer: ReturnType<typeof setTimeout> | null = null;
/** A handoff.* event arrived in the live stream: re-read the list shortly (several events make one read). */
export function refreshHandoffsSoon(): void {
  if (handoffTimer) return;
  handoffTimer = setTimeout(() => {
    handoffTimer = null;
    loadHandoffs().catch(() => {});
  }, 250);
}

/** Hands a conversation back to the agent from the phone (note required); the agent is woken with the note. */
export function handBackFromPhone(convId: string, agentId: string, note: string) {
  return attempt('Not handed back', async () => {
    const r = await api('handoffs.hand_back', { conv_id: convId, agent: agentId, note });
    pairedDeviceStore.setState((s) => ({ handoffs: s.handoffs.filter((h) => !(h.conv_id === convId && h.agent.id === agentId)) }));
    toast(`Handed back to ${r.agent.name}.`);
    refreshHandoffsSoon();
    return r;
  });
}

function base64UrlToBytes(s: string): Uint8Array<ArrayBuffer> {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(new ArrayBuffer(bin.length));
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

const setPush = (state: 'idle' | 'working' | 'on' | 'error', message: string | null = null) =>
  pairedDeviceStore.setState({ push: { state, message } });

/** Why this browser cannot take push notifications, or null when it can try. */
export function pushUnsupportedReason(): string | null {
  const ua = navigator.userAgent;
  const ios = /iPhone|iPad|iPod/i.test(ua);
  const standalone = matchMedia('(display-mode: standalone)').matches || (navigator as { standalone?: boolean }).standalone === true;
  if (ios && !standalone)
    return 'On iPhone and iPad, notifications work only from the Home Screen app: tap Share → Add to Home Screen, open Perch from there, then turn them on.';
  if (!window.isSecureContext) return 'Notifications need a secure (https) address: open Perch through its https link.';
  if (!('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window))
    return 'This browser cannot receive push notifications.';
  return null;
}

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T | 'timeout'> =>
  Promise.race([p, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), ms))]);

const NOTHING_CHANGED = 'Nothing was changed: requests still show here when you open Perch.';

/** What a failed pushManager.subscribe means, in words (Chromium answers AbortError when it has no push service). */
export function pushServiceFailure(err: unknown): string {
  const name = err instanceof DOMException || err instanceof Error ? err.name : '';
  const said = err instanceof Error ? err.message : String(err);
  if (name === 'NotAllowedError')
    return `This browser refused a push subscription ("${said}"). Allow notifications for this site in the browser's settings, then try again. ${NOTHING_CHANGED}`;
  if (name === 'AbortError')
    return `This browser has no working push service, so it cannot receive notifications ("${said}"). On Android use Chrome; on iPhone open Perch from the Home Screen. ${NOTHING_CHANGED}`;
  return `This browser could not make a push subscription ("${said}"). ${NOTHING_CHANGED}`;
}

const sameKey = (a: ArrayBuffer | null | undefined, b: Uint8Array): boolean =>
  !!a && a.byteLength === b.byteLength && new Uint8Array(a).every((x, i) => x === b[i]);

/**
 * "Turn on notifications": permission, the service worker (/sw.js), a push subscription with the hub's VAPID key,
 * and POST /api/device/push/subscribe. Each failure says what to do and undoes what this call set up (the service
 * worker it registered, the subscription it made), so a failure changes nothing.
 */
export async function enableNotifications(): Promise<void> {
  const unsupported = pushUnsupportedReason();
  if (unsupported) return setPush('error', unsupported);
  setPush('working');
  let registered: ServiceWorkerRegistration | null = null; // registered by this call (none before): undone on failure
  let made: PushSubscription | null = null; // made by this call: undone on failure
  const fail = async (message: string) => {
    await made?.unsubscribe().catch(() => false);
    await registered?.unregister().catch(() => false);
    setPush('error', message);
  };
  try {
    const permission = await Notification.requestPermission();
    if (permission === 'denied')
      return setPush(
        'error',
        `Notifications are blocked for this site — allow them in the browser's site settings, then try again. ${NOTHING_CHANGED}`,
      );
    if (permission !== 'granted')
      return setPush('error', 'Notifications were not allowed. Tap "Turn on notifications" again and choose Allow.');
    const me = await deviceDoor.me();
    if (!me.ok) {
      if (me.status === 401) return deviceGone();
      return setPush('error', `${me.error.message} ${me.error.next_step}`.trim());
    }
    const key = base64UrlToBytes(me.value.vapid_public_key);
    const before = await navigator.serviceWorker.getRegistration('/');
    let reg: ServiceWorkerRegistration;
    try {
      reg = await navigator.serviceWorker.register('/sw.js', { scope: '/' });
    } catch (err) {
      return await fail(
        `This Perch could not start its notification worker (/sw.js: "${err instanceof Error ? err.message : String(err)}"). Update Perch on the laptop, then try again. ${NOTHING_CHANGED}`,
      );
    }
    if (!before) registered = reg;
    if ((await withTimeout(navigator.serviceWorker.ready, 15_000)) === 'timeout')
      return await fail(`The notification worker did not start. Reload the page and try again. ${NOTHING_CHANGED}`);
    let sub: PushSubscription;
    try {
      const existing = await reg.pushManager.getSubscription();
      // A subscription made for another key (another Perch, or new VAPID keys) would never receive: replace it.
      if (existing && !sameKey(existing.options.applicationServerKey, key)) await existing.unsubscribe();
      const keep = existing && sameKey(existing.options.applicationServerKey, key) ? existing : null;
      sub = keep ?? (made = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }));
    } catch (err) {
      return await fail(pushServiceFailure(err));
    }
    const json = sub.toJSON();
    const r = await deviceDoor.subscribe({
      endpoint: sub.endpoint,
      keys: { p256dh: json.keys?.p256dh ?? '', auth: json.keys?.auth ?? '' },
    });
    if (!r.ok) {
      if (r.status === 401) {
        await fail('');
        return deviceGone();
      }
      return await fail(`The laptop did not take this phone's subscription: ${r.error.message} ${r.error.next_step}`.trim());
    }
    setPush('on', 'Notifications are on: new requests arrive on this phone.');
  } catch (err) {
    await fail(`Could not turn on notifications: ${err instanceof Error ? err.message : String(err)}. ${NOTHING_CHANGED}`);
  }
}
