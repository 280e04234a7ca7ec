// Wake runs, the check before a signal where a run has no cgroup: a pid is signalled only while it is still the process
// Perch started. Node has no pidfd; the equivalent here is the process's start time (Linux: /proc/<pid>/stat's
// starttime with the boot's id), recorded when the run started and read again just before the signal: a pid reused by
// another process has another start time. What is left of a run a killed hub started, without a cgroup, is found by
// the run's id in each process's environment (processesOfRun). Elsewhere no start time is read (null): a process group is signalled only
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

/** The process's start time, as recorded with a run (null: not readable here, or no such process alive: a zombie is not). */
export function startOf(pid: number): string | null {
  if (process.platform !== 'linux') return null;
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    // pid (comm) state ppid … starttime is the 22nd field, the 20th after the command's closing parenthesis.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    if (f[0] === 'Z') return null;
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

/**
 * The processes alive now whose environment names this run (Linux; elsewhere none): every process a run starts
 * inherits PERCH_RUN_ID, also one that left its process group, and a run's id is unique, so no stranger holds it.
 * Zombies show no environment and are left out; so is this process.
 */
export function processesOfRun(runId: string): number[] {
  if (process.platform !== 'linux') return [];
  const mark = `PERCH_RUN_ID=${runId}`;
  const out: number[] = [];
  let names: string[];
  try {
    names = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  for (const name of names) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57 || Number(name) === process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(mark)) out.push(Number(name));
    } catch {
      /* ended meanwhile, or not ours to read */
    }
  }
  return out;
}

/** Whether some process has this pid now (Linux; elsewhere unknown: false). */
export function pidInUse(pid: number): boolean {
  return process.platform === 'linux' && fs.existsSync(`/proc/${pid}`);
}
