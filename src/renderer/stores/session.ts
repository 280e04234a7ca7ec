// Who the owner is and whether the hub answers: drives the sign-in screen and the connection dot.
import { create } from 'zustand';
import type { HubInfo, StorageStatus } from '../model';
import type { LinkStatus } from '../transport';

export interface SessionState {
  status: 'loading' | 'ready' | 'signed-out' | 'error' | 'pairing';
  error: string | null;
  info: HubInfo | null;
  link: LinkStatus;
  /** Whether the hub can save (full: the disk is full, writes are refused); null before it is known. */
  storage: StorageStatus | null;
}

export const sessionStore = create<SessionState>(() => ({ status: 'loading', error: null, info: null, link: 'connecting', storage: null }));
export const useSession = sessionStore;

/** The owner's user id ('' before sign-in). */
export const ownerId = (): string => sessionStore.getState().info?.owner.id ?? '';
