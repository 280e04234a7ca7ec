// Finding the processes a test run left behind: every process whose environment carries NAME=VALUE (npm test sets
// PERCH_TEST_RUN to a value of its own, which every process it starts inherits, daemons that detach included, unless
// one clears its environment), and ending them. Only this user's processes can be read; the user's own processes never
// carry the value, so they are never named or ended. Linux reads /proc; elsewhere `ps -E` (BSD, macOS) is used.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

export interface Proc {
  pid: number;
  cmd: string;
}

/** The live processes (not zombies, not this one) whose environment holds name=value exactly. */
export function processesWithEnv(name: string, value: string): Proc[] {
  const want = `${name}=${value}`;
  if (!fs.existsSync('/proc/self/environ')) return psWithEnv(want);
  const found: Proc[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue; // a zombie holds nothing but its pid
      if (!fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(want)) continue;
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
      found.push({ pid, cmd });
    } catch {
      // gone meanwhile, or another user's
    }
  }
  return found.sort((a, b) => a.pid - b.pid);
}

function psWithEnv(want: string): Proc[] {
  const r = spawnSync('ps', ['-A', '-ww', '-E', '-o', 'pid=,command='], { encoding: 'utf8' });
  if (r.status !== 0) return [];
  const found: Proc[] = [];
  for (const line of r.stdout.split('\n')) {
    const m = /^\s*(\d+)\s+(.*)$/.exec(line);
    if (!m || Number(m[1]) === process.pid || !` ${m[2]} `.includes(` ${want} `)) continue;
    found.push({ pid: Number(m[1]), cmd: m[2]!.slice(0, 300) });
  }
  return found;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // gone
  }
}

/**
 * Ends these processes, each only while it still carries name=value (read again before every signal: a pid that
 * ended and was given to another process since the scan is never signalled): SIGTERM, then SIGKILL to those still
 * there after graceMs.
 */
export async function endProcesses(procs: readonly Proc[], name: string, value: string, graceMs = 3000): Promise<void> {
  const marked = () => {
    const now = new Set(processesWithEnv(name, value).map((p) => p.pid));
    return procs.filter((p) => now.has(p.pid));
  };
  for (const p of marked()) signal(p.pid, 'SIGTERM');
  const until = Date.now() + graceMs;
  while (Date.now() < until && marked().length) await new Promise((r) => setTimeout(r, 100));
  for (const p of marked()) signal(p.pid, 'SIGKILL');
}

/** The processes carrying name=value once those ending by themselves had up to waitMs to do so. */
export async function leftAfter(name: string, value: string, waitMs: number): Promise<Proc[]> {
  const until = Date.now() + waitMs;
  let left = processesWithEnv(name, value);
  while (left.length && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 200));
    left = processesWithEnv(name, value);
  }
  return left;
}
