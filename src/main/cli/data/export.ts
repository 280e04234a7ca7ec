// perch export (the hub's history as one portable export, whether or not the hub runs) and perch import (an
// export merged into this hub, only while no hub serves the data dir). The export is written and read in
// store/export/*.ts; its format is docs/archive-format.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DB_FILE_NAME, openDatabase } from '../../store/db/db';
import { writeExport, type ExportProgress } from '../../store/export/write';
import { ExportFileError } from '../../store/export/read';
import { importExport } from '../../store/export/import';
import { cleanImage } from '../../hub/features/files/files';
import { NoSpaceError, humanSize } from '../../store/backup/disk-space';
import { backupFile } from '../../store/backup/backup';
import { DATA_DIR_LINE, UsageError, dataDirOf, fail, print, requireFolderOf, type Command } from '../common';

export const exportCmd: Command = {
  names: ['export'],
  usage: `  perch export --out FILE [--conv ID]... [--agent NAME] [--since DATE]
      Write the history (all of it, or some conversations) to one portable archive (safe while the hub runs).`,
  help: () => `perch export --out FILE [--conv ID]... [--agent NAME] [--since DATE] [--force] [--data-dir DIR] [--json]

Writes one archive (a gzip-compressed tar, docs/archive-format.md): manifest.json, one JSON-lines file per
kind of record (people, conversations, members, messages with their edits, recalls, reactions, pins and
threads, events, requests and decisions, card answers, handoffs, files, checkpoints, summaries, progress),
the files' bytes, and a readable transcripts/<title>-<conversation id>.md per conversation. Never secrets: no keys
or key hashes, sessions, devices, push keys or wake actions. Reads one consistent snapshot, read-only,
whether or not the hub runs. Progress goes to stderr.
  --out FILE     where to write it (refused if it exists, unless --force, or if its folder does not)
  --conv ID      only this conversation (repeat for more)
  --agent NAME   only the conversations this agent is in (and its checkpoints)
  --since DATE   only conversations with activity since DATE (e.g. 2025-01-31 or 2025-01-31T12:00:00Z);
                 each is exported whole
  --force        overwrite FILE
${DATA_DIR_LINE}`,
  run: cmdExport,
};

export const importCmd: Command = {
  names: ['import'],
  usage: `  perch import FILE [--dry-run]
      Merge an archive into this hub (only while no hub serves the data dir); --dry-run says what it would add
      (also while the hub runs).`,
  help: () => `perch import FILE [--dry-run] [--data-dir DIR] [--json]

Merges the archive FILE (written by perch export) into this hub. The whole archive is checked first
(format and version, entry names, sizes and sha256, every row); a damaged, foreign or newer-format
archive is refused and nothing is written. Then everything is written in one transaction:
agents are matched by name or created without a key (perch agent rotate-key NAME issues one),
conversation and message ids are kept where free and derived where taken, and what is already
here is left as it is: importing the same archive twice adds nothing the second time. Imported
messages are marked as imported and wake nobody.
Refused while a hub serves the data dir: stop it first (an import is one long write that would hold up
the agents' writes, and the running hub would not see the new history live). A dry run is not: it checks
against a copy of the database taken in a temp folder.
  --dry-run   check the archive and print what it would add; write nothing
${DATA_DIR_LINE}`,
  run: cmdImport,
};

/** Progress on stderr: a bar redrawn in place on a terminal, a line every few seconds otherwise. */
function progressPrinter(): { tick: (p: ExportProgress) => void; end: () => void } {
  const tty = process.stderr.isTTY === true;
  let lastLine = 0;
  let drawn = false;
  return {
    tick(p) {
      const pct = p.total ? Math.floor((100 * p.done) / p.total) : 100;
      if (tty) {
        const width = 30;
        const filled = Math.round((width * pct) / 100);
        process.stderr.write(`\r[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${String(pct).padStart(3)}% ${p.phase.padEnd(16)}`);
        drawn = true;
      } else if (Date.now() - lastLine >= 2000 || p.phase === 'done') {
        lastLine = Date.now();
        process.stderr.write(`perch export: ${pct}% (${p.phase})\n`);
      }
    },
    end() {
      if (drawn) process.stderr.write('\n');
    },
  };
}

async function cmdExport(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      out: { type: 'string' },
      conv: { type: 'string', multiple: true },
      agent: { type: 'string' },
      since: { type: 'string' },
      force: { type: 'boolean' },
      'data-dir': { type: 'string' },
      json: { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length) throw new UsageError(`perch export takes no FILE argument (${JSON.stringify(positionals[0])}); use --out FILE`);
  if (!values.out) throw new UsageError('perch export needs --out FILE, e.g. perch export --out perch-archive.tar.gz');
  let since: number | undefined;
  if (values.since !== undefined) {
    since = Date.parse(values.since);
    if (!Number.isFinite(since))
      throw new UsageError(`--since ${JSON.stringify(values.since)} is not a date (use e.g. 2025-01-31 or 2025-01-31T12:00:00Z)`);
  }
  if (values.agent !== undefined && !values.agent.trim()) throw new UsageError('--agent needs a NAME');
  const dataDir = dataDirOf(values);
  const dbFile = path.join(dataDir, DB_FILE_NAME);
  if (!fs.existsSync(dbFile)) fail(`no database in ${dataDir} (${DB_FILE_NAME} is missing); nothing was written.`, 1);
  const out = path.resolve(values.out);
  if (out === dbFile) throw new UsageError('--out names the database itself; pick another file');
  requireFolderOf(out, '--out FILE');
  if (fs.existsSync(out)) {
    if (!values.force) throw new UsageError(`${out} exists; nothing was written. Pick another --out FILE, or add --force to overwrite it.`);
    if (!fs.statSync(out).isFile()) fail(`${out} is not a file; nothing was written. Pick another --out FILE.`, 1);
  }
  // A long export yields the CPU to a hub serving agents on the same machine (it reads a snapshot; nothing waits on it).
  try {
    os.setPriority(os.constants.priority.PRIORITY_BELOW_NORMAL);
  } catch {
    /* not allowed here: runs as it is */
  }
  const bar = progressPrinter();
  let r;
  try {
    r = await writeExport(dbFile, out, { conversations: values.conv, agent: values.agent, since }, bar.tick);
  } finally {
    bar.end();
  }
  print(
    !!values.json,
    r,
    () =>
      `Exported ${dbFile}\n  to ${out} (${humanSize(r.bytes)}): ` +
      Object.entries(r.counts)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${n} ${k}`)
        .join(', ') +
      (r.import_note ? `.\n${r.import_note}` : `.\nImport it with: perch import ${JSON.stringify(out)}`),
  );
}

async function cmdImport(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { 'dry-run': { type: 'boolean' }, 'data-dir': { type: 'string' }, json: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  const [fileArg, extra] = positionals;
  if (!fileArg) throw new UsageError('perch import needs FILE, e.g. perch import perch-archive.tar.gz');
  if (extra !== undefined) throw new UsageError(`perch import takes one FILE, not also ${JSON.stringify(extra)}`);
  const source = path.resolve(fileArg);
  if (!fs.existsSync(source) || !fs.statSync(source).isFile()) fail(`${source} is not a file; nothing was changed.`, 1);
  const dataDir = dataDirOf(values);
  const dryRun = !!values['dry-run'];
  const { liveHubOf } = await import('../../app');
  const live = await liveHubOf(dataDir);
  if (live && !dryRun)
    fail(
      `a Perch hub (pid ${live.pid}) is serving ${dataDir} at ${live.base_url}; nothing was changed. Stop it first (Ctrl+C, or quit the app), then run perch import again (an import is one long write; the running hub would hold its agents up meanwhile).`,
      1,
    );
  // A dry run writes nothing here: into a data dir without a database it checks against a fresh one in a temp folder,
  // and while a hub serves the data dir against a copy taken now (its one long transaction would hold the hub up).
  const dbFile = path.join(dataDir, DB_FILE_NAME);
  const needsScratch = dryRun && (!!live || !fs.existsSync(dbFile));
  let scratch: string | undefined;
  // The copy (all of the owner's history) goes with this run however it ends: done, refused, failed, or stopped by
  // Ctrl+C, a TERM or a closed terminal (each exits, and the exit removes it). The handlers are in place before the
  // folder exists: a signal in between would end the process by default and leave the folder behind.
  const dropScratch = () => scratch && fs.rmSync(scratch, { recursive: true, force: true });
  const onSignal = (sig: NodeJS.Signals) => process.exit(128 + os.constants.signals[sig]);
  const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  if (needsScratch) {
    process.on('exit', dropScratch);
    for (const sig of SIGNALS) process.on(sig, onSignal);
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-import-dry-'));
  }
  let r;
  try {
    if (scratch && live && fs.existsSync(dbFile)) {
      try {
        await backupFile(dbFile, path.join(scratch, DB_FILE_NAME));
      } catch (err) {
        if (!(err instanceof NoSpaceError)) throw err;
        fail(
          `a dry run while the hub serves checks against a copy of the database, and ${os.tmpdir()} has no room for it (about ${humanSize(err.need)} needed${err.free === undefined ? '' : `, ${humanSize(err.free)} free`}); nothing was changed. Free some space there, or set TMPDIR to a folder with room.`,
          1,
        );
      }
    }
    const db = openDatabase(scratch ? path.join(scratch, DB_FILE_NAME) : dbFile);
    try {
      r = await importExport(db, source, { dryRun, cleanImage }); // images cleaned as send_file cleans them
    } catch (err) {
      if (!(err instanceof ExportFileError)) throw err;
      r = err;
    } finally {
      db.close();
    }
  } finally {
    if (scratch) {
      for (const sig of SIGNALS) process.off(sig, onSignal);
      process.off('exit', dropScratch);
      dropScratch();
    }
  }
  if (r instanceof ExportFileError) fail(`${source} cannot be imported: ${r.message}. Nothing was written.`, 1);
  const list = (m: Record<string, number>) =>
    Object.entries(m)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ') || 'nothing';
  print(
    !!values.json,
    r,
    () =>
      `${r.dry_run ? 'Would add' : 'Added'} from ${source}: ${list(r.added)}.\n` +
      `Already here: ${list(r.skipped)}.\n` +
      (r.agents_created.length
        ? `Agents ${r.dry_run ? 'to create' : 'created'} without keys: ${r.agents_created.join(', ')} (perch agent rotate-key NAME issues each its key).\n`
        : '') +
      (Object.keys(r.remapped).length ? `Given new ids (their ids were taken here): ${list(r.remapped)}.\n` : '') +
      (r.dry_run ? 'Dry run: nothing was written.' : 'Done.'),
  );
}
