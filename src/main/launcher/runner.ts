// Wake runs, the OS side: starts the owner's command (its own process group; on Windows killed as a tree
// with taskkill /T /F), captures its output to a size-capped 0600 log, writes the run's MCP client config
// and Claude Code settings with the permission hook (0600, in a 0700 folder of its own under the system temp dir, never in the data dir where the owner's
// credential runtime.json lies; deleted afterwards), or POSTs a signed webhook with retries. The policy (hub/wake-runs/wake-runs.ts) decides
// when; this only does. The run key reaches the process in its environment only: never in argv, never in
// a log (output that echoes it is redacted, also in pieces or split over writes: wake/redact.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WAKE_DEFAULTS } from '../../shared/agents/wake';
import { HOOK_TIMEOUT_SECS, hookBaseUrl } from '../../shared/agents/harness-config';
import type { MachineMemory, WakeEnd, WakeHandle, WakeLaunch, WakeLauncher, WakeObserver } from '../hub/wake-runs/launcher';
import { canSample, machineMemory, sampleTrees } from './resources';
import { KeyRedactor } from './redact';
import { runFolderPrefix, sweepRunFolders } from './run-folders';

export interface RunnerOptions {
  /** Where run logs (<dir>/logs/<run>.log) go; created 0700. */
  dir: string;
  /**
   * Where each run's own folder (perch-run-<hub pid>-XXXXXX, 0700) for its MCP config is made (default: the system temp
   * dir). Never the data dir: what a run is handed must not sit next to the owner's runtime.json.
   */
  runFilesDir?: string;
  killGraceMs?: number;
  logMaxBytes?: number;
  webhookAttempts?: number;
  webhookRetryMs?: number;
  /** How often the process trees of running commands are sampled (memory, CPU); default WAKE_DEFAULTS.sampleMs. */
  sampleMs?: number;
}

/**
 * Claude Code settings for a run (`--settings "$PERCH_CLAUDE_SETTINGS"`): its permission prompts go to the owner
 * through its native HTTP hook to the hub's hook door (one request, no process), with the run's own key from
 * PERCH_KEY in the environment the harness passes on (allowedEnvVars lets Claude Code put it in the header).
 */
function claudeSettings(mcpUrl: string, agent: string): string {
  const url = `${hookBaseUrl(mcpUrl)}/hook/claude-code/permission-request?agent=${encodeURIComponent(agent)}`;
  const hook = {
    type: 'http',
    url,
    headers: { Authorization: 'Bearer $PERCH_KEY' },
    allowedEnvVars: ['PERCH_KEY'],
    timeout: HOOK_TIMEOUT_SECS,
  };
  return JSON.stringify({ hooks: { PermissionRequest: [{ hooks: [hook] }] } }, null, 2);
}

/** The hub's own PERCH_* variables are not passed on: each run gets its own. */
function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.toUpperCase().startsWith('PERCH_')) env[k] = v;
  return env;
}

export class ProcessLauncher implements WakeLauncher {
  private readonly logsDir: string;
  private readonly runFilesDir: string;
  private readonly killGraceMs: number;
  private readonly logMaxBytes: number;
  private readonly webhookAttempts: number;
  private readonly webhookRetryMs: number;
  private readonly sampleMs: number;
  /** Running commands whose process tree is sampled: pid → whom to tell. One timer, one pass over the processes for all. */
  private readonly sampled = new Map<number, WakeObserver>();
  private sampleTimer: NodeJS.Timeout | undefined;
  private sampling = false;

  /** The processes of runs still alive (pid → ended), for shutdown. */
  private readonly live = new Map<number, Promise<void>>();

  /** Hub shutdown: waits up to graceMs for stopped runs to end, then kills each with its process group. */
  async drain(graceMs: number): Promise<void> {
    if (this.live.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.live.values()), new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    for (const pid of this.live.keys()) killGroup(pid, 'SIGKILL');
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
    this.logMaxBytes = opts.logMaxBytes ?? WAKE_DEFAULTS.logMaxBytes;
    this.webhookAttempts = opts.webhookAttempts ?? WAKE_DEFAULTS.webhookAttempts;
    this.webhookRetryMs = opts.webhookRetryMs ?? WAKE_DEFAULTS.webhookRetryMs;
    this.sampleMs = Math.max(100, opts.sampleMs ?? WAKE_DEFAULTS.sampleMs);
  }

  machine(): MachineMemory {
    return machineMemory();
  }

  /** Starts sampling a run's process tree (its pid leads its own group); the timer runs while any run is sampled. */
  private watch(pid: number, observer: WakeObserver): void {
    if (!canSample || !observer.sampled) return;
    this.sampled.set(pid, observer);
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
      const samples = await sampleTrees([...this.sampled.keys()]);
      for (const [pid, s] of samples) {
        try {
          this.sampled.get(pid)?.sampled?.(s);
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

  // ---- commands --------------------------------------------------------------------------------

  private command(spec: WakeLaunch, observer: WakeObserver): WakeHandle {
    const { action } = spec;
    const logFile = path.join(this.logsDir, `${spec.runId}.log`);
    const log = new CappedLog(logFile, this.logMaxBytes);
    // The run key is redacted from each stream, also when printed in pieces or split over writes (wake/redact.ts).
    const redact = spec.key ? { out: new KeyRedactor(spec.key), err: new KeyRedactor(spec.key) } : undefined;
    // The run's own folder (mkdtemp: 0700, a name nobody can guess in advance), outside the data dir.
    const runDir = fs.mkdtempSync(path.join(this.runFilesDir, runFolderPrefix()));
    const configFile = path.join(runDir, `${spec.runId}.mcp.json`);
    const settingsFile = path.join(runDir, `${spec.runId}.claude-settings.json`);
    const removeConfig = () => {
      try {
        fs.rmSync(runDir, { recursive: true, force: true });
      } catch {
        /* gone */
      }
    };
    try {
      fs.writeFileSync(
        configFile,
        JSON.stringify(
          { mcpServers: { perch: { type: 'http', url: spec.mcpUrl, headers: { Authorization: `Bearer ${spec.key}` } } } },
          null,
          2,
        ),
        { mode: 0o600 },
      );
      fs.chmodSync(configFile, 0o600);
      fs.writeFileSync(settingsFile, claudeSettings(spec.mcpUrl, spec.agent.name), { mode: 0o600 });
    } catch (err) {
      removeConfig();
      log.close();
      throw err;
    }
    const env: NodeJS.ProcessEnv = {
      ...baseEnv(),
      ...action.env,
      PERCH_URL: spec.mcpUrl,
      PERCH_KEY: spec.key ?? '',
      PERCH_AGENT: spec.agent.name,
      PERCH_RUN_ID: spec.runId,
      PERCH_WAKE: JSON.stringify(spec.why),
      PERCH_MCP_CONFIG: configFile,
      PERCH_CLAUDE_SETTINGS: settingsFile,
    };
    const windows = process.platform === 'win32';
    let child: ChildProcess;
    try {
      const opts = {
        cwd: action.cwd,
        env,
        stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'],
        detached: !windows,
        windowsHide: true,
      };
      child =
        action.shell !== undefined ? spawn(action.shell, { ...opts, shell: true }) : spawn(action.argv![0]!, action.argv!.slice(1), opts);
    } catch (err) {
      removeConfig();
      log.close();
      throw err;
    }
    let stdoutTail = '';
    child.stdout!.on('data', (c: Buffer) => {
      log.write(redact ? redact.out.push(c) : c);
      stdoutTail = (stdoutTail + c.toString('utf8')).slice(-256 * 1024);
    });
    child.stderr!.on('data', (c: Buffer) => log.write(redact ? redact.err.push(c) : c));
    child.on('spawn', () => observer.running(child.pid ?? null));
    if (child.pid) {
      const pid = child.pid;
      this.live.set(
        pid,
        new Promise<void>((resolve) =>
          child.once('close', () => {
            this.live.delete(pid);
            resolve();
          }),
        ),
      );
      if (!windows) this.watch(pid, observer);
    }
    let killTimer: NodeJS.Timeout | undefined;
    let spawnError: string | undefined;
    child.on('error', (err) => {
      spawnError = err.message;
    });
    // The run is over when its process ends: whatever it left behind in its group goes too (and so
    // releases the output pipes).
    child.on('exit', () => {
      if (child.pid) this.unwatch(child.pid);
      if (!windows && child.pid) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          /* none left */
        }
      }
    });
    child.on('close', (code, signal) => {
      if (killTimer) clearTimeout(killTimer);
      removeConfig();
      if (redact) {
        log.write(redact.out.end());
        log.write(redact.err.end());
      }
      log.close();
      const end: WakeEnd = { exitCode: code, signal, usage: usageIn(stdoutTail) };
      if (spawnError) end.error = `could not start: ${spawnError}`;
      observer.ended(end);
    });
    const killTree = (sig: NodeJS.Signals) => {
      if (child.pid) killGroup(child.pid, sig);
    };
    let stopping = false;
    return {
      logFile,
      stop: () => {
        if (stopping || child.exitCode !== null || child.signalCode !== null) return;
        stopping = true;
        killTree('SIGTERM');
        killTimer = setTimeout(() => killTree('SIGKILL'), this.killGraceMs);
        killTimer.unref();
      },
    };
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

/** A run's output on disk (0600), cut at maxBytes (the run key is redacted before: wake/redact.ts). */
class CappedLog {
  private fd: number | null;
  private written = 0;
  private cut = false;
  constructor(
    file: string,
    private readonly maxBytes: number,
  ) {
    this.fd = fs.openSync(file, 'a', 0o600);
    try {
      fs.fchmodSync(this.fd, 0o600);
    } catch {
      /* best effort */
    }
  }

  write(data: Buffer): void {
    if (this.fd === null || this.cut || data.length === 0) return;
    const room = this.maxBytes - this.written;
    try {
      if (data.length > room) {
        fs.writeSync(this.fd, data.subarray(0, Math.max(0, room)));
        fs.writeSync(this.fd, `\n[perch: output cut at ${this.maxBytes} bytes]\n`);
        this.cut = true;
      } else {
        fs.writeSync(this.fd, data);
      }
      this.written += data.length;
    } catch {
      /* a full disk drops log lines, never the run */
    }
  }

  close(): void {
    if (this.fd === null) return;
    try {
      fs.closeSync(this.fd);
    } catch {
      /* gone */
    }
    this.fd = null;
  }
}

/** Claude Code's `--output-format json` result (total_cost_usd, usage), if the output ends with one. */
export function usageIn(stdout: string): WakeEnd['usage'] {
  const lines = stdout.trim().split('\n').reverse();
  const candidates = [stdout.trim(), ...lines.slice(0, 20)];
  for (const text of candidates) {
    const t = text.trim();
    if (!t.startsWith('{') || !t.endsWith('}')) continue;
    try {
      const j = JSON.parse(t) as { total_cost_usd?: unknown; usage?: unknown };
      if (typeof j.total_cost_usd === 'number' || (j.usage && typeof j.usage === 'object')) {
        return {
          ...(typeof j.total_cost_usd === 'number' ? { total_cost_usd: j.total_cost_usd } : {}),
          ...(j.usage && typeof j.usage === 'object' ? { usage: j.usage as Record<string, unknown> } : {}),
        };
      }
    } catch {
      /* not JSON */
    }
  }
  return undefined;
}

/** Ends a run's process and everything it started: its process group, or on Windows its tree (taskkill /T /F). */
function killGroup(pid: number, sig: NodeJS.Signals): void {
  if (process.platform === 'win32') {
    spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => undefined);
    return;
  }
  try {
    process.kill(-pid, sig);
  } catch {
    /* already gone */
  }
}
