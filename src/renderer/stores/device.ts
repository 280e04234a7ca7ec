// A paired phone: its device credential's scope, the /pair page's progress, and its push subscription.
import { create } from 'zustand';
import type { DeviceMe } from '../transport';
import type { HandoffItem } from '../../shared/owner-api';

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
  /** A device of scope approvals (no conversation list): the handoffs waiting for the owner (handoffs.list). */
  handoffs: HandoffItem[];
  handoffsLoaded: boolean;
  /** The owner chose "Forget this phone" here: the credential is gone; the pairing instructions show. */
  forgotten: boolean;
}

export const deviceStore = create<DeviceState>(() => ({ me: null, revoked: false, code: null, pair: { step: 'form' }, push: { state: 'idle', message: null }, handoffs: [], handoffsLoaded: false, forgotten: false }));
export const useDevice = deviceStore;

/** A device of scope approvals: only the Approvals inbox. */
export const approvalsOnly = (): boolean => deviceStore.getState().me?.scope === 'approvals';
