// The cgroup folders wake runs live in, read from the OS (not from the hub): a `perch serve` started by a test is in
// the test's own cgroups, so its runs' folders are <mount><own cgroup>/perch-wake/<hub pid>-<random>/<run id>, in the
// unified hierarchy and, where memory is mounted as v1, in the v1 memory hierarchy (src/main/launcher/cgroups.ts).
import fs from 'node:fs';
import path from 'node:path';

/** The perch-wake folders the hubs a test starts put their runs under (each hierarchy: unified, v1 memory). */
export function perchWakeParents(): string[] {
  if (process.platform !== 'linux') return [];
  const own = fs.readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  const out: string[] = [];
  for (const line of fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const dash = line.indexOf(' - ');
    if (dash < 0) continue;
    const f = line.slice(0, dash).split(' ');
    const [fstype, , options = ''] = line.slice(dash + 3).split(' ');
    const rel =
      fstype === 'cgroup2'
        ? own.find((l) => l.startsWith('0::'))?.slice(3)
        : fstype === 'cgroup' && options.split(',').includes('memory')
          ? own.map((l) => l.split(':')).find((p) => p[1]?.split(',').includes('memory'))?.[2]
          : undefined;
    if (rel === undefined) continue;
    const root = f[3]!;
    out.push(path.join(f[4]!, root !== '/' && rel.startsWith(root) ? rel.slice(root.length) : rel, 'perch-wake'));
  }
  return out;
}

/** The folders of the hub with this pid that are still there (its own, in each hierarchy). */
export function hubFoldersOf(pid: number): string[] {
  return perchWakeParents().flatMap((p) => {
    try {
      return fs
        .readdirSync(p)
        .filter((n) => n.startsWith(`${pid}-`))
        .map((n) => path.join(p, n));
    } catch {
      return [];
    }
  });
}

/** The cgroup folders of these runs that are still there, in any hub's folder. */
export function runFoldersOf(runIds: string[]): string[] {
  return perchWakeParents().flatMap((p) => {
    let hubs: string[] = [];
    try {
      hubs = fs.readdirSync(p);
    } catch {
      return [];
    }
    return hubs.flatMap((h) => runIds.map((r) => path.join(p, h, r)).filter((d) => fs.existsSync(d)));
  });
}

/** The processes alive now (not zombies) whose environment names this wake run (PERCH_RUN_ID), read from /proc. */
export function processesOfRun(runId: string): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'latin1');
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') continue;
      if (fs.readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(`PERCH_RUN_ID=${runId}`)) out.push(Number(name));
    } catch {
      /* ended meanwhile, or not ours to read */
    }
  }
  return out;
}
