// Owner control: per agent, caps, today's usage and the last 14 days (the fleet view's numbers).
// Whether an agent is paused comes with the agents list (AgentSummary.paused).
import { create } from 'zustand';
import type { AgentControlView } from '../../shared/agents/control';

export interface ControlState {
  byAgent: Record<string, AgentControlView>;
  today: string;
}

export const controlStore = create<ControlState>(() => ({ byAgent: {}, today: '' }));
export const useControl = controlStore;
