// The store's worker thread (started by background.ts, which says what it does and why): WAL
// checkpoints and the search index, with its own connections. It sleeps until a commit of the main
// connection bumps the shared counter, then works at most every pauseMs. Built as its own file
// (scripts/build-main.mjs) and loaded by path; under tsx the source itself runs.
import fs from 'node:fs';
import crypto from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { CLOSED, COMMITS, SLEEPING, STOP, type BackgroundWorkerData, type BackgroundWorkerMessage } from './background-protocol';

type Conn = Database.Database;
interface LogEvent {
  gid: number;
  type: string;
  msg_id: string | null;
}
interface IndexedMessage {
  text: string | null;
  recalled_at: number | null;
  cgid: number;
}

const data = workerData as BackgroundWorkerData;
const shared = new Int32Array(data.shared);
const pause = new Int32Array(new SharedArrayBuffer(4));
const post = (m: BackgroundWorkerMessage) => parentPort!.postMessage(m);
const describe = (err: unknown) => String((err as Error | undefined)?.message ?? err);
const codeOf = (err: unknown) => (err as { code?: string } | undefined)?.code;

/** The worker's connection, or undefined (said to the hub) when the database cannot be opened here. */
function openMain(): Conn | undefined {
  try {
    // Reading the schema (synchronous needs it) waits on a busy file like any connection; the work after it never waits.
    const c = new Database(data.file);
    c.pragma('synchronous = NORMAL');
    c.pragma('busy_timeout = 0');
    return c;
  } catch (err) {
    post({ error: `the worker cannot open the database: ${describe(err)}; checkpoints stay with the hub`, code: codeOf(err) });
    return undefined;
  }
}
/** Tells the hub's thread that this thread holds no connection any more (it waits for that before closing its own). */
function closed(): void {
  Atomics.store(shared, CLOSED, 1);
  Atomics.notify(shared, CLOSED);
}
const opened = openMain();
if (!opened) {
  closed();
  process.exit(0);
}
const db = opened;
const wal = `${data.file}-wal`;

function checkpoint(): void {
  let size = 0;
  try {
    size = fs.statSync(wal).size;
  } catch {
    size = 0;
  }
  if (size >= data.walThreshold) db.pragma('wal_checkpoint(PASSIVE)');
}

// ---- the search index ----

const FTS = "CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(text, content = '', contentless_delete = 1, tokenize = 'trigram')";

/** Opens (creating or rebuilding as needed) the index file; returns it and the function that indexes one chunk. */
function openSearch(): { search: Conn; index: () => boolean } {
  const file = data.searchFile;
  const secret = (db.prepare("SELECT value FROM settings WHERE key = 'hub_secret'").pluck().get() as string | undefined) || '';
  const owner = crypto.createHash('sha256').update(`perch-search:${secret}`).digest('hex');
  const maxGid = (db.prepare('SELECT max(gid) FROM events').pluck().get() as number | null) || 0;
  const open = (): Conn => {
    // Private like the database (it holds message text); SQLite gives -wal and -shm the same mode.
    fs.closeSync(fs.openSync(file, 'a', 0o600));
    try {
      fs.chmodSync(file, 0o600);
    } catch {
      /* kept as it is */
    }
    const s = new Database(file);
    s.pragma('journal_mode = WAL');
    s.pragma('synchronous = NORMAL');
    s.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID');
    s.exec(FTS);
    return s;
  };
  const startOver = (s: Conn) => {
    const set = s.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
    // Rebuilt from the log: what retention deleted is not in it, so nothing before now needs forgetting.
    const forgotten = (db.prepare('SELECT max(id) FROM search_forget').pluck().get() as number | null) || 0;
    s.transaction(() => {
      set.run('owner', owner);
      set.run('version', data.version);
      set.run('indexed_upto', 0);
      set.run('forgot_upto', forgotten);
    })();
  };
  let s: Conn | undefined;
  try {
    s = open();
    const meta = (k: string) => s!.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(k) as string | number | undefined;
    const upto = Number(meta('indexed_upto') ?? -1);
    const ok = meta('owner') === owner && meta('version') === data.version && upto <= maxGid && upto >= 0;
    if (!ok) {
      s.exec('DROP TABLE fts');
      s.exec(FTS);
      startOver(s);
    }
  } catch {
    // A damaged file: start over.
    try {
      s?.close();
    } catch {
      /* already unusable */
    }
    for (const f of [file, `${file}-wal`, `${file}-shm`]) {
      try {
        fs.rmSync(f, { force: true });
      } catch {
        /* gone */
      }
    }
    s = open();
    startOver(s);
  }
  const search = s;
  const readEvents = db.prepare('SELECT gid, type, msg_id FROM events WHERE gid > ? ORDER BY gid LIMIT ?');
  const readMessage = db.prepare(
    'SELECT m.text, m.recalled_at, c.gid AS cgid FROM messages m JOIN events c ON c.conv_id = m.conv_id AND c.seq = m.seq WHERE m.id = ?',
  );
  const upto = search.prepare("SELECT value FROM meta WHERE key = 'indexed_upto'").pluck();
  const setUpto = search.prepare("UPDATE meta SET value = ? WHERE key = 'indexed_upto'");
  const del = search.prepare('DELETE FROM fts WHERE rowid = ?');
  const ins = search.prepare('INSERT INTO fts (rowid, text) VALUES (?, ?)');
  // Messages retention deleted (store/tables/talk/retention.ts): their entries leave the index; forgot_upto is how far it got
  // (the hub then drops those rows of search_forget, hub/features/retention/retention.ts).
  const readForget = db.prepare('SELECT id, gid FROM search_forget WHERE id > ? ORDER BY id LIMIT ?');
  const forgotUpto = search.prepare("SELECT value FROM meta WHERE key = 'forgot_upto'").pluck();
  const setForgot = search.prepare(
    "INSERT INTO meta (key, value) VALUES ('forgot_upto', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  );
  const applyForget = search.transaction((rows: Array<{ id: number; gid: number }>) => {
    for (const r of rows) del.run(r.gid);
    setForgot.run(rows[rows.length - 1].id);
  });
  /** Forgets one chunk of deleted messages; true when there is more to do. */
  const forget = (): boolean => {
    const rows = readForget.all(Number(forgotUpto.get() ?? 0), data.chunk) as Array<{ id: number; gid: number }>;
    if (rows.length === 0) return false;
    applyForget(rows);
    return rows.length === data.chunk;
  };
  const apply = search.transaction((events: LogEvent[], last: number) => {
    for (const e of events) {
      if (e.type !== 'message.created' && e.type !== 'message.edited' && e.type !== 'message.recalled') continue;
      if (!e.msg_id) continue;
      const m = readMessage.get(e.msg_id) as IndexedMessage | undefined;
      if (!m) continue;
      del.run(m.cgid); // one row per message: delete, then index its current text
      if (m.text != null && m.recalled_at == null) ins.run(m.cgid, m.text);
    }
    setUpto.run(last);
  });
  /** Indexes one chunk of the log; true when there is more to do. */
  const index = (): boolean => {
    const from = Number(upto.get());
    const events = readEvents.all(from, data.chunk) as LogEvent[];
    if (events.length === 0) return false;
    apply(events, events[events.length - 1].gid);
    return events.length === data.chunk;
  };
  return { search, index: () => forget() || index() };
}

let search: Conn | undefined;
let index: (() => boolean) | undefined;
try {
  ({ search, index } = openSearch());
  post({ ready: true, search: true });
} catch (err) {
  search = undefined;
  index = undefined;
  post({ ready: true, search: false, error: `search index: ${describe(err)}` });
}

let behind = !!index;
for (;;) {
  if (Atomics.load(shared, STOP) !== 0) break;
  if (!behind) {
    const seen = Atomics.load(shared, COMMITS);
    Atomics.store(shared, SLEEPING, 1);
    if (Atomics.load(shared, STOP) === 0) Atomics.wait(shared, COMMITS, seen);
    Atomics.store(shared, SLEEPING, 0);
    if (Atomics.load(shared, STOP) !== 0) break;
    Atomics.wait(pause, 0, 0, data.pauseMs);
    if (Atomics.load(shared, STOP) !== 0) break;
  }
  const was = behind;
  behind = false;
  try {
    if (index) behind = index();
  } catch (err) {
    // A full disk (SQLITE_FULL, SQLITE_IOERR*) or a damaged index: tried again after the next commit;
    // search meanwhile tests the messages after indexed_upto itself.
    post({ error: `search index: ${describe(err)}`, code: codeOf(err) });
  }
  if (was && !behind) post({ indexed: true });
  try {
    checkpoint();
    if (search) search.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    post({ error: `checkpoint: ${describe(err)}`, code: codeOf(err) });
  }
}
try {
  search?.close();
} catch {
  /* closing anyway */
}
try {
  db.close();
} catch {
  /* closing anyway */
}
closed();
