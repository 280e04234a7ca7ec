// WAL checkpoints off the main thread. SQLite checkpoints the WAL into the database file on the
// committing connection by default (every 1000 pages): that commit then copies megabytes and
// fsyncs twice, stalling every request behind it for milliseconds. A long-running hub instead lets
// a worker thread with its own connection run PASSIVE checkpoints (they never block the writer),
// and makes the main connection's own automatic checkpoints rare once that worker is ready.
// Durability is unchanged: a commit is in the WAL before it returns, as before.
//
// The worker costs nothing while nothing is written: it sleeps in Atomics.wait until a commit
// bumps a shared counter (no timers, no polling), then checkpoints at most every CHECK_MS.
import { Worker } from 'node:worker_threads';
import type { Db } from './db';

/** WAL size (bytes) from which the worker checkpoints. */
const WAL_THRESHOLD = 1024 * 1024;
/** At most one checkpoint per this many ms while writes go on. */
const CHECK_MS = 100;
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

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const Database = require(workerData.module);
const shared = new Int32Array(workerData.shared);
const pause = new Int32Array(new SharedArrayBuffer(4));
const db = new Database(workerData.file);
db.pragma('busy_timeout = 0');
db.pragma('synchronous = NORMAL');
const wal = workerData.file + '-wal';
parentPort.postMessage({ ready: true });
for (;;) {
  const seen = Atomics.load(shared, ${COMMITS});
  Atomics.store(shared, ${SLEEPING}, 1);
  if (Atomics.load(shared, ${STOP}) === 0) Atomics.wait(shared, ${COMMITS}, seen);
  Atomics.store(shared, ${SLEEPING}, 0);
  if (Atomics.load(shared, ${STOP}) !== 0) break;
  Atomics.wait(pause, 0, 0, workerData.checkMs);
  if (Atomics.load(shared, ${STOP}) !== 0) break;
  try {
    let size = 0;
    try { size = fs.statSync(wal).size; } catch { size = 0; }
    if (size >= workerData.threshold) db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
  }
}
try { db.close(); } catch {}
`;

const notifiers = new WeakMap<Db, Int32Array>();

/** Called after every COMMIT of this connection: wakes its checkpointer if it sleeps (a few ns otherwise). */
export function committed(db: Db): void {
  const shared = notifiers.get(db);
  if (!shared) return;
  Atomics.add(shared, COMMITS, 1);
  if (Atomics.load(shared, SLEEPING) === 1) Atomics.notify(shared, COMMITS);
}

export interface Checkpointer {
  close(): void;
}

/**
 * Starts background checkpoints for the database of this connection (a file, not :memory:).
 * Until the worker is ready, and again if it fails, the connection checkpoints by itself as before.
 */
export function startBackgroundCheckpoints(db: Db): Checkpointer | undefined {
  const file = db.name;
  if (!file || file === ':memory:' || db.memory || db.readonly || notifiers.has(db)) return undefined;
  let module: string;
  try {
    module = require.resolve('better-sqlite3');
  } catch {
    return undefined;
  }
  const previous = db.pragma('wal_autocheckpoint', { simple: true }) as number;
  const buffer = new SharedArrayBuffer(3 * 4);
  const shared = new Int32Array(buffer);
  let worker: Worker;
  try {
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { module, file, shared: buffer, threshold: WAL_THRESHOLD, checkMs: CHECK_MS } });
  } catch {
    return undefined;
  }
  worker.unref();
  let closed = false;
  const restore = () => {
    notifiers.delete(db);
    if (!closed && db.open) {
      try { db.pragma(`wal_autocheckpoint = ${previous}`); } catch { /* closing */ }
    }
  };
  worker.on('message', (m: { ready?: boolean; error?: string }) => {
    if (m.ready && !closed && db.open) {
      db.pragma(`wal_autocheckpoint = ${MAIN_AUTOCHECKPOINT_PAGES}`);
      notifiers.set(db, shared);
    }
  });
  worker.on('error', restore);
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
