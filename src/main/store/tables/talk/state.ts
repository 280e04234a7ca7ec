// Checkpoints (state_*): per-user versioned JSON values.
// state_keys holds the current version of each key; state_values every kept version.
// Keys compare with SQLite's default BINARY collation (memcmp over UTF-8), i.e. byte order.
import { sql, type Db } from '../../db/db';

export interface StateKeyRow {
  user_id: string;
  key: string;
  version: number;
  at: number;
}

export interface StateValueRow {
  user_id: string;
  key: string;
  version: number;
  value: string;
  at: number;
}

export function stateKey(db: Db, userId: string, key: string): StateKeyRow | undefined {
  return sql<StateKeyRow>(db, 'SELECT * FROM state_keys WHERE user_id = ? AND key = ?').get(userId, key);
}

export function stateValue(db: Db, userId: string, key: string, version: number): StateValueRow | undefined {
  return sql<StateValueRow>(db, 'SELECT * FROM state_values WHERE user_id = ? AND key = ? AND version = ?').get(userId, key, version);
}

/** Writes a new version and makes it the current one (the caller checked the expected version). */
export function writeStateVersion(db: Db, row: StateValueRow): void {
  sql(db, 'INSERT INTO state_values (user_id, key, version, value, at) VALUES (@user_id, @key, @version, @value, @at)').run(row);
  sql(
    db,
    `INSERT INTO state_keys (user_id, key, version, at) VALUES (@user_id, @key, @version, @at)
           ON CONFLICT (user_id, key) DO UPDATE SET version = excluded.version, at = excluded.at`,
  ).run({
    user_id: row.user_id,
    key: row.key,
    version: row.version,
    at: row.at,
  });
}

/** Drops versions older than the newest `keep` of a key. */
export function pruneStateVersions(db: Db, userId: string, key: string, currentVersion: number, keep: number): void {
  sql(db, 'DELETE FROM state_values WHERE user_id = ? AND key = ? AND version <= ?').run(userId, key, currentVersion - keep);
}

/** Deletes a key with all its versions. */
export function deleteStateKey(db: Db, userId: string, key: string): void {
  sql(db, 'DELETE FROM state_values WHERE user_id = ? AND key = ?').run(userId, key);
  sql(db, 'DELETE FROM state_keys WHERE user_id = ? AND key = ?').run(userId, key);
}

/**
 * A page of a user's keys in byte order: key > after, key >= lower and (when given) key < upper.
 * The caller turns a prefix into [lower, upper) (see hub/features/memory/state.ts prefixRange).
 */
export function listStateKeys(
  db: Db,
  userId: string,
  opts: { after: string; lower: string; upper: string | null; limit: number },
): StateKeyRow[] {
  if (opts.upper === null) {
    return sql<StateKeyRow>(db, 'SELECT * FROM state_keys WHERE user_id = ? AND key > ? AND key >= ? ORDER BY key LIMIT ?').all(
      userId,
      opts.after,
      opts.lower,
      opts.limit,
    );
  }
  return sql<StateKeyRow>(db, 'SELECT * FROM state_keys WHERE user_id = ? AND key > ? AND key >= ? AND key < ? ORDER BY key LIMIT ?').all(
    userId,
    opts.after,
    opts.lower,
    opts.upper,
    opts.limit,
  );
}
