// The conversation list: every conversation with members, unread counts, task, floor and handoffs.
import { create } from 'zustand';
import type { ConversationView } from '../model';

export interface ConversationsState {
  byId: Record<string, ConversationView>;
  loaded: boolean;
}

export const conversationsStore = create<ConversationsState>(() => ({ byId: {}, loaded: false }));
export const useConversations = conversationsStore;
