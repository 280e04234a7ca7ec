// Where the owner is in the app: the view, the open thread, the image viewer, notices.
import { create } from 'zustand';

export type View =
  | { name: 'home' }
  | { name: 'conversation'; convId: string }
  | { name: 'approvals' }
  | { name: 'fleet' }
  | { name: 'agents' }
  | { name: 'phone' };

export interface Toast {
  id: number;
  kind: 'info' | 'error';
  text: string;
}

export interface UiState {
  view: View;
  /** Thread open beside the conversation (its root msg_id). */
  threadRoot: string | null;
  /** The side panel shows the live progress feed. */
  showActivity: boolean;
  /** The message the composer replies to. */
  replyTo: string | null;
  /** The message to scroll into view once it is loaded. */
  focusMsg: string | null;
  filter: string;
  viewer: { fileId: string; name: string } | null;
  toasts: Toast[];
  newConversation: boolean;
}

export const uiStore = create<UiState>(() => ({
  view: { name: 'home' },
  threadRoot: null,
  showActivity: true,
  replyTo: null,
  focusMsg: null,
  filter: '',
  viewer: null,
  toasts: [],
  newConversation: false,
}));
export const useUi = uiStore;

export function currentConvId(): string | null {
  const v = uiStore.getState().view;
  return v.name === 'conversation' ? v.convId : null;
}
