// Review mode: which agents are under review, and their held sends (hub/features/review/review.ts).
import { sql, type Db } from '../../db/db';

export type { HeldKind } from '../../../../shared/features/review';
import type { HeldKind } from '../../../../shared/features/review';
export type HeldState = 'held' | 'sent' | 'discarded';

export interface HeldRow {
  id: string;
  agent_id: string;
  /** null: a task channel or group that is made when the owner sends it. */
  conv_id: string | null;
  kind: HeldKind;
  /** The validated input, as JSON. */
  input: string;
  created_at: number;
  state: HeldState;
  decided_at: number | null;
  msg_id: string | null;
  sent_text: string | null;
  /** Size of the held file's bytes (null: none kept). */
  data_size: number | null;
}

const COLUMNS = 'id, agent_id, conv_id, kind, input, created_at, state, decided_at, msg_id, sent_text, length(data) AS data_size';

export function isUnderReview(db: Db, agentId: string): boolean {
  return sql(db, 'SELECT 1 FROM review_mode WHERE agent_id = ?').get(agentId) !== undefined;
}

/** Agents under review, with the time review was turned on. */
export function reviewedAgents(db: Db): Map<string, number> {
  return new Map(
    sql<{ agent_id: string; since: number }>(db, 'SELECT agent_id, since FROM review_mode')
      .all()
      .map((r) => [r.agent_id, r.since]),
  );
}

/** Turns review on or off; answers whether it changed. */
export function setReviewMode(db: Db, agentId: string, on: boolean, at: number): boolean {
  return on
    ? sql(db, 'INSERT OR IGNORE INTO review_mode (agent_id, since) VALUES (?, ?)').run(agentId, at).changes === 1
    : sql(db, 'DELETE FROM review_mode WHERE agent_id = ?').run(agentId).changes === 1;
}

export function insertHeld(
  db: Db,
  h: {
    id: string;
    agent_id: string;
    conv_id: string | null;
    kind: HeldKind;
    input: string;
    data: Buffer | null;
    thumb: Buffer | null;
    created_at: number;
  },
): void {
  sql(
    db,
    `INSERT INTO held_items (id, agent_id, conv_id, kind, input, data, thumb, created_at)
           VALUES (@id, @agent_id, @conv_id, @kind, @input, @data, @thumb, @created_at)`,
  ).run(h);
}

export function heldById(db: Db, id: string): HeldRow | undefined {
  return sql<HeldRow>(db, `SELECT ${COLUMNS} FROM held_items WHERE id = ?`).get(id);
}

/** A held file's bytes (original and thumbnail). */
export function heldBytes(db: Db, id: string): { data: Buffer | null; thumb: Buffer | null } | undefined {
  return sql<{ data: Buffer | null; thumb: Buffer | null }>(db, 'SELECT data, thumb FROM held_items WHERE id = ?').get(id);
}

/** Held items waiting for the owner, oldest first. */
export function heldWaiting(db: Db, limit: number): HeldRow[] {
  return sql<HeldRow>(db, `SELECT ${COLUMNS} FROM held_items WHERE state = 'held' ORDER BY created_at, id LIMIT ?`).all(limit);
}

/** Held items of one agent waiting for the owner. */
export function countHeldOf(db: Db, agentId: string): number {
  return sql<{ n: number }>(db, `SELECT count(*) AS n FROM held_items WHERE agent_id = ? AND state = 'held'`).get(agentId)!.n;
}

/** Closes a held item (sent or discarded) and drops its bytes; false if it was not held any more. */
export function closeHeld(
  db: Db,
  id: string,
  state: 'sent' | 'discarded',
  at: number,
  msgId: string | null,
  sentText: string | null,
): boolean {
  return (
    sql(
      db,
      `UPDATE held_items SET state = ?, decided_at = ?, msg_id = ?, sent_text = ?, data = NULL, thumb = NULL
                   WHERE id = ? AND state = 'held'`,
    ).run(state, at, msgId, sentText, id).changes === 1
  );
}

/** Marks a posted message as reviewed by a person (2: they also edited its text). */
export function markReviewed(db: Db, msgId: string, edited: boolean): void {
  sql(db, 'UPDATE messages SET reviewed = ? WHERE id = ?').run(edited ? 2 : 1, msgId);
}
