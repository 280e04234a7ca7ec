// Scoped keys: extra keys of an agent, each with scopes (read, write, files, state, ask; default all) and an
// optional expiry, listed, named and revocable one by one. The agent's own key (identities.ts) has every scope
// and no expiry. Every tool names the scope it needs in the catalog (ToolSpec.scope); the gates of an agent's call check
// it (hub/talk/gates.ts, the scope gate). Scoped keys log in with the others, in hub/identity/key-login.ts.
import crypto from 'node:crypto';
import { newId } from '../core/hub';
import { HubError } from '../../../shared/errors';
import { KEY_SCOPES, type AgentKeyView, type KeyAuth, type KeyScope, type KeyStanding } from '../../../shared/agents/scoped-keys';

export type { KeyAuth, KeyStanding }; // the caller's key as the hub checked it (defined in shared/agents/scoped-keys.ts)
import {
  agentKeyByHash,
  agentKeyById,
  agentKeysOf,
  dropKeyCursors,
  insertAgentKey,
  revokeAgentKey,
  type AgentKeyRow,
} from '../../store/tables/agents/agent-keys';
import { findAgent, newKey } from './identities';
import { OutsideMemo, type OutsideWrites } from '../core/outside-writes';
import { endRevokedWaits } from './key-waits';
import { userById } from '../../store/tables/agents/users';
import { DEFAULT_PLACES, readPlaces } from '../../../shared/agents/places';
import { checkedPlaces, type PlacesHub, type ScopedEntry } from './places';

/** What the agent's own key (and a wake run's key) may do: everything, for ever. */
export const MAIN_KEY: KeyAuth = Object.freeze({ id: null, name: 'main', scopes: KEY_SCOPES, expires_at: null });

/** The cache of verified scoped keys, as the composition root makes it. */
export function scopedKeyCache(outside: OutsideWrites): OutsideMemo<ScopedEntry> {
  return new OutsideMemo(outside);
}

/**
 * The live scoped key with this hash (revoked ones are not found; expiry and the agent's revocation are the caller's
 * to check). Only hub/identity/key-login.ts calls it: every kind of key logs in there.
 */
export function scopedKey(hub: PlacesHub, hash: Buffer): ScopedEntry | undefined {
  return hub.services.scopedKeys.get(hash.toString('base64'), () => {
    const k = agentKeyByHash(hub.db, hash);
    if (!k || k.revoked_at != null || !crypto.timingSafeEqual(k.key_hash, hash)) return undefined;
    // The agent's row as stored now (another process may have revoked the agent).
    const u = userById(hub.db, k.user_id);
    if (!u) return undefined;
    hub.rememberUser(u);
    return {
      userId: k.user_id,
      auth: Object.freeze({ id: k.id, name: k.name, scopes: Object.freeze(JSON.parse(k.scopes) as KeyScope[]), expires_at: k.expires_at }),
      from: readPlaces(k.allowed_from),
    };
  });
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

function keyView(hub: PlacesHub, k: AgentKeyRow): AgentKeyView {
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
    from: [...readPlaces(k.allowed_from)],
  };
}

export interface AddKeyInput {
  agent: string;
  name: string;
  scopes?: readonly string[];
  /** When the key stops working (ms since epoch); omitted: never. */
  expires_at?: number;
  /** Where it may connect from (hub/identity/places.ts); omitted: local. */
  from?: readonly string[] | string;
}

/** Issues a scoped key; the key itself is in the answer only. */
export function addAgentKey(hub: PlacesHub, input: AddKeyInput): { key: AgentKeyView; secret: string } {
  const name = input.name.trim();
  if (!name || name.length > 60)
    throw new HubError('invalid_argument', 'A key needs a name of 1-60 characters.', 'Name it after where it is used, e.g. "ci-reader".');
  const scopes = [...new Set(input.scopes ?? KEY_SCOPES)];
  const unknown = scopes.filter((s) => !(KEY_SCOPES as readonly string[]).includes(s));
  if (unknown.length || scopes.length === 0) {
    throw new HubError(
      'invalid_argument',
      `Scopes ${JSON.stringify(unknown.length ? unknown : scopes)} are not valid: give one or more of ${KEY_SCOPES.join(', ')}.`,
      `Pick from ${KEY_SCOPES.join(', ')} (default: all).`,
    );
  }
  if (input.expires_at !== undefined && input.expires_at <= hub.now()) {
    throw new HubError(
      'invalid_argument',
      'expires_at is in the past.',
      'Give a time in the future (ms since epoch), or none for a key that does not expire.',
    );
  }
  const from = input.from === undefined ? DEFAULT_PLACES : checkedPlaces(input.from);
  return hub.write(() => {
    const u = findAgent(hub, input.agent);
    if (u.revoked_at != null) throw new HubError('conflict', `Agent ${u.name} is revoked.`, 'Rotate its key first to bring it back.');
    const { key: secret, hash, hint } = newKey();
    const row: Omit<AgentKeyRow, 'revoked_at'> = {
      id: newId('k'),
      user_id: u.id,
      name,
      key_hash: hash,
      key_hint: hint,
      scopes: JSON.stringify(KEY_SCOPES.filter((s) => scopes.includes(s))),
      created_at: hub.now(),
      expires_at: input.expires_at ?? null,
      allowed_from: JSON.stringify(from),
    };
    insertAgentKey(hub.db, row);
    hub.services.scopedKeys.forget();
    return { key: keyView(hub, { ...row, revoked_at: null }), secret };
  });
}

export function listAgentKeys(hub: PlacesHub, agent: string): AgentKeyView[] {
  const u = findAgent(hub, agent);
  return agentKeysOf(hub.db, u.id).map((k) => keyView(hub, k));
}

/** Revokes one scoped key (the agent and its other keys keep working); calls waiting under it end (hub/identity/key-waits.ts). */
export function revokeScopedKey(hub: PlacesHub, keyId: string): AgentKeyView {
  const scoped = hub.services.scopedKeys;
  const view = scoped.changing(() =>
    hub.write(() => {
      const k = agentKeyById(hub.db, keyId);
      if (!k) throw new HubError('not_found', `No key ${keyId}.`, "List the agent's keys to find its id.");
      revokeAgentKey(hub.db, k.id, hub.now());
      dropKeyCursors(hub.db, k.id); // its own get_updates positions (hub/talk/delivery.ts)
      scoped.forget();
      return keyView(hub, agentKeyById(hub.db, k.id)!);
    }),
  );
  endRevokedWaits(hub, findAgent(hub, view.agent).id);
  return view;
}
