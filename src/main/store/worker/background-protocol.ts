// What the hub's thread (background.ts) and the store's worker thread (background-worker.ts) share:
// the slots of their shared counter, the data the worker starts with, and the messages it sends.

/** Slots of the shared Int32Array. */
export const COMMITS = 0; // bumped after every commit of the main connection
export const SLEEPING = 1; // 1 while the worker waits for a commit
export const STOP = 2; // set to stop the worker
export const CLOSED = 3; // set by the worker once its connections are closed (or it never opened one)
export const SLOTS = 4;

export interface BackgroundWorkerData {
  /** The database file. */
  file: string;
  /** The search index file beside it. */
  searchFile: string;
  /** SharedArrayBuffer of SLOTS Int32 slots. */
  shared: SharedArrayBuffer;
  /** WAL size (bytes) from which the worker checkpoints. */
  walThreshold: number;
  /** At most one round of work per this many ms while writes go on. */
  pauseMs: number;
  /** Log events read per indexing transaction. */
  chunk: number;
  /** SEARCH_INDEX_VERSION: a different one in the file rebuilds the index. */
  version: string;
}

export interface BackgroundWorkerMessage {
  /** Sent once: the worker runs (search: the index is usable). */
  ready?: boolean;
  search?: boolean;
  /** The index caught up with the log. */
  indexed?: boolean;
  /** Something failed (it is tried again after the next commit). */
  error?: string;
  code?: string;
}
