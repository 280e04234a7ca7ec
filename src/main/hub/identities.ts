// Agents, their keys and their role config. Keys are random, shown once, stored only as a hash.
import crypto from 'node:crypto';
import type { Hub } from './hub';
import { agentBrakes } from './brakes';
import { newId } from './hub';
import { HubError } from '../../shared/errors';
import { insertUser, listUsers, revokeUser, setUserConfig, setUserInbox, setUserKey, userByKeyHash, userByName, type UserRow } from '../store/users';
import { insertConversation, insertMember } from '../store/conversations';
import { OutsideMemo } from './outside-writes';
import { isUnderReview } from '../store/held';
import { RUN_KEY_PREFIX, runKeyAgent } from './run-keys';
import { pauseOf } from './control';
import { presenceOf } from './presence';
import { endRevokedWaits } from './key-waits';
import { NAME_PATTERN, type AgentConfig, type AgentSummary, normalizeConfig } from '../../shared/agents';

export const KEY_PREFIX = 'perch_';

export function hashKey(key: string): Buffer {
  return crypto.hash('sha256', key, 'buffer');
}

/** A new agent key (an agent's own, or a scoped one: hub/agent-keys.ts), its hash and its hint. */
export function newKey(): { key: string; hash: Buffer; hint: string } {
  const key = KEY_PREFIX + crypto.randomBytes(24).toString('base64url'); // 192 random bits
  return { key, hash: hashKey(key), hint: key.slice(-4) };
}

export function agentSummary(hub: Hub, u: UserRow): AgentSummary {
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
    review: isUnderReview(hub.db, u.id), // review mode (store/held.ts)
    paused: pauseOf(hub, u.id), // owner control (hub/control.ts)
    brakes: agentBrakes(hub, u.id), // hub/brakes.ts
    presence: presenceOf(hub, u.id), // hub/presence.ts
  };
}

export function validateName(name: unknown): string {
  if (typeof name !== 'string' || !NAME_PATTERN.test(name)) {
    throw new HubError(
      'invalid_argument',
      `Agent name ${JSON.stringify(name)} is not valid: use 1-40 characters a-z, 0-9, - and _, starting with a letter or digit.`,
      'Pick a name like "planner" or "code-reviewer".',
    );
  }
  return name;
}

export function addAgent(hub: Hub, input: { name: string; description?: string; instructions?: string }): { agent: AgentSummary; key: string } {
  const name = validateName(input.name);
  const description = (input.description ?? '').slice(0, 2000);
  return hub.write(() => {
    if (userByName(hub.db, name)) {
      throw new HubError('conflict', `The name "${name}" is taken.`, 'Choose another name, or rotate the existing agent\'s key.');
    }
    const at = hub.now();
    const { key, hash, hint } = newKey();
    const id = newId('a');
    const config = normalizeConfig({ name, description, instructions: input.instructions ?? '' });
    insertUser(hub.db, {
      id, kind: 'agent', name, description, created_at: at, key_hash: hash, key_hint: hint,
      config: JSON.stringify(config), config_version: 1, inbox_id: null,
    });
    // The agent's private stream: notes from the owner and config notices land here.
    const inbox = newId('c');
    insertConversation(hub.db, { id: inbox, kind: 'inbox', title: `Notes for ${name}`, created_by: hub.ownerId, created_at: at });
    insertMember(hub.db, { conv_id: inbox, user_id: id, role: 'member', from_seq: 1, joined_at: at });
    insertMember(hub.db, { conv_id: inbox, user_id: hub.ownerId, role: 'owner', from_seq: 1, joined_at: at });
    setUserInbox(hub.db, id, inbox);
    hub.forgetUser(id);
    return { agent: agentSummary(hub, hub.user(id)), key };
  });
}

export function findAgent(hub: Hub, nameOrId: string): UserRow {
  const u = userByName(hub.db, nameOrId) ?? (nameOrId.startsWith('a_') ? safeUser(hub, nameOrId) : undefined);
  if (!u || u.kind !== 'agent') {
    throw new HubError('not_found', `No agent named "${nameOrId}".`, 'List agents with `perch agent list`.');
  }
  return u;
}

function safeUser(hub: Hub, id: string): UserRow | undefined {
  try { hub.forgetUser(id); return hub.user(id); } catch { return undefined; }
}

export function listAgents(hub: Hub): AgentSummary[] {
  return listUsers(hub.db, 'agent').map((u) => agentSummary(hub, u));
}

/** A new key for the agent; the old one stops working at once, and calls waiting under it end (hub/key-waits.ts). */
export function rotateKey(hub: Hub, nameOrId: string): { agent: AgentSummary; key: string } {
  const rotated = hub.write(() => {
    const u = findAgent(hub, nameOrId);
    const { key, hash, hint } = newKey();
    setUserKey(hub.db, u.id, hash, hint);
    hub.forgetUser(u.id);
    forgetKeys(hub);
    return { agent: agentSummary(hub, hub.user(u.id)), key };
  });
  endRevokedWaits(hub, rotated.agent.id);
  return rotated;
}

/** Revokes the agent: every key of it stops working at once, and calls waiting under them end (hub/key-waits.ts). */
export function revokeAgent(hub: Hub, nameOrId: string): AgentSummary {
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
export function updateConfig(hub: Hub, nameOrId: string, patch: Partial<AgentConfig> & { description?: string }): AgentSummary {
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

/**
 * Keys this hub has verified (hash → user id): every MCP request authenticates, and reading the
 * row was a large share of a call's cost. The cache is dropped whenever a key changes here
 * (rotateKey, revokeAgent) and whenever another process wrote to the database (PRAGMA data_version,
 * hub/outside-writes.ts: e.g. `perch agent revoke` or `perch agent config` while the hub runs), so a
 * revoked key stops working and a changed row is read again at once, as before. Only valid keys are cached.
 */
const knownKeys = new OutsideMemo<string>();

function forgetKeys(hub: Hub): void {
  knownKeys.forget(hub);
}

/** The agent behind a bearer key, or undefined. The stored hash is compared in constant time. */
export function authenticate(hub: Hub, key: string): UserRow | undefined {
  if (!key.startsWith(KEY_PREFIX) || key.length > 200) return undefined;
  // Wake runs: a run's own short-lived key stands for its agent while the run lives (hub/run-keys.ts).
  if (key.startsWith(RUN_KEY_PREFIX)) return runKeyUser(hub, key);
  return authenticateHash(hub, hashKey(key));
}

/** authenticate() for a key already hashed (hub/agent-keys.ts hashes once for both kinds of keys). */
export function authenticateHash(hub: Hub, hash: Buffer): UserRow | undefined {
  let fresh: UserRow | undefined;
  const id = knownKeys.get(hub, hash.toString('base64'), () => {
    const u = userByKeyHash(hub.db, hash);
    if (!u || !u.key_hash || u.revoked_at != null || !crypto.timingSafeEqual(u.key_hash, hash)) return undefined;
    hub.rememberUser(u);
    fresh = u;
    return u.id;
  });
  if (id === undefined) return undefined;
  return fresh ?? hub.user(id);
}

/** The agent of a live run key (wake runs), unless the agent was revoked meanwhile. */
function runKeyUser(hub: Hub, key: string): UserRow | undefined {
  const id = runKeyAgent(hub, key);
  if (!id) return undefined;
  hub.forgetUser(id);
  const u = hub.user(id);
  return u.revoked_at == null ? u : undefined;
}
