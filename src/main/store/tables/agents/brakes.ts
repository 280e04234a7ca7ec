// Brakes (hub/control/brakes.ts): paused conversations, per-agent budgets, and the recent log a conversation's
// counts are rebuilt from.
import { sql, type Db } from '../../db/db';

export interface PauseRow {
  conv_id: string;
  reason: string;
  agents: string;
  paused_at: number;
}

export function allPauses(db: Db): PauseRow[] {
  return sql<PauseRow>(db, 'SELECT conv_id, reason, agents, paused_at FROM conversation_pauses').all();
}

export function insertPause(db: Db, row: PauseRow): void {
  sql(
    db,
    'INSERT OR REPLACE INTO conversation_pauses (conv_id, reason, agents, paused_at) VALUES (@conv_id, @reason, @agents, @paused_at)',
  ).run(row);
}

/** True when a pause was lifted (there was one). */
export function deletePause(db: Db, convId: string): boolean {
  return sql(db, 'DELETE FROM conversation_pauses WHERE conv_id = ?').run(convId).changes > 0;
}

export function allBudgets(db: Db): Array<{ user_id: string; budget: number }> {
  return sql<{ user_id: string; budget: number }>(db, 'SELECT user_id, budget FROM agent_brakes').all();
}

/** budget null: back to the default (no row); 0: off. */
export function setBudgetRow(db: Db, userId: string, budget: number | null): void {
  if (budget === null) sql(db, 'DELETE FROM agent_brakes WHERE user_id = ?').run(userId);
  else
    sql(db, 'INSERT INTO agent_brakes (user_id, budget) VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET budget = excluded.budget').run(
      userId,
      budget,
    );
}

export interface RecentEventRow {
  type: string;
  actor_id: string | null;
  ts: number;
  kind: string | null;
  text: string | null;
}

/**
 * Of a conversation's newest `limit` events, those since `since` (newest first), with the message's kind
 * and text for message.created: what the brakes' counts are rebuilt from. Only the newest `limit` are
 * read (ts is not indexed: filtering on it first would walk a quiet conversation's whole history).
 */
export function recentEvents(db: Db, convId: string, since: number, limit: number): RecentEventRow[] {
  return sql<RecentEventRow>(
    db,
    `
    SELECT e.type, e.actor_id, e.ts, m.kind, m.text
    FROM (SELECT gid, type, actor_id, ts, msg_id FROM events WHERE conv_id = ? ORDER BY gid DESC LIMIT ?) e
    LEFT JOIN messages m ON e.type = 'message.created' AND m.id = e.msg_id
    WHERE e.ts >= ?
    ORDER BY e.gid DESC`,
  ).all(convId, limit, since);
}
