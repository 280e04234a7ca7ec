// A paired phone (issue 13): its device credential's scope, the /pair page's progress, and its push subscription.
import { create } from 'zustand';
import type { DeviceMe } from '../transport';

export type PairStep =
  | { step: 'form' }
  | { step: 'claiming' }
  | { step: 'phrase'; phrase: string; expiresAt: number }
  | { step: 'done' }
  | { step: 'error'; message: string };

export interface DeviceState {
  /** This UI runs with a device credential (no owner session): the device and its scope; null otherwise. */
  me: DeviceMe['device'] | null;
  /** The hub refused the device credential (revoked): it was forgotten. */
  revoked: boolean;
  /** The /pair page: the code from the link's fragment and where the pairing is. */
  code: string | null;
  pair: PairStep;
  /** "Turn on notifications". */
  push: { state: 'idle' | 'working' | 'on' | 'error'; message: string | null };
}

export const deviceStore = create<DeviceState>(() => ({ me: null, revoked: false, code: null, pair: { step: 'form' }, push: { state: 'idle', message: null } }));
export const useDevice = deviceStore;

/** A device of scope approvals: only the Approvals inbox. */
export const approvalsOnly = (): boolean => deviceStore.getState().me?.scope === 'approvals';
