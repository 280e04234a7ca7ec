// Presence: when each agent last called the hub and last did something (a writing tool), kept in memory since the
// hub started (O(1) per call; nothing is written). The owner's agent state (shared/agents/agent-state.ts) reads it through
// the agents list; a change reaches the owner's live stream with the fleet (hub/control/fleet-live.ts).
import type { Hub } from '../core/hub';
import type { IdentityServices } from '../identity/services';
import { TOOL_BY_NAME } from '../../../shared/api/catalog';
import type { RequestPlace } from '../../../shared/agents/places';
import { CONNECTED_MS, NO_PRESENCE, WORKING_MS, type AgentPresence } from '../../../shared/agents/agent-state';

/** The hub as this module reaches it: the services it uses (the whole set: src/main/hub/services.ts). */
type PresenceHub = Hub<IdentityServices & { presence: Presence }>;

/** What presence keeps for one hub: per agent, its last call and last work. */
export class Presence {
  readonly byAgent = new Map<string, AgentPresence>();
}

/** Whether a call of this tool is the agent doing something (not waiting for news, not reading). */
function isWork(tool: string): boolean {
  return tool !== 'get_updates' && TOOL_BY_NAME.get(tool)?.readOnly === false;
}

/**
 * An agent calls the hub: a tool ('' for any other MCP request), when the call starts, and again when a get_updates ends.
 * work: whether the call is the agent doing something (default: a writing tool; a harness's tool call counts too).
 * from: where the call came from (the door that received it says).
 */
export function notePresence(hub: PresenceHub, agentId: string, tool: string, work = isWork(tool), from?: RequestPlace): void {
  const m = hub.services.presence.byAgent;
  const at = hub.now();
  const p = m.get(agentId) ?? { ...NO_PRESENCE };
  // Where it connects from (the door that received the call says: loopback, a container bridge, the tailnet front).
  if (from && (p.from?.place !== from.place || p.from.via !== from.via || p.from.address !== from.address))
    p.from = { place: from.place, via: from.via, address: from.address };
  if (p.seen_at == null || at - p.seen_at >= CONNECTED_MS) p.connected_since = at;
  p.seen_at = at;
  if (work) {
    if (p.active_at == null || at - p.active_at >= WORKING_MS) p.busy_since = at;
    p.active_at = at;
  }
  m.set(agentId, p);
  hub.fleetChanged(); // the owner's live fleet (hub/control/fleet-live.ts)
}

export function presenceOf(hub: PresenceHub, agentId: string): AgentPresence {
  const p = hub.services.presence.byAgent.get(agentId);
  return p ? { ...p } : { ...NO_PRESENCE };
}
