// Requests to people (request_human) and responses to cards.
import { sql, type Db } from '../../db/db';
import type { RequestKind, RequestState } from '../../../../shared/types';

export interface RequestRow {
  id: string;
  conv_id: string;
  msg_id: string;
  requester_id: string;
  kind: RequestKind;
  title: string;
  /** JSON array of strings (kind choose), else null. */
  options: string | null;
  /** JSON, or null when none was given. */
  context: string | null;
  /** JSON array of user ids. */
  assignees: string;
  state: RequestState;
  /** JSON object, set when decided. */
  outcome: string | null;
  created_at: number;
  expires_at: number;
  decided_at: number | null;
  decided_by: string | null;
  /** 'hook' / 'channel': a harness's permission prompt filed through the hook door; null: an agent's own request_human. */
  door: string | null;
}

export type RequestListRow = RequestRow & { conv_title: string; conv_kind: string };

export function insertRequest(db: Db, r: Omit<RequestRow, 'state' | 'outcome' | 'decided_at' | 'decided_by'>): void {
  sql(
    db,
    `INSERT INTO requests (id, conv_id, msg_id, requester_id, kind, title, options, context, assignees, state, created_at, expires_at, door)
           VALUES (@id, @conv_id, @msg_id, @requester_id, @kind, @title, @options, @context, @assignees, 'pending', @created_at, @expires_at, @door)`,
  ).run(r);
}

export function requestById(db: Db, id: string): RequestRow | undefined {
  return sql<RequestRow>(db, 'SELECT * FROM requests WHERE id = ?').get(id);
}

/**
 * Moves a pending request to a final state. Returns false when it was no longer pending
 * (somebody else decided, cancelled or expired it first).
 */
export function finishRequest(
  db: Db,
  id: string,
  f: { state: RequestState; outcome: string | null; at: number; by: string | null },
): boolean {
  return (
    sql(
      db,
      `UPDATE requests SET state = ?, outcome = ?, decided_at = ?, decided_by = ?
                   WHERE id = ? AND state = 'pending'`,
    ).run(f.state, f.outcome, f.at, f.by, id).changes === 1
  );
}

/**
 * A decided permission prompt's delivery to the hook that waits for it, kept in its outcome (outcome.delivery:
 * 'awaiting' from the decision, then 'delivered' once the hook door answered, or 'undelivered'). Returns whether it
 * moved from `from`.
 */
export function setPromptDelivery(db: Db, id: string, from: 'awaiting', to: 'delivered' | 'undelivered'): boolean {
  return (
    sql(
      db,
      `UPDATE requests SET outcome = json_set(outcome, '$.delivery', ?)
                   WHERE id = ? AND json_valid(outcome) AND json_extract(outcome, '$.delivery') = ?`,
    ).run(to, id, from).changes === 1
  );
}

/** Decided prompts still awaiting delivery (the requests_pending index on state, then their outcome). */
export function promptsAwaitingDelivery(db: Db): RequestRow[] {
  return sql<RequestRow>(
    db,
    `SELECT * FROM requests WHERE state IN ('approved', 'rejected') AND door = 'hook'
       AND json_valid(outcome) AND json_extract(outcome, '$.delivery') = 'awaiting'`,
  ).all();
}

/** Pending requests whose time is up (uses the requests_pending index). */
export function dueRequests(db: Db, now: number): RequestRow[] {
  return sql<RequestRow>(db, "SELECT * FROM requests WHERE state = 'pending' AND expires_at <= ? ORDER BY expires_at").all(now);
}

/** Every pending request (the requests_pending index). */
export function pendingRequests(db: Db): RequestRow[] {
  return sql<RequestRow>(db, "SELECT * FROM requests WHERE state = 'pending' ORDER BY expires_at").all();
}

/** When the next pending request expires, or null when none is pending. */
export function nextRequestExpiry(db: Db): number | null {
  return sql<{ t: number | null }>(db, "SELECT min(expires_at) AS t FROM requests WHERE state = 'pending'").get()?.t ?? null;
}

/** Requests for the owner's inbox: pending first (soonest to expire first), then the rest, newest first. */
export function listRequestRows(db: Db, opts: { state?: RequestState; limit: number }): RequestListRow[] {
  const order = `ORDER BY (r.state = 'pending') DESC, CASE WHEN r.state = 'pending' THEN r.expires_at END ASC,
                 coalesce(r.decided_at, r.created_at) DESC, r.created_at DESC`;
  const select = `SELECT r.*, c.title AS conv_title, c.kind AS conv_kind FROM requests r JOIN conversations c ON c.id = r.conv_id`;
  if (opts.state) return sql<RequestListRow>(db, `${select} WHERE r.state = ? ${order} LIMIT ?`).all(opts.state, opts.limit);
  return sql<RequestListRow>(db, `${select} ${order} LIMIT ?`).all(opts.limit);
}

// ---- card responses ---------------------------------------------------------------------

export interface CardResponseRow {
  msg_id: string;
  user_id: string;
  block_id: string;
  /** JSON. */
  value: string;
  at: number;
}

export function insertCardResponse(db: Db, r: CardResponseRow): void {
  sql(db, 'INSERT INTO card_responses (msg_id, user_id, block_id, value, at) VALUES (@msg_id, @user_id, @block_id, @value, @at)').run(r);
}

export function cardResponsesOf(db: Db, msgId: string): CardResponseRow[] {
  return sql<CardResponseRow>(db, 'SELECT * FROM card_responses WHERE msg_id = ? ORDER BY at, rowid').all(msgId);
}

export function countCardResponses(db: Db, msgId: string): number {
  return sql<{ n: number }>(db, 'SELECT count(*) AS n FROM card_responses WHERE msg_id = ?').get(msgId)!.n;
}
