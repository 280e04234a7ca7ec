// Background work of a long-running hub's store, on one worker thread with its own connections,
// so that none of it runs on (or blocks) the thread that answers requests:
//  1. WAL checkpoints. SQLite checkpoints on the committing connection by default (every 1000
//     pages): that commit then copies megabytes and fsyncs twice, stalling every request behind it.
//     The worker runs PASSIVE checkpoints (they never block the writer); the main connection keeps
//     rare automatic ones of its own (see MAIN_AUTOCHECKPOINT_PAGES).
//  2. The search index: an FTS5 trigram index of message text in its own file beside the database
//     (perch-search.sqlite). The worker follows the event log (message.created / edited / recalled)
//     and records how far it got (indexed_upto, a gid). search (store/tables/talk/messages.ts) reads it through
//     a read-only connection and tests every message after that gid itself, so it never misses
//     one; see search-index.ts. The index is derived data: a missing, stale or foreign file is
//     rebuilt from the log. Indexing costs ~70 µs of CPU per message, which is why it is not done
//     by triggers inside each write.
// Durability is unchanged: a commit is in the WAL before it returns, as before.
// The worker costs nothing while nothing is written: it sleeps in Atomics.wait until a commit
// bumps a shared counter (a commit hook, db.ts onCommit; no timers, no polling), then works at most
// every PAUSE_MS. Its code is background-worker.ts; what both threads share is background-protocol.ts.
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { isExclusive, isStorageError, onCommit, type Db } from '../db/db';
import { CLOSED, COMMITS, SLEEPING, SLOTS, STOP, type BackgroundWorkerData, type BackgroundWorkerMessage } from './background-protocol';
import { attachSearchIndex, detachSearchIndex, SEARCH_FILE_NAME, SEARCH_INDEX_VERSION } from './search-index';

/** WAL size (bytes) from which the worker checkpoints. */
const WAL_THRESHOLD = 1024 * 1024;
/**
 * close() waits at most this long for the worker to close its connections: the hub's own connection is then the
 * last one, and its close checkpoints the WAL and removes the -wal and -shm files (a connection still open in
 * the worker, killed with the process, leaves them behind).
 */
const CLOSE_WAIT_MS = 5000;
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

/**
 * The worker's code (background-worker.ts): in dist/ it is built beside each bundle as
 * background-worker.js (scripts/build-main.mjs); under tsx (tests) the source runs.
 */
function workerFile(): string | undefined {
  return [path.join(__dirname, 'background-worker.js'), path.join(__dirname, 'background-worker.ts')].find((f) => fs.existsSync(f));
}

const running = new WeakSet<Db>();

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
  if (!file || file === ':memory:' || db.memory || db.readonly || running.has(db)) return undefined;
  // A hub that holds its database alone (openDatabase's full-disk fallback) shuts every other connection out, the
  // worker's too: it checkpoints by itself and search reads the conversations directly, as before the worker is ready.
  if (isExclusive(db)) return undefined;
  const code = workerFile();
  if (!code) return undefined;
  const searchFile = path.join(path.dirname(file), SEARCH_FILE_NAME);
  const previous = db.pragma('wal_autocheckpoint', { simple: true }) as number;
  const buffer = new SharedArrayBuffer(SLOTS * 4);
  const shared = new Int32Array(buffer);
  const workerData: BackgroundWorkerData = {
    file,
    searchFile,
    shared: buffer,
    walThreshold: WAL_THRESHOLD,
    pauseMs: PAUSE_MS,
    chunk: INDEX_CHUNK,
    version: SEARCH_INDEX_VERSION,
  };
  let worker: Worker;
  try {
    // Under tsx the thread needs tsx's require hook to run the TypeScript source (a thread does not
    // inherit the loader hooks that `--import tsx` installed on this one).
    const execArgv = code.endsWith('.ts') ? ['--require', require.resolve('tsx/cjs')] : undefined;
    worker = new Worker(code, { workerData, execArgv });
  } catch {
    return undefined;
  }
  running.add(db);
  worker.unref();
  let closed = false;
  /** After every commit of the main connection (once the worker is ready): wakes the worker if it sleeps. */
  let stopWaking: (() => void) | undefined;
  const wake = () => {
    Atomics.add(shared, COMMITS, 1);
    if (Atomics.load(shared, SLEEPING) === 1) Atomics.notify(shared, COMMITS);
  };
  const restore = () => {
    stopWaking?.();
    stopWaking = undefined;
    running.delete(db);
    detachSearchIndex(db);
    if (!closed && db.open) {
      try {
        db.pragma(`wal_autocheckpoint = ${previous}`);
      } catch {
        /* closing */
      }
    }
  };
  // The same failure again and again (a full disk fails every round) is said once, until work succeeds.
  let lastError: string | undefined;
  worker.on('message', (m: BackgroundWorkerMessage) => {
    if (m.error && m.error !== lastError)
      process.stderr.write(
        `perch: background store: ${m.error}${m.code ? ` (${m.code})` : ''}${isStorageError(m) ? '; the disk is full or failing: retried after the next commit' : ''}\n`,
      );
    lastError = m.error ?? (m.indexed ? undefined : lastError);
    if (m.indexed) opts.onIndexed?.();
    if (m.ready && !closed && db.open) {
      db.pragma(`wal_autocheckpoint = ${MAIN_AUTOCHECKPOINT_PAGES}`);
      stopWaking ??= onCommit(db, wake);
      if (m.search) attachSearchIndex(db, searchFile);
    }
  });
  worker.on('error', (err) => {
    // What a worker throws arrives as a copy: an error's message and code, not always an Error.
    const e = err as { message?: unknown; code?: unknown } | null;
    const text = typeof e?.message === 'string' && e.message ? e.message : typeof err === 'string' ? err : 'the worker thread failed';
    process.stderr.write(`perch: background store stopped: ${text}${typeof e?.code === 'string' ? ` (${e.code})` : ''}\n`);
    restore();
  });
  let exited = false;
  worker.on('exit', () => {
    exited = true;
    restore();
  });
  return {
    close() {
      if (closed) return;
      restore();
      closed = true;
      Atomics.store(shared, STOP, 1);
      Atomics.notify(shared, COMMITS);
      // Bounded: a worker midway through a chunk of indexing finishes it first (well under a second).
      if (!exited) Atomics.wait(shared, CLOSED, 0, CLOSE_WAIT_MS);
    },
  };
}
