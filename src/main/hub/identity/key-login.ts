// Logging in with a key: the one place where a bearer key is authenticated, whatever its kind. An agent's own key,
// one of its scoped keys (hub/identity/agent-keys.ts) or a wake run's key (hub/identity/run-keys.ts) is hashed once
// and looked up where that kind is kept; the answer says who the key stands for and with what standing. The MCP door
// logs every request in here, and a waiting call asks again here whether its key still works (keyStanding).
import type { IdentityHub } from './services';
import type { UserRow } from '../../store/tables/agents/users';
import type { KeyAuth, KeyStanding, WaitStanding } from '../../../shared/agents/scoped-keys';
import { KEY_PREFIX, hashKey, ownKeyUser } from './identities';
import { MAIN_KEY, scopedKey } from './agent-keys';
import { RUN_KEY_PREFIX } from './run-keys';
import { placeAllowed, type RequestPlace } from '../../../shared/agents/places';
import { agentPlaces, notePlaceRefusal } from './places';

/** Which kind of key it was. */
export type KeyKind = 'own' | 'scoped' | 'run';

/** Who a key stands for and what it may do; or why it does not work ('revoked' also for a wrong or unknown key). */
export type KeyLogin =
  | { standing: 'ok'; user: UserRow; auth: KeyAuth; kind: KeyKind }
  | { standing: Exclude<KeyStanding, 'ok'> }
  /** A working key used from a place it may not connect from (hub/identity/places.ts). */
  | { standing: 'place'; user: UserRow; auth: KeyAuth; kind: KeyKind; allowed: readonly string[]; at: RequestPlace };

const REFUSED: KeyLogin = Object.freeze({ standing: 'revoked' });
const EXPIRED: KeyLogin = Object.freeze({ standing: 'expired' });

/**
 * Authenticates a bearer key of any kind; with `at` (where the request came from), also whether the key may be used
 * from there: its own places for an agent's own key and a scoped key, the agent's for a wake run's key. A refusal by
 * place is told to the owner (once per agent, key and place).
 */
export function authenticateKey(hub: IdentityHub, key: string, at?: RequestPlace): KeyLogin {
  const found = loginOf(hub, key);
  if (found.standing !== 'ok') return found;
  const { from, ...ok } = found as Extract<Login, { from?: readonly string[] }>;
  if (!at) return ok;
  const allowed = from ?? agentPlaces(ok.user);
  if (placeAllowed(allowed, at)) return ok;
  notePlaceRefusal(hub, ok.user, ok.auth.id, ok.auth.name, allowed, at);
  return { ...ok, standing: 'place', allowed, at };
}

/** A login before its place is checked: a scoped key carries its own places. */
type Login = KeyLogin | { standing: 'ok'; user: UserRow; auth: KeyAuth; kind: KeyKind; from?: readonly string[] };

function loginOf(hub: IdentityHub, key: string): Login {
  if (!key.startsWith(KEY_PREFIX) || key.length > 200) return REFUSED;
  const hash = hashKey(key);
  // A wake run's own short-lived key stands for its agent, with every scope, while the run lives.
  if (key.startsWith(RUN_KEY_PREFIX)) {
    const id = hub.services.runKeys.agentOf(hash.toString('base64'), Date.now());
    if (!id) return REFUSED;
    hub.forgetUser(id);
    const u = hub.user(id);
    return u.revoked_at == null ? { standing: 'ok', user: u, auth: MAIN_KEY, kind: 'run' } : REFUSED;
  }
  const own = ownKeyUser(hub, hash);
  if (own) return { standing: 'ok', user: own, auth: MAIN_KEY, kind: 'own' };
  const entry = scopedKey(hub, hash);
  if (!entry) return REFUSED;
  if (entry.auth.expires_at != null && entry.auth.expires_at <= hub.now()) return EXPIRED;
  let user: UserRow;
  try {
    user = hub.user(entry.userId);
  } catch {
    return REFUSED;
  }
  if (user.revoked_at != null) return REFUSED; // revoking the agent stops all its keys
  return { standing: 'ok', user, auth: entry.auth, kind: 'scoped', from: entry.from };
}

/**
 * The standing of the key a call came with, asked again later (a waiting call asks before it reads:
 * hub/identity/key-waits.ts): 'ok', 'expired', 'revoked' (revoked, rotated, unknown, or its agent revoked), or, with
 * `at` (where the call came from), 'place' once the key's places leave that out (the owner narrowed them). It goes
 * through the same caches as the login, which another process's writes clear (hub/core/outside-writes.ts).
 */
export function keyStanding(hub: IdentityHub, key: string, userId: string, at?: RequestPlace): () => WaitStanding {
  return () => {
    const found = authenticateKey(hub, key, at);
    if (found.standing === 'place') return found.user.id === userId ? 'place' : 'revoked';
    if (found.standing !== 'ok') return found.standing;
    return found.user.id === userId ? 'ok' : 'revoked';
  };
}
