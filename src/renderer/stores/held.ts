// Review mode: sends held for the owner (the Approvals inbox's "wants to send" items).
import { create } from 'zustand';
import type { HeldItem } from '../model';

export interface HeldState {
  items: HeldItem[];
  loaded: boolean;
  /** The held item the keyboard acts on (s send, e edit, x discard). */
  selected: string | null;
  /** Held items being edited: the text as the owner changed it. */
  drafts: Record<string, string>;
}

export const heldStore = create<HeldState>(() => ({ items: [], loaded: false, selected: null, drafts: {} }));
export const useHeld = heldStore;
