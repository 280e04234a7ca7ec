// Scoped keys: extra keys of an agent, each with scopes (read, write, files, state, ask; default all) and an
// optional expiry, listed, named and revocable one by one. The agent's own key (identities.ts) has every scope
// and no expiry. Every tool names the scope it needs in the catalog (ToolSpec.scope); the MCP door checks it.
import crypto from 'node:crypto';
import type { Hub } from '../core/hub';
import { newId } from '../core/hub';
import { HubError } from '../../../shared/errors';
import { KEY_SCOPES, type AgentKeyView, type KeyAuth, type KeyScope, type KeyStanding } from '../../../shared/sessions';

export type { KeyAuth, KeyStanding }; // the caller's key as the hub checked it (defined in shared/sessions.ts)
import { agentKeyByHash, agentKeyById, agentKeysOf, dropKeyCursors, insertAgentKey, revokeAgentKey, type AgentKeyRow } from '../../store/agent-keys';
import { KEY_PREFIX, authenticate, authenticateHash, findAgent, hashKey, newKey } from './identities';
import { RUN_KEY_PREFIX } from './run-keys';
import { OutsideMemo } from '../core/outside-writes';
import { endRevokedWaits } from './key-waits';
import { userById } from '../../store/users';
import type { UserRow } from '../../store/users';

/** What the key of a call may do. */
const MAIN_KEY: KeyAuth = Object.freeze({ id: null, name: 'main', scopes: KEY_SCOPES, expires_at: null });

export type KeyCheck = { user: UserRow; auth: KeyAuth } | { expired: true } | undefined;

/** A live scoped key as read from the store: its agent and what it may do (expiry is checked on every call). */
interface ScopedEntry {
  userId: string;
  auth: KeyAuth;
}

/**
 * Scoped keys this hub has verified (hash → entry), like the agent's own keys (identities.ts): dropped when one is
 * revoked or added here and whenever another process wrote to the database (e.g. `perch agent key revoke` while the
 * hub runs: hub/core/outside-writes.ts), so a revoked key stops working at once. Only live keys are kept; the agent's
 * revocation is checked on every call (revokeAgent drops its cached row).
 */
const knownScoped = new OutsideMemo<ScopedEntry>();

/** The agent and the scopes behind a bearer key: its own key, or a live scoped key. An expired key says so. */
export function authenticateScoped(hub: Hub, key: string): KeyCheck {
  if (!key.startsWith(KEY_PREFIX) || key.length > 200) return undefined;
  // The agent's own key (or a wake run's key: authenticate() knows those); the key is hashed once for both lookups.
  const hash = hashKey(key);
  const own = key.startsWith(RUN_KEY_PREFIX) ? authenticate(hub, key) : authenticateHash(hub, hash);
  if (own) return { user: own, auth: MAIN_KEY };
  const entry = knownScoped.get(hub, hash.toString('base64'), () => {
    const k = agentKeyByHash(hub.db, hash);
    if (!k || k.revoked_at != null || !crypto.timingSafeEqual(k.key_hash, hash)) return undefined;
    // The agent's row as stored now (another process may have revoked the agent).
    const u = userById(hub.db, k.user_id);
    if (!u) return undefined;
    hub.rememberUser(u);
    return { userId: k.user_id, auth: Object.freeze({ id: k.id, name: k.name, scopes: Object.freeze(JSON.parse(k.scopes) as KeyScope[]), expires_at: k.expires_at }) };
  });
  if (!entry) return undefined;
  if (entry.auth.expires_at != null && entry.auth.expires_at <= hub.now()) return { expired: true };
  let user: UserRow;
  try { user = hub.user(entry.userId); } catch { return undefined; }
  if (user.revoked_at != null) return undefined; // revoking the agent stops all its keys
  return { user, auth: entry.auth };
}

/** Whether a call's key still works now: 'ok', 'expired', or 'revoked' (revoked, rotated, unknown, or its agent revoked). */
/**
 * The standing of the key a call came with, asked again later (a waiting call asks before it reads: hub/identity/key-waits.ts).
 * It goes through the same caches as authentication, which another process's writes clear (hub/core/outside-writes.ts).
 */
export function keyStanding(hub: Hub, key: string, userId: string): () => KeyStanding {
  return () => {
    const found = authenticateScoped(hub, key);
    if (!found) return 'revoked';
    if ('expired' in found) return 'expired';
    return found.user.id === userId ? 'ok' : 'revoked';
  };
}

/** A call needs `scope`: refused with forbidden, naming the scope, when the key lacks it. */
export function scopeRefusal(auth: KeyAuth, scope: KeyScope | 'any', tool: string): HubError | undefined {
  if (scope === 'any' || auth.scopes.includes(scope)) return undefined;
  return new HubError(
    'forbidden',
    `This key (${auth.name}) lacks the "${scope}" scope that ${tool} needs; its scopes: ${auth.scopes.join(', ')}.`,
    `Ask your owner for a key with the "${scope}" scope (whoami lists this key's scopes).`,
    { missing_scope: scope },
  );
}

function keyView(hub: Hub, k: AgentKeyRow): AgentKeyView {
  return {
    id: k.id,
    agent: hub.user(k.user_id).name,
    name: k.name,
    key_hint: `…${k.key_hint}`,
    scopes: JSON.parse(k.scopes) as KeyScope[],
    created_at: k.created_at,
    expires_at: k.expires_at,
    revoked: k.revoked_at != null,
    revoked_at: k.revoked_at,
    expired: k.expires_at != null && k.expires_at <= hub.now(),
  };
}

export interface AddKeyInput {
  agent: string;
  name: string;
  scopes?: readonly string[];
  /** When the key stops working (ms since epoch); omitted: never. */
  expires_at?: number;
}

/** Issues a scoped key; the key itself is in the answer only. */
export function addAgentKey(hub: Hub, input: AddKeyInput): { key: AgentKeyView; secret: string } {
  const name = input.name.trim();
  if (!name || name.length > 60) throw new HubError('invalid_argument', 'A key needs a name of 1-60 characters.', 'Name it after where it is used, e.g. "ci-reader".');
  const scopes = [...new Set(input.scopes ?? KEY_SCOPES)];
  const unknown = scopes.filter((s) => !(KEY_SCOPES as readonly string[]).includes(s));
  if (unknown.length || scopes.length === 0) {
    throw new HubError('invalid_argument', `Scopes ${JSON.stringify(unknown.length ? unknown : scopes)} are not valid: give one or more of ${KEY_SCOPES.join(', ')}.`, `Pick from ${KEY_SCOPES.join(', ')} (default: all).`);
  }
  if (input.expires_at !== undefined && input.expires_at <= hub.now()) {
    throw new HubError('invalid_argument', 'expires_at is in the past.', 'Give a time in the future (ms since epoch), or none for a key that does not expire.');
  }
  return hub.write(() => {
    const u = findAgent(hub, input.agent);
    if (u.revoked_at != null) throw new HubError('conflict', `Agent ${u.name} is revoked.`, 'Rotate its key first to bring it back.');
    const { key: secret, hash, hint } = newKey();
    const row: Omit<AgentKeyRow, 'revoked_at'> = {
      id: newId('k'), user_id: u.id, name, key_hash: hash, key_hint: hint,
      scopes: JSON.stringify(KEY_SCOPES.filter((s) => scopes.includes(s))), created_at: hub.now(), expires_at: input.expires_at ?? null,
    };
    insertAgentKey(hub.db, row);
    knownScoped.forget(hub);
    return { key: keyView(hub, { ...row, revoked_at: null }), secret };
  });
}

export function listAgentKeys(hub: Hub, agent: string): AgentKeyView[] {
  const u = findAgent(hub, agent);
  return agentKeysOf(hub.db, u.id).map((k) => keyView(hub, k));
}

/** Revokes one scoped key (the agent and its other keys keep working); calls waiting under it end (hub/identity/key-waits.ts). */
export function revokeScopedKey(hub: Hub, keyId: string): AgentKeyView {
  const view = knownScoped.changing(hub, () => hub.write(() => {
    const k = agentKeyById(hub.db, keyId);
    if (!k) throw new HubError('not_found', `No key ${keyId}.`, 'List the agent\'s keys to find its id.');
    revokeAgentKey(hub.db, k.id, hub.now());
    dropKeyCursors(hub.db, k.id); // its own get_updates positions (hub/talk/delivery.ts)
    knownScoped.forget(hub);
    return keyView(hub, agentKeyById(hub.db, k.id)!);
  }));
  endRevokedWaits(hub, findAgent(hub, view.agent).id);
  return view;
}
