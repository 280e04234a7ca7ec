// Decisions with a way back, as mail clients send: approving, rejecting, answering or choosing a request and
// sending or discarding a held item is sent to the hub only when a short undo window closes. Until then the item
// leaves the inbox, a notice says what will be sent and offers Undo, and nothing reaches the hub. The owner may
// prefer decisions to go out at once (Settings); that choice is kept in this browser's localStorage.
// A harness's permission prompt (its agent is blocked until it is decided) goes out at once by default; the owner
// may give those the window too (Settings).
import { DECIDE_AT_ONCE_KEY, PROMPT_WINDOW_KEY, uiStore, type PendingDecision, type UiState } from '../stores/ui';
import { markLeaving } from '../transport';

/** How long a decision waits for Undo before it is sent. */
export const UNDO_MS = 5000;

function setStoredFlag(key: string, field: 'decideAtOnce' | 'promptWindow', on: boolean): void {
  try {
    if (on) localStorage.setItem(key, '1');
    else localStorage.removeItem(key);
  } catch {
    /* storage refused (private mode): the choice lasts as long as this page */
  }
  uiStore.setState({ [field]: on } as Pick<UiState, typeof field>);
}
export const setDecideAtOnce = (on: boolean): void => setStoredFlag(DECIDE_AT_ONCE_KEY, 'decideAtOnce', on);
export const setPromptWindow = (on: boolean): void => setStoredFlag(PROMPT_WINDOW_KEY, 'promptWindow', on);

interface Waiting {
  timer: ReturnType<typeof setTimeout>;
  send: () => void;
  onUndo?: () => void;
}
const waiting = new Map<number, Waiting>();
let nextId = 0;

function patch(id: number, change: Partial<PendingDecision> | null): void {
  uiStore.setState((s) => ({
    pendingDecisions: change
      ? s.pendingDecisions.map((d) => (d.id === id ? { ...d, ...change } : d))
      : s.pendingDecisions.filter((d) => d.id !== id),
  }));
}

/**
 * Sends a decision about one item (key: its request_id or held_id) after the undo window, or at once when the
 * owner prefers that, or when it blocks an agent (blocking: a harness's permission prompt) and the owner has not
 * asked for the window for those. While it waits or is being sent, the item counts as decided (isDeciding). run
 * resolves with undefined when the hub refused it: the item then comes back.
 */
export function decideAfterUndoWindow(key: string, text: string, run: () => Promise<unknown>, onUndo?: () => void, blocking = false): void {
  if (isDeciding(key)) return; // one decision per item
  const id = ++nextId;
  const send = () => {
    const w = waiting.get(id);
    if (!w) return;
    clearTimeout(w.timer);
    waiting.delete(id);
    patch(id, { sending: true });
    void run().finally(() => patch(id, null));
  };
  const { decideAtOnce, promptWindow } = uiStore.getState();
  const atOnce = decideAtOnce || (blocking && !promptWindow);
  uiStore.setState((s) => ({
    pendingDecisions: [...s.pendingDecisions, { id, key, text, until: Date.now() + UNDO_MS, sending: false, atOnce }],
  }));
  waiting.set(id, { timer: setTimeout(send, atOnce ? 0 : UNDO_MS), send, ...(onUndo ? { onUndo } : {}) });
  if (atOnce) send();
}

/** Takes a waiting decision back: nothing is sent, the item is back where it was. */
export function undoDecision(id: number): void {
  const w = waiting.get(id);
  if (!w) return;
  clearTimeout(w.timer);
  waiting.delete(id);
  patch(id, null);
  w.onUndo?.();
}

/** Undoes the newest decision still waiting (the inbox's u key). */
export function undoLastDecision(): boolean {
  const last = [...uiStore.getState().pendingDecisions].reverse().find((d) => waiting.has(d.id));
  if (!last) return false;
  undoDecision(last.id);
  return true;
}

/** The item has a decision waiting for its undo window or being sent. */
export function isDeciding(key: string): boolean {
  return uiStore.getState().pendingDecisions.some((d) => d.key === key);
}

/** Sends every waiting decision now (the page is going away: what the owner decided is not lost). */
export function flushDecisions(): void {
  if (waiting.size === 0) return;
  markLeaving();
  for (const w of [...waiting.values()]) w.send();
}

if (typeof window !== 'undefined') window.addEventListener('pagehide', flushDecisions);
