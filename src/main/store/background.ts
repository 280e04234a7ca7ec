// Background work of a long-running hub's store, on one worker thread with its own connections,
// so that none of it runs on (or blocks) the thread that answers requests:
//  1. WAL checkpoints. SQLite checkpoints on the committing connection by default (every 1000
//     pages): that commit then copies megabytes and fsyncs twice, stalling every request behind it.
//     The worker runs PASSIVE checkpoints (they never block the writer); the main connection keeps
//     rare automatic ones of its own (see MAIN_AUTOCHECKPOINT_PAGES).
//  2. The search index: an FTS5 trigram index of message text in its own file beside the database
//     (perch-search.sqlite). The worker follows the event log (message.created / edited / recalled)
//     and records how far it got (indexed_upto, a gid). search (store/messages.ts) reads it through
//     a read-only connection and tests every message after that gid itself, so it never misses
//     one; see search-index.ts. The index is derived data: a missing, stale or foreign file is
//     rebuilt from the log. Indexing costs ~70 µs of CPU per message, which is why it is not done
//     by triggers inside each write.
// Durability is unchanged: a commit is in the WAL before it returns, as before.
// The worker costs nothing while nothing is written: it sleeps in Atomics.wait until a commit
// bumps a shared counter (no timers, no polling), then works at most every PAUSE_MS.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { isStorageError, type Db } from './db';
import { attachSearchIndex, detachSearchIndex, SEARCH_FILE_NAME, SEARCH_INDEX_VERSION } from './search-index';

/** WAL size (bytes) from which the worker checkpoints. */
const WAL_THRESHOLD = 1024 * 1024;
/** At most one round of work per this many ms while writes go on. */
const PAUSE_MS = 50;
/** Log events read per indexing transaction. */
const INDEX_CHUNK = 2000;
/**
 * Automatic checkpoints of the main connection while the worker runs (pages). Under sustained
 * writes the worker's PASSIVE checkpoints rarely catch up with the very last frame, and only a
 * complete checkpoint lets the WAL start over; the main connection then completes one itself
 * when the WAL reaches this size (cheap: the worker has already copied almost every frame).
 */
const MAIN_AUTOCHECKPOINT_PAGES = 8192;

// Shared Int32Array slots.
const COMMITS = 0;
const SLEEPING = 1;
const STOP = 2;

const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const crypto = require('node:crypto');
const Database = require(workerData.module);
const shared = new Int32Array(workerData.shared);
const pause = new Int32Array(new SharedArrayBuffer(4));
const post = (m) => parentPort.postMessage(m);

const db = new Database(workerData.file);
db.pragma('busy_timeout = 0');
db.pragma('synchronous = NORMAL');
const wal = workerData.file + '-wal';

function checkpoint() {
  let size = 0;
  try { size = fs.statSync(wal).size; } catch { size = 0; }
  if (size >= workerData.walThreshold) db.pragma('wal_checkpoint(PASSIVE)');
}

// ---- the search index ----
let search = null;
let index = null;
function openSearch() {
  const file = workerData.searchFile;
  const secret = db.prepare("SELECT value FROM settings WHERE key = 'hub_secret'").pluck().get() || '';
  const owner = crypto.createHash('sha256').update('perch-search:' + secret).digest('hex');
  const maxGid = db.prepare('SELECT max(gid) FROM events').pluck().get() || 0;
  const open = () => {
    // Private like the database (it holds message text); SQLite gives -wal and -shm the same mode.
    fs.closeSync(fs.openSync(file, 'a', 0o600));
    try { fs.chmodSync(file, 0o600); } catch {}
    const s = new Database(file);
    s.pragma('journal_mode = WAL');
    s.pragma('synchronous = NORMAL');
    s.exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID");
    s.exec("CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(text, content = '', contentless_delete = 1, tokenize = 'trigram')");
    return s;
  };
  let s;
  try {
    s = open();
    const meta = (k) => s.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(k);
    const ok = meta('owner') === owner && meta('version') === workerData.version && Number(meta('indexed_upto') ?? -1) <= maxGid && Number(meta('indexed_upto') ?? -1) >= 0;
    if (!ok) {
      s.exec('DROP TABLE fts');
      s.exec("CREATE VIRTUAL TABLE fts USING fts5(text, content = '', contentless_delete = 1, tokenize = 'trigram')");
      const set = s.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
      s.transaction(() => { set.run('owner', owner); set.run('version', workerData.version); set.run('indexed_upto', 0); })();
    }
  } catch (err) {
    // A damaged file: start over.
    try { if (s) s.close(); } catch {}
    for (const f of [file, file + '-wal', file + '-shm']) { try { fs.rmSync(f, { force: true }); } catch {} }
    s = open();
    const set = s.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
    s.transaction(() => { set.run('owner', owner); set.run('version', workerData.version); set.run('indexed_upto', 0); })();
  }
  search = s;
  const readEvents = db.prepare('SELECT gid, type, msg_id FROM events WHERE gid > ? ORDER BY gid LIMIT ?');
  const readMessage = db.prepare('SELECT m.text, m.recalled_at, c.gid AS cgid FROM messages m JOIN events c ON c.conv_id = m.conv_id AND c.seq = m.seq WHERE m.id = ?');
  const upto = s.prepare("SELECT value FROM meta WHERE key = 'indexed_upto'").pluck();
  const setUpto = s.prepare("UPDATE meta SET value = ? WHERE key = 'indexed_upto'");
  const del = s.prepare('DELETE FROM fts WHERE rowid = ?');
  const ins = s.prepare('INSERT INTO fts (rowid, text) VALUES (?, ?)');
  const apply = s.transaction((events, last) => {
    for (const e of events) {
      if (e.type !== 'message.created' && e.type !== 'message.edited' && e.type !== 'message.recalled') continue;
      if (!e.msg_id) continue;
      const m = readMessage.get(e.msg_id);
      if (!m) continue;
      del.run(m.cgid); // one row per message: delete, then index its current text
      if (m.text != null && m.recalled_at == null) ins.run(m.cgid, m.text);
    }
    setUpto.run(last);
  });
  /** Indexes one chunk of the log; true when there is more to do. */
  index = () => {
    const from = Number(upto.get());
    const events = readEvents.all(from, workerData.chunk);
    if (events.length === 0) return false;
    apply(events, events[events.length - 1].gid);
    return events.length === workerData.chunk;
  };
}
try {
  openSearch();
  post({ ready: true, search: true });
} catch (err) {
  search = null;
  index = null;
  post({ ready: true, search: false, error: 'search index: ' + String((err && err.message) || err) });
}

let behind = !!index;
for (;;) {
  if (Atomics.load(shared, ${STOP}) !== 0) break;
  if (!behind) {
    const seen = Atomics.load(shared, ${COMMITS});
    Atomics.store(shared, ${SLEEPING}, 1);
    if (Atomics.load(shared, ${STOP}) === 0) Atomics.wait(shared, ${COMMITS}, seen);
    Atomics.store(shared, ${SLEEPING}, 0);
    if (Atomics.load(shared, ${STOP}) !== 0) break;
    Atomics.wait(pause, 0, 0, workerData.pauseMs);
    if (Atomics.load(shared, ${STOP}) !== 0) break;
  }
  const was = behind;
  behind = false;
  try {
    if (index) behind = index();
  } catch (err) {
    // A full disk (SQLITE_FULL, SQLITE_IOERR*) or a damaged index: tried again after the next commit;
    // search meanwhile tests the messages after indexed_upto itself.
    post({ error: 'search index: ' + String((err && err.message) || err), code: err && err.code });
  }
  if (was && !behind) post({ indexed: true });
  try {
    checkpoint();
    if (search) search.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    post({ error: 'checkpoint: ' + String((err && err.message) || err), code: err && err.code });
  }
}
try { if (search) search.close(); } catch {}
try { db.close(); } catch {}
`;

const notifiers = new WeakMap<Db, Int32Array>();

/** Called after every COMMIT of this connection: wakes its worker if it sleeps (a few ns otherwise). */
export function committed(db: Db): void {
  const shared = notifiers.get(db);
  if (!shared) return;
  Atomics.add(shared, COMMITS, 1);
  if (Atomics.load(shared, SLEEPING) === 1) Atomics.notify(shared, COMMITS);
}

export interface BackgroundStore {
  close(): void;
}

/**
 * Starts the background work for the database of this connection (a file, not :memory:).
 * Until the worker is ready, and again if it fails, the connection checkpoints by itself as before
 * and search reads the conversations directly.
 */
export function startBackgroundStore(db: Db, opts: { onIndexed?: () => void } = {}): BackgroundStore | undefined {
  const file = db.name;
  if (!file || file === ':memory:' || db.memory || db.readonly || notifiers.has(db)) return undefined;
  let module: string;
  try {
    module = require.resolve('better-sqlite3');
  } catch {
    return undefined;
  }
  const searchFile = path.join(path.dirname(file), SEARCH_FILE_NAME);
  const previous = db.pragma('wal_autocheckpoint', { simple: true }) as number;
  const buffer = new SharedArrayBuffer(3 * 4);
  const shared = new Int32Array(buffer);
  let worker: Worker;
  try {
    worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { module, file, searchFile, shared: buffer, walThreshold: WAL_THRESHOLD, pauseMs: PAUSE_MS, chunk: INDEX_CHUNK, version: SEARCH_INDEX_VERSION },
    });
  } catch {
    return undefined;
  }
  worker.unref();
  let closed = false;
  const restore = () => {
    notifiers.delete(db);
    detachSearchIndex(db);
    if (!closed && db.open) {
      try { db.pragma(`wal_autocheckpoint = ${previous}`); } catch { /* closing */ }
    }
  };
  // The same failure again and again (a full disk fails every round) is said once, until work succeeds.
  let lastError: string | undefined;
  worker.on('message', (m: { ready?: boolean; search?: boolean; indexed?: boolean; error?: string; code?: string }) => {
    if (m.error && m.error !== lastError) process.stderr.write(`perch: background store: ${m.error}${m.code ? ` (${m.code})` : ''}${isStorageError(m) ? '; the disk is full or failing: retried after the next commit' : ''}\n`);
    lastError = m.error ?? (m.indexed ? undefined : lastError);
    if (m.indexed) opts.onIndexed?.();
    if (m.ready && !closed && db.open) {
      db.pragma(`wal_autocheckpoint = ${MAIN_AUTOCHECKPOINT_PAGES}`);
      notifiers.set(db, shared);
      if (m.search) attachSearchIndex(db, searchFile);
    }
  });
  worker.on('error', (err) => {
    process.stderr.write(`perch: background store stopped: ${err instanceof Error ? err.message : String(err)}\n`);
    restore();
  });
  worker.on('exit', restore);
  return {
    close() {
      if (closed) return;
      restore();
      closed = true;
      Atomics.store(shared, STOP, 1);
      Atomics.notify(shared, COMMITS);
    },
  };
}
