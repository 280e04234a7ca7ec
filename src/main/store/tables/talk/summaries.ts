// An agent's own summaries of ranges of a conversation (put_summary; get_context starts from the latest).
import { sql, type Db } from '../../db/db';

export interface SummaryRow {
  id: number;
  user_id: string;
  conv_id: string;
  from_seq: number;
  to_seq: number;
  text: string;
  at: number;
}

export function insertSummary(db: Db, s: Omit<SummaryRow, 'id'>): number {
  return Number(
    sql(
      db,
      'INSERT INTO summaries (user_id, conv_id, from_seq, to_seq, text, at) VALUES (@user_id, @conv_id, @from_seq, @to_seq, @text, @at)',
    ).run(s).lastInsertRowid,
  );
}

/** The summary the user wrote last for the conversation. */
export function latestSummary(db: Db, userId: string, convId: string): SummaryRow | undefined {
  return sql<SummaryRow>(db, 'SELECT * FROM summaries WHERE user_id = ? AND conv_id = ? ORDER BY id DESC LIMIT 1').get(userId, convId);
}

/** Keeps the newest `keep` summaries of a user for a conversation. */
export function pruneSummaries(db: Db, userId: string, convId: string, keep: number): void {
  sql(
    db,
    `DELETE FROM summaries WHERE user_id = ? AND conv_id = ? AND id <= (
             SELECT id FROM summaries WHERE user_id = ? AND conv_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
  ).run(userId, convId, userId, convId, keep);
}
