import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { LATEST_VERSION, MIGRATIONS, checkMigrationOrder } from '../migrations';
import { applyDurability, DEFAULT_DURABILITY, type Durability } from './durability';
import { backupBeforeMigration } from '../backup/backup';
import { FRESH_SCHEMA, FRESH_SCHEMA_VERSION } from './fresh-schema.generated';

export type Db = Database.Database;

export const DB_FILE_NAME = 'perch.sqlite';

export class NewerDatabaseError extends Error {
  constructor(
    readonly found: number,
    readonly supported: number,
    file: string,
  ) {
    super(
      `The database ${file} was written by a newer Perch (schema version ${found}; this build knows up to ${supported}). ` +
        'Update Perch, or point --data-dir at another folder.',
    );
    this.name = 'NewerDatabaseError';
  }
}

/** SQLite could not make or grow the WAL's shared-memory file (-shm) beside the database: a full disk. */
function isShmError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_IOERR_SHM');
}

/** Is this connection in EXCLUSIVE locking mode (openDatabase's full-disk fallback)? */
export function isExclusive(db: Db): boolean {
  return db.pragma('locking_mode', { simple: true }) === 'exclusive';
}

/**
 * Opens (creating if needed) the one SQLite file and brings its schema up to date. With `fullDiskFallback` (the
 * hub), a disk too full for SQLite's shared-memory file (-shm) does not stop it: the database is opened again in
 * EXCLUSIVE locking mode, whose WAL index lives in this process's memory (no -shm file); other processes then
 * cannot open the database until this connection closes.
 */
export function openDatabase(file: string, opts: { readonly?: boolean; durability?: Durability; fullDiskFallback?: boolean } = {}): Db {
  try {
    return openWith(file, opts, false);
  } catch (err) {
    if (!opts.fullDiskFallback || !isShmError(err)) throw err;
    return openWith(file, opts, true);
  }
}

function openWith(file: string, opts: { readonly?: boolean; durability?: Durability }, exclusive: boolean): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const db = new Database(file, { readonly: opts.readonly ?? false, nativeBinding: addonFile() });
  try {
    // Before the first access in WAL mode: then SQLite never makes the -shm file.
    if (exclusive) db.pragma('locking_mode = EXCLUSIVE');
    setUp(db, file, opts);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

let addon: string | null | undefined;

/**
 * better-sqlite3's compiled addon, by its path: its own lookup (the bindings package: a stack trace, then a dozen
 * candidate paths) was a noticeable part of a cold start. undefined (that lookup, then) where it is not at the
 * place npm builds it (a packaged app may move it).
 */
function addonFile(): string | undefined {
  if (addon === undefined) {
    try {
      const file = path.join(path.dirname(require.resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');
      addon = fs.existsSync(file) ? file : null;
    } catch {
      addon = null;
    }
  }
  return addon ?? undefined;
}

function setUp(db: Db, file: string, opts: { readonly?: boolean; durability?: Durability }): void {
  const durability = opts.durability ?? DEFAULT_DURABILITY;
  const isNew = !opts.readonly && schemaVersion(db) === 0 && !hasTables(db);
  // A new file's header (auto_vacuum, then WAL) is written in rollback-journal mode, where each change fsyncs the
  // journal, the file and its folder, and the new WAL's header is synced too (10 fsyncs, most of a new data dir's start
  // on a busy disk). Under durability normal, which promises to survive a crash of the process and not a power cut,
  // the file and its schema go to the OS unsynced: a crash loses nothing, and a power cut at that moment could only
  // spoil a file that holds no data yet. Durability applies from the first write after the schema.
  const unsyncedUntilSchema = isNew && durability === 'normal';
  if (unsyncedUntilSchema) db.pragma('synchronous = OFF');
  // A new file gives freed pages back in small steps (retention, hub/features/retention/retention.ts); the mode can only be set
  // before the first table exists. An older file keeps auto_vacuum NONE until `perch retention compact` (a VACUUM).
  if (isNew) db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  // WAL + NORMAL (default): a committed transaction survives a crash (kill -9) of the process; the
  // WAL is only fsynced at checkpoints, so a power loss may lose the last moments. FULL fsyncs every
  // commit. See store/db/durability.ts and docs/guide/durability.md.
  if (!unsyncedUntilSchema) applyDurability(db, durability);
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.pragma('temp_store = MEMORY');
  // Deleted content (a recalled message, what retention removes) is zeroed in the pages that stay, where that costs no
  // extra I/O; freed pages go back to the disk by incremental vacuum (store/tables/talk/retention.ts).
  db.pragma('secure_delete = FAST');
  // 16 MB of pages: the hot pages of a busy hub fit; the OS keeps the rest of the file cached.
  db.pragma('cache_size = -16000');
  registerFunctions(db);
  migrate(db, file);
  if (unsyncedUntilSchema) applyDurability(db, durability);
  if (file !== ':memory:') {
    for (const f of [file, `${file}-wal`, `${file}-shm`]) {
      try {
        fs.chmodSync(f, 0o600);
      } catch {
        /* not created yet */
      }
    }
  }
}

/** SQL functions the store's queries use. SQLite's own lower() folds ASCII letters only. */
export function registerFunctions(db: Db): void {
  db.function('perch_lower', { deterministic: true }, (s: unknown) => (typeof s === 'string' ? s.toLowerCase() : s));
}

function hasTables(db: Db): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' LIMIT 1").get() !== undefined;
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

export function migrate(db: Db, file = 'database'): void {
  checkMigrationOrder();
  const current = schemaVersion(db);
  if (current > LATEST_VERSION) throw new NewerDatabaseError(current, LATEST_VERSION, file);
  // A database with data (not a new one) is copied as it is before its schema changes.
  if (current > 0 && current < LATEST_VERSION && db.name && !db.memory && !db.readonly) {
    backupBeforeMigration(db, db.name, current);
  }
  // A new database gets today's schema in one step; the migrations after it (none, unless one was added since
  // `npm run schema` last ran) follow as for any older database.
  if (current === 0 && !db.readonly && FRESH_SCHEMA_VERSION > 0 && FRESH_SCHEMA_VERSION <= LATEST_VERSION && !hasTables(db))
    createFreshSchema(db);
  migrateTo(db, LATEST_VERSION);
}

/** Creates the schema of fresh-schema.generated.ts (what the migrations up to its version build) in one transaction. */
export function createFreshSchema(db: Db): void {
  db.transaction(() => {
    for (const statement of FRESH_SCHEMA) db.exec(statement);
    db.pragma(`user_version = ${FRESH_SCHEMA_VERSION}`);
  }).immediate();
}

/**
 * Runs the migrations after the database's version up to `version` (each in its own transaction, recording its
 * version), and no further: what migrate does, without its checks and pre-migration backup. migrate uses it for the
 * whole way; the migration tests (test/migrations/) use it to write a database at an older schema.
 */
export function migrateTo(db: Db, version: number): void {
  const current = schemaVersion(db);
  for (const m of MIGRATIONS) {
    if (m.version <= current || m.version > version) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
  }
}

const statementCache = new WeakMap<Db, Map<string, Database.Statement>>();

/**
 * A bare parameter as LIMIT (`LIMIT ?`, `LIMIT @limit`) lets this SQLite's planner use the bound
 * value, so the statement is planned again on every run (about 10-20 µs each time, more than the
 * query itself). `LIMIT (? + 0)` means the same and keeps the one prepared plan.
 */
const BARE_LIMIT = /\bLIMIT\s+([?@:$]\w*)/gi;
export function planOnce(text: string): string {
  return text.replace(BARE_LIMIT, 'LIMIT ($1 + 0)');
}

/**
 * Changes whenever ANOTHER connection (another process, e.g. a `perch agent revoke`) committed to
 * the database since the last call on this connection; this connection's own commits leave it.
 */
export function dataVersion(db: Db): number {
  return sql<{ data_version: number }>(db, 'PRAGMA data_version').get()!.data_version;
}

/** A prepared statement, prepared once per connection. */
export function sql<R = unknown>(db: Db, text: string): Database.Statement<unknown[], R> {
  let m = statementCache.get(db);
  if (!m) statementCache.set(db, (m = new Map()));
  let s = m.get(text);
  if (!s) m.set(text, (s = db.prepare(planOnce(text))));
  return s as Database.Statement<unknown[], R>;
}

/**
 * The disk is full or failing: SQLITE_FULL (no room, or max_page_count reached) and every
 * SQLITE_IOERR_* (a write or fsync failed). The hub refuses writes with storage_full then and keeps
 * serving reads. SQLite may have rolled back the whole transaction on such an error.
 */
export function isStorageError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && (code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR'));
}

/** SQLite cannot read the file as a database: not one at all (SQLITE_NOTADB: a header of zeros, another file), or damaged. */
export function isUnreadableDatabase(err: unknown): boolean {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT';
}

const commitHooks = new WeakMap<Db, Set<() => void>>();

/**
 * Runs hook after every COMMIT of this connection (a tx() of its own or a batch), e.g. to wake
 * background work (store/worker/background.ts). Returns the function that removes it. A hook must be
 * cheap; one that throws is reported as a warning (the commit has happened either way).
 */
export function onCommit(db: Db, hook: () => void): () => void {
  let hooks = commitHooks.get(db);
  if (!hooks) commitHooks.set(db, (hooks = new Set()));
  const own = hooks;
  own.add(hook);
  return () => {
    own.delete(hook);
  };
}

function committed(db: Db): void {
  const hooks = commitHooks.get(db);
  if (!hooks) return;
  for (const hook of hooks) {
    try {
      hook();
    } catch (err) {
      process.emitWarning(`perch: a commit hook failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

/** Per-connection state of group commit (see batch). */
interface BatchState {
  /** A batch transaction is open. */
  open: boolean;
  /** A unit of the open batch is running (its outermost tx() holds the savepoint). */
  unit: boolean;
  /**
   * The error on which SQLite rolled back the whole batch transaction (SQLITE_FULL, an I/O error):
   * the later units must fail too instead of running (and committing) on their own.
   */
  lost?: unknown;
}
const batchStates = new WeakMap<Db, BatchState>();

/**
 * How a tx() call would run right now: as its own transaction ('outer'), as one unit of an open
 * batch with its own savepoint ('unit'), or joined to an enclosing transaction ('nested').
 */
export function txRole(db: Db): 'outer' | 'unit' | 'nested' {
  if (!db.inTransaction) return 'outer';
  const st = batchStates.get(db);
  return st?.open && !st.unit ? 'unit' : 'nested';
}

/**
 * Runs fn in one IMMEDIATE transaction (writers queue instead of failing on upgrade).
 * A nested call joins the outer transaction; any throw rolls the whole of it back.
 * Inside a batch, the outermost call is a unit with its own savepoint: a throw rolls back that
 * unit only (the batch commits the others).
 */
export function tx<T>(db: Db, fn: () => T): T {
  const open = batchStates.get(db);
  if (open?.open && (open.lost !== undefined || !db.inTransaction)) {
    throw (open.lost ??= new Error('the batch transaction was rolled back by SQLite'));
  }
  if (db.inTransaction) {
    const st = batchStates.get(db);
    if (!st?.open || st.unit) return fn();
    st.unit = true;
    sql(db, 'SAVEPOINT perch_unit').run();
    try {
      const result = fn();
      sql(db, 'RELEASE perch_unit').run();
      return result;
    } catch (err) {
      if (db.inTransaction) {
        sql(db, 'ROLLBACK TO perch_unit').run();
        sql(db, 'RELEASE perch_unit').run();
      } else {
        st.lost = err; // SQLite rolled back the whole batch: every unit of it fails
      }
      throw err;
    } finally {
      st.unit = false;
    }
  }
  sql(db, 'BEGIN IMMEDIATE').run();
  let result: T;
  try {
    result = fn();
    sql(db, 'COMMIT').run();
  } catch (err) {
    if (db.inTransaction) sql(db, 'ROLLBACK').run();
    throw err;
  }
  committed(db);
  return result;
}

/**
 * Group commit: runs fn, which runs many independent units of work (each an outermost tx()), in
 * ONE transaction with one COMMIT. Nothing of it is committed before batch returns; when batch
 * throws (a failed COMMIT), nothing of it was. Callers answer their units only after it returns.
 */
export function batch(db: Db, fn: () => void): void {
  if (db.inTransaction) throw new Error('batch inside a transaction');
  let st = batchStates.get(db);
  if (!st) batchStates.set(db, (st = { open: false, unit: false }));
  sql(db, 'BEGIN IMMEDIATE').run();
  st.open = true;
  st.lost = undefined;
  try {
    fn();
    if (st.lost !== undefined || !db.inTransaction) throw st.lost ?? new Error('the batch transaction was rolled back by SQLite');
  } catch (err) {
    st.open = false;
    st.unit = false;
    st.lost = undefined;
    if (db.inTransaction) sql(db, 'ROLLBACK').run();
    throw err;
  }
  st.open = false;
  try {
    sql(db, 'COMMIT').run();
  } catch (err) {
    if (db.inTransaction) sql(db, 'ROLLBACK').run();
    throw err;
  }
  committed(db);
}
