// Wake runs, the check before a signal where a run has no cgroup: a pid is signalled only while it is still the process
// Perch started. Node has no pidfd; the equivalent here is the process's start time (Linux: /proc/<pid>/stat's
// starttime with the boot's id), recorded when the run started and read again just before the signal: a pid reused by
// another process has another start time. Elsewhere no start time is read (null): a process group is signalled only
// while its leader is Perch's own child not yet waited for (runner code), never from a record.
import fs from 'node:fs';

let bootId: string | null | undefined;

function boot(): string | null {
  if (bootId !== undefined) return bootId;
  try {
    bootId = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    bootId = null;
  }
  return bootId;
}

/** The process's start time, as recorded with a run (null: not readable here, or no such process). */
export function startOf(pid: number): string | null {
  if (process.platform !== 'linux') return null;
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    // pid (comm) state ppid … starttime is the 22nd field, the 20th after the command's closing parenthesis.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const b = boot();
    return b && f[19] ? `${b}:${f[19]}` : null;
  } catch {
    return null;
  }
}

/** Whether pid is still the process that had this start time (never true where start times are not read). */
export function isSameProcess(pid: number, start: string | null): boolean {
  return start !== null && startOf(pid) === start;
}

/** Whether some process has this pid now (Linux; elsewhere unknown: false). */
export function pidInUse(pid: number): boolean {
  return process.platform === 'linux' && fs.existsSync(`/proc/${pid}`);
}
