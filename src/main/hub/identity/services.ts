// What the identity area keeps for one hub, as typed fields (src/main/hub/services.ts joins every area's), and the
// hub its modules take when they reach them. The modules that define these services (identities, agent-keys,
// places, run-keys, key-waits) are imported here, so they type the hub by the fields they reach themselves.
import type { Hub } from '../core/hub';
import type { OutsideMemo } from '../core/outside-writes';
import type { ScopedEntry } from './places';
import type { RunKeys } from './run-keys';
import type { KeyWaits } from './key-waits';

export interface IdentityServices {
  /**
   * Agents' own keys this hub has verified (hash → user id): every MCP request authenticates, and reading the
   * row was a large share of a call's cost. Dropped whenever a key changes here (rotateKey, revokeAgent) and
   * whenever another process wrote to the database (PRAGMA data_version, hub/core/outside-writes.ts: e.g.
   * `perch agent revoke` or `perch agent config` while the hub runs), so a revoked key stops working and a changed
   * row is read again at once. Only valid keys are kept (hub/identity/identities.ts).
   */
  ownKeys: OutsideMemo<string>;
  /**
   * Scoped keys this hub has verified (hash → entry), like the agents' own keys (ownKeys): dropped when one is
   * revoked or added here and whenever another process wrote to the database (e.g. `perch agent key revoke` while the
   * hub runs: hub/core/outside-writes.ts), so a revoked key stops working at once. Only live keys are kept; the agent's
   * revocation is checked on every call (revokeAgent drops its cached row) (hub/identity/agent-keys.ts).
   */
  scopedKeys: OutsideMemo<ScopedEntry>;
  /** The live run keys of wake runs (hub/identity/run-keys.ts). */
  runKeys: RunKeys;
  /** The calls waiting under a key now (hub/identity/key-waits.ts). */
  keyWaits: KeyWaits;
  /** Refusals by place already told to the owner since the hub started (agent, key, place): each is told once (hub/identity/places.ts). */
  placeRefusals: Set<string>;
}

/** A hub with the identity area's services (and none above it). */
export type IdentityHub = Hub<IdentityServices>;
