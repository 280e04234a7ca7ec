// The folders wake runs are handed their MCP config in (perch-run-<hub pid>-XXXXXX, 0700, under the system temp
// dir: launcher/runner.ts). A run's folder is removed when the run ends; a hub killed with SIGKILL cannot, so the next
// hub start sweeps what no live run can own any more: the same sweep as the export and backup staging folders
// (store/backup/staging.ts sweepStaging: this user's, 0700, whose hub process is gone, a symlink never followed),
// and only folders last changed before this start.
import { sweepStaging } from '../store/backup/staging';

const PREFIX = 'perch-run-';

/** The name prefix of a run's folder: the hub's pid, so a sweep tells a live hub's runs from a dead one's. */
export function runFolderPrefix(pid: number = process.pid): string {
  return `${PREFIX}${pid}-`;
}

/** Folders of hubs from before the pid was in the name: no run lasts longer than a day (timeout_secs ≤ 86400). */
const UNMARKED_STALE_MS = 2 * 86_400_000;

/**
 * Removes the run folders in dir that belong to no live run: this user's, 0700, last changed before startedAt, and
 * made by a hub process that is gone (this process's own only when they predate it: a reused pid). Answers the names
 * removed. Never throws: a folder it cannot read or remove is left.
 */
export function sweepRunFolders(dir: string, startedAt: number = Date.now(), now: number = Date.now()): string[] {
  return sweepStaging(dir, PREFIX, { now, changedBefore: startedAt, unmarkedStaleMs: UNMARKED_STALE_MS });
}
