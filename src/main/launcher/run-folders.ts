// The folders wake runs are handed their MCP config in (perch-run-<hub pid>-XXXXXX, 0700, under the system temp
// dir: launcher/runner.ts). A run's folder is removed when the run ends; a hub killed with SIGKILL cannot, so the next
// hub start sweeps what no live run can own any more. Only folders this user owns, mode 0700, older than this start,
// whose hub process is gone; a symlink is never followed (lstat, and rm removes a link, not what it points to).
import fs from 'node:fs';
import path from 'node:path';

/** The name prefix of a run's folder: the hub's pid, so a sweep tells a live hub's runs from a dead one's. */
export function runFolderPrefix(pid: number = process.pid): string {
  return `perch-run-${pid}-`;
}

/** Folders of hubs from before the pid was in the name: no run lasts longer than a day (timeout_secs ≤ 86400). */
const UNMARKED_STALE_MS = 2 * 86_400_000;

const MARKED = /^perch-run-(\d{1,10})-[A-Za-z0-9]{6}$/;
const UNMARKED = /^perch-run-[A-Za-z0-9]{6}$/;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // it exists, as another user's
  }
}

/**
 * Removes the run folders in dir that belong to no live run: this user's, 0700, last changed before startedAt, and
 * made by a hub process that is gone (this process's own only when they predate it: a reused pid). Answers the names
 * removed. Never throws: a folder it cannot read or remove is left. POSIX only (no owner or mode to check elsewhere).
 */
export function sweepRunFolders(dir: string, startedAt: number = Date.now(), now: number = Date.now()): string[] {
  if (typeof process.getuid !== 'function') return [];
  const uid = process.getuid();
  const processStartedAt = now - process.uptime() * 1000;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const marked = MARKED.exec(name);
    if (!marked && !UNMARKED.test(name)) continue;
    const full = path.join(dir, name);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(full);
    } catch {
      continue;
    }
    if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o777) !== 0o700 || st.mtimeMs >= startedAt) continue;
    if (marked) {
      const pid = Number(marked[1]);
      const stale = pid === process.pid ? st.mtimeMs < processStartedAt : !processAlive(pid);
      if (!stale) continue;
    } else if (now - st.mtimeMs < UNMARKED_STALE_MS) {
      continue;
    }
    try {
      fs.rmSync(full, { recursive: true, force: true });
      removed.push(name);
    } catch {
      /* left for the next start */
    }
  }
  return removed;
}
