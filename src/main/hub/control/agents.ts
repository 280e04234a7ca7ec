// The fleet's agents as the owner manages them: summaries (with pause, brakes, review and presence), adding an
// agent, its role config, rotating and revoking its key. Keys themselves (hashing, authenticating) are
// hub/identity/identities.ts; this module sits above it and above owner control, which its summaries read.
import type { ControlHub } from './services';
import { newId } from '../core/hub';
import { HubError } from '../../../shared/errors';
import {
  insertUser,
  listUsers,
  revokeUser,
  setUserAllowedFrom,
  setUserConfig,
  setUserInbox,
  setUserKey,
  userByName,
  type UserRow,
} from '../../store/tables/agents/users';
import { agentPlaces, checkedPlaces } from '../identity/places';
import { insertConversation, insertMember } from '../../store/tables/talk/conversations';
import { isUnderReview } from '../../store/tables/talk/held';
import { dropTelemetryToken } from '../../store/tables/ledger/telemetry-tokens';
import { agentBrakes } from './brakes';
import { pauseOf } from './control';
import { presenceOf } from './presence';
import { harnessOf } from './harness';
import { endRevokedWaits } from '../identity/key-waits';
import { findAgent, forgetKeys, newKey, validateName } from '../identity/identities';
import { connectionsOfAgent } from '../../store/tables/agents/connections';
import { type AgentConfig, type AgentSummary, normalizeConfig } from '../../../shared/agents/agents';

export function agentSummary(hub: ControlHub, u: UserRow): AgentSummary {
  const config = JSON.parse(u.config) as AgentConfig;
  return {
    id: u.id,
    name: u.name,
    kind: u.kind,
    description: u.description,
    created_at: u.created_at,
    revoked: u.revoked_at != null,
    key_hint: u.key_hint ? `…${u.key_hint}` : null,
    config_version: u.config_version,
    config,
    waiting: hub.bus.isWaiting(u.id),
    review: isUnderReview(hub.db, u.id), // review mode (store/tables/talk/held.ts)
    paused: pauseOf(hub, u.id), // owner control (hub/control/control.ts)
    brakes: agentBrakes(hub, u.id), // hub/control/brakes.ts
    presence: presenceOf(hub, u.id), // hub/control/presence.ts
    harness: harnessOf(hub, u.id), // its harness session's hooks (hub/control/harness.ts)
    from: [...agentPlaces(u)], // where its own key may connect from (hub/identity/places.ts)
    connections: connectionsOfAgent(hub.db, u.id).map(({ client, scope, dir }) => ({ client, scope, dir })), // perch connect --write
  };
}

export function addAgent(
  hub: ControlHub,
  input: { name: string; description?: string; instructions?: string; from?: unknown },
): { agent: AgentSummary; key: string } {
  const name = validateName(input.name);
  const from = input.from === undefined ? undefined : checkedPlaces(input.from); // checked before anything is written
  const description = (input.description ?? '').slice(0, 2000);
  return hub.write(() => {
    if (userByName(hub.db, name)) {
      throw new HubError('conflict', `The name "${name}" is taken.`, "Choose another name, or rotate the existing agent's key.");
    }
    const at = hub.now();
    const { key, hash, hint } = newKey();
    const id = newId('a');
    const config = normalizeConfig({ name, description, instructions: input.instructions ?? '' });
    insertUser(hub.db, {
      id,
      kind: 'agent',
      name,
      description,
      created_at: at,
      key_hash: hash,
      key_hint: hint,
      config: JSON.stringify(config),
      config_version: 1,
      inbox_id: null,
    });
    // The agent's private stream: notes from the owner and config notices land here.
    const inbox = newId('c');
    insertConversation(hub.db, { id: inbox, kind: 'inbox', title: `Notes for ${name}`, created_by: hub.ownerId, created_at: at });
    insertMember(hub.db, { conv_id: inbox, user_id: id, role: 'member', from_seq: 1, joined_at: at });
    insertMember(hub.db, { conv_id: inbox, user_id: hub.ownerId, role: 'owner', from_seq: 1, joined_at: at });
    setUserInbox(hub.db, id, inbox);
    if (from) setUserAllowedFrom(hub.db, id, JSON.stringify(from));
    hub.forgetUser(id);
    return { agent: agentSummary(hub, hub.user(id)), key };
  });
}

export function listAgents(hub: ControlHub): AgentSummary[] {
  return listUsers(hub.db, 'agent').map((u) => agentSummary(hub, u));
}

/**
 * A new key for the agent; the old one stops working at once, and calls waiting under it end (hub/identity/key-waits.ts);
 * its telemetry token (hub/features/ledger/telemetry-tokens.ts) is dropped too.
 */
export function rotateKey(hub: ControlHub, nameOrId: string): { agent: AgentSummary; key: string } {
  const rotated = hub.write(() => {
    const u = findAgent(hub, nameOrId);
    const { key, hash, hint } = newKey();
    setUserKey(hub.db, u.id, hash, hint);
    dropTelemetryToken(hub.db, u.id); // the telemetry-only token goes with the key it was made beside
    hub.forgetUser(u.id);
    forgetKeys(hub);
    return { agent: agentSummary(hub, hub.user(u.id)), key };
  });
  endRevokedWaits(hub, rotated.agent.id);
  return rotated;
}

/** Revokes the agent: every key of it stops working at once, and calls waiting under them end (hub/identity/key-waits.ts). */
export function revokeAgent(hub: ControlHub, nameOrId: string): AgentSummary {
  const revoked = hub.write(() => {
    const u = findAgent(hub, nameOrId);
    if (u.revoked_at != null) return agentSummary(hub, u);
    revokeUser(hub.db, u.id, hub.now());
    hub.forgetUser(u.id);
    forgetKeys(hub);
    return agentSummary(hub, hub.user(u.id));
  });
  endRevokedWaits(hub, revoked.id);
  return revoked;
}

/** Replaces an agent's role config; its version rises and the agent gets a config.updated notice. */
export function updateConfig(hub: ControlHub, nameOrId: string, patch: Partial<AgentConfig> & { description?: string }): AgentSummary {
  return hub.write(() => {
    const u = findAgent(hub, nameOrId);
    const current = JSON.parse(u.config) as AgentConfig;
    const next = normalizeConfig({ ...current, ...patch });
    const description = patch.description ?? u.description;
    if (JSON.stringify(next) === JSON.stringify(current) && description === u.description) return agentSummary(hub, u);
    const version = setUserConfig(hub.db, u.id, JSON.stringify(next), description);
    hub.forgetUser(u.id);
    hub.emit(u.inbox_id!, 'config.updated', hub.ownerId, { data: { version }, wake: [u.id] });
    return agentSummary(hub, hub.user(u.id));
  });
}
