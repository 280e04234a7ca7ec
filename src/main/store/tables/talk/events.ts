import { sql, type Db } from '../../db/db';
import type { EventType } from '../../../../shared/types';
import type { MessageRow } from './messages';

export interface EventRow {
  gid: number;
  conv_id: string;
  seq: number;
  type: EventType;
  actor_id: string | null;
  msg_id: string | null;
  ts: number;
  data: string | null;
  wake: string | null;
  /** 1 for an event that came from an export (perch import): never delivered, never counted unread. */
  imported?: number | null;
}

/**
 * An event joined with the current state of its message (content of recalled messages is gone).
 * A message from before what the reader may see (seq below their membership's from_seq) is never
 * joined: m_json is null and m_hidden is 1, so no content of it can reach them (views.ts). A hand-back
 * whose handoff came before the reader's history has m_hidden 2: its note from then is not theirs to read.
 */
export type EventWithMessage = EventRow & { m_json: string | null; m_hidden?: number };

const MESSAGE_FIELDS = `json_object(
  'id', m.id, 'conv_id', m.conv_id, 'seq', m.seq, 'sender_id', m.sender_id, 'kind', m.kind, 'text', m.text,
  'intent', m.intent, 'reply_to', m.reply_to, 'thread_id', m.thread_id, 'to_ids', m.to_ids, 'topics', m.topics,
  'refs', m.refs, 'sources', m.sources, 'payload', m.payload, 'created_at', m.created_at, 'edited_at', m.edited_at,
  'recalled_at', m.recalled_at, 'claimed_by', m.claimed_by, 'claimed_at', m.claimed_at,
  'reviewed', m.reviewed, 'sender_instance', m.sender_instance, 'to_instance', m.to_instance, 'provenance', m.provenance)`; // provenance: 'imported' (store/export/import.ts); reviewed: review mode (store/tables/talk/held.ts); *_instance: sessions of one agent (store/tables/talk/agent-sessions.ts)

/** The message of an event, for a reader who sees the whole conversation (the owner). */
export const MESSAGE_JSON = `CASE WHEN m.id IS NULL THEN NULL ELSE ${MESSAGE_FIELDS} END AS m_json, 0 AS m_hidden`;

/** The message of an event for a reader who sees messages from seq `fromSeq` (an SQL expression) on. */
function messageJsonFrom(fromSeq: string): string {
  return `CASE WHEN m.id IS NULL OR m.seq < ${fromSeq} THEN NULL ELSE ${MESSAGE_FIELDS} END AS m_json,
          CASE WHEN m.id IS NOT NULL AND m.seq < ${fromSeq} THEN 1
               WHEN e.type = 'handoff.returned' AND json_extract(e.data, '$.handoff_seq') < ${fromSeq} THEN 2
               ELSE 0 END AS m_hidden`;
}

export function insertEvent(db: Db, e: Omit<EventRow, 'gid'>): number {
  // gid is the rowid: lastInsertRowid is it, without the cost of RETURNING.
  const r = sql(db, `INSERT INTO events (conv_id, seq, type, actor_id, msg_id, ts, data, wake) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(
    e.conv_id,
    e.seq,
    e.type,
    e.actor_id,
    e.msg_id,
    e.ts,
    e.data,
    e.wake,
  );
  return Number(r.lastInsertRowid);
}

/** Events after gid in the user's conversations (from the seq each membership may see), oldest first; the user's own acts are left out. */
export function eventsForUser(db: Db, userId: string, afterGid: number, limit: number): EventWithMessage[] {
  return sql<EventWithMessage>(
    db,
    `SELECT e.*, ${messageJsonFrom('mb.from_seq')}
       FROM members mb
       JOIN events e ON e.conv_id = mb.conv_id AND e.gid > ? AND e.seq >= mb.from_seq AND e.imported IS NULL
                    AND (e.actor_id IS NULL OR e.actor_id != mb.user_id)
       LEFT JOIN messages m ON m.id = e.msg_id
      WHERE mb.user_id = ?
      ORDER BY e.gid
      LIMIT ?`,
  ).all(afterGid, userId, limit);
}

export function maxGid(db: Db): number {
  return sql<{ g: number | null }>(db, 'SELECT max(gid) AS g FROM events').get()?.g ?? 0;
}

/**
 * A page of a conversation's log by seq, from seq fromSeq on. Messages before visibleFrom (the
 * reader's membership from_seq; default fromSeq) are not joined to their events.
 */
export function eventsOfConversation(
  db: Db,
  convId: string,
  opts: { afterSeq?: number; beforeSeq?: number; fromSeq: number; visibleFrom?: number; limit: number },
): EventWithMessage[] {
  const visible = opts.visibleFrom ?? opts.fromSeq;
  if (opts.afterSeq !== undefined) {
    return sql<EventWithMessage>(
      db,
      `SELECT e.*, ${messageJsonFrom('@visible')} FROM events e LEFT JOIN messages m ON m.id = e.msg_id
        WHERE e.conv_id = @conv AND e.seq > @after AND e.seq >= @from ORDER BY e.seq LIMIT @limit`,
    ).all({ conv: convId, after: opts.afterSeq, from: opts.fromSeq, visible, limit: opts.limit });
  }
  const before = opts.beforeSeq ?? Number.MAX_SAFE_INTEGER;
  const rows = sql<EventWithMessage>(
    db,
    `SELECT e.*, ${messageJsonFrom('@visible')} FROM events e LEFT JOIN messages m ON m.id = e.msg_id
      WHERE e.conv_id = @conv AND e.seq < @before AND e.seq >= @from ORDER BY e.seq DESC LIMIT @limit`,
  ).all({ conv: convId, before, from: opts.fromSeq, visible, limit: opts.limit });
  return rows.reverse();
}

/** Events of a conversation after a gid (for unread counts of agents). */
export function countMessagesAfterGid(db: Db, convId: string, afterGid: number, fromSeq: number, notSender: string): number {
  return sql<{ n: number }>(
    db,
    `SELECT count(*) AS n FROM events
      WHERE conv_id = ? AND gid > ? AND seq >= ? AND type = 'message.created' AND actor_id != ? AND imported IS NULL`,
  ).get(convId, afterGid, fromSeq, notSender)!.n;
}

export function countMessagesAfterSeq(db: Db, convId: string, afterSeq: number, notSender: string): number {
  return sql<{ n: number }>(
    db,
    `SELECT count(*) AS n FROM events
      WHERE conv_id = ? AND seq > ? AND type = 'message.created' AND actor_id != ? AND imported IS NULL`,
  ).get(convId, afterSeq, notSender)!.n;
}

// ---- delivery cursors -------------------------------------------------------------------

export interface CursorRow {
  user_id: string;
  confirmed_gid: number;
  last_upto: number;
}

export function cursorOf(db: Db, userId: string): CursorRow {
  return (
    sql<CursorRow>(db, 'SELECT * FROM delivery_cursors WHERE user_id = ?').get(userId) ?? {
      user_id: userId,
      confirmed_gid: 0,
      last_upto: 0,
    }
  );
}

export function saveCursor(db: Db, c: CursorRow): void {
  sql(
    db,
    `INSERT INTO delivery_cursors (user_id, confirmed_gid, last_upto) VALUES (@user_id, @confirmed_gid, @last_upto)
           ON CONFLICT (user_id) DO UPDATE SET confirmed_gid = excluded.confirmed_gid, last_upto = excluded.last_upto`,
  ).run(c);
}

export type { MessageRow };
