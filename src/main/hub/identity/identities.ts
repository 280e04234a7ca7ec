// Agents, their keys and their role config. Keys are random, shown once, stored only as a hash.
import type { Hub } from '../core/hub';
import crypto from 'node:crypto';
import { HubError } from '../../../shared/errors';
import { quotedInput } from '../../../shared/text/text';
import { listUsers, userByKeyHash, userByName, type UserRow } from '../../store/tables/agents/users';
import { OutsideMemo, type OutsideWrites } from '../core/outside-writes';
import { NAME_PATTERN, closestName } from '../../../shared/agents/agents';

/** The hub as this module reaches it: the services it uses (the whole set: src/main/hub/services.ts). */
type OwnKeysHub = Hub<{ ownKeys: OutsideMemo<string> }>;

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
export function agentRefs(hub: OwnKeysHub): Array<{ id: string; name: string; revoked: boolean }> {
  return listUsers(hub.db, 'agent').map((u) => ({ id: u.id, name: u.name, revoked: u.revoked_at != null }));
}

export function findAgent(hub: OwnKeysHub, nameOrId: string): UserRow {
  const u = userByName(hub.db, nameOrId) ?? (nameOrId.startsWith('a_') ? safeUser(hub, nameOrId) : undefined);
  if (!u || u.kind !== 'agent') {
    const near = closestName(
      nameOrId,
      listUsers(hub.db, 'agent').map((a) => a.name),
    );
    throw new HubError(
      'not_found',
      `No agent named ${quotedInput(nameOrId)}.${near ? ` Did you mean ${near}?` : ''}`,
      near ? `Use "${near}", or list agents with \`perch agent list\`.` : 'List agents with `perch agent list`.',
      near ? { did_you_mean: near } : undefined,
    );
  }
  return u;
}

function safeUser(hub: OwnKeysHub, id: string): UserRow | undefined {
  try {
    hub.forgetUser(id);
    return hub.user(id);
  } catch {
    return undefined;
  }
}

/** The cache of verified own keys, as the composition root makes it. */
export function ownKeyCache(outside: OutsideWrites): OutsideMemo<string> {
  return new OutsideMemo(outside);
}

/** Drops the verified keys (a key changed here: hub/control/agents.ts rotateKey, revokeAgent). */
export function forgetKeys(hub: OwnKeysHub): void {
  hub.services.ownKeys.forget();
}

/**
 * The agent whose own key has this hash, or undefined. The stored hash is compared in constant time. Only
 * hub/identity/key-login.ts calls it: every kind of key logs in there.
 */
export function ownKeyUser(hub: OwnKeysHub, hash: Buffer): UserRow | undefined {
  let fresh: UserRow | undefined;
  const id = hub.services.ownKeys.get(hash.toString('base64'), () => {
    const u = userByKeyHash(hub.db, hash);
    if (!u || !u.key_hash || u.revoked_at != null || !crypto.timingSafeEqual(u.key_hash, hash)) return undefined;
    hub.rememberUser(u);
    fresh = u;
    return u.id;
  });
  if (id === undefined) return undefined;
  return fresh ?? hub.user(id);
}
