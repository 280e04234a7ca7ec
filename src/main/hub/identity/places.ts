// Where a key may connect from (shared/agents/places.ts): the owner sets it per key (the agent's own key, which its wake
// runs' keys inherit, and each scoped key); hub/identity/key-login.ts checks it when the key logs in. A key used from a
// place it is not allowed is refused; the first such refusal of a key from a place is told to the owner on the live
// stream ({ key_place_refused }), the door logs every one.
import type { Hub } from '../core/hub';
import type { OutsideMemo } from '../core/outside-writes';
import type { KeyWaits } from './key-waits';
import { HubError } from '../../../shared/errors';
import { PlacesError, normalizePlaces, placesWarning, readPlaces, type RequestPlace } from '../../../shared/agents/places';
import { agentKeyById, setAgentKeyAllowedFrom } from '../../store/tables/agents/agent-keys';
import { setUserAllowedFrom, type UserRow } from '../../store/tables/agents/users';
import type { KeyAuth } from '../../../shared/agents/scoped-keys';
import { findAgent, forgetKeys } from './identities';
import { endRevokedWaits } from './key-waits';

/** The hub as this module reaches it: the services it uses (the whole set: src/main/hub/services.ts). */
export type PlacesHub = Hub<{
  ownKeys: OutsideMemo<string>;
  scopedKeys: OutsideMemo<ScopedEntry>;
  keyWaits: KeyWaits;
  placeRefusals: Set<string>;
}>;

/** A live scoped key as read from the store: its agent, what it may do (expiry is checked on every call) and where it may connect from. */
export interface ScopedEntry {
  userId: string;
  auth: KeyAuth;
  from: readonly string[];
}

/** Places as given by the owner (a list, or "a,b"), checked and normalized; a clear invalid_argument otherwise. */
export function checkedPlaces(input: unknown): string[] {
  try {
    return normalizePlaces(input);
  } catch (e) {
    if (!(e instanceof PlacesError)) throw e;
    throw new HubError(
      'invalid_argument',
      e.message,
      'Give one or more of local, containers, tailnet, or an IPv4 range like 172.18.0.0/16 (comma-separated on the command line).',
    );
  }
}

/** Where the agent's own key (and its wake runs' keys) may connect from. */
export function agentPlaces(u: UserRow): readonly string[] {
  return readPlaces(u.allowed_from);
}

export interface KeyPlaces {
  agent: string;
  /** The scoped key's id; null for the agent's own key. */
  key_id: string | null;
  key_name: string;
  from: string[];
  /** Set when the places are kept but likely a mistake (a range covering every address): shown to the owner. */
  warning?: string;
}

/** Sets where one key of an agent may connect from: its own key (keyId omitted) or one of its scoped keys. */
export function setKeyPlaces(hub: PlacesHub, input: { agent: string; key_id?: string; from: unknown }): KeyPlaces {
  const from = checkedPlaces(input.from);
  const stored = JSON.stringify(from);
  const warning = placesWarning(from);
  const told = warning ? { warning } : {};
  const set = hub.write((): KeyPlaces & { userId: string } => {
    const u = findAgent(hub, input.agent);
    if (input.key_id === undefined) {
      setUserAllowedFrom(hub.db, u.id, stored);
      hub.forgetUser(u.id);
      forgetKeys(hub);
      return { agent: u.name, key_id: null, key_name: 'main', from, ...told, userId: u.id };
    }
    const k = agentKeyById(hub.db, input.key_id);
    if (!k || k.user_id !== u.id)
      throw new HubError('not_found', `${u.name} has no key ${input.key_id}.`, `List its keys: perch agent key list ${u.name}.`);
    setAgentKeyAllowedFrom(hub.db, k.id, stored);
    hub.services.scopedKeys.forget();
    return { agent: u.name, key_id: k.id, key_name: k.name, from, ...told, userId: u.id };
  });
  // Calls waiting under the key from a place it may no longer use end now, as revoking ends them (key-waits.ts).
  const { userId, ...view } = set;
  endRevokedWaits(hub, userId);
  return view;
}

/** How the owner changes a key's places, for a refusal's message. */
export function howToAllow(agent: string, keyId: string | null, places: readonly string[], at: RequestPlace): string {
  const want = [...new Set([...places, at.place])].join(',');
  return keyId
    ? `perch agent key from ${agent} ${want} --key ${keyId} (or the owner action agents.set_from with key_id)`
    : `perch agent key from ${agent} ${want} (or the owner action agents.set_from)`;
}

/** Why a key is refused where it came from, and how the owner allows it (the /mcp and /hook doors' 403). */
export function wrongPlaceMessage(
  agent: string,
  keyId: string | null,
  keyName: string,
  allowed: readonly string[],
  at: RequestPlace,
): string {
  return `Forbidden: this key (${agent}, key ${keyName}) may connect from ${allowed.join(', ')} only; this request came from ${at.place} (${at.via}). Your owner can allow it with: ${howToAllow(agent, keyId, allowed, at)}.`;
}

/** A key was used from a place it may not be used from: told to the owner once per agent, key and place. */
export function notePlaceRefusal(
  hub: PlacesHub,
  u: UserRow,
  keyId: string | null,
  keyName: string,
  allowed: readonly string[],
  at: RequestPlace,
): void {
  const seen = hub.services.placeRefusals;
  const id = `${u.id}\u0000${keyId ?? ''}\u0000${at.place}`;
  if (seen.has(id)) return;
  if (seen.size > 10_000) seen.clear();
  seen.add(id);
  hub.bus.publish({
    kind: 'hub',
    value: {
      key_place_refused: {
        agent: u.name,
        key_id: keyId,
        key_name: keyName,
        allowed: [...allowed],
        place: at.place,
        via: at.via,
        address: at.address,
        at: hub.now(),
        how: howToAllow(u.name, keyId, allowed, at),
      },
    },
  });
}
