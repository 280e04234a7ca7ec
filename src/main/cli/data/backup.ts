// perch backup (a consistent copy of the database, safe while the hub runs) and perch restore (a backup back in
// place, only while no hub serves the data dir). The files are handled in store/backup/backup.ts and store/backup/restore.ts.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DB_FILE_NAME } from '../../store/db/db';
import { BACKUPS_DIR, NotRestorableError, backupFile, defaultBackupFile } from '../../store/backup/backup';
import { restoreDatabase } from '../../store/backup/restore';
import { LATEST_VERSION } from '../../store/migrations';
import { humanSize } from '../../store/backup/disk-space';
import { DATA_DIR_LINE, UsageError, dataDirOf, fail, print, requireFolderOf, type Command } from '../common';

export const backup: Command = {
  names: ['backup'],
  usage: `  perch backup [--to FILE] [--force]
      Copy the database now (safe while the hub runs) to <data dir>/backups/perch-<time>.sqlite.`,
  help: () => `perch backup [--to FILE] [--force] [--data-dir DIR] [--json]

Copies the database (one consistent copy, taken with SQLite's online backup API; safe while the
hub runs and agents write) and prints where it went and its size.
  --to FILE   where to write it (default: <data dir>/${BACKUPS_DIR}/perch-<time>.sqlite); its folder
              must exist (refused otherwise, not created)
  --force     overwrite FILE if it exists (refused otherwise)
${DATA_DIR_LINE}
The search index (perch-search.sqlite) is rebuilt from the database and is not copied.
While it runs, the hub keeps its own daily backups (see perch serve --backups).`,
  run: cmdBackup,
};

export const restore: Command = {
  names: ['restore'],
  usage: `  perch restore FILE
      Replace the database with a backup (only while no hub serves the data dir).`,
  help: () => `perch restore FILE [--data-dir DIR] [--json]

Replaces the data dir's database with the backup FILE. Refused while a hub serves the data dir
(stop it first). FILE is checked first (PRAGMA integrity_check, a Perch schema version and
Perch's tables); a bad file is refused and nothing changes. The current database is first saved as
<data dir>/${BACKUPS_DIR}/perch-pre-restore-<time>.sqlite.
${DATA_DIR_LINE}`,
  run: cmdRestore,
};

async function cmdBackup(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { 'data-dir': { type: 'string' }, to: { type: 'string' }, force: { type: 'boolean' }, json: { type: 'boolean' } },
    strict: true,
  });
  const dataDir = dataDirOf(values);
  const dbFile = path.join(dataDir, DB_FILE_NAME);
  if (!fs.existsSync(dbFile)) fail(`there is no database to back up at ${dbFile}. Check --data-dir (or PERCH_DATA_DIR).`, 1);
  const dest = values.to !== undefined ? path.resolve(values.to) : defaultBackupFile(dataDir);
  if (path.resolve(dest) === path.resolve(dbFile)) throw new UsageError('--to names the database itself; pick another file.');
  if (values.to !== undefined) requireFolderOf(dest, '--to FILE');
  if (fs.existsSync(dest)) {
    if (!values.force) fail(`${dest} exists; nothing was written. Pick another --to FILE, or add --force to overwrite it.`, 1);
    if (!fs.statSync(dest).isFile()) fail(`${dest} is not a file; nothing was written. Pick another --to FILE.`, 1);
  }
  const r = await backupFile(dbFile, dest); // dest is replaced only once the new copy is whole and checked
  print(
    !!values.json,
    { file: dest, bytes: r.bytes },
    () =>
      `Backed up ${dbFile}\n  to ${dest} (${humanSize(r.bytes)}).\nRestore it with: perch restore ${JSON.stringify(dest)}${values['data-dir'] ? ` --data-dir ${JSON.stringify(dataDir)}` : ''}`,
  );
}

async function cmdRestore(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { 'data-dir': { type: 'string' }, json: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  const [fileArg, extra] = positionals;
  if (!fileArg) throw new UsageError('perch restore needs FILE, e.g. perch restore backups/perch-2025-01-31T12-00-00-000Z.sqlite');
  if (extra !== undefined) throw new UsageError(`perch restore takes one FILE, not also ${JSON.stringify(extra)}`);
  const dataDir = dataDirOf(values);
  const dbFile = path.join(dataDir, DB_FILE_NAME);
  const source = path.resolve(fileArg);
  if (!fs.existsSync(source) || !fs.statSync(source).isFile()) fail(`${source} is not a file; nothing was changed.`, 1);
  if (source === dbFile) throw new UsageError('FILE is the database itself; pick a backup.');
  const { liveHubOf } = await import('../../app');
  const live = await liveHubOf(dataDir);
  if (live)
    fail(
      `a Perch hub (pid ${live.pid}) is serving ${dataDir} at ${live.base_url}; nothing was changed. Stop it first (Ctrl+C, or quit the app), then run perch restore again.`,
      1,
    );
  let r;
  try {
    r = await restoreDatabase(dataDir, source);
  } catch (err) {
    if (err instanceof NotRestorableError) fail(`${err.message} ${err.nextStep}`, 1);
    throw err;
  }
  const version = r.schemaVersion;
  print(
    !!values.json,
    { restored: source, data_dir: dataDir, schema_version: version, previous: r.previous ?? null },
    () =>
      `Restored ${source}\n  into ${r.dbFile} (schema version ${version}${version < LATEST_VERSION ? `; upgraded to ${LATEST_VERSION} when the hub starts` : ''}).\n` +
      (r.previous ? `The previous database is kept as ${r.previous}.\n` : '') +
      'Start the hub with `perch serve` (or open the app).',
  );
}
