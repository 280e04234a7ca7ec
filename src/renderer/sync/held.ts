// Review mode (hub/features/review/review.ts): the held items of the Approvals inbox, and the per-agent switch.
import { api } from '../transport';
import { heldStore } from '../stores/held';
import { attempt, toast } from './common';
import { loadAgents } from './loaders';
import { selectRequest } from './requests';
import { decideAfterUndoWindow } from './undo';

export async function loadHeld(): Promise<void> {
  const { items } = await api('held.list', {});
  heldStore.setState((s) => ({
    items,
    loaded: true,
    selected: s.selected && items.some((i) => i.held_id === s.selected) ? s.selected : null, // the inbox moves its one focus on
  }));
}

let heldRefresh: ReturnType<typeof setTimeout> | undefined;
/** Re-reads the held items shortly (a held.* event arrived). */
export function refreshHeldSoon(ms = 100): void {
  if (heldRefresh) return;
  heldRefresh = setTimeout(() => {
    heldRefresh = undefined;
    void loadHeld().catch(() => {});
  }, ms);
}

/** Focuses a held item in the inbox (one focused item at a time: no request stays selected beside it). */
export function selectHeld(heldId: string | null): void {
  heldStore.setState({ selected: heldId });
  if (heldId) selectRequest(null);
}

/** Starts (text) or ends (null) editing a held item's text. */
export function setHeldDraft(heldId: string, text: string | null): void {
  heldStore.setState((s) => {
    const drafts = { ...s.drafts };
    if (text === null) delete drafts[heldId];
    else drafts[heldId] = text;
    return { drafts };
  });
}

function forget(heldId: string): void {
  heldStore.setState((s) => {
    const items = s.items.filter((i) => i.held_id !== heldId);
    const drafts = { ...s.drafts };
    delete drafts[heldId];
    const selected = s.selected === heldId ? null : s.selected; // the inbox moves its one focus on
    return { items, drafts, selected };
  });
}

function heldTitle(heldId: string): string {
  const h = heldStore.getState().items.find((i) => i.held_id === heldId);
  return h ? `${h.agent.name}'s ${h.kind}` : 'the held item';
}

/** Posts a held item as its agent (with the owner's edit when one is being made) when the undo window closes. */
export function sendHeld(heldId: string): void {
  const draft = heldStore.getState().drafts[heldId];
  decideAfterUndoWindow(
    heldId,
    `${draft === undefined ? 'Send' : 'Send your edit of'} ${heldTitle(heldId)}`,
    () =>
      attempt('Not sent', async () => {
        const r = await api('held.send', draft === undefined ? { held_id: heldId } : { held_id: heldId, text: draft });
        forget(heldId);
        toast(r.owner_edited ? 'Sent with your edit.' : 'Sent.');
        return r;
      }),
    () => selectHeld(heldId),
  );
}

/** Drops a held item when the undo window closes. */
export function discardHeld(heldId: string): void {
  decideAfterUndoWindow(
    heldId,
    `Discard ${heldTitle(heldId)}`,
    () =>
      attempt('Not discarded', async () => {
        const r = await api('held.discard', { held_id: heldId });
        forget(heldId);
        toast('Discarded.');
        return r;
      }),
    () => selectHeld(heldId),
  );
}

/** Review mode on or off for one agent. */
export const setReview = (agent: string, on: boolean) =>
  attempt('Review mode not changed', async () => {
    const r = await api('agents.set_review', { agent, on });
    void loadAgents();
    return r;
  });
