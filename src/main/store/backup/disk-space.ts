// A full disk, for the commands that write big files (perch export, import, backup): how to tell that an error
// means "no room" (ENOSPC and EDQUOT from Node, SQLITE_FULL from SQLite), how much room a folder has (statfs), and
// the error they throw when there is not enough, which the CLI prints as one line: what happened, that nothing
// was changed, and how much space it needs.
import fs from 'node:fs';
import path from 'node:path';
import { HubError } from '../../../shared/errors';

/** Does err mean the disk (or the user's quota) is full? */
export function isNoSpace(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL';
}

/**
 * The bytes an unprivileged write may still use in the filesystem that holds dir (or would hold it: the nearest
 * folder above it that exists); undefined when unknown.
 */
export function freeBytes(dir: string): number | undefined {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    try {
      const s = fs.statfsSync(d);
      return s.bavail * s.bsize;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || path.dirname(d) === d) return undefined;
    }
  }
}

export function humanSize(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** The size of a SQLite database file with its write-ahead log (0 for what is missing). */
export function databaseBytes(dbFile: string): number {
  let n = 0;
  for (const f of [dbFile, `${dbFile}-wal`]) {
    try {
      n += fs.statSync(f).size;
    } catch {
      /* none */
    }
  }
  return n;
}

/**
 * Not enough room in `dir`: `need` bytes (an estimate; `basis` says of what), `free` there now. A HubError
 * (storage_full): the CLI prints it as one line, the owner door answers it with 507.
 */
export class NoSpaceError extends HubError {
  constructor(
    what: string,
    readonly dir: string,
    readonly need: number,
    readonly free: number | undefined,
    basis: string,
  ) {
    super(
      'storage_full',
      `${what}: the disk holding ${dir} is full${free === undefined ? '' : ` (${humanSize(free)} free)`}; nothing was changed.`,
      `It needs about ${humanSize(need)} free there (${basis}): free some space, or pick a folder on another disk, and run it again.`,
      { need_bytes: need, free_bytes: free ?? null },
    );
    this.name = 'NoSpaceError';
  }
}
