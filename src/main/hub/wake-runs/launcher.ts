// Wake runs, the launcher's interface: what the policy (hub/wake-runs/wake-runs.ts) asks of the OS side. Starting
// processes and POSTing webhooks is done by src/main/launcher/runner.ts (ProcessLauncher), which app.ts gives the policy;
// the hub itself never spawns or speaks HTTP.
import type { WakeAction, WakeContainment, WakeRunView, WakeSummary } from '../../../shared/agents/wake';

export interface WakeLaunch {
  runId: string;
  agent: { id: string; name: string };
  action: WakeAction;
  /** webhook: the secret signing the POST. */
  webhookSecret: string | null;
  /** command: the run's own key (for the environment and the MCP config file only). */
  key: string | null;
  /** command: the run's telemetry token (for the environment only; shared/agents/run-telemetry.ts). */
  telemetryToken: string | null;
  mcpUrl: string;
  why: WakeSummary;
}

export interface WakeEnd {
  exitCode: number | null;
  signal: string | null;
  /** Why it could not start or did not succeed (e.g. spawn error, webhook answer). */
  error?: string;
  usage?: WakeRunView['usage'];
  /** The kernel stopped it at its memory ceiling (its cgroup's limit). */
  overMemory?: boolean;
}

/**
 * Where a command run lives in the OS, recorded with the run (wake_runs.place) so that a later hub, after this one was
 * killed, can end what is left of it, and only that: its root's pid with its start time, and its cgroup.
 */
export interface RunPlace {
  pid: number;
  /** The root's start time (launcher/process-check.ts), null where it cannot be read. */
  start: string | null;
  cgroup: { dir: string; memory: string | null } | null;
  /**
   * The database file of the hub that started the run (store databaseIdentity), stamped when the place is stored: a
   * hub started on a copy of the data dir finds the original's runs in it and must leave them alone.
   */
  hub?: string;
}

/** A run's process tree as sampled (wake/resources.ts). */
export interface TreeSample {
  /** Resident memory of every process of the tree (bytes). */
  rss_bytes: number;
  /** CPU time used by the tree, including its children that ended and were waited for (seconds). */
  cpu_secs: number;
  /** The kernel killed a process of the run at its memory ceiling (its cgroup's limit): the run is over its ceiling. */
  oom?: boolean;
}

export interface MachineMemory {
  cores: number;
  total_bytes: number;
  /** What new processes can get without swapping (Linux MemAvailable; elsewhere the OS's free memory). */
  available_bytes: number;
}

export interface WakeObserver {
  /** A sample of the run's process tree, every few seconds while it lives (commands, where the platform allows). */
  sampled?(s: TreeSample): void;
  /** The process is running (its pid, and where it lives), or the webhook POST went out (null). */
  running(pid: number | null, place?: RunPlace): void;
  /** Called once, when the run is over (the process and its group exited, or the webhook gave up). */
  ended(end: WakeEnd): void;
}

export interface WakeHandle {
  /** Where the run's output is captured (0600, size-capped). */
  logFile: string | null;
  /** SIGTERM to every process of the run now, SIGKILL after the grace; for a webhook, no more retries. */
  stop(): void;
}

export interface WakeLauncher {
  launch(spec: WakeLaunch, observer: WakeObserver): WakeHandle;
  /** The last maxBytes of a run's captured output. */
  readLog(logFile: string, maxBytes: number): string;
  /** Hub shutdown, after every run was asked to stop: waits up to graceMs for them to end, then kills what is left. */
  drain?(graceMs: number): Promise<void>;
  /** The machine's cores and available memory now (for the default limit of runs at once and the memory floor). */
  machine?(): MachineMemory;
  /**
   * Ends what is left of a run a previous hub started (it was killed before the run ended), after checking it is
   * still that run (its cgroup, or its root's start time); resolves once nothing of it is alive (or nothing can be
   * found that is surely it).
   */
  endLeftover?(runId: string, place: RunPlace | null): Promise<void>;
  /** How runs are held on this machine (cgroup or process group; the memory ceiling), for the owner. */
  containment?(): WakeContainment;
  /** Deletes the captured output of runs that were dropped from the history (only files of its own logs folder). */
  removeLogs?(logFiles: string[]): void;
}
