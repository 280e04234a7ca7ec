import { sql, type Db } from '../../db/db';

export interface HandoffRow {
  id: number;
  conv_id: string;
  agent_id: string;
  to_user: string;
  note: string;
  at: number;
  returned_at: number | null;
  return_note: string | null;
}

export function activeHandoff(db: Db, convId: string, agentId: string): HandoffRow | undefined {
  return sql<HandoffRow>(db, 'SELECT * FROM handoffs WHERE conv_id = ? AND agent_id = ? AND returned_at IS NULL').get(convId, agentId);
}

export function activeHandoffsOf(db: Db, convId: string): HandoffRow[] {
  return sql<HandoffRow>(db, 'SELECT * FROM handoffs WHERE conv_id = ? AND returned_at IS NULL ORDER BY id').all(convId);
}

export function handoffById(db: Db, id: number): HandoffRow | undefined {
  return sql<HandoffRow>(db, 'SELECT * FROM handoffs WHERE id = ?').get(id);
}

export function allActiveHandoffs(db: Db): HandoffRow[] {
  return sql<HandoffRow>(db, 'SELECT * FROM handoffs WHERE returned_at IS NULL ORDER BY id').all();
}

export function insertHandoff(db: Db, h: Omit<HandoffRow, 'id' | 'returned_at' | 'return_note'>): number {
  return Number(
    sql(db, 'INSERT INTO handoffs (conv_id, agent_id, to_user, note, at) VALUES (@conv_id, @agent_id, @to_user, @note, @at)').run(h)
      .lastInsertRowid,
  );
}

export function returnHandoff(db: Db, id: number, note: string, at: number): void {
  const r = sql(db, 'UPDATE handoffs SET returned_at = ?, return_note = ? WHERE id = ? AND returned_at IS NULL').run(at, note, id);
  if (r.changes !== 1) throw new Error(`returnHandoff: no active handoff ${id}`);
}

/** The seq of the handoff.created event of handoff id in its conversation. */
export function handoffCreatedSeq(db: Db, convId: string, id: number): number | undefined {
  return sql<{ seq: number }>(
    db,
    "SELECT seq FROM events WHERE conv_id = ? AND type = 'handoff.created' AND json_extract(data, '$.handoff_id') = ? ORDER BY seq DESC LIMIT 1",
  ).get(convId, id)?.seq;
}
