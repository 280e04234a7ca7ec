// Wake runs, the seam for owner control: whether Perch may start a run of an agent now (an agent, not revoked, not
// paused), and whether it has a wake action that is on (most agents have none: their wakes cost no query).
import { isPaused } from '../control/control';
import type { Hub } from '../core/hub';
import type { FeatureServices } from '../features/services';
import type { OutsideMemo } from '../core/outside-writes';
import { enabledWakeAgents } from '../../store/tables/agents/wake';

type MayWakeHub = Hub<FeatureServices & { wakeRuns: { armed: OutsideMemo<Set<string>> } }>;

/** Whether Perch may start a run of this agent now; otherwise why not. */
export function mayWake(hub: MayWakeHub, agentId: string): { ok: true } | { ok: false; why: string } {
  hub.forgetUser(agentId);
  const u = hub.user(agentId);
  if (u.kind !== 'agent') return { ok: false, why: 'not an agent' };
  if (u.revoked_at != null) return { ok: false, why: 'the agent is revoked' };
  // owner control: paused agents are never started (a spend cap reached pauses the agent too, reason budget).
  const pause = isPaused(hub, agentId);
  if (pause.paused) return { ok: false, why: `the agent is paused${pause.reason ? ` (${pause.reason})` : ''}` };
  return { ok: true };
}

/** data_version is read at most once per event-loop turn (hub/core/outside-writes.ts), however many agents one commit wakes. */
export function hasWakeAction(hub: MayWakeHub, agentId: string): boolean {
  return hub.services.wakeRuns.armed.get('', () => new Set(enabledWakeAgents(hub.db)))!.has(agentId);
}
