// What wake runs cost the machine: the resident memory and CPU time of each run's process tree, and the machine's
// cores and available memory. Linux reads procfs (/proc/<pid>/stat, /proc/meminfo) in one pass for all runs (only
// the processes of the runs' cgroups where every run has one, else every process, to follow each tree); macOS
// asks `ps` once per pass; Windows is not sampled (runs there record no memory or CPU, and no ceiling applies).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import type { MachineMemory, TreeSample } from '../hub/wake-runs/launcher';

interface Proc {
  pid: number;
  ppid: number;
  pgrp: number;
  rss: number;
  cpu: number;
}

/** Whether this platform's run trees can be sampled. */
export const canSample = process.platform === 'linux' || process.platform === 'darwin';

const TICKS = 100; // USER_HZ: Linux reports times in 1/100 s on every architecture Node runs on
let pageSize = 0;

/** The page size, from this process's own resident size in bytes and in pages (no getconf needed). */
function pageBytes(): number {
  if (pageSize) return pageSize;
  try {
    const pages = Number(fs.readFileSync('/proc/self/statm', 'utf8').split(' ')[1]);
    const guess = process.memoryUsage.rss() / pages;
    pageSize = [4096, 16384, 65536].reduce((best, p) => (Math.abs(p - guess) < Math.abs(best - guess) ? p : best), 4096);
  } catch {
    pageSize = 4096;
  }
  return pageSize;
}

/** Every process's figures, or only those of the given pids (runs in cgroups list their own). */
function procfs(only?: Iterable<number>): Proc[] {
  const page = pageBytes();
  const out: Proc[] = [];
  for (const name of only ? [...only].map(String) : fs.readdirSync('/proc')) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    let text: string;
    try {
      text = fs.readFileSync(`/proc/${name}/stat`, 'latin1');
    } catch {
      continue;
    } // ended meanwhile
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime … rss (24th)
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    out.push({
      pid: Number(name),
      ppid: Number(f[1]),
      pgrp: Number(f[2]),
      cpu: (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / TICKS,
      rss: Number(f[21]) * page,
    });
  }
  return out;
}

/** [[dd-]hh:]mm:ss[.cc] as ps prints cumulative CPU time. */
function psTime(t: string): number {
  const [days, rest] = t.includes('-') ? [Number(t.split('-')[0]), t.split('-')[1]!] : [0, t];
  return days * 86_400 + rest.split(':').reduce((acc, part) => acc * 60 + Number(part), 0);
}

function ps(): Promise<Proc[]> {
  return new Promise((resolve) => {
    execFile('ps', ['-A', '-o', 'pid=,ppid=,pgid=,rss=,time='], { timeout: 5000, maxBuffer: 8 * 1024 * 1024 }, (err, stdout) => {
      if (err) return resolve([]);
      resolve(
        stdout.split('\n').flatMap((line) => {
          const f = line.trim().split(/\s+/);
          if (f.length < 5) return [];
          return [{ pid: Number(f[0]), ppid: Number(f[1]), pgrp: Number(f[2]), rss: Number(f[3]) * 1024, cpu: psTime(f[4]!) }];
        }),
      );
    });
  });
}

/**
 * One pass over the machine's processes: for each root (a run's process, leader of its own group), the processes of
 * its tree (its group, and whatever descends from it even in another group) summed; a root given its members (the
 * processes of its cgroup) sums exactly those, wherever they went. Roots already gone are left out.
 */
export async function sampleTrees(roots: number[], members: Map<number, Set<number>> = new Map()): Promise<Map<number, TreeSample>> {
  const result = new Map<number, TreeSample>();
  if (!canSample || roots.length === 0) return result;
  const treeRoots = new Set(roots.filter((r) => !members.has(r)));
  // Where every run lists its processes (its cgroup), only those are read; a tree needs the whole table.
  const only = treeRoots.size === 0 ? [...members.values()].flatMap((set) => [...set]) : undefined;
  const procs = process.platform === 'linux' ? procfs(only) : await ps();
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  const rootOf = (p: Proc): number | undefined => {
    for (const [root, set] of members) if (set.has(p.pid)) return root;
    if (treeRoots.has(p.pgrp)) return p.pgrp;
    for (let q: Proc | undefined = p, hops = 0; q && hops < 64; q = byPid.get(q.ppid), hops++) if (treeRoots.has(q.pid)) return q.pid;
    return undefined;
  };
  for (const p of procs) {
    const root = rootOf(p);
    if (root === undefined) continue;
    const s = result.get(root) ?? { rss_bytes: 0, cpu_secs: 0 };
    s.rss_bytes += p.rss;
    s.cpu_secs += p.cpu;
    result.set(root, s);
  }
  return result;
}

/** The machine's cores and memory now. */
export function machineMemory(): MachineMemory {
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  let available = os.freemem();
  if (process.platform === 'linux') {
    try {
      const m = /^MemAvailable:\s+(\d+) kB/m.exec(fs.readFileSync('/proc/meminfo', 'utf8'));
      if (m) available = Number(m[1]) * 1024;
    } catch {
      /* os.freemem() then */
    }
  }
  return { cores, total_bytes: os.totalmem(), available_bytes: available };
}
