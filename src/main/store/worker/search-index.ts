// The main thread's side of the search index that the background worker keeps (background.ts):
// a read-only connection to perch-search.sqlite, used by search (messages.ts) to find the messages
// that contain a string. The index covers the event log up to `upto` (a gid); search tests the
// messages created or edited after it directly, so a message is found at once, indexed or not.
import Database from 'better-sqlite3';
import type { Db } from '../db/db';

export const SEARCH_FILE_NAME = 'perch-search.sqlite';
/** Bumped when the index's shape changes: the worker then rebuilds it from the log. */
export const SEARCH_INDEX_VERSION = '1';

/** A piece of the query found in fewer indexed messages than this is used alone (see walk). */
const RARE_PIECE = 64;
/** At most this many pieces are probed (a longer query is still verified in full). */
const MAX_PIECES = 8;

interface Reader {
  conn: Database.Database;
  begin: Database.Statement;
  commit: Database.Statement;
  upto: Database.Statement<unknown[], number>;
  probe: Database.Statement<unknown[], number>;
  page: Database.Statement<unknown[], number>;
  forgot: Database.Statement<unknown[], number>;
}

const readers = new WeakMap<Db, Reader>();

export function attachSearchIndex(db: Db, file: string): void {
  detachSearchIndex(db);
  try {
    const conn = new Database(file, { readonly: true, fileMustExist: true });
    readers.set(db, {
      conn,
      begin: conn.prepare('BEGIN'),
      commit: conn.prepare('COMMIT'),
      upto: conn.prepare("SELECT value FROM meta WHERE key = 'indexed_upto'").pluck() as Database.Statement<unknown[], number>,
      probe: conn.prepare('SELECT count(*) FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT (? + 0))').pluck() as Database.Statement<
        unknown[],
        number
      >,
      forgot: conn.prepare("SELECT value FROM meta WHERE key = 'forgot_upto'").pluck() as Database.Statement<unknown[], number>,
      page: conn
        .prepare('SELECT rowid FROM fts WHERE fts MATCH ? AND rowid < ? ORDER BY rowid DESC LIMIT (? + 0)')
        .pluck() as Database.Statement<unknown[], number>,
    });
  } catch {
    /* no index: search reads the conversations */
  }
}

export function detachSearchIndex(db: Db): void {
  const r = readers.get(db);
  if (!r) return;
  readers.delete(db);
  try {
    r.conn.close();
  } catch {
    /* closed */
  }
}

/**
 * One look at the index, in one read transaction (so `upto` and every page agree).
 *  - upto: the index reflects the event log up to this gid.
 *  - page(before, n): creation-event gids of indexed messages that may contain the query, below
 *    `before`, newest first, at most n.
 */
export interface SearchIndexView {
  upto: number;
  page(before: number, n: number): number[];
}

/**
 * Runs fn over the index for a query given as pieces that every matching text contains (each at
 * least 3 characters); undefined when this connection has no index or it cannot be read. The
 * candidates are messages containing the rarest piece when one is rare, else all of the pieces.
 */
export function withSearchIndex<T>(db: Db, pieces: readonly string[], fn: (view: SearchIndexView) => T): T | undefined {
  const r = readers.get(db);
  if (!r || pieces.length === 0) return undefined;
  const phrase = (s: string) => `"${s.replace(/"/g, '""')}"`;
  let view: SearchIndexView | undefined;
  try {
    r.begin.run();
  } catch {
    return undefined;
  }
  try {
    const upto = Number(r.upto.get() ?? 0);
    let match = pieces.slice(0, MAX_PIECES).map(phrase).join(' AND ');
    if (pieces.length > 1) {
      let rarest: { piece: string; n: number } | undefined;
      for (const p of pieces.slice(0, MAX_PIECES)) {
        const n = r.probe.get(phrase(p), RARE_PIECE)!;
        if (!rarest || n < rarest.n) rarest = { piece: p, n };
      }
      if (rarest && rarest.n < RARE_PIECE) match = phrase(rarest.piece);
    }
    view = { upto, page: (before, n) => r.page.all(match, before, n) };
  } catch {
    view = undefined;
  }
  try {
    return view ? fn(view) : undefined;
  } finally {
    try {
      r.commit.run();
    } catch {
      /* read transaction */
    }
  }
}

/**
 * How far the search index has forgotten the messages retention deleted (an id of search_forget); undefined when this
 * connection has no index (then nothing of search_forget may be dropped yet: a later index reads it).
 */
export function searchForgotUpto(db: Db): number | undefined {
  const r = readers.get(db);
  if (!r) return undefined;
  try {
    return Number(r.forgot.get() ?? 0);
  } catch {
    return undefined;
  }
}
