import { sql, type Db } from '../../db/db';
import { withSearchIndex, type SearchIndexView } from '../../worker/search-index';

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
  /** Review mode (store/tables/talk/held.ts): 1 reviewed by a person before posting, 2 also edited. */
  reviewed?: number | null;
  /** The sender's instance name (agent sessions; store/tables/talk/agent-sessions.ts), or null. */
  sender_instance?: string | null;
  /** The instance of the recipient agent the message is addressed to (a courtesy, not a filter), or null. */
  to_instance?: string | null;
  /** 'imported' for a message that came from an archive (perch import), else null. */
  provenance?: string | null;
}

/**
 * Inserts a message row, in the same transaction as its message.created event (same conv_id and
 * seq): the search index (background.ts) follows those events and keys each message by its gid.
 */
export function insertMessage(db: Db, m: Omit<MessageRow, 'edited_at' | 'recalled_at' | 'claimed_by' | 'claimed_at'>): void {
  // search reads its index newest first and stops early, which needs creation order to be time
  // order; the first time the clock goes back, that is remembered for good (outOfTimeOrder).
  const previous = sql<{ created_at: number }>(db, 'SELECT created_at FROM messages ORDER BY rowid DESC LIMIT 1').get();
  if (previous && m.created_at < previous.created_at) {
    sql(db, 'INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)').run(OUT_OF_TIME_ORDER, '1');
  }
  sql(
    db,
    `INSERT INTO messages (id, conv_id, seq, sender_id, kind, text, intent, reply_to, thread_id, to_ids, topics, refs, sources, payload, created_at, sender_instance, to_instance)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    m.id,
    m.conv_id,
    m.seq,
    m.sender_id,
    m.kind,
    m.text,
    m.intent,
    m.reply_to,
    m.thread_id,
    m.to_ids,
    m.topics,
    m.refs,
    m.sources,
    m.payload,
    m.created_at,
    m.sender_instance ?? null,
    m.to_instance ?? null,
  );
}

export function messageById(db: Db, id: string): MessageRow | undefined {
  return sql<MessageRow>(db, 'SELECT * FROM messages WHERE id = ?').get(id);
}

/** Replaces a live message's text. It is no longer reviewed (review mode, store/tables/talk/held.ts): nobody approved the new text. */
export function editMessageText(db: Db, id: string, text: string, at: number): void {
  const r = sql(db, 'UPDATE messages SET text = ?, edited_at = ?, reviewed = NULL WHERE id = ? AND recalled_at IS NULL').run(text, at, id);
  if (r.changes !== 1) throw new Error(`editMessageText: no live message ${id}`);
}

/** Deletes the content of a message for everyone; the row stays as a tombstone. */
export function recallMessage(db: Db, id: string, at: number): void {
  const r = sql(
    db,
    `UPDATE messages SET text = NULL, topics = NULL, refs = NULL, sources = NULL, payload = NULL,
                     recalled_at = ? WHERE id = ? AND recalled_at IS NULL`,
  ).run(at, id);
  if (r.changes !== 1) throw new Error(`recallMessage: no live message ${id}`);
}

export function setMessagePayload(db: Db, id: string, payload: string): void {
  sql(db, 'UPDATE messages SET payload = ? WHERE id = ?').run(payload, id);
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

/** An ASCII query of at least this many characters can use the search index (search-index.ts). */
const INDEX_MIN_CHARS = 3;
/** Index candidates read per step of a newest-first walk (the first step is smaller; steps grow to WALK_PAGE_MAX). */
const WALK_PAGE = 64;
const WALK_PAGE_MAX = 1024;
/** A walk that reads this many candidates without being sure of the answer gives up (see walkIndex). */
const WALK_MAX = 8000;
/** Messages created or edited after the index's reach that a search still tests one by one. */
const TAIL_MAX = 5000;

/** Pieces of 4 characters covering the query (the last may overlap): every match contains each. */
function queryPieces(query: string): string[] {
  if (query.length <= 4) return [query];
  const pieces: string[] = [];
  for (let i = 0; i + 4 <= query.length; i += 4) pieces.push(query.slice(i, i + 4));
  if (query.length % 4) pieces.push(query.slice(query.length - 4));
  return pieces;
}

function maxGid(db: Db): number {
  return sql<{ g: number | null }>(db, 'SELECT max(gid) AS g FROM events').get()?.g ?? 0;
}

function newestFirst(a: MessageRow, b: MessageRow): number {
  return b.created_at - a.created_at || b.seq - a.seq;
}

const OUT_OF_TIME_ORDER = 'messages_out_of_time_order';

/**
 * True once a message was created with an earlier created_at than the message before it (the
 * clock went back). Until then, creation order (gid) is time order, which lets search read its index
 * newest first and stop early; after it, search uses the ways that do not depend on it.
 */
function outOfTimeOrder(db: Db): boolean {
  return !!sql(db, 'SELECT 1 FROM settings WHERE key = ?').get(OUT_OF_TIME_ORDER);
}

/**
 * Case-insensitive substring search over live messages of the given conversations, newest first
 * (created_at, then seq). The match is always the same test (instr over lower(), or perch_lower for
 * other scripts); in a big store only the rows to test are found differently:
 *  1. an ASCII query of 3+ characters: the search index, newest first, stopping as soon as the
 *     `limit` newest matches are certain (plus everything written after the index's reach);
 *  2. otherwise, or when 1 cannot be sure soon enough: each conversation newest first, in search's
 *     own order (messages_by_conv_time), and once `limit` matches are in hand only down to the
 *     oldest of them.
 */
export function searchMessages(db: Db, f: SearchFilter): MessageRow[] {
  if (f.convIds.length === 0) return [];
  // SQLite's lower() folds ASCII only: an ASCII query keeps the fast built-in; any other query folds the
  // text with perch_lower (JavaScript toLowerCase, registered in db.ts) so "über" finds "Über".
  const ascii = /^[\x00-\x7f]*$/.test(f.query);
  const where: string[] = ['m.recalled_at IS NULL', ascii ? 'instr(lower(m.text), lower(@q)) > 0' : 'instr(perch_lower(m.text), @q) > 0'];
  const params: Record<string, unknown> = { q: ascii ? f.query : f.query.toLowerCase(), limit: f.limit };
  if (f.senderId) {
    where.push('m.sender_id = @sender');
    params.sender = f.senderId;
  }
  if (f.senderKind) {
    where.push('u.kind = @skind');
    params.skind = f.senderKind;
  }
  if (f.kind) {
    where.push('m.kind = @kind');
    params.kind = f.kind;
  }
  if (f.intent) {
    where.push('m.intent = @intent');
    params.intent = f.intent;
  }
  if (f.topic) {
    where.push('EXISTS (SELECT 1 FROM json_each(m.topics) WHERE value = @topic)');
    params.topic = f.topic;
  }
  if (f.hasRefs === true) where.push("m.refs IS NOT NULL AND m.refs != '[]'");
  if (f.hasRefs === false) where.push("(m.refs IS NULL OR m.refs = '[]')");
  if (f.since !== undefined) {
    where.push('m.created_at >= @since');
    params.since = f.since;
  }
  if (f.until !== undefined) {
    where.push('m.created_at <= @until');
    params.until = f.until;
  }
  const filters = where.join(' AND ');

  if (ascii && f.query.length >= INDEX_MIN_CHARS && !outOfTimeOrder(db)) {
    let found: MessageRow[] | undefined;
    try {
      found = withSearchIndex(db, queryPieces(f.query), (index) => walkIndex(db, f, params, filters, index));
    } catch {
      found = undefined; // the index could not be read: read the conversations
    }
    if (found) return found;
  }
  return scanConversations(db, f, params, filters);
}

/**
 * Way 1. The index folds ASCII letters as lower() does, so every message the test accepts is among
 * its candidates (or was written after its reach: those are tested first). Candidates come newest
 * first by creation gid, which is time order (outOfTimeOrder is false); once `limit` matches are in
 * hand and the walk has passed below the created_at of the last of them, no older candidate can
 * belong to the answer. Undefined when this is not the cheaper way after all.
 */
function walkIndex(
  db: Db,
  f: SearchFilter,
  params: Record<string, unknown>,
  filters: string,
  index: SearchIndexView,
): MessageRow[] | undefined {
  if (maxGid(db) - index.upto > TAIL_MAX) return undefined;
  // Reading the conversations (way 2) costs at most their messages; a candidate of the walk costs
  // about four times a message read there, so the walk gives up after a quarter as many.
  params.convs = JSON.stringify(f.convIds);
  const scopeRows =
    sql<{ n: number | null }>(db, 'SELECT sum(last_seq) AS n FROM conversations WHERE id IN (SELECT value FROM json_each(?))').get(
      params.convs,
    )?.n ?? 0;
  const budget = Math.min(WALK_MAX, Math.max(WALK_PAGE, Math.floor(scopeRows / 4)));
  const scope = f.convIds
    .map((id, i) => {
      params[`c${i}`] = id;
      params[`f${i}`] = f.fromSeq.get(id) ?? 0;
      return `(m.conv_id = @c${i} AND m.seq >= @f${i})`;
    })
    .join(' OR ');
  const found = new Map<string, MessageRow>();
  const keep = (rows: MessageRow[]) => {
    for (const r of rows) found.set(r.id, r);
  };
  params.upto = index.upto;
  keep(
    sql<MessageRow>(
      db,
      `SELECT m.* FROM (SELECT DISTINCT e.msg_id AS id FROM events e
                       WHERE e.gid > @upto AND e.type IN ('message.created', 'message.edited') AND e.conv_id IN (SELECT value FROM json_each(@convs))) c
       CROSS JOIN messages m ON m.id = c.id JOIN users u ON u.id = m.sender_id
      WHERE (${scope}) AND ${filters}`,
    ).all(params),
  );
  delete params.upto;
  const candidates = sql<MessageRow>(
    db,
    `SELECT m.* FROM json_each(@gids) g CROSS JOIN events e ON e.gid = g.value
       CROSS JOIN messages m ON m.conv_id = e.conv_id AND m.seq = e.seq JOIN users u ON u.id = m.sender_id
      WHERE e.conv_id IN (SELECT value FROM json_each(@convs)) AND (${scope}) AND ${filters}`,
  );
  const createdAt = sql<{ created_at: number }>(
    db,
    'SELECT m.created_at FROM events e JOIN messages m ON m.conv_id = e.conv_id AND m.seq = e.seq WHERE e.gid = ?',
  );
  let before = index.upto + 1;
  let size = Math.min(WALK_PAGE, 2 * f.limit); // often the newest candidates are the answer
  for (let walked = 0; ;) {
    const gids = index.page(before, size);
    if (gids.length === 0) break;
    walked += gids.length;
    params.gids = JSON.stringify(gids);
    keep(candidates.all(params));
    before = gids[gids.length - 1]!;
    if (found.size >= f.limit) {
      const last = [...found.values()].sort(newestFirst)[f.limit - 1]!;
      const oldest = createdAt.get(before)?.created_at;
      if (oldest !== undefined && oldest < last.created_at) break;
    }
    if (gids.length < size) break;
    if (walked >= budget) return undefined;
    size = Math.min(size * 2, WALK_PAGE_MAX);
  }
  return [...found.values()].sort(newestFirst).slice(0, f.limit);
}

/**
 * Way 2. Each conversation newest first, in search's own order (messages_by_conv_time), most
 * recently active first. Once `limit` matches are in hand, a conversation is read only down to the
 * oldest of them: the result is the same as sorting every match, without reading whole histories.
 */
function scanConversations(db: Db, f: SearchFilter, params: Record<string, unknown>, filters: string): MessageRow[] {
  const order = 'ORDER BY m.created_at DESC, m.seq DESC LIMIT @limit';
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
  const base: Record<string, unknown> = {};
  for (const k of ['q', 'limit', 'sender', 'skind', 'kind', 'intent', 'topic', 'since', 'until']) if (k in params) base[k] = params[k];
  let top: MessageRow[] = [];
  for (const id of f.convIds) {
    const floor = top.length >= f.limit ? top[f.limit - 1]! : undefined;
    const rows = floor
      ? newer.all({ ...base, c: id, f: f.fromSeq.get(id) ?? 0, tc: floor.created_at, ts: floor.seq })
      : first.all({ ...base, c: id, f: f.fromSeq.get(id) ?? 0 });
    if (rows.length === 0) continue;
    top = top.length === 0 ? rows : [...top, ...rows].sort(newestFirst).slice(0, f.limit);
  }
  return top;
}

// ---- reactions & pins -----------------------------------------------------------------

export function addReaction(db: Db, msgId: string, userId: string, key: string, at: number): boolean {
  return (
    sql(db, 'INSERT OR IGNORE INTO reactions (msg_id, user_id, key, at) VALUES (?, ?, ?, ?)').run(msgId, userId, key, at).changes === 1
  );
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

/** A person hides (on) or shows again a message in their own view; true when that changed anything. */
export function setHidden(db: Db, userId: string, msgId: string, on: boolean, at: number): boolean {
  return on
    ? sql(db, 'INSERT OR IGNORE INTO hidden_messages (user_id, msg_id, hidden_at) VALUES (?, ?, ?)').run(userId, msgId, at).changes === 1
    : sql(db, 'DELETE FROM hidden_messages WHERE user_id = ? AND msg_id = ?').run(userId, msgId).changes === 1;
}

/** Which of these messages the person hid. */
export function hiddenOf(db: Db, userId: string, msgIds: string[]): Set<string> {
  if (msgIds.length === 0) return new Set();
  const rows = sql<{ msg_id: string }>(
    db,
    'SELECT msg_id FROM hidden_messages WHERE user_id = ? AND msg_id IN (SELECT value FROM json_each(?))',
  ).all(userId, JSON.stringify(msgIds));
  return new Set(rows.map((r) => r.msg_id));
}

export function addPin(db: Db, convId: string, msgId: string, by: string, at: number): boolean {
  return (
    sql(db, 'INSERT OR IGNORE INTO pins (conv_id, msg_id, pinned_by, pinned_at) VALUES (?, ?, ?, ?)').run(convId, msgId, by, at).changes ===
    1
  );
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

export function saveIdempotentResult(
  db: Db,
  userId: string,
  scope: string,
  opId: string,
  inputHash: string,
  result: string,
  at: number,
): void {
  sql(db, 'INSERT INTO idempotency (user_id, scope, op_id, input_hash, result, at) VALUES (?, ?, ?, ?, ?, ?)').run(
    userId,
    scope,
    opId,
    inputHash,
    result,
    at,
  );
}
