// Waits under a key: a waiting call (get_updates or get_request with wait_secs) lasts only as long as the key it
// came with works from where the call came. Revoking the agent or the scoped key, rotating the agent's key, or the
// key reaching its expires_at ends the wait at once with `unauthorized` (the MCP door answers it like a bad key:
// 401); narrowing the key's places so they leave out the wait's place ends it too (403 wrong_place, as the next
// request from there would be answered); a wait also asks about its key again before it reads. A key may be revoked by another process on the same file (the
// CLI while the hub runs): startKeyWatch notices such writes (PRAGMA data_version, hub/core/outside-writes.ts).
import type { Hub } from '../core/hub';
import type { RequestPlace } from '../../../shared/agents/places';
import { isReadOnlyKey, type KeyAuth, type WaitStanding } from '../../../shared/agents/scoped-keys';
import { HubError } from '../../../shared/errors';

/** The hub as this module reaches it: the services it uses (the whole set: src/main/hub/services.ts). */
type KeyWaitsHub = Hub<{ keyWaits: KeyWaits }>;

/** Who makes a call, as the handlers that wait need to know it. */
export interface Caller {
  /** Fires when the caller went away (its connection closed). */
  signal?: AbortSignal;
  /** The caller's key: its scopes and expiry (hub/identity/agent-keys.ts); absent means the agent's own key. */
  key?: KeyAuth;
  /** Asks whether the caller's key still works, from where the call came (hub/identity/key-login.ts keyStanding); absent: nothing to ask. */
  standing?: () => WaitStanding;
  /** Where the call came from (the door says; absent: the loopback). File links are made for that place. */
  at?: RequestPlace;
  /**
   * Set only by the hook door (mcp/hook-door.ts) when it files a harness's permission prompt through request_human:
   * which client filed it (`perch hook permission-request`, `perch channel`). The MCP door never sets it.
   */
  door?: PromptDoor;
}

/** The clients that file a harness's permission prompt through the hook door. */
export type PromptDoor = 'hook' | 'channel';

interface KeyWait {
  userId: string;
  standing: () => WaitStanding;
  end: () => void;
}

/** The calls of one hub that wait under a key. */
export class KeyWaits {
  readonly live = new Set<KeyWait>();
}

/** Throws unauthorized when the caller's key no longer works (details.key 'place': not from where the call came). */
export function requireKeyStanding(caller: Caller): void {
  const standing = caller.standing?.() ?? 'ok';
  if (standing === 'ok') return;
  if (standing === 'place') {
    throw new HubError(
      'unauthorized',
      `Forbidden: this key may no longer connect from ${caller.at?.place ?? 'local'}; your owner changed where it may connect from.`,
      'Connect from a place your owner allows for this key.',
      { key: standing },
    );
  }
  throw new HubError(
    'unauthorized',
    standing === 'expired' ? 'Unauthorized: this agent key has expired.' : 'Unauthorized: the agent key is wrong or was revoked.',
    'Stop using this key; ask your owner for a new one.',
    { key: standing },
  );
}

/**
 * hub.bus.wait for a caller with a key: never past the key's expiry, ended as soon as the key stops working,
 * and the key asked about again at the end. Throws unauthorized then; 'aborted' when the caller went away.
 */
export async function waitUnderKey(hub: KeyWaitsHub, userId: string, ms: number, caller: Caller): Promise<'woken' | 'timeout' | 'aborted'> {
  const { signal, standing } = caller;
  const observer = isReadOnlyKey(caller.key); // a read-only key's wait is not the agent listening (shared/agents/scoped-keys.ts)
  if (!standing) return hub.bus.wait(userId, ms, signal, observer);
  requireKeyStanding(caller);
  const expiresAt = caller.key?.expires_at;
  if (expiresAt != null) ms = Math.max(1, Math.min(ms, expiresAt - hub.now() + 1));
  const ended = new AbortController();
  const wait: KeyWait = { userId, standing, end: () => ended.abort() };
  const set = hub.services.keyWaits.live;
  set.add(wait);
  let why: 'woken' | 'timeout' | 'aborted';
  try {
    why = await hub.bus.wait(userId, ms, signal ? AbortSignal.any([signal, ended.signal]) : ended.signal, observer);
  } finally {
    set.delete(wait);
  }
  if (signal?.aborted) return 'aborted';
  hub.outside.version({ now: true }); // a revocation another process committed this very turn counts too
  requireKeyStanding(caller);
  return why === 'aborted' ? 'woken' : why; // ended for a key that still works: nothing lost, the caller reads again
}

/** Ends the waits (of one agent, or all) whose key stopped working, or may no longer be used from where the wait came from. Call after a key change (a revocation, new places) was committed. */
export function endRevokedWaits(hub: KeyWaitsHub, userId?: string): void {
  const set = hub.services.keyWaits.live;
  if (!set.size) return;
  for (const w of [...set]) {
    if (userId !== undefined && w.userId !== userId) continue;
    let standing: WaitStanding;
    try {
      standing = w.standing();
    } catch {
      continue;
    }
    if (standing !== 'ok') w.end();
  }
}

/**
 * Watches for keys revoked by another process (`perch agent revoke`, `perch agent rotate-key`,
 * `perch agent key revoke` while the hub runs): while any call waits under a key, a cheap check of PRAGMA
 * data_version a few times a second; a change asks every waiting call about its key. Started by the running
 * hub (app.ts); stops when it closes.
 */
export function startKeyWatch(hub: KeyWaitsHub): void {
  let seen = -1;
  const timer = setInterval(() => {
    try {
      if (!hub.db.open || !hub.services.keyWaits.live.size) return;
      const version = hub.outside.version();
      if (version === seen) return;
      seen = version;
      endRevokedWaits(hub);
    } catch {
      /* the next tick tries again */
    }
  }, 250);
  timer.unref();
  hub.onClose(() => clearInterval(timer));
}
