import { sql, type Db } from '../../db/db';

export interface ProgressRow {
  id: number;
  user_id: string;
  conv_id: string;
  kind: string;
  text: string;
  data: string | null;
  msg_id: string | null;
  ts: number;
}

export function insertProgress(db: Db, p: Omit<ProgressRow, 'id'>): number {
  return Number(
    sql(
      db,
      'INSERT INTO progress (user_id, conv_id, kind, text, data, msg_id, ts) VALUES (@user_id, @conv_id, @kind, @text, @data, @msg_id, @ts)',
    ).run(p).lastInsertRowid,
  );
}

/** Keeps the newest `keep` progress rows of a user. */
export function pruneProgress(db: Db, userId: string, keep: number): void {
  sql(
    db,
    `DELETE FROM progress WHERE user_id = ? AND id <= (
             SELECT id FROM progress WHERE user_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
  ).run(userId, userId, keep);
}

export function recentProgress(db: Db, opts: { convId?: string; userId?: string; beforeId?: number; limit: number }): ProgressRow[] {
  const before = opts.beforeId ?? Number.MAX_SAFE_INTEGER;
  if (opts.convId)
    return sql<ProgressRow>(db, 'SELECT * FROM progress WHERE conv_id = ? AND id < ? ORDER BY id DESC LIMIT ?').all(
      opts.convId,
      before,
      opts.limit,
    );
  if (opts.userId)
    return sql<ProgressRow>(db, 'SELECT * FROM progress WHERE user_id = ? AND id < ? ORDER BY id DESC LIMIT ?').all(
      opts.userId,
      before,
      opts.limit,
    );
  return sql<ProgressRow>(db, 'SELECT * FROM progress WHERE id < ? ORDER BY id DESC LIMIT ?').all(before, opts.limit);
}

/** Per agent: counts of progress events per minute over the last `minutes` minutes (for sparklines). */
export function progressActivity(db: Db, since: number): Array<{ user_id: string; minute: number; kind: string; n: number }> {
  return sql<{ user_id: string; minute: number; kind: string; n: number }>(
    db,
    'SELECT user_id, ts / 60000 AS minute, kind, count(*) AS n FROM progress WHERE ts >= ? GROUP BY user_id, minute, kind',
  ).all(since);
}
