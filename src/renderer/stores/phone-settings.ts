// Settings → Phone: the phone settings, paired devices, their audit list and a pairing while it runs.
import { create } from 'zustand';
import type { DeviceAuditEntry, DeviceView, PairingView, PhoneSettings } from '../../shared/features/devices';
import type { OwnerResults } from '../../shared/api/owner-api';

export type TestPushResult = OwnerResults['devices.test_push'];

/** A pairing the laptop started: the link and its QR code, and the pairing as the hub last told it. */
export interface PairingRun {
  url: string;
  qr_svg: string;
  pairing: PairingView;
  /** Why the laptop cannot follow it any more (the hub stopped answering), if so. */
  error: string | null;
}

export interface PhoneSettingsState {
  settings: PhoneSettings | null;
  /** Why the settings could not be read, if they could not. */
  loadError: string | null;
  devices: DeviceView[];
  audit: DeviceAuditEntry[];
  pairing: PairingRun | null;
  /** The last test push per device id. */
  tests: Record<string, TestPushResult>;
}

export const phoneSettingsStore = create<PhoneSettingsState>(() => ({
  settings: null,
  loadError: null,
  devices: [],
  audit: [],
  pairing: null,
  tests: {},
}));
export const usePhoneSettings = phoneSettingsStore;
