// An agent's one state for the owner (needs you › paused › working › connected, idle › offline), derived by
// shared/agents/agent-state.ts from what the stores hold, and shown the same in Fleet, the sidebar and on the phone.
import { useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import {
  NO_PRESENCE,
  agentState,
  fleetOrder,
  lastActivity,
  stateText,
  type AgentState,
  type AgentStateInput,
  type FleetSortKey,
  type OwnerWait,
} from '../../../shared/agents/agent-state';
import type { AgentSummary } from '../../model';
import { useAgents } from '../../stores/agents';
import { useConversations } from '../../stores/conversations';
import { useHeld } from '../../stores/held';
import { useRequests } from '../../stores/requests';
import { useSession } from '../../stores/session';
import { runningRunOf, useWake } from '../../stores/wake';
import { useNow } from '../../hooks';

/** What waits for the owner from each agent, as "agentId what:at" lines (a string, so the selector compares by value). */
function useNeedsText(): string {
  const ownerId = useSession((s) => s.info?.owner.id ?? '');
  const requests = useRequests((s) =>
    Object.values(s.byId)
      .filter((r) => r.state === 'pending' && r.assignees.some((a) => a.id === ownerId))
      .map((r) => `${r.requester.id} request:${r.created_at}`)
      .join('\n'),
  );
  const held = useHeld((s) =>
    s.items
      .filter((h) => h.state === 'held')
      .map((h) => `${h.agent.id} held:${h.created_at}`)
      .join('\n'),
  );
  const convs = useConversations((s) => {
    const out: string[] = [];
    for (const c of Object.values(s.byId)) {
      for (const h of c.handoffs ?? []) if (h.to.id === ownerId) out.push(`${h.agent.id} handoff:${h.at}`);
      if (c.task?.state === 'input_required' && c.task.assignee) out.push(`${c.task.assignee.id} input:${c.last_event_at}`);
    }
    return out.join('\n');
  });
  return [requests, held, convs].filter(Boolean).join('\n');
}

function parseNeeds(text: string): Map<string, OwnerWait[]> {
  const by = new Map<string, OwnerWait[]>();
  for (const line of text ? text.split('\n') : []) {
    const sp = line.indexOf(' ');
    const i = line.indexOf(':', sp);
    const agentId = line.slice(0, sp);
    const list = by.get(agentId) ?? [];
    list.push({ what: line.slice(sp + 1, i) as OwnerWait['what'], at: Number(line.slice(i + 1)) });
    by.set(agentId, list);
  }
  return by;
}

/** Every agent's state input now (keyed by agent id), from what the stores hold. */
function useStateInputs(): Map<string, AgentStateInput> {
  const list = useAgents((s) => s.list);
  const needsText = useNeedsText();
  const runs = useWake(useShallow((s) => Object.fromEntries(list.map((a) => [a.id, runningRunOf(s, a.id)?.started_at ?? null]))));
  const now = useNow(5000);
  return useMemo(() => {
    const needs = parseNeeds(needsText);
    return new Map(
      list.map((a) => [
        a.id,
        {
          now,
          revoked: a.revoked,
          paused: a.paused,
          waiting: a.waiting,
          presence: a.presence ?? NO_PRESENCE,
          needs: needs.get(a.id) ?? [],
          runStartedAt: runs[a.id] ?? null,
          harness: a.harness ?? null,
        },
      ]),
    );
  }, [list, needsText, runs, now]);
}

/** Every agent's state now, keyed by agent id. */
export function useAgentStates(): Map<string, AgentState> {
  const inputs = useStateInputs();
  return useMemo(() => new Map([...inputs].map(([id, i]) => [id, agentState(i)])), [inputs]);
}

/** The agents in the order the owner sees them on Fleet, the sidebar and the phone (shared/agents/agent-state.ts fleetOrder): who needs you first. */
export function useFleetOrder(): AgentSummary[] {
  const list = useAgents((s) => s.list);
  const inputs = useStateInputs();
  return useMemo(() => {
    const key = (a: AgentSummary): FleetSortKey => {
      const i = inputs.get(a.id);
      return { name: a.name, state: i ? agentState(i).state : 'offline', last: i ? lastActivity(i) : null };
    };
    const keys = new Map(list.map((a) => [a.id, key(a)]));
    return [...list].sort((a, b) => fleetOrder(keys.get(a.id)!, keys.get(b.id)!));
  }, [list, inputs]);
}

/** The agent's state now (undefined while the agents list has not loaded it). */
export function useAgentState(agentId: string): AgentState | undefined {
  return useAgentStates().get(agentId);
}

/** The state as a pill: "needs you · 3 min". */
export function AgentStatePill({ agentId, name, compact = false }: { agentId: string; name: string; compact?: boolean }) {
  const st = useAgentState(agentId);
  const now = useNow(5000);
  if (!st) return null;
  const text = stateText(st, now);
  return (
    <span
      className={`state-pill state-${st.state} ${compact ? 'state-pill-compact' : ''}`}
      data-state={st.state}
      title={`${name}: ${text} (${st.why})`}
      aria-label={`${name}: ${text}`}
    >
      {compact ? null : text}
    </span>
  );
}
