// Where the owner is in the app: the view, the open thread, the image viewer, notices.
import { create } from 'zustand';

export type View =
  | { name: 'home' }
  | { name: 'conversation'; convId: string }
  | { name: 'approvals' }
  | { name: 'fleet' }
  | { name: 'agents' }
  /** The conversation list on its own (the phone layout's Conversations tab; on a wide screen the sidebar shows it). */
  | { name: 'conversations' }
  /** One request at full width (what a notification tap opens: /r/<request_id>). */
  | { name: 'request'; requestId: string }
  /** Settings → Phone (remote access, pairing, devices). */
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
  showActivity: !(typeof matchMedia === 'function' && matchMedia('(max-width: 700px)').matches), // a phone shows the conversation alone
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
