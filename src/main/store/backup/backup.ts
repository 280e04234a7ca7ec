// Backups of the one SQLite file: consistent copies taken while the hub runs (SQLite's online
// backup API, in steps, so it never blocks a request for long), the daily automatic ones with
// their retention, the copy taken before a migration, and checking a file before a restore.
// The search index (perch-search.sqlite) is derived from the event log and rebuilt by itself:
// it is never backed up.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { HubError } from '../../../shared/errors';
import { LATEST_VERSION } from '../migrations';
import { makeStaging } from './staging';
import { NoSpaceError, freeBytes, isNoSpace } from './disk-space';

type Db = Database.Database; // as store/db/db.ts, not imported from there: db.ts calls backupBeforeMigration

export const BACKUPS_DIR = 'backups';
/** How many daily backups the hub keeps unless told otherwise (0 turns them off). */
export const DEFAULT_DAILY_BACKUPS = 7;
export const DAY_MS = 24 * 60 * 60 * 1000;
/** Pages copied per step of a backup inside the hub (4 KiB pages: ~400 KiB, well under a millisecond). */
const HUB_STEP_PAGES = 100;

/** Tables every Perch database has (from the first migration on). */
export const PERCH_TABLES = ['users', 'conversations', 'members', 'events', 'messages', 'settings'] as const;

/** A sortable, file-name-safe UTC timestamp: 2025-01-31T12-00-00-000Z. */
export function backupStamp(at = new Date()): string {
  return at.toISOString().replace(/[:.]/g, '-');
}

const STAMP = /(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z/;
function stampTime(name: string): number | undefined {
  const m = STAMP.exec(name);
  if (!m) return undefined;
  const t = Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`);
  return Number.isFinite(t) ? t : undefined;
}

export function backupsDirOf(dataDir: string): string {
  return path.join(dataDir, BACKUPS_DIR);
}

export function defaultBackupFile(
  dataDir: string,
  kind: 'manual' | 'daily' | 'pre-restore' | `pre-migration-v${number}` = 'manual',
  at = new Date(),
): string {
  const prefix = kind === 'manual' ? 'perch' : `perch-${kind}`;
  return path.join(backupsDirOf(dataDir), `${prefix}-${backupStamp(at)}.sqlite`);
}

function removeQuietly(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) {
    try {
      fs.rmSync(f, { force: true });
    } catch {
      /* best effort */
    }
  }
}

/**
 * Turns a finished copy into one self-contained file (rollback journal, no -wal beside it) and
 * checks it; throws when the copy does not pass PRAGMA quick_check (unless check is false).
 */
export function sealCopy(file: string, check = true): void {
  const c = new Database(file);
  try {
    c.pragma('journal_mode = DELETE');
    if (!check) return;
    const result = c.pragma('quick_check', { simple: true });
    if (result !== 'ok') throw new Error(`the copy in ${file} failed its check: ${String(result)}`);
  } finally {
    c.close();
  }
}

export interface BackupResult {
  file: string;
  bytes: number;
  pages: number;
}

/** The name prefix of a backup's staging folder (beside the destination): `.perch-backup-<pid>-XXXXXX`. */
export const BACKUP_STAGING_PREFIX = '.perch-backup-';

/**
 * Copies the database that `source` is connected to into `dest` with the online backup API.
 * The copy is written in a private staging folder beside dest (store/backup/staging.ts: mkdtemp, 0700; the staging
 * folders of copies that were killed are swept first) and renamed into place when complete, so dest is either
 * absent or a whole, checked database, and nothing is written through a name someone could plant beside it.
 * `stepPages` pages per step (undefined: all the rest at once after the first step; right for another process,
 * whose writes would restart a slow copy). `aborted()` is asked between steps. `check` (default true) runs
 * PRAGMA quick_check on the copy; the hub skips it (it reads the whole copy at once, which would stall requests
 * on a big file).
 */
export async function backupDatabase(
  source: Db,
  dest: string,
  opts: { stepPages?: number; aborted?: () => boolean; check?: boolean } = {},
): Promise<BackupResult> {
  fs.mkdirSync(path.dirname(dest), { recursive: true, mode: 0o700 });
  const staging = makeStaging(path.dirname(dest), BACKUP_STAGING_PREFIX);
  const partial = path.join(staging, 'copy.sqlite');
  let pages = 0;
  try {
    const r = await source.backup(partial, {
      progress: ({ totalPages, remainingPages }) => {
        if (opts.aborted?.()) throw new Error('backup stopped: the hub is closing');
        pages = totalPages;
        return opts.stepPages ?? Math.max(remainingPages, 1);
      },
    });
    pages = r.totalPages;
    sealCopy(partial, opts.check ?? true);
    fs.chmodSync(partial, 0o600);
    // No stale -wal/-journal of an older file of that name may stay beside the new copy.
    for (const f of [`${dest}-wal`, `${dest}-shm`, `${dest}-journal`]) fs.rmSync(f, { force: true });
    fs.renameSync(partial, dest);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return { file: dest, bytes: fs.statSync(dest).size, pages };
}

/** Errors that mean the destination cannot be written there (a missing or read-only folder, a file in the way). */
const UNWRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'EEXIST', 'ENOTDIR', 'EISDIR', 'ENOENT', 'SQLITE_CANTOPEN', 'SQLITE_READONLY']);

/**
 * Backs up the database file `dbFile` from a connection of its own (the CLI, while a hub may run).
 * A destination that cannot be written there is a HubError (invalid_argument) naming it; nothing is left behind.
 */
export async function backupFile(dbFile: string, dest: string): Promise<BackupResult> {
  const source = new Database(dbFile, { fileMustExist: true });
  const dir = path.dirname(dest);
  const noSpace = (need: number) =>
    new NoSpaceError(`The backup to ${dest} cannot be written`, dir, need, freeBytes(dir), 'the size of the database');
  let need = 0;
  try {
    source.pragma('busy_timeout = 5000');
    need = (source.pragma('page_count', { simple: true }) as number) * (source.pragma('page_size', { simple: true }) as number);
    const free = freeBytes(dir);
    if (free !== undefined && free < need) throw noSpace(need); // checked before anything is written
    return await backupDatabase(source, dest);
  } catch (err) {
    if (err instanceof NoSpaceError) throw err;
    if (isNoSpace(err)) throw noSpace(need);
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && UNWRITABLE.has(code)) {
      throw new HubError(
        'invalid_argument',
        `Cannot write a backup in ${path.dirname(dest)} (${(err as Error).message}); nothing was written.`,
        'Pick another destination (perch backup --to FILE), in a folder you may write to.',
      );
    }
    throw err;
  } finally {
    source.close();
  }
}

/**
 * The copy taken before a migration: a synchronous, consistent copy (VACUUM INTO) of the
 * database as it is, in backups/perch-pre-migration-v<N>-<timestamp>.sqlite. Throws when it
 * cannot be made, so the migration does not run without it.
 */
export function backupBeforeMigration(db: Db, dbFile: string, version: number): string {
  const dest = defaultBackupFile(path.dirname(dbFile), `pre-migration-v${version}`);
  fs.mkdirSync(path.dirname(dest), { recursive: true, mode: 0o700 });
  let staging: string | undefined;
  try {
    staging = makeStaging(path.dirname(dest), BACKUP_STAGING_PREFIX); // as backupDatabase: never through a planted name
    const copy = path.join(staging, 'copy.sqlite');
    db.prepare('VACUUM INTO ?').run(copy);
    fs.chmodSync(copy, 0o600);
    fs.renameSync(copy, dest);
  } catch (err) {
    throw new Error(
      `Could not back up ${dbFile} to ${dest} before upgrading its schema from version ${version} (${(err as Error).message}); nothing was changed. Free some disk space or check the folder's permissions, then start Perch again.`,
    );
  } finally {
    if (staging) fs.rmSync(staging, { recursive: true, force: true });
  }
  return dest;
}

// ---- daily backups --------------------------------------------------------------------------

const DAILY = /^perch-daily-.*\.sqlite$/;

/** The daily backups in dir, oldest first. */
export function dailyBackups(dir: string): Array<{ file: string; at: number }> {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => DAILY.test(n))
    .map((n) => {
      const file = path.join(dir, n);
      let at = stampTime(n);
      if (at === undefined) {
        try {
          at = fs.statSync(file).mtimeMs;
        } catch {
          at = 0;
        }
      }
      return { file, at };
    })
    .sort((a, b) => a.at - b.at || a.file.localeCompare(b.file));
}

/** Deletes all but the newest `keep` daily backups; returns the deleted files. */
export function pruneDailyBackups(dir: string, keep: number): string[] {
  const all = dailyBackups(dir);
  const gone = all.slice(0, Math.max(0, all.length - keep)).map((b) => b.file);
  for (const f of gone) removeQuietly(f);
  return gone;
}

export interface DailyBackups {
  /** Resolves when no backup is running any more (a running one is abandoned). */
  stop(): Promise<void>;
  /** The backup in progress, if any (for tests and logs). */
  current(): Promise<unknown> | undefined;
}

/**
 * Keeps `keep` daily backups of the hub's database in <dataDir>/backups: one at start when the
 * newest is older than a day (or there is none), then one every 24 hours. Copies run in small
 * steps between requests on the hub's own connection, whose writes are carried into the copy.
 */
export function startDailyBackups(
  db: Db,
  dataDir: string,
  keep: number,
  log: (line: Record<string, unknown>) => void = () => {},
): DailyBackups {
  if (keep <= 0) return { stop: async () => {}, current: () => undefined };
  const dir = backupsDirOf(dataDir);
  let stopped = false;
  let running: Promise<unknown> | undefined;
  const take = () => {
    if (stopped || running) return;
    const dest = defaultBackupFile(dataDir, 'daily');
    running = backupDatabase(db, dest, { stepPages: HUB_STEP_PAGES, check: false, aborted: () => stopped || !db.open })
      .then((r) => {
        const pruned = pruneDailyBackups(dir, keep);
        log({ event: 'backup', file: r.file, bytes: r.bytes, pruned: pruned.length });
      })
      .catch((err: Error) => {
        if (!stopped) log({ event: 'backup_failed', file: dest, error: err.message });
      })
      .finally(() => {
        running = undefined;
      });
  };
  const newest = dailyBackups(dir).at(-1);
  const dueIn = newest && Date.now() - newest.at < DAY_MS ? DAY_MS - (Date.now() - newest.at) : 0;
  let timer: NodeJS.Timeout = setTimeout(function tick() {
    take();
    timer = setTimeout(tick, DAY_MS);
    timer.unref();
  }, dueIn);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running?.catch(() => {});
    },
    current: () => running,
  };
}

// ---- restore ---------------------------------------------------------------------------------

export class NotRestorableError extends Error {
  constructor(
    message: string,
    readonly nextStep: string,
  ) {
    super(message);
    this.name = 'NotRestorableError';
  }
}

/**
 * Checks that `file` is a whole Perch database this build can open: PRAGMA integrity_check
 * passes, user_version is 1..LATEST_VERSION and Perch's tables are there. Throws
 * NotRestorableError otherwise. Returns its schema version. Reads only; the file may be
 * temporarily opened read-write (a -wal beside it is then merged into it).
 */
export function checkPerchDatabase(file: string): { version: number } {
  const bad = (why: string) =>
    new NotRestorableError(
      `${file} is not a Perch database that can be restored: ${why}.`,
      'Pick another backup (perch-*.sqlite in the backups folder of the data dir); nothing was changed.',
    );
  let c: Db;
  try {
    c = new Database(file, { fileMustExist: true });
  } catch (err) {
    throw bad((err as Error).message);
  }
  try {
    let check: unknown;
    let version: number;
    let tables: string[];
    try {
      check = c.pragma('integrity_check', { simple: true });
      version = c.pragma('user_version', { simple: true }) as number;
      tables = c.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all() as string[];
    } catch (err) {
      throw bad((err as Error).message);
    }
    if (check !== 'ok') throw bad(`PRAGMA integrity_check says ${String(check)}`);
    if (version > LATEST_VERSION) {
      throw new NotRestorableError(
        `${file} was written by a newer Perch (schema version ${version}; this build knows up to ${LATEST_VERSION}).`,
        'Update Perch first; nothing was changed.',
      );
    }
    const missing = PERCH_TABLES.filter((t) => !tables.includes(t));
    if (version < 1 || missing.length)
      throw bad(version < 1 ? 'it has no Perch schema version' : `tables ${missing.join(', ')} are missing`);
    return { version };
  } finally {
    c.close();
  }
}
