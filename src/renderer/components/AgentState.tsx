// An agent's one state for the owner (needs you › paused › working › connected, idle › offline), derived by
// shared/agent-state.ts from what the stores hold, and shown the same in Fleet, the sidebar and on the phone.
import { useShallow } from 'zustand/react/shallow';
import { agentState, stateText, type AgentState, type OwnerWait } from '../../shared/agent-state';
import { NO_PRESENCE } from '../../shared/agent-state';
import { useAgents } from '../stores/agents';
import { useConversations } from '../stores/conversations';
import { useHeld } from '../stores/held';
import { useRequests } from '../stores/requests';
import { useSession } from '../stores/session';
import { runningRunOf, useWake } from '../stores/wake';
import { useNow } from '../hooks';

/** What waits for the owner from this agent, as "what:at" words (a string, so the selector compares by value). */
function useNeeds(agentId: string): OwnerWait[] {
  const ownerId = useSession((s) => s.info?.owner.id ?? '');
  const requests = useRequests(useShallow((s) => Object.values(s.byId)
    .filter((r) => r.state === 'pending' && r.requester.id === agentId && r.assignees.some((a) => a.id === ownerId))
    .map((r) => `request:${r.created_at}`)));
  const held = useHeld(useShallow((s) => s.items.filter((h) => h.agent.id === agentId && h.state === 'held').map((h) => `held:${h.created_at}`)));
  const convs = useConversations(useShallow((s) => {
    const out: string[] = [];
    for (const c of Object.values(s.byId)) {
      for (const h of c.handoffs ?? []) if (h.agent.id === agentId && h.to.id === ownerId) out.push(`handoff:${h.at}`);
      if (c.task?.state === 'input_required' && c.task.assignee?.id === agentId) out.push(`input:${c.last_event_at}`);
    }
    return out;
  }));
  return [...requests, ...held, ...convs].map((w) => {
    const i = w.indexOf(':');
    return { what: w.slice(0, i) as OwnerWait['what'], at: Number(w.slice(i + 1)) };
  });
}

/** The agent's state now (undefined while the agents list has not loaded it). */
export function useAgentState(agentId: string): AgentState | undefined {
  const a = useAgents((s) => s.list.find((x) => x.id === agentId));
  const needs = useNeeds(agentId);
  const runStartedAt = useWake((s) => runningRunOf(s, agentId)?.started_at ?? null);
  const now = useNow(5000);
  if (!a) return undefined;
  return agentState({ now, revoked: a.revoked, paused: a.paused, waiting: a.waiting, presence: a.presence ?? NO_PRESENCE, needs, runStartedAt, harness: a.harness ?? null });
}

/** The state as a pill: "needs you · 3 min". */
export function AgentStatePill({ agentId, name, compact = false }: { agentId: string; name: string; compact?: boolean }) {
  const st = useAgentState(agentId);
  const now = useNow(5000);
  if (!st) return null;
  const text = stateText(st, now);
  return (
    <span className={`state-pill state-${st.state} ${compact ? 'state-pill-compact' : ''}`} data-state={st.state} title={`${name}: ${text} (${st.why})`} aria-label={`${name}: ${text}`}>
      {compact ? null : text}
    </span>
  );
}
