// How hard a commit tries to reach the disk. One choice per hub (`perch serve --durability`,
// PERCH_DURABILITY); it is a property of the SQLite connection (PRAGMA synchronous).
//   normal  WAL + synchronous=NORMAL (default): a write that returned success survives a crash or
//           kill -9 of the hub; a power cut or OS crash may lose the last commits before a checkpoint.
//   full    WAL + synchronous=FULL: every commit is fsynced before it returns, so it also survives a
//           power cut or OS crash; each commit costs one fsync.
import type Database from 'better-sqlite3';

export const DURABILITY_MODES = ['normal', 'full'] as const;
export type Durability = (typeof DURABILITY_MODES)[number];
export const DEFAULT_DURABILITY: Durability = 'normal';

/** PRAGMA synchronous level of each mode (SQLite: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA). */
const LEVEL: Record<Durability, number> = { normal: 1, full: 2 };

export function isDurability(value: unknown): value is Durability {
  return typeof value === 'string' && (DURABILITY_MODES as readonly string[]).includes(value);
}

/**
 * The mode a value names, or the default when it is unset or empty. Anything else throws an Error
 * whose message names where the value came from (e.g. `--durability` or `PERCH_DURABILITY`).
 */
export function parseDurability(value: string | undefined, source: string): Durability {
  if (value === undefined || value === '') return DEFAULT_DURABILITY;
  if (isDurability(value)) return value;
  throw new Error(
    `${source} must be ${DURABILITY_MODES.join(' or ')}, not ${JSON.stringify(value)} (normal survives a crash of the hub; full also survives a power cut, at one fsync per commit)`,
  );
}

/** Sets the connection's PRAGMA synchronous for a mode. */
export function applyDurability(db: Database.Database, mode: Durability): void {
  db.pragma(`synchronous = ${LEVEL[mode]}`);
}

/** What the connection actually runs with: its PRAGMA synchronous level and the mode that is. */
export function durabilityOf(db: Database.Database): { mode: Durability | 'other'; synchronous: number } {
  const synchronous = db.pragma('synchronous', { simple: true }) as number;
  const mode = DURABILITY_MODES.find((m) => LEVEL[m] === synchronous) ?? 'other';
  return { mode, synchronous };
}
