// A paired phone: its device credential's scope, the /pair page's progress, and its push subscription.
import { create } from 'zustand';
import type { DeviceMe } from '../transport';
import { deviceReachOf, type HandoffItem, type OwnerAction } from '../../shared/api/owner-api';

export type PairStep =
  | { step: 'form' }
  | { step: 'claiming' }
  | { step: 'phrase'; phrase: string; expiresAt: number; name: string }
  | { step: 'done' }
  | { step: 'error'; message: string };

export interface PairedDeviceState {
  /** This UI runs with a device credential (no owner session): the device and its scope; null otherwise. */
  me: DeviceMe['device'] | null;
  /** The hub refused the device credential (revoked): it was forgotten. */
  revoked: boolean;
  /** The /pair page: the code from the link's fragment and where the pairing is. */
  code: string | null;
  pair: PairStep;
  /** "Turn on notifications". */
  push: { state: 'idle' | 'working' | 'on' | 'error'; message: string | null };
  /** A device of scope approvals (no conversation list): the handoffs waiting for the owner (handoffs.list). */
  handoffs: HandoffItem[];
  handoffsLoaded: boolean;
  /** The owner chose "Forget this phone" here: the credential is gone; the pairing instructions show. */
  forgotten: boolean;
}

export const pairedDeviceStore = create<PairedDeviceState>(() => ({
  me: null,
  revoked: false,
  code: null,
  pair: { step: 'form' },
  push: { state: 'idle', message: null },
  handoffs: [],
  handoffsLoaded: false,
  forgotten: false,
}));
export const usePairedDevice = pairedDeviceStore;

/** A device of scope approvals: only the Approvals inbox. */
export const approvalsOnly = (): boolean => pairedDeviceStore.getState().me?.scope === 'approvals';

/**
 * Something only the laptop may do: an owner action whose device reach is 'laptop' in the contract (shared/api/owner-api.ts;
 * the hub refuses it 403 to every paired device, whatever its scope), or the archive export (its own door, owner/http.ts,
 * never for a device).
 */
export type LaptopThing = OwnerAction | 'archive.export';

/** Whether this UI runs on a paired device and `what` is for the laptop only: the page neither loads nor offers it. */
export function laptopOnly(what: LaptopThing, me: PairedDeviceState['me'] = pairedDeviceStore.getState().me): boolean {
  return me !== null && (what === 'archive.export' || deviceReachOf(what) === 'laptop');
}

/** laptopOnly for a component: re-renders when the device's credential is read or forgotten. */
export function useLaptopOnly(what: LaptopThing): boolean {
  const me = usePairedDevice((s) => s.me);
  return laptopOnly(what, me);
}

/** The title of a button a device does not offer (disabled there). */
export const ON_THE_LAPTOP_TITLE = 'Only on the laptop: a paired phone cannot do this.';
