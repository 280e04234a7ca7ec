// Wake runs, the OS side: starts the owner's command (command-run.ts: in a cgroup of its own where Linux lets the hub
// make one, cgroups.ts; else its own process group; on Windows killed as a tree with taskkill /T /F), samples what
// each run's processes hold (resources.ts), ends what a killed hub left running (endLeftover), or POSTs a signed
// webhook with retries. The policy (hub/wake-runs/wake-runs.ts) decides when; this only does. The run key reaches the
// process in its environment only: never in argv, never in a log (redact.ts).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WAKE_DEFAULTS, type WakeContainment } from '../../shared/agents/wake';
import type { MachineMemory, RunPlace, WakeEnd, WakeHandle, WakeLaunch, WakeLauncher, WakeObserver } from '../hub/wake-runs/launcher';
import { CappedLog } from './capped-log';
import { RunCgroup, findCgroupBase, findRunCgroup, removeHubFolder, sweepHubFolders, type CgroupBase } from './cgroups';
import { startCommand } from './command-run';
import { isSameProcess, processesOfRun } from './process-check';
import { canSample, machineMemory, sampleTrees } from './resources';
import { sweepRunFolders } from './run-folders';

export { usageIn } from './command-run';

export interface RunnerOptions {
  /** Where run logs (<dir>/logs/<run>.log) go; created 0700. */
  dir: string;
  /**
   * Where each run's own folder (perch-run-<hub pid>-XXXXXX, 0700) for its MCP config is made (default: the system temp
   * dir). Never the data dir: what a run is handed must not sit next to the owner's runtime.json.
   */
  runFilesDir?: string;
  killGraceMs?: number;
  /** How long after its root exits a run ends even if its output stays open (default WAKE_DEFAULTS.exitGraceMs). */
  exitGraceMs?: number;
  logMaxBytes?: number;
  webhookAttempts?: number;
  webhookRetryMs?: number;
  /** How often the process trees of running commands are sampled (memory, CPU); default WAKE_DEFAULTS.sampleMs. */
  sampleMs?: number;
  /** The environment read for PERCH_WAKE_CGROUP=off (the process group instead of cgroups; default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** How long the end of a leftover run is waited for (it was sent SIGKILL). */
const LEFTOVER_WAIT_MS = 10_000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class ProcessLauncher implements WakeLauncher {
  private readonly logsDir: string;
  private readonly runFilesDir: string;
  private readonly killGraceMs: number;
  private readonly exitGraceMs: number;
  private readonly logMaxBytes: number;
  private readonly webhookAttempts: number;
  private readonly webhookRetryMs: number;
  private readonly sampleMs: number;
  private readonly env: NodeJS.ProcessEnv;
  /** Running commands whose processes are sampled: pid → whom to tell, and the run's cgroup. One timer, one pass. */
  private readonly sampled = new Map<number, { observer: WakeObserver; cg: RunCgroup | null }>();
  private sampleTimer: NodeJS.Timeout | undefined;
  private sampling = false;
  /** The hub's cgroups, found on first use (undefined: not looked for yet). */
  private base: { base: CgroupBase | null; why: string } | undefined;

  /** The processes of runs still alive (pid → how to kill it now), for shutdown; ended: when each is over. */
  private readonly live = new Map<number, { kill: () => void }>();
  private readonly ended = new Map<number, Promise<void>>();

  /** Hub shutdown: waits up to graceMs for stopped runs to end, then kills what is left of each (cgroup or group). */
  async drain(graceMs: number): Promise<void> {
    if (this.live.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(this.ended.values()), new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
      clearTimeout(timer);
      for (const run of this.live.values()) run.kill();
    }
    // This hub's cgroup folders go with it (what a run left still ending keeps them; the next hub's sweep takes them).
    if (this.base?.base) removeHubFolder(this.base.base);
  }

  constructor(opts: RunnerOptions) {
    this.logsDir = path.join(opts.dir, 'logs');
    this.runFilesDir = opts.runFilesDir ?? os.tmpdir();
    for (const d of [opts.dir, this.logsDir]) {
      fs.mkdirSync(d, { recursive: true, mode: 0o700 });
      try {
        fs.chmodSync(d, 0o700);
      } catch {
        /* not ours to change */
      }
    }
    // Older hubs wrote run configs to <dir>/tmp: whatever a crash left there (keys long expired) goes.
    try {
      fs.rmSync(path.join(opts.dir, 'tmp'), { recursive: true, force: true });
    } catch {
      /* leave it */
    }
    // The run folders a hub killed with SIGKILL left behind (its runs were recorded interrupted): wake/run-folders.ts.
    sweepRunFolders(this.runFilesDir);
    this.killGraceMs = opts.killGraceMs ?? WAKE_DEFAULTS.killGraceMs;
    this.exitGraceMs = opts.exitGraceMs ?? WAKE_DEFAULTS.exitGraceMs;
    this.logMaxBytes = opts.logMaxBytes ?? WAKE_DEFAULTS.logMaxBytes;
    this.webhookAttempts = opts.webhookAttempts ?? WAKE_DEFAULTS.webhookAttempts;
    this.webhookRetryMs = opts.webhookRetryMs ?? WAKE_DEFAULTS.webhookRetryMs;
    this.sampleMs = Math.max(100, opts.sampleMs ?? WAKE_DEFAULTS.sampleMs);
    this.env = opts.env ?? process.env;
  }

  /** The hub's cgroups (looked for once, at the first run or leftover; the empty ones of hubs that are gone are swept). */
  private cgroups(): CgroupBase | null {
    if (!this.base) {
      this.base = findCgroupBase(this.env);
      if (this.base.base) sweepHubFolders(this.base.base);
    }
    return this.base.base;
  }

  containment(): WakeContainment {
    const base = this.cgroups();
    if (base) {
      return base.memory
        ? {
            kind: 'cgroup',
            memory: 'kernel',
            line: `Each run has a cgroup of its own (${this.base!.why}): every process it starts is counted and stopped with it, and the kernel holds it to its memory ceiling.`,
          }
        : {
            kind: 'cgroup',
            memory: 'sampled',
            line: `Each run has a cgroup of its own: every process it starts is counted and stopped with it; ${base.memoryWhy}, so Perch stops a run over its memory ceiling after a few seconds.`,
          };
    }
    const why = this.base!.why;
    return process.platform === 'win32'
      ? {
          kind: 'process_group',
          memory: 'none',
          line: `Runs are held by their process tree (${why}): no memory ceiling applies, and a process that leaves the tree is not stopped.`,
        }
      : {
          kind: 'process_group',
          memory: 'sampled',
          line: `Runs are held by their process group only (${why}): a process that leaves the group (setsid, a double fork) is neither counted nor stopped.`,
        };
  }

  /**
   * What is left of a run a killed hub started: its cgroup gets cgroup.kill (the cgroup is the run's by its name, no pid
   * involved; a recorded cgroup not named after the run is never used), then its cgroups and its hub's emptied folders
   * go; without one, its root's group gets SIGKILL only while the root is still the process the run started (same
   * start time), and on Linux each process whose environment names the run (process-check.ts processesOfRun), so what
   * its root left when it exited after the hub was killed is ended too. Resolves once nothing of it is alive, or after
   * LEFTOVER_WAIT_MS.
   */
  async endLeftover(runId: string, place: RunPlace | null): Promise<void> {
    const base = this.cgroups();
    const recorded = place?.cgroup ? RunCgroup.of(runId, place.cgroup.dir, place.cgroup.memory) : null;
    const cg = recorded && fs.existsSync(recorded.dir) ? recorded : base ? findRunCgroup(base, runId) : null;
    const deadline = Date.now() + LEFTOVER_WAIT_MS;
    if (cg && fs.existsSync(cg.dir)) {
      cg.kill();
      while (cg.populated() && Date.now() < deadline) await sleep(50);
      // Its cgroups go, and the folders of the hub that made it once nothing of that hub is left in them.
      if (cg.remove()) cg.removeHubFolders();
      return;
    }
    // Without one: its root's group while the root is still the process recorded, and on Linux every process whose
    // environment names the run (what its root left after the hub was killed, in its group or out of it), again until
    // none is left (one may have forked meanwhile).
    const killAll = (): number => {
      const pids = processesOfRun(runId);
      if (place && isSameProcess(place.pid, place.start)) pids.push(-place.pid);
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      return pids.length;
    };
    while (killAll() > 0 && Date.now() < deadline) await sleep(50);
  }

  machine(): MachineMemory {
    return machineMemory();
  }

  /** Starts sampling a run's processes (its cgroup's, or its tree's); the timer runs while any run is sampled. */
  private watch(pid: number, observer: WakeObserver, cg: RunCgroup | null): void {
    if (!canSample || !observer.sampled) return;
    this.sampled.set(pid, { observer, cg });
    if (this.sampleTimer) return;
    this.sampleTimer = setInterval(() => void this.sampleAll(), this.sampleMs);
    this.sampleTimer.unref();
  }

  private unwatch(pid: number): void {
    this.sampled.delete(pid);
    if (this.sampled.size === 0 && this.sampleTimer) {
      clearInterval(this.sampleTimer);
      this.sampleTimer = undefined;
    }
  }

  private async sampleAll(): Promise<void> {
    if (this.sampling) return; // a slow ps: skip this tick
    this.sampling = true;
    try {
      const members = new Map<number, Set<number>>();
      for (const [pid, w] of this.sampled) if (w.cg) members.set(pid, new Set(w.cg.pids()));
      const samples = await sampleTrees([...this.sampled.keys()], members);
      for (const [pid, s] of samples) {
        const w = this.sampled.get(pid);
        // A cgroup's CPU time counts every process that was ever in it, also those nobody waited for.
        const cpu = w?.cg?.cpuSecs();
        try {
          const oom = w?.cg?.oomKilled() ? { oom: true } : {};
          w?.observer.sampled?.({ ...s, ...(cpu != null ? { cpu_secs: Math.max(cpu, s.cpu_secs) } : {}), ...oom });
        } catch {
          /* the policy's problem, not the sampler's */
        }
      }
    } catch {
      /* procfs unreadable: no sample this time */
    } finally {
      this.sampling = false;
    }
  }

  launch(spec: WakeLaunch, observer: WakeObserver): WakeHandle {
    return spec.action.kind === 'webhook' ? this.webhook(spec, observer) : this.command(spec, observer);
  }

  removeLogs(logFiles: string[]): void {
    for (const f of logFiles) {
      const file = path.resolve(f);
      if (path.dirname(file) !== path.resolve(this.logsDir)) continue;
      fs.rmSync(file, { force: true });
    }
  }

  readLog(logFile: string, maxBytes: number): string {
    const file = path.resolve(logFile);
    if (path.dirname(file) !== path.resolve(this.logsDir)) return '';
    let fd: number;
    try {
      fd = fs.openSync(file, 'r');
    } catch {
      return '';
    }
    try {
      const size = fs.fstatSync(fd).size;
      const len = Math.min(size, maxBytes);
      const buf = Buffer.alloc(len);
      fs.readSync(fd, buf, 0, len, size - len);
      return buf.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  }

  // ---- commands: command-run.ts ----------------------------------------------------------------

  private command(spec: WakeLaunch, observer: WakeObserver): WakeHandle {
    return startCommand(spec, observer, {
      logsDir: this.logsDir,
      runFilesDir: this.runFilesDir,
      killGraceMs: this.killGraceMs,
      exitGraceMs: this.exitGraceMs,
      logMaxBytes: this.logMaxBytes,
      cgroups: () => this.cgroups(),
      watch: (pid, obs, cg) => this.watch(pid, obs, cg),
      unwatch: (pid) => this.unwatch(pid),
      track: (pid, ended, kill) => {
        this.live.set(pid, { kill });
        void ended.then(() => this.live.delete(pid));
        this.ended.set(pid, ended);
        void ended.then(() => this.ended.delete(pid));
      },
    });
  }

  // ---- webhooks --------------------------------------------------------------------------------

  private webhook(spec: WakeLaunch, observer: WakeObserver): WakeHandle {
    const logFile = path.join(this.logsDir, `${spec.runId}.log`);
    const log = new CappedLog(logFile, this.logMaxBytes);
    const body = JSON.stringify({
      event: 'perch.wake',
      run_id: spec.runId,
      agent: spec.agent,
      mcp_url: spec.mcpUrl,
      wake: spec.why,
      sent_at: new Date().toISOString(),
    });
    const signature = `sha256=${crypto
      .createHmac('sha256', spec.webhookSecret ?? '')
      .update(body)
      .digest('hex')}`;
    const abort = new AbortController();
    let stopped = false;
    const run = async (): Promise<WakeEnd> => {
      let last = '';
      for (let attempt = 1; attempt <= this.webhookAttempts && !stopped; attempt++) {
        if (attempt > 1) {
          await new Promise((r) => setTimeout(r, this.webhookRetryMs * 2 ** (attempt - 2)));
          if (stopped) break;
        }
        try {
          if (attempt === 1) observer.running(null);
          const res = await fetch(spec.action.url!, {
            method: 'POST',
            headers: {
              'Content-Type': 'application/json',
              'X-Perch-Signature': signature,
              'X-Perch-Run': spec.runId,
              'X-Perch-Agent': spec.agent.name,
              'X-Perch-Attempt': String(attempt),
            },
            body,
            redirect: 'manual',
            signal: AbortSignal.any([abort.signal, AbortSignal.timeout(30_000)]),
          });
          const text = (await res.text()).slice(0, 2000);
          log.write(Buffer.from(`attempt ${attempt}: HTTP ${res.status} ${text}\n`));
          if (res.ok) return { exitCode: 0, signal: null };
          last = `the webhook answered HTTP ${res.status}`;
        } catch (err) {
          last = `the webhook could not be reached: ${(err as Error).message}`;
          log.write(Buffer.from(`attempt ${attempt}: ${last}\n`));
        }
      }
      return { exitCode: 1, signal: null, error: stopped ? 'Stopped.' : `${last} (after ${this.webhookAttempts} attempts)` };
    };
    run().then(
      (end) => {
        log.close();
        observer.ended(end);
      },
      (err) => {
        log.close();
        observer.ended({ exitCode: 1, signal: null, error: String(err) });
      },
    );
    return {
      logFile,
      stop: () => {
        stopped = true;
        abort.abort();
      },
    };
  }
}
