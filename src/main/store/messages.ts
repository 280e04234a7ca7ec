import { sql, type Db } from './db';

export interface MessageRow {
  id: string;
  conv_id: string;
  seq: number;
  sender_id: string;
  kind: string;
  text: string | null;
  intent: string | null;
  reply_to: string | null;
  thread_id: string | null;
  to_ids: string | null;
  topics: string | null;
  refs: string | null;
  sources: string | null;
  payload: string | null;
  created_at: number;
  edited_at: number | null;
  recalled_at: number | null;
  claimed_by: string | null;
  claimed_at: number | null;
}

/**
 * Inserts a message row. Its message.created event (same conv_id and seq) must be in the events
 * table already: the search index (messages_fts, migration 2) is keyed by that event's gid.
 */
export function insertMessage(db: Db, m: Omit<MessageRow, 'edited_at' | 'recalled_at' | 'claimed_by' | 'claimed_at'>): void {
  sql(db, `INSERT INTO messages (id, conv_id, seq, sender_id, kind, text, intent, reply_to, thread_id, to_ids, topics, refs, sources, payload, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    .run(m.id, m.conv_id, m.seq, m.sender_id, m.kind, m.text, m.intent, m.reply_to, m.thread_id, m.to_ids, m.topics, m.refs, m.sources, m.payload, m.created_at);
}

export function messageById(db: Db, id: string): MessageRow | undefined {
  return sql<MessageRow>(db, 'SELECT * FROM messages WHERE id = ?').get(id);
}

export function editMessageText(db: Db, id: string, text: string, at: number): void {
  const r = sql(db, 'UPDATE messages SET text = ?, edited_at = ? WHERE id = ? AND recalled_at IS NULL').run(text, at, id);
  if (r.changes !== 1) throw new Error(`editMessageText: no live message ${id}`);
}

/** Deletes the content of a message for everyone; the row stays as a tombstone. */
export function recallMessage(db: Db, id: string, at: number): void {
  const r = sql(db, `UPDATE messages SET text = NULL, topics = NULL, refs = NULL, sources = NULL, payload = NULL,
                     recalled_at = ? WHERE id = ? AND recalled_at IS NULL`).run(at, id);
  if (r.changes !== 1) throw new Error(`recallMessage: no live message ${id}`);
}

export function setMessagePayload(db: Db, id: string, payload: string): void {
  sql(db, 'UPDATE messages SET payload = ? WHERE id = ?').run(payload, id);
}

export function setClaim(db: Db, id: string, userId: string | null, at: number | null): void {
  sql(db, 'UPDATE messages SET claimed_by = ?, claimed_at = ? WHERE id = ?').run(userId, at, id);
}

/** Thread: the root and its replies after a seq, oldest first. */
export function threadReplies(db: Db, convId: string, rootId: string, afterSeq: number, fromSeq: number, limit: number): MessageRow[] {
  return sql<MessageRow>(
    db,
    `SELECT * FROM messages WHERE thread_id = ? AND conv_id = ? AND seq > ? AND seq >= ? ORDER BY seq LIMIT ?`,
  ).all(rootId, convId, afterSeq, fromSeq, limit);
}

export interface SearchFilter {
  convIds: string[];
  /** Lowest visible seq per conversation. */
  fromSeq: Map<string, number>;
  query: string;
  senderId?: string;
  senderKind?: string;
  kind?: string;
  intent?: string;
  topic?: string;
  hasRefs?: boolean;
  since?: number;
  until?: number;
  limit: number;
}

/** An ASCII query of at least this many characters can use the trigram index (messages_fts). */
const FTS_MIN_CHARS = 3;
/**
 * How many candidates from the trigram index are still worth testing one by one. Reading the
 * conversations newest first instead needs about limit × (messages / candidates) rows to find
 * `limit` matches, so the index wins while candidates² < limit × messages. Bounded both ways.
 */
function ftsMaxCandidates(db: Db, limit: number): number {
  const messages = sql<{ g: number | null }>(db, 'SELECT max(gid) AS g FROM events').get()?.g ?? 0;
  return Math.min(20_000, Math.max(1000, Math.round(Math.sqrt(limit * messages))));
}

/**
 * An FTS5 query that every message containing `query` matches: pieces of 4 characters covering it
 * (the last one may overlap), all required. Each piece is a short trigram phrase; FTS5 answers a few
 * short phrases much faster than one long one, and the exact test still runs on every candidate.
 */
function ftsPieces(query: string): string {
  const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
  if (query.length <= 4) return q(query);
  const pieces: string[] = [];
  for (let i = 0; i + 4 <= query.length; i += 4) pieces.push(query.slice(i, i + 4));
  if (query.length % 4) pieces.push(query.slice(query.length - 4));
  return pieces.map(q).join(' AND ');
}

function newestFirst(a: MessageRow, b: MessageRow): number {
  return b.created_at - a.created_at || b.seq - a.seq;
}

/**
 * Case-insensitive substring search over live messages of the given conversations, newest first.
 * The match is always the same test (instr over lower(), or perch_lower for other scripts); in a big
 * store the rows to test come either from the trigram index (an ASCII string of 3+ characters that is
 * rare enough) or from reading each conversation newest first, only as far as needed (everything else).
 */
export function searchMessages(db: Db, f: SearchFilter): MessageRow[] {
  if (f.convIds.length === 0) return [];
  // SQLite's lower() folds ASCII only: an ASCII query keeps the fast built-in; any other query folds the
  // text with perch_lower (JavaScript toLowerCase, registered in db.ts) so "über" finds "Über".
  const ascii = /^[\x00-\x7f]*$/.test(f.query);
  const where: string[] = ['m.recalled_at IS NULL', ascii ? 'instr(lower(m.text), lower(@q)) > 0' : 'instr(perch_lower(m.text), @q) > 0'];
  const params: Record<string, unknown> = { q: ascii ? f.query : f.query.toLowerCase(), limit: f.limit };
  if (f.senderId) { where.push('m.sender_id = @sender'); params.sender = f.senderId; }
  if (f.senderKind) { where.push('u.kind = @skind'); params.skind = f.senderKind; }
  if (f.kind) { where.push('m.kind = @kind'); params.kind = f.kind; }
  if (f.intent) { where.push('m.intent = @intent'); params.intent = f.intent; }
  if (f.topic) { where.push('EXISTS (SELECT 1 FROM json_each(m.topics) WHERE value = @topic)'); params.topic = f.topic; }
  if (f.hasRefs === true) where.push("m.refs IS NOT NULL AND m.refs != '[]'");
  if (f.hasRefs === false) where.push("(m.refs IS NULL OR m.refs = '[]')");
  if (f.since !== undefined) { where.push('m.created_at >= @since'); params.since = f.since; }
  if (f.until !== undefined) { where.push('m.created_at <= @until'); params.until = f.until; }
  const filters = where.join(' AND ');
  const order = 'ORDER BY m.created_at DESC, m.seq DESC LIMIT @limit';

  // 1. Candidates from the trigram index. The index folds ASCII letters as lower() does, so every
  //    message the test accepts is among them. (Statements are prepared once per shape.)
  if (ascii && f.query.length >= FTS_MIN_CHARS) {
    const max = ftsMaxCandidates(db, f.limit);
    const gids = sql<number>(db, 'SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? LIMIT ?')
      .pluck()
      .all(ftsPieces(f.query), max + 1);
    if (gids.length <= max) {
      if (gids.length === 0) return [];
      const convClauses = f.convIds.map((id, i) => {
        params[`c${i}`] = id;
        params[`f${i}`] = f.fromSeq.get(id) ?? 0;
        return `(m.conv_id = @c${i} AND m.seq >= @f${i})`;
      });
      params.gids = JSON.stringify(gids);
      return sql<MessageRow>(
        db,
        `SELECT m.* FROM json_each(@gids) g CROSS JOIN events e ON e.gid = g.value
           CROSS JOIN messages m ON m.conv_id = e.conv_id AND m.seq = e.seq JOIN users u ON u.id = m.sender_id
          WHERE (${convClauses.join(' OR ')}) AND ${filters} ${order}`,
      ).all(params);
    }
  }

  // 2. Each conversation newest first, in search's own order (messages_by_conv_time), most recently
  //    active first. Once `limit` matches are in hand, a conversation is read only down to the oldest
  //    of them: the result is the same as sorting every match, without reading whole histories.
  const first = sql<MessageRow>(
    db,
    `SELECT m.* FROM messages m INDEXED BY messages_by_conv_time JOIN users u ON u.id = m.sender_id
      WHERE m.conv_id = @c AND m.seq >= @f AND ${filters} ${order}`,
  );
  const newer = sql<MessageRow>(
    db,
    `SELECT m.* FROM messages m INDEXED BY messages_by_conv_time JOIN users u ON u.id = m.sender_id
      WHERE m.conv_id = @c AND m.created_at >= @tc AND (m.created_at > @tc OR m.seq > @ts) AND m.seq >= @f AND ${filters} ${order}`,
  );
  let top: MessageRow[] = [];
  for (const id of f.convIds) {
    const floor = top.length >= f.limit ? top[f.limit - 1]! : undefined;
    const rows = floor
      ? newer.all({ ...params, c: id, f: f.fromSeq.get(id) ?? 0, tc: floor.created_at, ts: floor.seq })
      : first.all({ ...params, c: id, f: f.fromSeq.get(id) ?? 0 });
    if (rows.length === 0) continue;
    top = top.length === 0 ? rows : [...top, ...rows].sort(newestFirst).slice(0, f.limit);
  }
  return top;
}

// ---- reactions & pins -----------------------------------------------------------------

export function addReaction(db: Db, msgId: string, userId: string, key: string, at: number): boolean {
  return sql(db, 'INSERT OR IGNORE INTO reactions (msg_id, user_id, key, at) VALUES (?, ?, ?, ?)').run(msgId, userId, key, at).changes === 1;
}

export function removeReaction(db: Db, msgId: string, userId: string, key: string): boolean {
  return sql(db, 'DELETE FROM reactions WHERE msg_id = ? AND user_id = ? AND key = ?').run(msgId, userId, key).changes === 1;
}

export function reactionsOf(db: Db, msgIds: string[]): Array<{ msg_id: string; user_id: string; key: string }> {
  if (msgIds.length === 0) return [];
  return sql<{ msg_id: string; user_id: string; key: string }>(
    db,
    'SELECT msg_id, user_id, key FROM reactions WHERE msg_id IN (SELECT value FROM json_each(?)) ORDER BY at',
  ).all(JSON.stringify(msgIds));
}

export function addPin(db: Db, convId: string, msgId: string, by: string, at: number): boolean {
  return sql(db, 'INSERT OR IGNORE INTO pins (conv_id, msg_id, pinned_by, pinned_at) VALUES (?, ?, ?, ?)').run(convId, msgId, by, at).changes === 1;
}

export function removePin(db: Db, convId: string, msgId: string): boolean {
  return sql(db, 'DELETE FROM pins WHERE conv_id = ? AND msg_id = ?').run(convId, msgId).changes === 1;
}

export function pinsOf(db: Db, convId: string, limit: number): Array<MessageRow & { pinned_by: string; pinned_at: number }> {
  return sql<MessageRow & { pinned_by: string; pinned_at: number }>(
    db,
    `SELECT m.*, p.pinned_by, p.pinned_at FROM pins p JOIN messages m ON m.id = p.msg_id
      WHERE p.conv_id = ? ORDER BY p.pinned_at DESC, m.seq DESC LIMIT ?`,
  ).all(convId, limit);
}

// ---- idempotency ------------------------------------------------------------------------

export function idempotentResult(db: Db, userId: string, scope: string, opId: string): { input_hash: string; result: string } | undefined {
  return sql<{ input_hash: string; result: string }>(
    db,
    'SELECT input_hash, result FROM idempotency WHERE user_id = ? AND scope = ? AND op_id = ?',
  ).get(userId, scope, opId);
}

export function saveIdempotentResult(db: Db, userId: string, scope: string, opId: string, inputHash: string, result: string, at: number): void {
  sql(db, 'INSERT INTO idempotency (user_id, scope, op_id, input_hash, result, at) VALUES (?, ?, ?, ?, ?, ?)')
    .run(userId, scope, opId, inputHash, result, at);
}
