// Private staging folders for files that are written whole and then renamed into place (perch export, retention's
// export-first, perch backup and the daily backups). A staging folder is made with mkdtemp beside the destination
// (so the rename stays on one filesystem): a fresh, unguessable name, mode 0700, created by this process; nothing
// in it can be a link someone planted, and its files are opened with O_EXCL|O_NOFOLLOW besides. Its name carries
// the pid of the process that made it, so when that process was killed (SIGKILL: no cleanup ran) the next run
// sweeps it: only this user's real folders, mode 0700, whose process is gone; a symlink is never followed.
import fs from 'node:fs';
import path from 'node:path';

/** Folders made before the pid was in the name: stale once a day old (older exports had no other mark). */
const UNMARKED_STALE_MS = 86_400_000;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // it exists, as another user's
  }
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** What else a sweep asks of a folder: last changed before `changedBefore`; unmarked ones stale after `unmarkedStaleMs`. */
export interface SweepOptions {
  now?: number;
  changedBefore?: number;
  unmarkedStaleMs?: number;
}

/**
 * Removes the private folders named `<prefix><pid>-XXXXXX` in dir whose process is gone (this process's own only
 * when they predate it: a reused pid), and the unmarked `<prefix>XXXXXX` ones older than unmarkedStaleMs (a day).
 * Only real folders this user owns with mode 0700 (and, with changedBefore, last changed before it). Answers the
 * names removed; never throws (what it cannot remove is left). POSIX only (no owner or mode to check elsewhere).
 * Staging folders here, and the wake runs' config folders (src/main/launcher/run-folders.ts).
 */
export function sweepStaging(dir: string, prefix: string, opts: SweepOptions = {}): string[] {
  const now = opts.now ?? Date.now();
  const unmarkedStaleMs = opts.unmarkedStaleMs ?? UNMARKED_STALE_MS;
  if (typeof process.getuid !== 'function') return [];
  const uid = process.getuid();
  const marked = new RegExp(`^${escapeRe(prefix)}(\\d{1,10})-[A-Za-z0-9]{6}$`);
  const unmarked = new RegExp(`^${escapeRe(prefix)}[A-Za-z0-9]{6}$`);
  const processStartedAt = now - process.uptime() * 1000;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = marked.exec(name);
    if (!m && !unmarked.test(name)) continue;
    const full = path.join(dir, name);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(full);
    } catch {
      continue;
    }
    if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o777) !== 0o700) continue;
    if (opts.changedBefore !== undefined && st.mtimeMs >= opts.changedBefore) continue;
    if (m) {
      const pid = Number(m[1]);
      const stale = pid === process.pid ? st.mtimeMs < processStartedAt : !processAlive(pid);
      if (!stale) continue;
    } else if (now - st.mtimeMs < unmarkedStaleMs) {
      continue;
    }
    try {
      fs.rmSync(full, { recursive: true, force: true });
      removed.push(name);
    } catch {
      /* left for the next run */
    }
  }
  return removed;
}

/** Sweeps dir of stale staging folders (sweepStaging), then makes a fresh private one there: `<prefix><pid>-XXXXXX`, 0700. */
export function makeStaging(dir: string, prefix: string): string {
  sweepStaging(dir, prefix);
  return fs.mkdtempSync(path.join(dir, `${prefix}${process.pid}-`)); // mkdtemp: a new folder, mode 0700
}

/** Opens a new file for writing that must not exist yet and is not followed if it is a link (O_EXCL|O_NOFOLLOW), 0600. */
export function openNew(file: string): number {
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
  return fs.openSync(file, O_WRONLY | O_CREAT | O_EXCL | (O_NOFOLLOW ?? 0), 0o600);
}

/** A write stream on a new file (openNew). */
export function createNewWriteStream(file: string): fs.WriteStream {
  return fs.createWriteStream(file, { fd: openNew(file) });
}
