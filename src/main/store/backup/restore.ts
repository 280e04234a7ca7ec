// Restoring a backup into a data dir (perch restore): the backup is checked on a private copy, so the backup
// itself is never modified and a bad file never touches the data dir's database; the current database is kept
// in the backups folder; then the checked copy takes the database's name and the derived search index goes.
import fs from 'node:fs';
import path from 'node:path';
import { DB_FILE_NAME } from '../db/db';
import { NotRestorableError, backupFile, checkPerchDatabase, defaultBackupFile, sealCopy } from './backup';
import { SEARCH_FILE_NAME } from '../worker/search-index';

export interface Restored {
  /** The data dir's database file, now the backup's content. */
  dbFile: string;
  /** The backup's schema version (upgraded when the hub next opens it, if older than LATEST_VERSION). */
  schemaVersion: number;
  /** Where the database that was there before is kept (none when the data dir had none). */
  previous: string | undefined;
}

/**
 * Replaces dataDir's database with the backup `source` (a file; a -wal beside it is taken too). The caller makes
 * sure no hub serves dataDir. Throws NotRestorableError (naming `source`) when the backup is not a whole Perch
 * database this build can open; nothing in dataDir has changed then.
 */
export async function restoreDatabase(dataDir: string, source: string): Promise<Restored> {
  const dbFile = path.join(dataDir, DB_FILE_NAME);
  // Check a private copy (with the -wal beside FILE, if any), so FILE itself is never modified
  // and a bad file never touches the data dir's database.
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const staging = path.join(dataDir, `.restore-${process.pid}-${Date.now()}.sqlite`);
  const dropStaging = () => {
    for (const f of [staging, `${staging}-wal`, `${staging}-shm`, `${staging}-journal`]) fs.rmSync(f, { force: true });
  };
  let schemaVersion: number;
  try {
    fs.copyFileSync(source, staging);
    if (fs.existsSync(`${source}-wal`)) fs.copyFileSync(`${source}-wal`, `${staging}-wal`);
    schemaVersion = checkPerchDatabase(staging).version;
    sealCopy(staging, false); // one self-contained file: its -wal merged in
    fs.chmodSync(staging, 0o600);
  } catch (err) {
    dropStaging();
    if (err instanceof NotRestorableError) throw new NotRestorableError(err.message.replace(staging, source), err.nextStep);
    throw err;
  }

  // Keep the current database: a consistent copy through SQLite, or its raw files if it cannot be read.
  let previous: string | undefined;
  if (fs.existsSync(dbFile)) {
    previous = defaultBackupFile(dataDir, 'pre-restore');
    try {
      await backupFile(dbFile, previous);
    } catch {
      fs.mkdirSync(path.dirname(previous), { recursive: true, mode: 0o700 });
      fs.copyFileSync(dbFile, previous);
      if (fs.existsSync(`${dbFile}-wal`)) fs.copyFileSync(`${dbFile}-wal`, `${previous}-wal`);
    }
  }
  // The old -wal/-shm must go before the new file takes the name: SQLite would replay them onto it.
  for (const f of [`${dbFile}-wal`, `${dbFile}-shm`, `${dbFile}-journal`]) fs.rmSync(f, { force: true });
  fs.renameSync(staging, dbFile);
  dropStaging();
  // The search index is derived from the database: drop it, the hub rebuilds it.
  for (const f of [SEARCH_FILE_NAME, `${SEARCH_FILE_NAME}-wal`, `${SEARCH_FILE_NAME}-shm`])
    fs.rmSync(path.join(dataDir, f), { force: true });
  return { dbFile, schemaVersion, previous };
}
