// Telemetry-only tokens: one per agent, for its harness's OpenTelemetry exporter (the OTLP door, mcp/otlp-door.ts).
// A harness's telemetry settings live in a file (Claude Code's settings.json env block; Codex's config.toml, which does
// not expand variables in its headers), so the credential there must be worth little: this token can add usage
// records for its one agent and nothing else — no MCP door, hook door or owner API accepts it (its prefix is no
// agent key's, and it is looked up nowhere else). Stored as a hash, shown once; making a new one replaces the old;
// rotating the agent's key (hub/control/agents.ts rotateKey) drops it; revoking the agent stops it. A wake run's own
// telemetry token (hub/identity/run-keys.ts: in memory, for the run's agent, revoked when the run ends) is taken here too.
import crypto from 'node:crypto';
import type { FeaturesHub } from '../services';
import { HubError } from '../../../../shared/errors';
import { findAgent, hashKey } from '../../identity/identities';
import { agentPlaces, notePlaceRefusal } from '../../identity/places';
import { placeAllowed, type RequestPlace } from '../../../../shared/agents/places';
import { runTelemetryAgent } from '../../identity/run-keys';
import type { UserRow } from '../../../store/tables/agents/users';
import {
  dropTelemetryToken,
  putTelemetryToken,
  telemetryTokenByHash,
  telemetryTokenOf,
} from '../../../store/tables/ledger/telemetry-tokens';

/** Every telemetry token starts so (an agent key is `perch_` and 32 characters: the two never match). */
export const TELEMETRY_TOKEN_PREFIX = 'perch_otlp_';

/** A new telemetry token for the agent (the earlier one stops working); shown once. */
export function newTelemetryToken(
  hub: FeaturesHub,
  nameOrId: string,
): { agent: { id: string; name: string }; token: string; hint: string } {
  return hub.write(() => {
    const u = findAgent(hub, nameOrId);
    if (u.revoked_at != null) throw new HubError('conflict', `Agent ${u.name} is revoked.`, 'Rotate its key first to bring it back.');
    const token = TELEMETRY_TOKEN_PREFIX + crypto.randomBytes(24).toString('base64url');
    const hint = token.slice(-4);
    putTelemetryToken(hub.db, { user_id: u.id, token_hash: hashKey(token), hint, created_at: hub.now() });
    return { agent: { id: u.id, name: u.name }, token, hint };
  });
}

/** Whether the agent has a telemetry token (its hint), for the owner. */
export function telemetryTokenHint(hub: FeaturesHub, agentId: string): string | undefined {
  return telemetryTokenOf(hub.db, agentId)?.hint;
}

/** Drops the agent's telemetry token (its key was rotated). */
export function dropAgentTelemetryToken(hub: FeaturesHub, agentId: string): void {
  dropTelemetryToken(hub.db, agentId);
}

export type TelemetryLogin =
  { standing: 'ok'; user: UserRow } | { standing: 'refused' } | { standing: 'place'; user: UserRow; allowed: readonly string[] };

/** Who a telemetry token stands for, from where it may be used (the agent's places, as its own key). */
export function telemetryLogin(hub: FeaturesHub, token: string, at: RequestPlace): TelemetryLogin {
  if (!token.startsWith(TELEMETRY_TOKEN_PREFIX) || token.length > 200) return { standing: 'refused' };
  // A wake run's own token (in this hub's memory while the run lives), else the agent's stored one.
  let userId = runTelemetryAgent(hub.services.runKeys, token, Date.now());
  if (userId === undefined) {
    const hash = hashKey(token);
    const row = telemetryTokenByHash(hub.db, hash);
    if (!row || !crypto.timingSafeEqual(row.token_hash, hash)) return { standing: 'refused' };
    userId = row.user_id;
  }
  let user: UserRow;
  try {
    hub.forgetUser(userId);
    user = hub.user(userId);
  } catch {
    return { standing: 'refused' };
  }
  if (user.revoked_at != null || user.kind !== 'agent') return { standing: 'refused' };
  const allowed = agentPlaces(user);
  if (!placeAllowed(allowed, at)) {
    notePlaceRefusal(hub, user, 'telemetry', 'telemetry token', allowed, at);
    return { standing: 'place', user, allowed };
  }
  return { standing: 'ok', user };
}

/** Whether `token` is the agent's telemetry token now (perch connect keeps a working one). */
export function telemetryTokenMatches(hub: FeaturesHub, nameOrId: string, token: string): boolean {
  const row = telemetryTokenOf(hub.db, findAgent(hub, nameOrId).id);
  if (!row) return false;
  const hash = hashKey(token);
  return row.token_hash.length === hash.length && crypto.timingSafeEqual(row.token_hash, hash);
}

/** The id of the agent whose telemetry token `token` is now, or undefined (no one's: an old or unknown one). */
export function telemetryTokenOwner(hub: FeaturesHub, token: string): string | undefined {
  if (!token.startsWith(TELEMETRY_TOKEN_PREFIX) || token.length > 200) return undefined;
  return telemetryTokenByHash(hub.db, hashKey(token))?.user_id;
}
