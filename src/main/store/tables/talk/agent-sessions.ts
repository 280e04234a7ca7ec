// Agent sessions (instance names), their own delivery positions, and read receipts.
import { sql, type Db } from '../../db/db';
import type { CursorRow, EventWithMessage } from './events';

export interface InstanceRow {
  user_id: string;
  name: string;
  note: string;
  first_seen: number;
  last_seen: number;
}

export function instanceOf(db: Db, userId: string, name: string): InstanceRow | undefined {
  return sql<InstanceRow>(db, 'SELECT * FROM agent_instances WHERE user_id = ? AND name = ?').get(userId, name);
}

/** The agent's instance names, most recently seen first. */
export function instancesOf(db: Db, userId: string): InstanceRow[] {
  return sql<InstanceRow>(db, 'SELECT * FROM agent_instances WHERE user_id = ? ORDER BY last_seen DESC, name').all(userId);
}

/** Records a sighting of an instance name (a note replaces the old one only when given). */
export function touchInstance(db: Db, userId: string, name: string, at: number, note?: string): void {
  sql(
    db,
    `INSERT INTO agent_instances (user_id, name, note, first_seen, last_seen) VALUES (@user, @name, @note, @at, @at)
           ON CONFLICT (user_id, name) DO UPDATE SET last_seen = max(last_seen, excluded.last_seen),
             note = CASE WHEN @hasNote THEN excluded.note ELSE note END`,
  ).run({ user: userId, name, note: note ?? '', at, hasNote: note !== undefined ? 1 : 0 });
}

/** Drops the least recently seen names (and their positions) beyond `keep`. */
export function dropOldestInstances(db: Db, userId: string, keep: number): string[] {
  const old = sql<{ name: string }>(
    db,
    'SELECT name FROM agent_instances WHERE user_id = ? ORDER BY last_seen DESC, name LIMIT -1 OFFSET ?',
  ).all(userId, keep);
  for (const { name } of old) {
    sql(db, 'DELETE FROM agent_instances WHERE user_id = ? AND name = ?').run(userId, name);
    sql(db, 'DELETE FROM instance_cursors WHERE user_id = ? AND instance = ?').run(userId, name);
  }
  return old.map((r) => r.name);
}

// ---- an instance's own delivery position ----------------------------------------------------

export function instanceCursor(db: Db, userId: string, instance: string): CursorRow | undefined {
  return sql<CursorRow>(db, 'SELECT user_id, confirmed_gid, last_upto FROM instance_cursors WHERE user_id = ? AND instance = ?').get(
    userId,
    instance,
  );
}

export function saveInstanceCursor(db: Db, instance: string, c: CursorRow): void {
  sql(
    db,
    `INSERT INTO instance_cursors (user_id, instance, confirmed_gid, last_upto) VALUES (?, ?, ?, ?)
           ON CONFLICT (user_id, instance) DO UPDATE SET confirmed_gid = excluded.confirmed_gid, last_upto = excluded.last_upto`,
  ).run(c.user_id, instance, c.confirmed_gid, c.last_upto);
}

const MESSAGE_JSON_FROM_MEMBER = `CASE WHEN m.id IS NULL OR m.seq < mb.from_seq THEN NULL ELSE json_object(
  'id', m.id, 'conv_id', m.conv_id, 'seq', m.seq, 'sender_id', m.sender_id, 'kind', m.kind, 'text', m.text,
  'intent', m.intent, 'reply_to', m.reply_to, 'thread_id', m.thread_id, 'to_ids', m.to_ids, 'topics', m.topics,
  'refs', m.refs, 'sources', m.sources, 'payload', m.payload, 'created_at', m.created_at, 'edited_at', m.edited_at,
  'recalled_at', m.recalled_at, 'claimed_by', m.claimed_by, 'claimed_at', m.claimed_at,
  'sender_instance', m.sender_instance, 'to_instance', m.to_instance) END AS m_json,
  CASE WHEN m.id IS NOT NULL AND m.seq < mb.from_seq THEN 1 ELSE 0 END AS m_hidden`;

/**
 * eventsForUser (store/tables/talk/events.ts) for a named instance: the same events, plus the messages its sibling
 * instances (other names of the same agent) sent, so sessions of one agent see each other's words.
 */
export function eventsForInstance(db: Db, userId: string, instance: string, afterGid: number, limit: number): EventWithMessage[] {
  return sql<EventWithMessage>(
    db,
    `SELECT e.*, ${MESSAGE_JSON_FROM_MEMBER}
       FROM members mb
       JOIN events e ON e.conv_id = mb.conv_id AND e.gid > @after AND e.seq >= mb.from_seq AND e.imported IS NULL
       LEFT JOIN messages m ON m.id = e.msg_id
      WHERE mb.user_id = @user
        AND (e.actor_id IS NULL OR e.actor_id != mb.user_id
             OR (e.type = 'message.created' AND m.sender_instance IS NOT NULL AND m.sender_instance != @instance))
      ORDER BY e.gid
      LIMIT @limit`,
  ).all({ after: afterGid, user: userId, instance, limit });
}

// ---- read receipts --------------------------------------------------------------------------

/** The highest seq per conversation of the user's events in (afterGid, uptoGid]: what a confirmation covers. */
export function confirmedSeqs(db: Db, userId: string, afterGid: number, uptoGid: number): Array<{ conv_id: string; seq: number }> {
  return sql<{ conv_id: string; seq: number }>(
    db,
    `SELECT e.conv_id, max(e.seq) AS seq FROM members mb
       JOIN events e ON e.conv_id = mb.conv_id AND e.gid > ? AND e.gid <= ?
      WHERE mb.user_id = ? GROUP BY e.conv_id`,
  ).all(afterGid, uptoGid, userId);
}

/** Moves a read receipt forward (never back). instance '' is the unnamed session. */
export function advanceReceipt(db: Db, convId: string, userId: string, instance: string, seq: number, at: number): void {
  sql(
    db,
    `INSERT INTO read_receipts (conv_id, user_id, instance, seq, at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (conv_id, user_id, instance) DO UPDATE SET seq = excluded.seq, at = excluded.at WHERE excluded.seq > seq`,
  ).run(convId, userId, instance, seq, at);
}

export interface ReceiptRow {
  user_id: string;
  instance: string;
  seq: number;
  at: number;
}

/** A conversation's receipts of its current members, furthest first. */
export function receiptsOf(db: Db, convId: string): ReceiptRow[] {
  return sql<ReceiptRow>(
    db,
    `SELECT r.user_id, r.instance, r.seq, r.at FROM read_receipts r
       JOIN members mb ON mb.conv_id = r.conv_id AND mb.user_id = r.user_id
      WHERE r.conv_id = ? ORDER BY r.seq DESC, r.user_id, r.instance`,
  ).all(convId);
}
