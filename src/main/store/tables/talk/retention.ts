// Retention's SQL: the rules (retention_rules), what a rule would remove (the dry run), the deletion of one message with
// everything hanging off it (its events, reactions, card answers, files' bytes, pin, request, hidden marks, and a note
// for the search index: search_forget), and giving the freed pages back (incremental vacuum). The job that uses it,
// in small steps between requests, is hub/features/retention/retention.ts.
import { sql, type Db } from '../../db/db';

export interface RetentionRuleRow {
  /** '' for the whole hub, else a conv_id. */
  scope: string;
  keep_days: number | null;
  keep_pinned: number;
  keep_requests: number;
  keep_checkpoints: number;
  archive_idle_days: number | null;
  updated_at: number;
}

export function retentionRules(db: Db): RetentionRuleRow[] {
  return sql<RetentionRuleRow>(db, 'SELECT * FROM retention_rules ORDER BY scope').all();
}

export function putRetentionRule(db: Db, r: RetentionRuleRow): void {
  sql(
    db,
    `INSERT INTO retention_rules (scope, keep_days, keep_pinned, keep_requests, keep_checkpoints, archive_idle_days, updated_at)
           VALUES (@scope, @keep_days, @keep_pinned, @keep_requests, @keep_checkpoints, @archive_idle_days, @updated_at)
           ON CONFLICT (scope) DO UPDATE SET keep_days = excluded.keep_days, keep_pinned = excluded.keep_pinned,
             keep_requests = excluded.keep_requests, keep_checkpoints = excluded.keep_checkpoints,
             archive_idle_days = excluded.archive_idle_days, updated_at = excluded.updated_at`,
  ).run(r);
}

export function deleteRetentionRule(db: Db, scope: string): boolean {
  return sql(db, 'DELETE FROM retention_rules WHERE scope = ?').run(scope).changes === 1;
}

/** What a rule keeps whatever its age. */
export interface KeepFlags {
  cutoff: number;
  pinned: boolean;
  requests: boolean;
}

/**
 * A message that stays: newer than the cutoff, pinned (when kept), a request (when kept; a pending one always).
 * Parameters @cutoff, @pinned, @requests; the message is `m`.
 */
const KEPT = `(m.created_at >= @cutoff
  OR (@pinned AND EXISTS (SELECT 1 FROM pins p WHERE p.conv_id = m.conv_id AND p.msg_id = m.id))
  OR (m.kind = 'request' AND (@requests OR EXISTS (SELECT 1 FROM requests r WHERE r.msg_id = m.id AND r.state = 'pending'))))`;

const flags = (k: KeepFlags) => ({ cutoff: k.cutoff, pinned: k.pinned ? 1 : 0, requests: k.requests ? 1 : 0 });

/** Conversations in id order after `after` (a retention pass walks them), at most limit. */
export function conversationsAfter(
  db: Db,
  after: string,
  limit: number,
): Array<{ id: string; kind: string; title: string; last_event_at: number; archived_at: number | null }> {
  return sql<{ id: string; kind: string; title: string; last_event_at: number; archived_at: number | null }>(
    db,
    'SELECT id, kind, title, last_event_at, archived_at FROM conversations WHERE id > ? ORDER BY id LIMIT (? + 0)',
  ).all(after, limit);
}

export interface LogRow {
  gid: number;
  seq: number;
  msg_id: string | null;
  ts: number;
}

/** A conversation's events after seq, in seq order, at most limit. */
export function eventsAfterSeq(db: Db, convId: string, afterSeq: number, limit: number): LogRow[] {
  return sql<LogRow>(db, 'SELECT gid, seq, msg_id, ts FROM events WHERE conv_id = ? AND seq > ? ORDER BY seq LIMIT (? + 0)').all(
    convId,
    afterSeq,
    limit,
  );
}

/** Whether the message exists and stays under these flags (undefined: it is gone already). */
export function messageKept(db: Db, msgId: string, keep: KeepFlags): boolean | undefined {
  const r = sql<{ kept: number }>(db, `SELECT ${KEPT} AS kept FROM messages m WHERE m.id = @id`).get({ id: msgId, ...flags(keep) });
  return r ? r.kept === 1 : undefined;
}

/** What deleting a message removed. */
export interface Removed {
  events: number;
  files: number;
  file_bytes: number;
}

/**
 * Deletes a message and everything hanging off it; the search index is told to forget it (search_forget, read by
 * the store's worker). Its request goes too, unless it is pending (then nothing is deleted: the caller keeps those).
 */
export function deleteMessageFully(db: Db, msgId: string): Removed {
  const created = sql<{ gid: number }>(db, "SELECT gid FROM events WHERE msg_id = ? AND type = 'message.created'").get(msgId);
  if (created) sql(db, 'INSERT INTO search_forget (gid) VALUES (?)').run(created.gid);
  const fileBytes = sql<{ n: number; b: number }>(
    db,
    'SELECT count(*) AS n, coalesce(sum(length(data) + coalesce(length(thumb), 0)), 0) AS b FROM files WHERE msg_id = ?',
  ).get(msgId)!;
  sql(db, 'DELETE FROM files WHERE msg_id = ?').run(msgId);
  const events = sql(db, 'DELETE FROM events WHERE msg_id = ?').run(msgId).changes;
  sql(db, 'DELETE FROM reactions WHERE msg_id = ?').run(msgId);
  sql(db, 'DELETE FROM card_responses WHERE msg_id = ?').run(msgId);
  sql(db, 'DELETE FROM hidden_messages WHERE msg_id = ?').run(msgId);
  sql(db, 'DELETE FROM pins WHERE msg_id = ? AND conv_id = (SELECT conv_id FROM messages WHERE id = ?)').run(msgId, msgId);
  sql(db, "DELETE FROM requests WHERE msg_id = ? AND state != 'pending'").run(msgId);
  sql(db, 'DELETE FROM messages WHERE id = ?').run(msgId);
  return { events, files: fileBytes.n, file_bytes: fileBytes.b };
}

export function deleteEvent(db: Db, gid: number): void {
  sql(db, 'DELETE FROM events WHERE gid = ?').run(gid);
}

/** Deletes a conversation's summaries written before `before`, at most limit; how many. */
export function deleteSummariesBefore(db: Db, convId: string, before: number, limit: number): number {
  return sql(db, 'DELETE FROM summaries WHERE id IN (SELECT id FROM summaries WHERE conv_id = ? AND at < ? LIMIT (? + 0))').run(
    convId,
    before,
    limit,
  ).changes;
}

/** What a rule would remove from one conversation now (the dry run; read only). */
export function countRemovable(
  db: Db,
  convId: string,
  keep: KeepFlags & { checkpoints: boolean },
): { messages: number; events: number; files: number; file_bytes: number; summaries: number } {
  const p = { conv: convId, ...flags(keep) };
  const messages = sql<{ n: number }>(
    db,
    `SELECT count(*) AS n FROM messages m WHERE m.conv_id = @conv AND m.created_at < @cutoff AND NOT ${KEPT}`,
  ).get(p)!.n;
  // Events older than the cutoff that do not belong to a kept message, and the newer events of messages that go.
  const events = sql<{ n: number }>(
    db,
    `SELECT count(*) AS n FROM events e LEFT JOIN messages m ON m.id = e.msg_id
    WHERE e.conv_id = @conv AND (
      (e.ts < @cutoff AND (e.msg_id IS NULL OR m.id IS NULL OR NOT ${KEPT}))
      OR (e.ts >= @cutoff AND m.id IS NOT NULL AND m.created_at < @cutoff AND NOT ${KEPT}))`,
  ).get(p)!.n;
  const files = sql<{ n: number; b: number }>(
    db,
    `SELECT count(*) AS n, coalesce(sum(length(f.data) + coalesce(length(f.thumb), 0)), 0) AS b
    FROM files f JOIN messages m ON m.id = f.msg_id WHERE m.conv_id = @conv AND m.created_at < @cutoff AND NOT ${KEPT}`,
  ).get(p)!;
  const summaries = keep.checkpoints
    ? 0
    : sql<{ n: number }>(db, 'SELECT count(*) AS n FROM summaries WHERE conv_id = ? AND at < ?').get(convId, keep.cutoff)!.n;
  return { messages, events, files: files.n, file_bytes: files.b, summaries };
}

// ---- giving space back ----

/** 0 none, 1 full, 2 incremental (PRAGMA auto_vacuum). */
export function autoVacuumMode(db: Db): number {
  return db.pragma('auto_vacuum', { simple: true }) as number;
}

/** Free pages in the file, in bytes. */
export function freeBytes(db: Db): number {
  return (db.pragma('freelist_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
}

/** Returns up to `pages` free pages to the file system (incremental mode only); how many pages were free before. */
export function incrementalVacuum(db: Db, pages: number): number {
  const free = db.pragma('freelist_count', { simple: true }) as number;
  if (free > 0) db.pragma(`incremental_vacuum(${Math.max(1, Math.floor(pages))})`);
  return free;
}

/** Turns an existing file to incremental vacuum: a full VACUUM, which rewrites the whole file (the hub must not run). */
export function switchToIncrementalVacuum(db: Db): void {
  db.pragma('auto_vacuum = INCREMENTAL');
  db.exec('VACUUM');
}

/** search_forget rows the search index has forgotten (up to id) are dropped. */
export function pruneSearchForget(db: Db, upto: number): void {
  sql(db, 'DELETE FROM search_forget WHERE id <= ?').run(upto);
}

// ---- export first ----

/** The folder a pass exports what it will delete to, before deleting (settings row; undefined: no export). */
export function retentionExportDir(db: Db): string | undefined {
  return sql<{ value: string }>(db, "SELECT value FROM settings WHERE key = 'retention_export_dir'").get()?.value;
}

/** Sets (a folder) or clears (null) the export-first folder. */
export function setRetentionExportDir(db: Db, dir: string | null): void {
  if (dir === null) sql(db, "DELETE FROM settings WHERE key = 'retention_export_dir'").run();
  else
    sql(
      db,
      "INSERT INTO settings (key, value) VALUES ('retention_export_dir', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    ).run(dir);
}
