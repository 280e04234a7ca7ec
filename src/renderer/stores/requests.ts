// Requests across all conversations: the Approvals inbox.
import { create } from 'zustand';
import type { RequestItem } from '../model';

export interface RequestsState {
  byId: Record<string, RequestItem>;
  loaded: boolean;
  /** The request the keyboard acts on in the inbox. */
  selected: string | null;
  /** What the owner typed but has not sent yet, per request. */
  drafts: Record<string, { comment?: string; answer?: string }>;
}

export const requestsStore = create<RequestsState>(() => ({ byId: {}, loaded: false, selected: null, drafts: {} }));
export const useRequests = requestsStore;

/** Pending first (soonest to expire first), then the most recently decided. */
export function sortRequests(list: RequestItem[]): RequestItem[] {
  return [...list].sort((a, b) => {
    const pa = a.state === 'pending' ? 0 : 1;
    const pb = b.state === 'pending' ? 0 : 1;
    if (pa !== pb) return pa - pb;
    if (pa === 0) return a.expires_at - b.expires_at;
    return (b.decided_at ?? b.created_at) - (a.decided_at ?? a.created_at);
  });
}
