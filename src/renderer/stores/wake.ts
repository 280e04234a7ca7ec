// Wake runs: the newest runs (by id) and each agent's wake setup, as the owner last read them.
import { create } from 'zustand';
import type { WakeRunView, WakeState } from '../../shared/agents/wake';

export interface WakeStoreState {
  runs: Record<string, WakeRunView>;
  byAgent: Record<string, WakeState>;
}

export const wakeStore = create<WakeStoreState>(() => ({ runs: {}, byAgent: {} }));
export const useWake = wakeStore;

/** The running run of an agent, if any. */
export function runningRunOf(s: WakeStoreState, agentId: string): WakeRunView | undefined {
  for (const r of Object.values(s.runs)) if (r.agent_id === agentId && r.status === 'running') return r;
  return undefined;
}
