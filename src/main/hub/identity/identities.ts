// Agents, their keys and their role config. Keys are random, shown once, stored only as a hash.
import crypto from 'node:crypto';
import type { Hub } from '../core/hub';
import { newId } from '../core/hub';
import { HubError } from '../../../shared/errors';
import { insertUser, listUsers, revokeUser, setUserConfig, setUserInbox, setUserKey, userByKeyHash, userByName, type UserRow } from '../../store/users';
import { insertConversation, insertMember } from '../../store/conversations';
import { OutsideMemo } from '../core/outside-writes';
import { RUN_KEY_PREFIX, runKeyAgent } from './run-keys';
import { NAME_PATTERN, type AgentConfig, type AgentSummary, normalizeConfig } from '../../../shared/agents';

export const KEY_PREFIX = 'perch_';

export function hashKey(key: string): Buffer {
  return crypto.hash('sha256', key, 'buffer');
}

/** A new agent key (an agent's own, or a scoped one: hub/identity/agent-keys.ts), its hash and its hint. */
export function newKey(): { key: string; hash: Buffer; hint: string } {
  const key = KEY_PREFIX + crypto.randomBytes(24).toString('base64url'); // 192 random bits
  return { key, hash: hashKey(key), hint: key.slice(-4) };
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

/** Every agent's id, name and whether it is revoked, from the store (summaries with pause, brakes and presence are hub/control/agents.ts). */
export function agentRefs(hub: Hub): Array<{ id: string; name: string; revoked: boolean }> {
  return listUsers(hub.db, 'agent').map((u) => ({ id: u.id, name: u.name, revoked: u.revoked_at != null }));
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

/**
 * Keys this hub has verified (hash → user id): every MCP request authenticates, and reading the
 * row was a large share of a call's cost. The cache is dropped whenever a key changes here
 * (rotateKey, revokeAgent) and whenever another process wrote to the database (PRAGMA data_version,
 * hub/core/outside-writes.ts: e.g. `perch agent revoke` or `perch agent config` while the hub runs), so a
 * revoked key stops working and a changed row is read again at once, as before. Only valid keys are cached.
 */
const knownKeys = new OutsideMemo<string>();

/** Drops the verified keys (a key changed here: hub/control/agents.ts rotateKey, revokeAgent). */
export function forgetKeys(hub: Hub): void {
  knownKeys.forget(hub);
}

/** The agent behind a bearer key, or undefined. The stored hash is compared in constant time. */
export function authenticate(hub: Hub, key: string): UserRow | undefined {
  if (!key.startsWith(KEY_PREFIX) || key.length > 200) return undefined;
  // Wake runs: a run's own short-lived key stands for its agent while the run lives (hub/identity/run-keys.ts).
  if (key.startsWith(RUN_KEY_PREFIX)) return runKeyUser(hub, key);
  return authenticateHash(hub, hashKey(key));
}

/** authenticate() for a key already hashed (hub/identity/agent-keys.ts hashes once for both kinds of keys). */
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
