// Noticing writes by other connections to the same SQLite file (the `perch` CLI while the hub runs: `perch agent
// revoke`, `perch agent pause`, `perch agent review`, `perch agent key revoke`, …). PRAGMA data_version changes
// whenever ANOTHER connection committed; this hub's own commits leave it. Caches of rows the hub reads on every
// call (keys, review mode, controls, wake actions) compare it with the version they were filled at.
import type { Hub } from './hub';
import { dataVersion } from '../../store/db';

interface Turn {
  version: number;
  /** The version was read in this turn of the event loop (requests that arrived together share the read). */
  fresh: boolean;
}
const turns = new WeakMap<Hub, Turn>();

/**
 * The database's data_version, read at most once per turn of the event loop, shared by every cache of this
 * hub: a write by another process is seen by the first call of the next turn.
 */
export function outsideVersion(hub: Hub, opts: { now?: boolean } = {}): number {
  let t = turns.get(hub);
  if (t?.fresh && !opts.now) return t.version; // now: read again even in this turn (a wait about to read: hub/identity/key-waits.ts)
  const version = dataVersion(hub.db);
  const scheduled = t?.fresh === true; // a reset of this turn's read is already on its way
  if (!t) turns.set(hub, (t = { version, fresh: true }));
  else {
    t.version = version;
    t.fresh = true;
  }
  const seen = t;
  if (!scheduled) setImmediate(() => { seen.fresh = false; });
  return version;
}

/**
 * Values read from the store, per hub and key, kept until another connection writes to the database or this
 * hub calls forget() (do that inside the write that changes them, and again after it, so a rolled-back write
 * leaves nothing behind). Bounded: past `max` entries it starts again.
 */
export class OutsideMemo<V extends NonNullable<unknown>> {
  private readonly perHub = new WeakMap<Hub, { version: number; map: Map<string, V> }>();

  constructor(private readonly max = 10_000) {}

  /** The value known for key, or load()'s; a load that returns undefined is not kept (asked again next time). */
  get(hub: Hub, key: string, load: () => V | undefined): V | undefined {
    const version = outsideVersion(hub);
    let m = this.perHub.get(hub);
    if (!m || m.version !== version) this.perHub.set(hub, (m = { version, map: new Map() }));
    const known = m.map.get(key);
    if (known !== undefined) return known;
    const value = load();
    if (value === undefined) return undefined;
    if (m.map.size >= this.max) m.map.clear();
    m.map.set(key, value);
    return value;
  }

  /** Drops what is known for this hub (after a change made here). */
  forget(hub: Hub): void {
    this.perHub.delete(hub);
  }

  /**
   * Runs a write of the hub that changes what this memo holds and forgets it after the write, committed or rolled
   * back (call forget() inside it too when the same write reads the memo again after its change).
   */
  changing<T>(hub: Hub, write: () => T): T {
    try {
      return write();
    } finally {
      this.forget(hub);
    }
  }
}
