// perch import: an export (store/export/write.ts, docs/archive-format.md) merged into this hub's database.
// The whole export is checked first (store/export/read.ts), then walked again and written in ONE transaction,
// which is rolled back at the first problem (or for a dry run). Merging:
// - people: the export's owner is this hub's owner; agents are matched by name, or created without a key.
// - conversations keep their id where it is free; the same conversation (same id, kind and creation time) is
//   merged: only what lies after its last seq here is added. A different one under the same id is imported under
//   a derived id (the same every time, so a second import finds it). A conversation added comes archived if it was
//   (archived_at/archived_by); a merged one keeps its archived state here.
// - messages, requests and files keep their ids where free and take a derived id where not; every row that refers
//   to them follows. Other rows are added unless the same row is there.
// - imported messages carry provenance 'imported' and their events imported = 1: nobody is woken or sent them.
// Importing the same export again adds nothing.
// What an export may not do (docs/design.md, "The archive door"): point at anything outside itself (every id a row
// names is checked by ArchiveRefs, store/export/check-refs.ts, before anything is written; the rows are then written by
// Importer, store/export/write-rows.ts), write into what is already here
// (reactions, pins, card answers, hidden marks and requests come only with a message the import adds, a pending
// request arrives expired; checkpoints
// and summaries only for an agent it creates; members only into a conversation it adds), or attest for a person (a message's `reviewed` is never imported).
import path from 'node:path';
import type { Db } from '../db/db';
import type { Manifest } from './kinds';
import { ExportFileError, walkExport } from './read';
import { ArchiveRefs } from './check-refs';
import { Importer } from './write-rows';
import type { ImageCleaner } from './write-files';
import { NoSpaceError, freeBytes, isNoSpace } from '../backup/disk-space';

export interface ImportReport {
  manifest: Pick<Manifest, 'format' | 'version' | 'created_at' | 'perch_version' | 'counts'>;
  /** Rows added per kind (files: files with their bytes). */
  added: Record<string, number>;
  /** Rows already here (or not importable, see docs/archive-format.md) per kind. */
  skipped: Record<string, number>;
  /** Agents created (without keys): their names. */
  agents_created: string[];
  /** Ids that were taken here by something else and got a derived id, per kind. */
  remapped: Record<string, number>;
  dry_run: boolean;
}

/**
 * Checks the export in `file` whole, then merges it into `db` in one transaction (rolled back for a dry run, or
 * at the first problem). Throws ExportFileError, with nothing written, for an export that is damaged, foreign or
 * of a newer format. The caller makes sure no hub serves `db` meanwhile.
 */
export async function importExport(db: Db, file: string, opts: { dryRun?: boolean; cleanImage: ImageCleaner }): Promise<ImportReport> {
  const refs = new ArchiveRefs();
  const manifest = await walkExport(file, { row: (k, r, where) => refs.row(k, r, where), file: (id, thumb, b) => refs.file(id, thumb, b) });
  refs.finish();

  // Room for it, checked before anything is written (a dry run writes nothing: no check).
  const dir = db.memory ? undefined : path.dirname(db.name);
  const need = 2 * manifest.entries.filter((e) => !e.name.startsWith('transcripts/')).reduce((n, e) => n + e.size, 0) + 1024 * 1024;
  const noSpace = () =>
    new NoSpaceError(
      `The import of ${file} cannot be written`,
      dir!,
      need,
      freeBytes(dir!),
      "twice the archive's records and files: the database grows by that much, and its log holds it once more until it is folded in",
    );
  if (!opts.dryRun && dir !== undefined && (freeBytes(dir) ?? need) < need) throw noSpace();

  db.exec('BEGIN IMMEDIATE');
  try {
    const imp = new Importer(db, refs.minGid, opts.cleanImage);
    await walkExport(file, {
      row: (k, r, where) => {
        try {
          imp.row(k, r, where);
        } catch (err) {
          // A row the database refuses (a constraint the checks above did not foresee): one line naming it, not a stack.
          if (!String((err as { code?: unknown }).code).startsWith('SQLITE_CONSTRAINT')) throw err;
          throw new ExportFileError(`${where}: the database refuses it (${(err as Error).message.split('\n')[0]!})`);
        }
      },
      file: (id, thumb, b) => imp.file(id, thumb, b),
    });
    imp.finish(
      `perch import of ${path.basename(file)}, an archive made ${manifest.created_at} by Perch ${manifest.perch_version}`,
      Date.now(),
    );
    db.exec(opts.dryRun ? 'ROLLBACK' : 'COMMIT');
    const { format, version, created_at, perch_version, counts } = manifest;
    return {
      manifest: { format, version, created_at, perch_version, counts },
      added: imp.added,
      skipped: imp.skipped,
      agents_created: imp.agentsCreated,
      remapped: imp.remapped,
      dry_run: !!opts.dryRun,
    };
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK');
    if (dir !== undefined && isNoSpace(err)) throw noSpace(); // SQLite rolled it all back: nothing was written
    throw err;
  }
}
