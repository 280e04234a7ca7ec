// Wake runs, one command run, the OS side: its MCP config and Claude Code settings with the permission hook (0600, in
// a 0700 folder of its own under the system temp dir, never in the data dir where the owner's credential runtime.json
// lies; deleted afterwards), its environment (the run key there only: never in argv, never in a log, redact.ts), its
// output captured to a size-capped 0600 log (the key and the run's telemetry token redacted), its OpenTelemetry to the
// hub with the run's telemetry token (shared/agents/run-telemetry.ts; the owner's own wins; a run in a container,
// shared/agents/wake-container.ts, is handed it by name and reaches the hub as the container sees it), OpenCode's MCP
// entry for the run (PERCH_OPENCODE_CONFIG: the key by reference, no secret), and how it is held (docs/design.md, the
// security model):
// - Linux with cgroups (cgroups.ts): the run starts inside a cgroup of its own (a shell enters it, then execs the
//   command), with its memory ceiling as the kernel's limit. Every process it starts stays in it: stop is SIGTERM to
//   each while the cgroup is frozen, then cgroup.kill; when the root exits, cgroup.kill ends whatever it left.
// - Elsewhere (macOS, a locked-down Linux, PERCH_WAKE_CGROUP=off): its own process group, signalled only while its
//   leader is Perch's child not yet waited for (so its pid cannot belong to anyone else); afterwards only where no
//   process holds the group's number (Linux) — a process that left the group is out of reach. Windows: taskkill /T /F.
// Everywhere, the run ends a short grace (exitGraceMs) after its root exits, even if something it left holds its output.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { HOOK_TIMEOUT_SECS, hookBaseUrl } from '../../shared/agents/harness-config';
import type { RunPlace, WakeEnd, WakeHandle, WakeLaunch, WakeObserver } from '../hub/wake-runs/launcher';
import { CappedLog } from './capped-log';
import { RunCgroup, type CgroupBase } from './cgroups';
import { pidInUse, startOf } from './process-check';
import { RedactorChain } from './redact';
import { RUN_OTLP_LOGS_VAR, RUN_TELEMETRY_VARS, geminiCommand, runTelemetry } from '../../shared/agents/run-telemetry';
import { containerRunOf } from '../../shared/agents/wake-container';
import { runFolderPrefix } from './run-folders';
import { openCodeRunConfig } from '../../shared/agents/harnesses/opencode';

const MiB = 1024 * 1024;

/** What a command run needs of its launcher (runner.ts). */
export interface CommandContext {
  logsDir: string;
  runFilesDir: string;
  killGraceMs: number;
  exitGraceMs: number;
  logMaxBytes: number;
  /** The hub's cgroups (found on first use), or null: the process group then. */
  cgroups(): CgroupBase | null;
  /** Sampling of the run's processes starts (its cgroup's, or its tree's) and stops. */
  watch(pid: number, observer: WakeObserver, cg: RunCgroup | null): void;
  unwatch(pid: number): void;
  /** The run is alive until ended resolves; kill ends it at once (hub shutdown). */
  track(pid: number, ended: Promise<void>, kill: () => void): void;
}

/**
 * Claude Code settings for a run (`--settings "$PERCH_CLAUDE_SETTINGS"`): its permission prompts go to the owner
 * through its native HTTP hook to the hub's hook door (one request, no process), with the run's own key from
 * PERCH_KEY in the environment the harness passes on (allowedEnvVars lets Claude Code put it in the header); and the
 * run's OpenTelemetry to the hub with the run's telemetry token (shared/agents/run-telemetry.ts).
 */
function claudeSettings(mcpUrl: string, agent: string, telemetry: Record<string, string>): string {
  const url = `${hookBaseUrl(mcpUrl)}/hook/claude-code/permission-request?agent=${encodeURIComponent(agent)}`;
  const hook = {
    type: 'http',
    url,
    headers: { Authorization: 'Bearer $PERCH_KEY' },
    allowedEnvVars: ['PERCH_KEY'],
    timeout: HOOK_TIMEOUT_SECS,
  };
  // The run's telemetry (when the owner's own does not win): settings given with --settings win over the user's and
  // the project's settings.json, so the run reports under its own agent even where another agent's token is there.
  const env = Object.keys(telemetry).length ? { env: telemetry } : {};
  return JSON.stringify({ ...env, hooks: { PermissionRequest: [{ hooks: [hook] }] } }, null, 2);
}

/** A stream's redaction of the run's key and of its telemetry token. */
function redactors(spec: WakeLaunch): RedactorChain {
  return new RedactorChain([spec.key!, ...(spec.telemetryToken ? [spec.telemetryToken] : [])]);
}

/** The hub's own PERCH_* variables are not passed on: each run gets its own. */
function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.toUpperCase().startsWith('PERCH_')) env[k] = v;
  return env;
}

export function startCommand(spec: WakeLaunch, observer: WakeObserver, ctx: CommandContext): WakeHandle {
  const { action } = spec;
  const logFile = path.join(ctx.logsDir, `${spec.runId}.log`);
  const log = new CappedLog(logFile, ctx.logMaxBytes);
  // The run key is redacted from each stream, also when printed in pieces or split over writes (wake/redact.ts).
  const redact = spec.key ? { out: redactors(spec), err: redactors(spec) } : undefined;
  // The run's telemetry (shared/agents/run-telemetry.ts): the owner's own, set in the run's environment, wins.
  const given = { ...baseEnv(), ...action.env };
  // A run in a container sees only what its argv passes: the owner's variables (the action's env) and Perch's, by
  // name. So only those can be the owner's telemetry there; the hub's own OTEL_* stay out of the container (below),
  // and the telemetry goes to the hub as the container reaches it (the container listener, or the runtime's proxy).
  const boxed = containerRunOf(action.argv);
  const seen = boxed ? { ...action.env } : given;
  const hubBase = boxed?.hubUrl ?? hookBaseUrl(spec.mcpUrl);
  const telemetry = spec.telemetryToken
    ? runTelemetry(seen, hubBase, spec.telemetryToken, geminiCommand(action))
    : { env: {} as Record<string, string>, owner: undefined };
  if (boxed) for (const name of RUN_TELEMETRY_VARS) if (!(action.env && name in action.env)) delete given[name];
  // The run's own folder (mkdtemp: 0700, a name nobody can guess in advance), outside the data dir.
  const runDir = fs.mkdtempSync(path.join(ctx.runFilesDir, runFolderPrefix()));
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
    fs.writeFileSync(settingsFile, claudeSettings(spec.mcpUrl, spec.agent.name, telemetry.env), { mode: 0o600 });
  } catch (err) {
    removeConfig();
    log.close();
    throw err;
  }
  if (telemetry.owner) log.write(Buffer.from(telemetry.owner));
  const env: NodeJS.ProcessEnv = {
    ...given,
    ...telemetry.env,
    [RUN_OTLP_LOGS_VAR]: `${hubBase}/v1/logs`,
    PERCH_URL: spec.mcpUrl,
    PERCH_KEY: spec.key ?? '',
    PERCH_AGENT: spec.agent.name,
    PERCH_RUN_ID: spec.runId,
    PERCH_WAKE: JSON.stringify(spec.why),
    PERCH_MCP_CONFIG: configFile,
    PERCH_CLAUDE_SETTINGS: settingsFile,
    // The OpenCode recipe's OPENCODE_CONFIG_CONTENT: Perch's MCP entry with the key as {env:PERCH_KEY} (no secret).
    PERCH_OPENCODE_CONFIG: openCodeRunConfig(spec.mcpUrl, spec.agent.name),
  };
  const windows = process.platform === 'win32';
  // Its cgroup (Linux, where the hub may make one), with the memory ceiling held by the kernel.
  let cg: RunCgroup | null = null;
  const base = windows ? null : ctx.cgroups();
  if (base) {
    try {
      cg = RunCgroup.create(base, spec.runId, action.memory_ceiling_mb ? action.memory_ceiling_mb * MiB : null);
      if (action.memory_ceiling_mb && !cg.memoryKind)
        log.write(Buffer.from(`perch: this run's memory ceiling is sampled, not held by the kernel (${base.memoryWhy})\n`));
    } catch (err) {
      log.write(Buffer.from(`perch: this run has no cgroup (${(err as Error).message}); it is held by its process group\n`));
    }
  }
  let child: ChildProcess;
  try {
    const opts = {
      cwd: action.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'],
      detached: !windows,
      windowsHide: true,
    };
    if (windows) {
      child =
        action.shell !== undefined ? spawn(action.shell, { ...opts, shell: true }) : spawn(action.argv![0]!, action.argv!.slice(1), opts);
    } else {
      const argv = action.shell !== undefined ? ['/bin/sh', '-c', action.shell] : action.argv!;
      const full = cg ? cg.wrap(argv) : argv;
      child = spawn(full[0]!, full.slice(1), opts);
    }
  } catch (err) {
    cg?.remove();
    removeConfig();
    log.close();
    throw err;
  }
  const pid = child.pid;
  /** Whether the root was waited for: from then on its pid may be anyone's. */
  const reaped = () => child.exitCode !== null || child.signalCode !== null;
  /**
   * A signal to the run: its cgroup; or its group while the leader is ours, not yet waited for (its pid is then
   * nobody else's). Once it was waited for: at that moment (atExit: what the root left in its group), and later only on
   * Linux where no process holds the number (so never a group a reused pid leads).
   */
  const signalRun = (sig: NodeJS.Signals, atExit = false) => {
    if (cg) return sig === 'SIGKILL' ? cg.kill() : cg.signal(sig);
    if (!pid) return;
    if (windows) {
      spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => undefined);
      return;
    }
    if (reaped() && (pidInUse(pid) || (!atExit && process.platform !== 'linux'))) return; // the number may be another's now
    try {
      process.kill(-pid, sig);
    } catch {
      /* none left */
    }
  };

  let stdoutTail = '';
  child.stdout!.on('data', (c: Buffer) => {
    log.write(redact ? redact.out.push(c) : c);
    stdoutTail = (stdoutTail + c.toString('utf8')).slice(-256 * 1024);
  });
  child.stderr!.on('data', (c: Buffer) => log.write(redact ? redact.err.push(c) : c));
  child.on('spawn', () => {
    const place: RunPlace | undefined = pid
      ? { pid, start: startOf(pid), cgroup: cg ? { dir: cg.dir, memory: cg.memoryDir } : null }
      : undefined;
    observer.running(pid ?? null, place);
  });
  let killTimer: NodeJS.Timeout | undefined;
  let exitTimer: NodeJS.Timeout | undefined;
  let spawnError: string | undefined;
  child.on('error', (err) => {
    spawnError = err.message;
  });
  if (pid) {
    ctx.track(pid, new Promise<void>((resolve) => child.once('close', () => resolve())), () => signalRun('SIGKILL'));
    if (!windows) ctx.watch(pid, observer, cg);
  }
  // The run is over when its root ends: whatever it left behind goes too (and so releases the output pipes); what
  // Perch cannot reach and still holds them does not keep the run alive past the grace.
  child.on('exit', () => {
    if (pid) ctx.unwatch(pid);
    if (!windows) signalRun('SIGKILL', true);
    exitTimer = setTimeout(() => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    }, ctx.exitGraceMs);
    exitTimer.unref();
  });
  child.on('close', (code, signal) => {
    if (killTimer) clearTimeout(killTimer);
    if (exitTimer) clearTimeout(exitTimer);
    removeConfig();
    if (redact) {
      log.write(redact.out.end());
      log.write(redact.err.end());
    }
    log.close();
    const end: WakeEnd = { exitCode: code ?? child.exitCode, signal: signal ?? child.signalCode, usage: usageIn(stdoutTail) };
    if (spawnError) end.error = `could not start: ${spawnError}`;
    if (cg?.oomKilled()) end.overMemory = true;
    if (cg) removeWhenEmpty(cg);
    observer.ended(end);
  });
  let stopping = false;
  return {
    logFile,
    stop: () => {
      if (stopping || reaped()) return;
      stopping = true;
      signalRun('SIGTERM');
      killTimer = setTimeout(() => signalRun('SIGKILL'), ctx.killGraceMs);
      killTimer.unref();
    },
  };
}

/** The run's cgroups go once the processes cgroup.kill ended are gone (a few tries). */
function removeWhenEmpty(cg: RunCgroup, tries = 20): void {
  if (cg.remove() || tries <= 0) return;
  cg.kill();
  setTimeout(() => removeWhenEmpty(cg, tries - 1), 100).unref();
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
