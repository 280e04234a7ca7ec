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

/** Case-insensitive substring search over live messages of the given conversations, newest first. */
export function searchMessages(db: Db, f: SearchFilter): MessageRow[] {
  // SQLite's lower() folds ASCII only: an ASCII query keeps the fast built-in; any other query folds the
  // text with perch_lower (JavaScript toLowerCase, registered in db.ts) so "über" finds "Über".
  const ascii = /^[\x00-\x7f]*$/.test(f.query);
  const where: string[] = ['m.recalled_at IS NULL', ascii ? 'instr(lower(m.text), lower(@q)) > 0' : 'instr(perch_lower(m.text), @q) > 0'];
  const params: Record<string, unknown> = { q: ascii ? f.query : f.query.toLowerCase(), limit: f.limit };
  const convClauses = f.convIds.map((id, i) => {
    params[`c${i}`] = id;
    params[`f${i}`] = f.fromSeq.get(id) ?? 0;
    return `(m.conv_id = @c${i} AND m.seq >= @f${i})`;
  });
  if (convClauses.length === 0) return [];
  where.push(`(${convClauses.join(' OR ')})`);
  if (f.senderId) { where.push('m.sender_id = @sender'); params.sender = f.senderId; }
  if (f.senderKind) { where.push('u.kind = @skind'); params.skind = f.senderKind; }
  if (f.kind) { where.push('m.kind = @kind'); params.kind = f.kind; }
  if (f.intent) { where.push('m.intent = @intent'); params.intent = f.intent; }
  if (f.topic) { where.push('EXISTS (SELECT 1 FROM json_each(m.topics) WHERE value = @topic)'); params.topic = f.topic; }
  if (f.hasRefs === true) where.push("m.refs IS NOT NULL AND m.refs != '[]'");
  if (f.hasRefs === false) where.push("(m.refs IS NULL OR m.refs = '[]')");
  if (f.since !== undefined) { where.push('m.created_at >= @since'); params.since = f.since; }
  if (f.until !== undefined) { where.push('m.created_at <= @until'); params.until = f.until; }
  // Not cached: the shape depends on the filters (prepare is cheap next to the scan).
  return db
    .prepare(`SELECT m.* FROM messages m JOIN users u ON u.id = m.sender_id WHERE ${where.join(' AND ')}
              ORDER BY m.created_at DESC, m.seq DESC LIMIT @limit`)
    .all(params) as MessageRow[];
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
