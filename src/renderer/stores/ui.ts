// Where the owner is in the app: the view, the open thread, the image viewer, notices.
import { create } from 'zustand';

export type View =
  | { name: 'home' }
  | { name: 'conversation'; convId: string }
  | { name: 'approvals' }
  | { name: 'fleet' }
  /** The Ledger; with call, that one tool call (an approval card's link to its outcome); with agent, filtered to it. */
  | { name: 'ledger'; call?: string; agent?: string }
  /**
   * The agents list; with agent, that agent's detail pane (on a phone: the detail instead of the list), on its Ledger
   * tab with tab 'ledger'.
   */
  | { name: 'agents'; agent?: string; tab?: 'ledger' }
  /** The conversation list on its own (the phone layout's Conversations tab; on a wide screen the sidebar shows it). */
  | { name: 'conversations' }
  /** One request at full width (what a notification tap opens: /r/<request_id>). */
  | { name: 'request'; requestId: string }
  /** Settings → Phone (remote access, pairing, devices). */
  | { name: 'phone' }
  /** Settings: how decisions are sent (no tab), agents in containers, data (retention and export). */
  | { name: 'settings'; tab?: SettingsTab };

/** Settings' tabs besides Decisions (its first) and Phone (its own view). */
export type SettingsTab = 'containers' | 'data' | 'wake';

export interface Toast {
  id: number;
  kind: 'info' | 'error';
  text: string;
}

/** A decision waiting for its undo window to close (sync/undo.ts), or being sent. */
export interface PendingDecision {
  id: number;
  /** The request_id or held_id decided. */
  key: string;
  /** What will be sent, in words ("Approve “Deploy v2?”"). */
  text: string;
  /** When the window closes (ms since epoch). */
  until: number;
  /** The hub is being told. */
  sending: boolean;
  /** Sent without a window (the owner's setting). */
  atOnce: boolean;
}

/** localStorage: the owner prefers decisions sent at once, without an undo window. */
export const DECIDE_AT_ONCE_KEY = 'perch.decisions.at_once';
/** localStorage: the owner wants the undo window for harness prompts too (by default they are decided at once). */
export const PROMPT_WINDOW_KEY = 'perch.decisions.prompt_window';
/** A choice kept in this browser's localStorage ('1' when on). */
export function storedFlag(key: string): boolean {
  try {
    return localStorage.getItem(key) === '1';
  } catch {
    return false;
  }
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
  /** Decisions waiting for their undo window (the items they decide leave the inbox meanwhile). */
  pendingDecisions: PendingDecision[];
  /** Settings: decisions go to the hub at once, without an undo window. */
  decideAtOnce: boolean;
  /** Settings: harness prompts (their agent is blocked meanwhile) get the undo window too. */
  promptWindow: boolean;
  /** What waits for the owner (sync/waiting.ts): pending requests, held items, handoffs to them. */
  waitingCount: number;
  /** Desktop notifications in this browser (sync/waiting.ts): on, or why they could not be turned on. */
  desktopNotify: { on: boolean; message: string | null; working: boolean };
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
  pendingDecisions: [],
  decideAtOnce: storedFlag(DECIDE_AT_ONCE_KEY),
  promptWindow: storedFlag(PROMPT_WINDOW_KEY),
  waitingCount: 0,
  desktopNotify: { on: false, message: null, working: false },
}));
export const useUi = uiStore;

export function currentConvId(): string | null {
  const v = uiStore.getState().view;
  return v.name === 'conversation' ? v.convId : null;
}
