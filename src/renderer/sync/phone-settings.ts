// Settings → Phone: phone settings, pairing a phone (start, follow by long-poll, confirm, cancel),
// devices (revoke, test push) and the device audit list. The only writer of the phone store.
import { api } from '../transport';
import type { DeviceScope, NtfySettings, PairingState, PairingView, PushContent } from '../../shared/features/devices';
import { phoneSettingsStore } from '../stores/phone-settings';
import { attempt, errorText, toast } from './common';

export async function loadPhoneSettings(): Promise<void> {
  try {
    const { phone } = await api('phone.get', {});
    phoneSettingsStore.setState({ settings: phone, loadError: null });
  } catch (err) {
    phoneSettingsStore.setState({ loadError: errorText(err) });
  }
}

export async function loadDevices(): Promise<void> {
  const { devices } = await api('devices.list', {});
  phoneSettingsStore.setState({ devices });
}

export async function loadDeviceAudit(): Promise<void> {
  const { entries } = await api('devices.audit', { limit: 100 });
  phoneSettingsStore.setState({ audit: entries });
}

/** Everything the Phone page shows (each part on its own: one refusal does not hide the rest). */
export async function loadPhonePage(): Promise<void> {
  await Promise.all([loadPhoneSettings(), loadDevices().catch(() => {}), loadDeviceAudit().catch(() => {})]);
}

/** Saves the public URL (empty: no remote access). Resolves with the refusal in words, or null when saved. */
export async function savePublicUrl(text: string): Promise<string | null> {
  const url = text.trim();
  try {
    const { phone } = await api('phone.set', { public_url: url === '' ? null : url });
    phoneSettingsStore.setState({ settings: phone });
    toast(phone.public_url ? `Phones reach this hub at ${phone.public_url}.` : 'Remote access is off: no phone can reach this hub.');
    return null;
  } catch (err) {
    return errorText(err);
  }
}

export const setPushContent = (push_content: PushContent) =>
  attempt('Push content not saved', async () => {
    const { phone } = await api('phone.set', { push_content });
    phoneSettingsStore.setState({ settings: phone });
    toast(push_content === 'ids' ? 'Pushes now carry only ids; the phone fetches the details.' : 'Pushes now carry a short summary.');
    return phone;
  });

/** Saves the ntfy channel (null: off). Resolves with the refusal in words, or null when saved. */
export async function saveNtfy(ntfy: NtfySettings | null): Promise<string | null> {
  try {
    const { phone } = await api('phone.set', { ntfy });
    phoneSettingsStore.setState({ settings: phone });
    toast(phone.ntfy ? `ntfy: pushes also go to ${phone.ntfy.topic}.` : 'ntfy is off.');
    return null;
  } catch (err) {
    return errorText(err);
  }
}

// ---- pairing ----------------------------------------------------------------------------------

const RANK: Record<PairingState, number> = { waiting: 0, claimed: 1, confirmed: 2, expired: 2, cancelled: 2 };
const done = (p: PairingView) => RANK[p.state] === 2;

/** Takes a newer view of the running pairing (never steps back: an old long-poll answer does not undo a confirm). */
function putPairing(p: PairingView): void {
  phoneSettingsStore.setState((s) => {
    const cur = s.pairing;
    if (!cur || cur.pairing.pairing_id !== p.pairing_id || RANK[p.state] < RANK[cur.pairing.state]) return {};
    return { pairing: { ...cur, pairing: p, error: null } };
  });
}

const current = (id: string) => {
  const p = phoneSettingsStore.getState().pairing;
  return p && p.pairing.pairing_id === id ? p.pairing : null;
};

/** Follows a pairing by long-poll until it is confirmed, expired or cancelled, or the page drops it. Bounded. */
async function follow(id: string): Promise<void> {
  let failures = 0;
  for (let round = 0; round < 200; round++) {
    const p = current(id);
    if (!p || done(p)) return;
    if (Date.now() > p.expires_at + 60_000) return; // the hub should have said expired long ago
    try {
      const { pairing } = await api('devices.pair_status', { pairing_id: id, wait_secs: 25, state: p.state });
      failures = 0;
      putPairing(pairing);
      if (pairing.state === 'confirmed') void loadDevices().catch(() => {});
    } catch (err) {
      if (++failures >= 5) {
        phoneSettingsStore.setState((s) =>
          s.pairing?.pairing.pairing_id === id ? { pairing: { ...s.pairing, error: errorText(err) } } : {},
        );
        return;
      }
      await new Promise((r) => setTimeout(r, 1000 * failures));
    }
  }
}

/** Starts pairing a phone: the QR code and link appear, then the page waits for the phone. */
export const startPairing = (name: string, scope: DeviceScope) =>
  attempt('Pairing not started', async () => {
    const prev = phoneSettingsStore.getState().pairing;
    if (prev && !done(prev.pairing)) await api('devices.pair_cancel', { pairing_id: prev.pairing.pairing_id }).catch(() => {});
    const r = await api('devices.pair_start', name.trim() ? { name: name.trim(), scope } : { scope });
    phoneSettingsStore.setState({ pairing: { url: r.url, qr_svg: r.qr_svg, pairing: r.pairing, error: null } });
    void follow(r.pairing.pairing_id);
    return r;
  });

/** The owner saw the same words on both screens: the phone gets its credential. */
export const confirmPairing = () =>
  attempt('Not paired', async () => {
    const p = phoneSettingsStore.getState().pairing?.pairing;
    if (!p) return undefined;
    const r = await api('devices.pair_confirm', p.phrase ? { pairing_id: p.pairing_id, phrase: p.phrase } : { pairing_id: p.pairing_id });
    putPairing(r.pairing); // the page says it in place (no notice)
    void Promise.all([loadDevices(), loadDeviceAudit()]).catch(() => {});
    return r;
  });

/** Stops the running pairing (its code stops working) and clears it from the page. */
export const cancelPairing = () =>
  attempt('Pairing not cancelled', async () => {
    const p = phoneSettingsStore.getState().pairing?.pairing;
    phoneSettingsStore.setState({ pairing: null });
    if (p && !done(p)) await api('devices.pair_cancel', { pairing_id: p.pairing_id });
    return true;
  });

/** Clears a finished pairing from the page (to start again). */
export function clearPairing(): void {
  const p = phoneSettingsStore.getState().pairing?.pairing;
  if (p && !done(p)) void cancelPairing();
  else phoneSettingsStore.setState({ pairing: null });
}

/** The countdown ran out on this screen: show it expired at once (the hub agrees; its answer comes by long-poll). */
export function markPairingExpired(id: string): void {
  const p = current(id);
  if (p && !done(p) && Date.now() >= p.expires_at) putPairing({ ...p, state: 'expired' });
}

// ---- devices ----------------------------------------------------------------------------------

export const revokeDevice = (deviceId: string) =>
  attempt('Device not revoked', async () => {
    const { device } = await api('devices.revoke', { device_id: deviceId });
    phoneSettingsStore.setState((s) => ({ devices: s.devices.map((d) => (d.id === device.id ? device : d)) }));
    toast(`Revoked ${device.name}: its credential and its pushes stopped.`);
    void loadDeviceAudit().catch(() => {});
    return device;
  });

export const sendTestPush = (deviceId: string) =>
  attempt('Test push not sent', async () => {
    const r = await api('devices.test_push', { device_id: deviceId });
    phoneSettingsStore.setState((s) => ({
      tests: { ...s.tests, [deviceId]: r },
      devices: s.devices.map((d) => (d.id === r.device.id ? r.device : d)),
    }));
    return r;
  });
