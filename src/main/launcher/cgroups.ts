// Wake runs, containment on Linux: each command run lives in a cgroup of its own, so every process it starts is its
// own however it leaves the process group (setsid, a double fork): all of them are counted (memory, CPU), stopped
// (cgroup.kill needs no pid, so no pid reused by a stranger is ever signalled) and ended when the run's root exits.
// The unified (v2) hierarchy holds the run (cgroup.procs, cgroup.kill, cgroup.freeze, cpu.stat); its memory ceiling is
// the v2 memory controller's memory.max where the run's cgroup has one, else the v1 memory hierarchy's
// memory.limit_in_bytes (machines that mount memory as v1 beside an unified hierarchy without it). The cgroups are made
// under the hub's own cgroup (perch-wake/<hub>/<run>), which works where Perch may write there: as root, or as the
// user inside the subtree the user's systemd manager delegates (user@UID.service). Where it may not (macOS, Windows,
// a locked-down Linux, PERCH_WAKE_CGROUP=off), runner.ts falls back to the process group (runner.ts, Containment).
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The hierarchies a hub puts its runs in (null: none usable here). */
export interface CgroupBase {
  /** This hub's folder in the unified hierarchy: <mount><own cgroup>/perch-wake/<pid>-<random>. */
  v2: string;
  /** Where each run's memory ceiling goes: the run's own v2 cgroup (memory.max), or this hub's folder in v1 memory. */
  memory: { kind: 'v2' } | { kind: 'v1'; dir: string } | null;
  /** Why there is no memory ceiling from the kernel (null when there is one). */
  memoryWhy: string | null;
}

const PERCH_DIR = 'perch-wake';

interface Mount {
  root: string;
  point: string;
  fstype: string;
  options: string[];
}

function mounts(): Mount[] {
  return fs
    .readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .flatMap((line) => {
      const dash = line.indexOf(' - ');
      if (dash < 0) return [];
      const f = line.slice(0, dash).split(' ');
      const tail = line.slice(dash + 3).split(' ');
      const unescape = (s: string) => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
      return [{ root: unescape(f[3]!), point: unescape(f[4]!), fstype: tail[0]!, options: (tail[2] ?? '').split(',') }];
    });
}

/** Where a hierarchy mounted at m puts the cgroup /proc/self/cgroup names as own. */
function ownDir(m: Mount, own: string): string {
  const rel = m.root !== '/' && own.startsWith(m.root) ? own.slice(m.root.length) : own;
  return path.join(m.point, rel);
}

function writeFile(file: string, text: string): void {
  fs.writeFileSync(file, text);
}

/** Moves a fresh shell into dir and back out: whether this hub may put its runs' processes there. */
function mayMove(dir: string): boolean {
  const r = spawnSync('/bin/sh', ['-c', 'echo $$ > "$1"', 'perch-probe', path.join(dir, 'cgroup.procs')], {
    stdio: 'ignore',
    timeout: 5000,
  });
  return r.status === 0;
}

/** A folder of its own for this hub in the hierarchy at dir (made now), or null when Perch may not make one there. */
function hubFolder(dir: string): string | null {
  const folder = path.join(dir, PERCH_DIR, `${process.pid}-${crypto.randomBytes(4).toString('hex')}`);
  try {
    fs.mkdirSync(folder, { recursive: true });
    return folder;
  } catch {
    return null;
  }
}

/**
 * The cgroups this hub may make for its runs, found once (the hub's first run, or a leftover to end). Null on other
 * platforms, with PERCH_WAKE_CGROUP=off (tests of the fallback), or where no folder can be made and used.
 */
export function findCgroupBase(env: NodeJS.ProcessEnv = process.env): { base: CgroupBase | null; why: string } {
  if (process.platform !== 'linux') return { base: null, why: `${process.platform} has no cgroups` };
  if (env.PERCH_WAKE_CGROUP === 'off') return { base: null, why: 'cgroups are switched off (PERCH_WAKE_CGROUP=off)' };
  let all: Mount[];
  let own: string[];
  try {
    all = mounts();
    own = fs.readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  } catch {
    return { base: null, why: 'procfs is not readable' };
  }
  const unified = all.find((m) => m.fstype === 'cgroup2');
  const ownV2 = own.find((l) => l.startsWith('0::'))?.slice(3);
  if (!unified || ownV2 === undefined) return { base: null, why: 'no cgroup v2 hierarchy is mounted' };
  const v2 = hubFolder(ownDir(unified, ownV2));
  if (!v2) return { base: null, why: 'Perch may not make a cgroup here (no delegated cgroup v2 subtree)' };
  const probe = path.join(v2, 'probe');
  let movable = false;
  try {
    fs.mkdirSync(probe);
    movable = fs.existsSync(path.join(probe, 'cgroup.kill')) && mayMove(probe);
  } catch {
    movable = false;
  } finally {
    removeDir(probe);
  }
  if (!movable) {
    removeDir(v2);
    return { base: null, why: 'Perch may not move processes into its cgroups here (or the kernel has no cgroup.kill)' };
  }
  // The memory ceiling: v2's memory controller where the hub's own cgroup already passes it on (Perch never changes
  // that one) and it can be enabled down to the runs, else v1 memory.
  for (const dir of [path.dirname(v2), v2]) {
    try {
      writeFile(path.join(dir, 'cgroup.subtree_control'), '+memory');
    } catch {
      /* not here: the check below says whether it reached the runs */
    }
  }
  if ((readText(path.join(v2, 'cgroup.subtree_control')) ?? '').split(/\s+/).includes('memory'))
    return { base: { v2, memory: { kind: 'v2' }, memoryWhy: null }, why: 'cgroup v2' };
  const v1 = all.find((m) => m.fstype === 'cgroup' && m.options.includes('memory'));
  const ownV1 = own.map((l) => l.split(':')).find((f) => f[1]?.split(',').includes('memory'))?.[2];
  const v1dir = v1 && ownV1 !== undefined ? hubFolder(ownDir(v1, ownV1)) : null;
  if (v1dir) return { base: { v2, memory: { kind: 'v1', dir: v1dir }, memoryWhy: null }, why: 'cgroup v2 with v1 memory' };
  return { base: { v2, memory: null, memoryWhy: 'no memory controller Perch may use' }, why: 'cgroup v2 without memory' };
}

function removeDir(dir: string): void {
  try {
    fs.rmdirSync(dir);
  } catch {
    /* not empty yet, or gone */
  }
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** The shell each run starts in: it enters the run's cgroups, then becomes the owner's command (exec). */
const ENTER =
  'while [ "$1" != -- ]; do echo $$ > "$1" || { echo "perch: the run could not enter its cgroup ($1)" >&2; exit 125; }; shift; done; shift; exec "$@"';

/** One run's cgroups (the v2 one, and a v1 memory one where the ceiling lives there). */
export class RunCgroup {
  private constructor(
    readonly dir: string,
    readonly memoryDir: string | null,
    readonly memoryKind: 'v2' | 'v1' | null,
  ) {}

  /**
   * Makes the run's cgroups, with its memory ceiling (bytes) where the kernel can hold it. The v2 cgroup (what holds,
   * counts and stops the run) must be made, or this throws; a memory ceiling the kernel refuses (its folder or its
   * limit) leaves the run without one: the hub's base then says so (memory null, memoryWhy), so the owner's card and
   * every later run are told the ceiling is sampled, not the kernel's.
   */
  static create(base: CgroupBase, runId: string, ceilingBytes: number | null): RunCgroup {
    const dir = path.join(base.v2, runId);
    fs.mkdirSync(dir);
    const memory = base.memory;
    if (!memory) return new RunCgroup(dir, null, null);
    const memoryDir = memory.kind === 'v2' ? dir : path.join(memory.dir, runId);
    try {
      if (memory.kind === 'v1') fs.mkdirSync(memoryDir);
      if (ceilingBytes) {
        const [limit, swap] =
          memory.kind === 'v2' ? ['memory.max', 'memory.swap.max'] : ['memory.limit_in_bytes', 'memory.memsw.limit_in_bytes'];
        writeFile(path.join(memoryDir, limit), String(ceilingBytes));
        if (fs.existsSync(path.join(memoryDir, swap)))
          writeFile(path.join(memoryDir, swap), memory.kind === 'v2' ? '0' : String(ceilingBytes));
      }
    } catch (err) {
      if (memoryDir !== dir) removeDir(memoryDir);
      if (memory.kind === 'v1') removeDir(memory.dir); // empty unless earlier runs still live there (swept later)
      base.memory = null;
      base.memoryWhy = `the kernel refused a run's memory ceiling (${(err as Error).message})`;
      return new RunCgroup(dir, null, null);
    }
    return new RunCgroup(dir, memoryDir, memory.kind);
  }

  /**
   * A run's cgroups as recorded (a later hub ends what is left of it), only where the record names a cgroup of that
   * run: a folder named after it in a hub's folder under perch-wake (null otherwise: a record that names any other
   * cgroup, e.g. from a restored backup or an edited file, is never killed).
   */
  static of(runId: string, dir: string, memoryDir: string | null): RunCgroup | null {
    const isRuns = (d: string) =>
      path.isAbsolute(d) &&
      path.normalize(d) === d &&
      path.basename(d) === runId &&
      path.basename(path.dirname(path.dirname(d))) === PERCH_DIR;
    if (!isRuns(dir)) return null;
    const mem = memoryDir && (memoryDir === dir || isRuns(memoryDir)) ? memoryDir : null;
    return new RunCgroup(dir, mem, mem === dir ? 'v2' : mem ? 'v1' : null);
  }

  /** argv that starts the command inside the run's cgroups (no secret is on it: the key is in the environment). */
  wrap(argv: string[]): string[] {
    const procs = [this.dir, ...(this.memoryDir && this.memoryDir !== this.dir ? [this.memoryDir] : [])].map((d) =>
      path.join(d, 'cgroup.procs'),
    );
    return ['/bin/sh', '-c', ENTER, 'perch-run', ...procs, '--', ...argv];
  }

  /** The processes in the run's cgroup now. */
  pids(): number[] {
    const text = readText(path.join(this.dir, 'cgroup.procs'));
    return text ? text.split('\n').filter(Boolean).map(Number) : [];
  }

  /** Whether any process of the run is alive (a cgroup that is gone holds none). */
  populated(): boolean {
    const text = readText(path.join(this.dir, 'cgroup.events'));
    return text ? /^populated 1$/m.test(text) : false;
  }

  /** CPU time of every process that was ever in the run (seconds). */
  cpuSecs(): number | null {
    const m = /^usage_usec (\d+)$/m.exec(readText(path.join(this.dir, 'cpu.stat')) ?? '');
    return m ? Number(m[1]) / 1e6 : null;
  }

  /** Whether the kernel killed a process of the run for its memory ceiling. */
  oomKilled(): boolean {
    if (!this.memoryDir) return false;
    const file = this.memoryKind === 'v2' ? 'memory.events' : 'memory.oom_control';
    const m = /^oom_kill (\d+)$/m.exec(readText(path.join(this.memoryDir, file)) ?? '');
    return m ? Number(m[1]) > 0 : false;
  }

  /** SIGKILL to every process of the run at once (cgroup.kill: by cgroup, never by a pid). */
  kill(): void {
    try {
      writeFile(path.join(this.dir, 'cgroup.kill'), '1');
    } catch {
      /* gone */
    }
  }

  /**
   * A signal to every process of the run: the cgroup is frozen while its processes are listed and signalled, so none
   * of them can exit and have its pid reused by a stranger in between.
   */
  signal(sig: NodeJS.Signals): void {
    const freeze = path.join(this.dir, 'cgroup.freeze');
    try {
      writeFile(freeze, '1');
    } catch {
      return; // gone
    }
    try {
      for (const pid of this.pids()) {
        try {
          process.kill(pid, sig);
        } catch {
          /* already gone */
        }
      }
    } finally {
      try {
        writeFile(freeze, '0');
      } catch {
        /* gone */
      }
    }
  }

  /** Removes the run's cgroups once nothing lives in them (false: some process is still there). */
  remove(): boolean {
    if (this.populated()) return false;
    if (this.memoryDir && this.memoryDir !== this.dir) removeDir(this.memoryDir);
    removeDir(this.dir);
    return !fs.existsSync(this.dir);
  }

  /** Removes the folders of the hub that made this run once they are empty (a leftover's: that hub is gone). */
  removeHubFolders(): void {
    for (const d of [this.dir, ...(this.memoryDir && this.memoryDir !== this.dir ? [this.memoryDir] : [])]) removeDir(path.dirname(d));
  }
}

/**
 * Removes the folders of hubs that are gone (their runs' cgroups that nothing lives in any more) beside this hub's
 * own: a hub killed with SIGKILL leaves them behind. Folders of hubs still running are left alone.
 */
export function sweepHubFolders(base: CgroupBase): void {
  const dirs = [base.v2, ...(base.memory?.kind === 'v1' ? [base.memory.dir] : [])];
  for (const own of dirs) {
    const parent = path.dirname(own);
    let names: string[];
    try {
      names = fs.readdirSync(parent);
    } catch {
      continue;
    }
    for (const name of names) {
      const full = path.join(parent, name);
      const pid = Number(name.split('-')[0]);
      if (full === own || !Number.isInteger(pid) || fs.existsSync(`/proc/${pid}`)) continue;
      let runs: string[] = [];
      try {
        runs = fs
          .readdirSync(full, { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => d.name);
      } catch {
        continue;
      }
      for (const r of runs) removeDir(path.join(full, r));
      removeDir(full);
    }
  }
}

/** Removes this hub's own folders, with the cgroups of its runs that nothing lives in any more. */
export function removeHubFolder(base: CgroupBase): void {
  for (const dir of [base.v2, ...(base.memory?.kind === 'v1' ? [base.memory.dir] : [])]) {
    try {
      for (const d of fs.readdirSync(dir, { withFileTypes: true })) if (d.isDirectory()) removeDir(path.join(dir, d.name));
    } catch {
      continue;
    }
    removeDir(dir);
  }
}

/** The cgroup a run of this id was given by any hub on this machine (a hub killed before it recorded where). */
export function findRunCgroup(base: CgroupBase, runId: string): RunCgroup | null {
  const parent = path.dirname(base.v2);
  let hubs: string[];
  try {
    hubs = fs.readdirSync(parent);
  } catch {
    return null;
  }
  for (const h of hubs) {
    const dir = path.join(parent, h, runId);
    if (!fs.existsSync(dir)) continue;
    const mem = base.memory?.kind === 'v1' ? path.join(path.dirname(base.memory.dir), h, runId) : base.memory?.kind === 'v2' ? dir : null;
    return RunCgroup.of(runId, dir, mem && fs.existsSync(mem) ? mem : null);
  }
  return null;
}
