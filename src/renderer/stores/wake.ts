// Wake runs: the newest runs (by id) and each agent's wake setup, as the owner last read them.
import { create } from 'zustand';
import type { WakeLimits, WakeRunView, WakeState } from '../../shared/agents/wake';

export interface WakeStoreState {
  runs: Record<string, WakeRunView>;
  byAgent: Record<string, WakeState>;
  /** Runs across the fleet: the limit, what runs, what waits for a slot (each fleet item carries it; components/WakeQueue.tsx). */
  limits: WakeLimits | null;
}

export const wakeStore = create<WakeStoreState>(() => ({ runs: {}, byAgent: {}, limits: null }));
export const useWake = wakeStore;

/** The running run of an agent, if any. */
export function runningRunOf(s: WakeStoreState, agentId: string): WakeRunView | undefined {
  for (const r of Object.values(s.runs)) if (r.agent_id === agentId && r.status === 'running') return r;
  return undefined;
}
