// The owner's agents with their role config and key hints.
import { create } from 'zustand';
import type { AgentSummary } from '../model';

export interface AgentsState {
  list: AgentSummary[];
  loaded: boolean;
}

export const agentsStore = create<AgentsState>(() => ({ list: [], loaded: false }));
export const useAgents = agentsStore;
