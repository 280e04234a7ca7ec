// Noticing writes by other connections to the same SQLite file (the `perch` CLI while the hub runs: `perch agent
// revoke`, `perch agent pause`, `perch agent review`, `perch agent key revoke`, …). PRAGMA data_version changes
// whenever ANOTHER connection committed; this hub's own commits leave it. Caches of rows the hub reads on every
// call (keys, review mode, controls, wake actions) compare it with the version they were filled at. The hub holds
// one OutsideWrites (hub.outside); each cache is an OutsideMemo field of the service that reads it.
import type { Db } from '../../store/db/db';
import { dataVersion } from '../../store/db/db';

interface Turn {
  version: number;
  /** The version was read in this turn of the event loop (requests that arrived together share the read). */
  fresh: boolean;
}

/** The database's data_version as this hub last read it. */
export class OutsideWrites {
  private turn: Turn | undefined;

  constructor(private readonly db: Db) {}

  /**
   * The data_version, read at most once per turn of the event loop, shared by every cache of this hub: a write by
   * another process is seen by the first call of the next turn.
   */
  version(opts: { now?: boolean } = {}): number {
    let t = this.turn;
    if (t?.fresh && !opts.now) return t.version; // now: read again even in this turn (a wait about to read: hub/identity/key-waits.ts)
    const version = dataVersion(this.db);
    const scheduled = t?.fresh === true; // a reset of this turn's read is already on its way
    if (!t) this.turn = t = { version, fresh: true };
    else {
      t.version = version;
      t.fresh = true;
    }
    const seen = t;
    if (!scheduled)
      setImmediate(() => {
        seen.fresh = false;
      });
    return version;
  }
}

/**
 * Values read from the store, by key, kept until another connection writes to the database or this hub calls
 * forget() (do that inside the write that changes them, and again after it, so a rolled-back write leaves nothing
 * behind). Bounded: past `max` entries it starts again. Each is a field of the hub's service that reads it.
 */
export class OutsideMemo<V extends NonNullable<unknown>> {
  private known: { version: number; map: Map<string, V> } | undefined;

  constructor(
    private readonly outside: OutsideWrites,
    private readonly max = 10_000,
  ) {}

  /** The value known for key, or load()'s; a load that returns undefined is not kept (asked again next time). */
  get(key: string, load: () => V | undefined): V | undefined {
    const version = this.outside.version();
    let m = this.known;
    if (!m || m.version !== version) this.known = m = { version, map: new Map() };
    const known = m.map.get(key);
    if (known !== undefined) return known;
    const value = load();
    if (value === undefined) return undefined;
    if (m.map.size >= this.max) m.map.clear();
    m.map.set(key, value);
    return value;
  }

  /** Drops what is known (after a change made here). */
  forget(): void {
    this.known = undefined;
  }

  /**
   * Runs a write that changes what this memo holds and forgets it after the write, committed or rolled back (call
   * forget() inside it too when the same write reads the memo again after its change).
   */
  changing<T>(write: () => T): T {
    try {
      return write();
    } finally {
      this.forget();
    }
  }
}
