// Wake runs, the policy: when an event wakes an agent and no get_updates of it is waiting, start ONE run
// of the wake action the owner configured (docs/design.md, "What always holds" 3). Wakes during a
// run are coalesced; when it ends and waking events are still unconfirmed it runs again after a backoff
// (5 s doubling to 5 min); runs per hour are capped; five failed runs in a row switch the action off and
// the owner is told why. Starting processes and POSTing webhooks is OS work done by a WakeLauncher
// (src/main/launcher/runner.ts); this module decides and keeps the records, and knows nothing of processes.
// Across the fleet, at most `at_once` runs live at the same time (a hub setting; by default from the machine's cores
// and memory) and none starts while the machine's available memory is below the owner's floor: wakes beyond wait in
// one queue, the owner's own wakes first, then first come first served, and the next starts as soon as a run ends.
// Each run's processes are sampled (resident memory, CPU); a run over its agent's memory ceiling for a few seconds
// is stopped like a timeout (where the run has a cgroup, the kernel holds it to the ceiling besides). The queue and
// where each run lives are stored, so a restart, even after SIGKILL, loses no queued wake and never lets more runs
// live than the limit (wake-restart.ts). A run's end whose record could not be written (a full disk) is kept and
// written once storage allows; a queued run that cannot be recorded yet waits first in the queue (tried every 2 s).
// Beside it: the limits and the queue (wake-queue.ts), a run's resources from its samples (run-sample.ts), what a
// run's end records (run-end.ts), a run as the owner sees it (run-view.ts); the owner's side is the action
// (wake-action.ts: the owner's input checked and stored), the limits' input (wake-limits.ts) and the views
// (wake-views.ts: state, runs, log, stop).
import type { Hub } from '../core/hub';
import type { FeatureServices } from '../features/services';
import { newTimeOrderedId } from '../core/hub';
import { issueRunKey } from '../identity/run-keys';
import { cursorOf } from '../../store/tables/talk/events';
import { OutsideMemo } from '../core/outside-writes';
import { INTERRUPTED_ERROR, pruneWakeRuns, runsStartedSince, unconfirmedWakes, wakeActionOf } from '../../store/tables/agents/wake';
import {
  WAKE_DEFAULTS,
  type WakeAction,
  type WakeLimits,
  type WakeQueued,
  type WakeResources,
  type WakeSummary,
} from '../../../shared/agents/wake';
import type { MachineMemory, TreeSample, WakeEnd, WakeHandle, WakeLauncher } from './launcher';
import { restoredQueue, sweepPlaces, takeLeftovers } from './wake-restart';
import { hasWakeAction, mayWake } from './may-wake';

export { mayWake } from './may-wake';
import { RunRecords, endRun, insertRun } from './run-records';
import { WakeQueue, type QueuedRun } from './wake-queue';
import { countFailure, countRunUsage, endError, endStatus, newRunRow, type EndedBy } from './run-end';
import { nextResources, overCeiling } from './run-sample';

export { AT_ONCE_SETTING, FLOOR_SETTING } from './wake-queue';
export { runView } from './run-view';

/** The hub as this module reaches it: the services it uses (the whole set: src/main/hub/services.ts). */
type WakeRunsHub = Hub<FeatureServices & { wakeRuns: WakeRuns }>;

/** Runs kept per agent (rows and their logs); older ended runs are dropped when a new one starts. */
export const WAKE_RUNS_KEPT = 200;

export interface WakeOptions {
  /** Runs kept per agent (default WAKE_RUNS_KEPT). */
  keepRuns?: number;
  backoffMs?: number;
  backoffMaxMs?: number;
  maxFailures?: number;
  /** A run above its memory ceiling this long is stopped (default WAKE_DEFAULTS.ceilingGraceMs). */
  ceilingGraceMs?: number;
}

// ---- the policy ---------------------------------------------------------------------------

interface LiveRun {
  id: string;
  handle: WakeHandle;
  confirmedAtStart: number;
  timer: NodeJS.Timeout;
  endedBy?: EndedBy;
  revokeKey: () => void;
  startedAt: number;
  /** The last sample of its process tree (peak and CPU kept with the run when it ends). */
  res?: WakeResources;
  /** Since when it is above its memory ceiling. */
  overSince?: number;
}

interface AgentState {
  run?: LiveRun;
  retry?: NodeJS.Timeout;
  queued?: QueuedRun;
  backoffMs: number;
}

const clock = () => performance.timeOrigin + performance.now();

/**
 * The wake runs of one hub. Built by the composition root with its launcher (none in the CLI and in tests: then it
 * only keeps the armed agents, for the owner's settings); runs start only after start() (app.ts, once the hub listens).
 */
export class WakeRuns {
  /**
   * The agents with a wake action that is on: re-read when another process (the perch CLI) wrote the file
   * (PRAGMA data_version) or this hub changed an action (it is dropped there).
   */
  readonly armed: OutsideMemo<Set<string>>;
  private agents = new Map<string, AgentState>();
  private started = false;
  private closed = false;
  private stopListening: (() => void) | undefined = undefined;
  private readonly backoffMs: number;
  private readonly keepRuns: number;
  private readonly backoffMaxMs: number;
  private readonly maxFailures: number;
  private readonly ceilingGraceMs: number;
  /** The limits across the fleet and the runs waiting for a slot. */
  private readonly queue: WakeQueue;
  /** While queued runs wait for memory (the floor), the machine is read again on this timer. */
  private floorTimer: NodeJS.Timeout | undefined;
  /** Agents whose owner was told a run went over its memory ceiling (once per agent while this hub runs). */
  private toldMemory = new Set<string>();
  /** Runs a previous hub left alive (agent → run), counted against the limit and their agent until they are gone. */
  private leftovers = new Map<string, string>();
  /** Writes the runs' records (and keeps the ends a full disk refused, to write them once it allows). */
  private readonly records: RunRecords;

  constructor(
    private readonly hub: WakeRunsHub,
    private readonly launcher: WakeLauncher | null,
    opts: WakeOptions = {},
  ) {
    this.armed = new OutsideMemo(hub.outside);
    this.queue = new WakeQueue(hub, launcher);
    this.records = new RunRecords(hub);
    this.keepRuns = Math.max(1, opts.keepRuns ?? WAKE_RUNS_KEPT);
    this.backoffMs = opts.backoffMs ?? WAKE_DEFAULTS.backoffMs;
    this.backoffMaxMs = Math.max(this.backoffMs, opts.backoffMaxMs ?? WAKE_DEFAULTS.backoffMaxMs);
    this.maxFailures = opts.maxFailures ?? WAKE_DEFAULTS.maxFailures;
    this.ceilingGraceMs = opts.ceilingGraceMs ?? WAKE_DEFAULTS.ceilingGraceMs;
  }

  /**
   * Starts waking agents (app.ts, once the port is known: runs are told the MCP URL). Runs a previous hub left marked
   * running (it was killed) are recorded as interrupted and what is left of them is ended, counted against the limit
   * until gone (wake-restart.ts); their agents and the stored queue wait in order, and wakes nobody heard start runs
   * from now on. On close, running processes get SIGTERM.
   */
  start(): void {
    if (this.started) return;
    if (!this.launcher) throw new Error('wake runs need a launcher to start');
    this.started = true;
    const hub = this.hub;
    const left = takeLeftovers(hub, this.launcher, (runId, patch) => this.records.keep(runId, patch, undefined));
    sweepPlaces(hub);
    for (const l of left) {
      this.leftovers.set(l.agentId, l.runId);
      void l.gone.then(() => {
        if (this.leftovers.get(l.agentId) === l.runId) this.leftovers.delete(l.agentId);
        this.pump();
      });
    }
    const queue = restoredQueue(left, this.queue.stored());
    for (const q of queue) this.state(q.agentId).queued = q;
    this.queue.restore(queue);
    this.stopListening = hub.bus.onUnheard((userId) => this.unheard(userId));
    hub.onClose(() => this.close());
    if (this.queue.length) this.queueChanged();
    this.pump();
  }

  /** Whether runs are handled here now (started, not closed). */
  get running(): boolean {
    return this.started && !this.closed;
  }

  /** A wake no waiting call heard (called right after the commit that made it). */
  private unheard(agentId: string): void {
    if (this.closed || agentId === this.hub.ownerId) return;
    const wokenAt = clock();
    const st = this.agents.get(agentId);
    if (st?.run || st?.retry || st?.queued) return; // coalesced: the running run, the retry or the queued run reads it
    queueMicrotask(() => {
      try {
        this.tryStart(agentId, wokenAt);
      } catch (err) {
        process.stderr.write(`perch: wake run of ${agentId} could not start: ${(err as Error).message}\n`);
      }
    });
  }

  private state(agentId: string): AgentState {
    let st = this.agents.get(agentId);
    if (!st) this.agents.set(agentId, (st = { backoffMs: this.backoffMs }));
    return st;
  }

  /** Starts a run of the agent if it is due; over the limits it queues. force: the owner's Start now, or the queue's turn. */
  private tryStart(agentId: string, wokenAt: number, force = false): void {
    if (this.closed) return;
    const st = this.state(agentId);
    if (st.run || st.retry || st.queued) return;
    if (!hasWakeAction(this.hub, agentId)) return; // most agents have none: their wakes cost no query
    const row = wakeActionOf(this.hub.db, agentId);
    if (!row || !row.enabled) return;
    if (this.hub.bus.isWaiting(agentId)) return; // it is listening after all
    if (!mayWake(this.hub, agentId).ok) return;
    const action = JSON.parse(row.action) as WakeAction;
    const now = Date.now();
    const recent = runsStartedSince(this.hub.db, agentId, now - 3_600_000);
    if (recent.length >= action.max_runs_per_hour) {
      // Over the cap: try again when the oldest run of the last hour leaves the window.
      this.schedule(agentId, Math.max(1000, recent[0]! + 3_600_000 - now));
      return;
    }
    const confirmed = cursorOf(this.hub.db, agentId).confirmed_gid;
    const pending = unconfirmedWakes(this.hub.db, agentId, confirmed, 21);
    if (pending.length === 0) return; // already read by the agent
    // A run a previous hub left is still ending: this one waits its turn after it (one run per agent, always).
    if (this.leftovers.has(agentId) || (!force && (this.queue.length > 0 || this.gate()))) {
      this.enqueue(st, { agentId, since: Date.now(), wokenAt, byOwner: pending.some((e) => e.actor_id === this.hub.ownerId) });
      return;
    }
    const why: WakeSummary = {
      count: pending.length,
      reasons: pending
        .slice(0, 5)
        .map((e) => ({ type: e.type, conv_id: e.conv_id, seq: e.seq, gid: e.gid, by: e.actor_id ? this.nameOf(e.actor_id) : null })),
    };
    const agent = this.hub.user(agentId);
    const runId = newTimeOrderedId('run');
    const startedAt = clock();
    const timeoutMs = action.timeout_secs * 1000;
    const isCommand = action.kind === 'command';
    const runRow = newRunRow({ id: runId, agentId, kind: action.kind, wokenAt, startedAt, why });
    const dropped = this.hub.write(() => {
      insertRun(this.hub, runRow, why); // and its start in the flight recorder
      return pruneWakeRuns(this.hub.db, agentId, this.keepRuns);
    });
    // Its key once it is recorded (a run that cannot be recorded never starts, and leaves no key behind).
    const issued = isCommand
      ? issueRunKey(this.hub, agentId, runId, Date.now() + timeoutMs + WAKE_DEFAULTS.keyGraceMs, () => this.firstCall(runId))
      : undefined;
    if (dropped.length) this.launcher!.removeLogs?.(dropped);
    const live: LiveRun = {
      id: runId,
      handle: undefined as unknown as WakeHandle,
      confirmedAtStart: confirmed,
      timer: undefined as unknown as NodeJS.Timeout,
      revokeKey: issued?.revoke ?? (() => undefined),
      startedAt: Date.now(),
    };
    st.run = live;
    let ended = false;
    live.timer = setTimeout(() => {
      live.endedBy ??= 'timeout';
      live.handle.stop();
    }, timeoutMs);
    try {
      live.handle = this.launcher!.launch(
        {
          runId,
          agent: { id: agentId, name: agent.name },
          action,
          webhookSecret: row.webhook_secret,
          key: issued?.key ?? null,
          telemetryToken: issued?.telemetry ?? null,
          mcpUrl: `${this.hub.doors.baseUrl}/mcp`,
          why,
        },
        {
          running: (pid, place) => {
            if (this.closed || ended) return;
            this.records.update(runId, { running_at: clock(), pid }, { place });
          },
          sampled: (sample) => {
            if (this.closed || ended) return;
            this.sampled(live, action, sample);
          },
          ended: (end) => {
            if (ended) return;
            ended = true;
            this.ended(agentId, live, end);
          },
        },
      );
    } catch (err) {
      ended = true;
      live.handle = { logFile: null, stop: () => undefined };
      this.ended(agentId, live, { exitCode: null, signal: null, error: `could not start: ${(err as Error).message}` });
      return;
    }
    if (!ended && live.handle.logFile) this.records.update(runId, { log_file: live.handle.logFile });
  }

  /** A sample of a run's process tree: kept for the views and the record; over its ceiling for long, it is stopped. */
  private sampled(live: LiveRun, action: WakeAction, s: TreeSample): void {
    const now = Date.now();
    live.res = nextResources(live.res, s, now);
    const over = overCeiling(live.overSince, s.rss_bytes, action.memory_ceiling_mb, now, this.ceilingGraceMs);
    live.overSince = over.overSince;
    // Over the ceiling for long, or stopped there by the kernel already (its cgroup's limit): the run is stopped.
    if ((over.overLong || s.oom) && !live.endedBy) {
      live.endedBy = 'memory';
      live.handle.stop();
    }
    this.records.publish(live.id);
  }

  /** The last sample of a running run (null when it is not running here or was not sampled yet). */
  liveResources(runId: string): WakeResources | null {
    for (const st of this.agents.values()) if (st.run?.id === runId) return st.run.res ?? null;
    return null;
  }

  // ---- the limits across the fleet and the queue ----------------------------------------------

  /** The machine now: the launcher's reading (procfs on Linux), else the OS's free memory. */
  machine(): MachineMemory {
    return this.queue.machine();
  }

  /** Runs alive at once at most: the owner's setting, else the default from the machine (read when the hub started). */
  atOnce(): { value: number; isDefault: boolean } {
    return this.queue.atOnce();
  }

  floorMb(): number {
    return this.queue.floorMb();
  }

  private liveCount(): number {
    let n = this.leftovers.size;
    for (const st of this.agents.values()) if (st.run) n++;
    return n;
  }

  /** Why no run may start now (all slots taken, or the machine's memory below the floor); null: one may. */
  private gate(): string | null {
    return this.queue.gate(this.liveCount());
  }

  private enqueue(st: AgentState, q: QueuedRun): void {
    st.queued = q;
    this.queue.add(q);
    this.queueChanged();
    this.pump();
  }

  private dequeue(agentId: string): QueuedRun | undefined {
    const st = this.agents.get(agentId);
    const q = st?.queued;
    if (!st || !q) return undefined;
    st.queued = undefined;
    this.queue.remove(q);
    this.queueChanged();
    return q;
  }

  /** Starts queued runs while slots are free (called whenever a run ends, the limits change or a wake queues). */
  pump(): void {
    if (this.closed || !this.started) return;
    while (this.queue.length > 0 && !this.gate()) {
      // The first in order whose agent has no run a previous hub left still ending.
      const q = this.queue.takeFirst((x) => !this.leftovers.has(x.agentId));
      if (!q) break;
      const st = this.state(q.agentId);
      if (st.queued === q) st.queued = undefined;
      this.queueChanged();
      const wasFull = this.hub.storageFull;
      try {
        this.tryStart(q.agentId, q.wokenAt, true);
      } catch (err) {
        const full = !!this.hub.storageFailure(err); // its run cannot be recorded: first in the queue again, tried later
        const line = `perch: wake run of ${q.agentId} could not start: ${(err as Error).message}${full ? '; it waits in the queue' : ''}\n`;
        if (!full || !wasFull) process.stderr.write(line); // said once while the disk stays full
        if (!full) continue;
        st.queued = q;
        this.queue.add(q, { front: true });
        this.queueChanged();
        break;
      }
    }
    // Waiting for memory or for room on the disk, not for a run to end: tried again a little later.
    if (this.queue.length > 0 && !this.floorTimer && (this.queue.belowFloor() || this.hub.storageFull)) {
      this.floorTimer = setTimeout(() => {
        this.floorTimer = undefined;
        this.pump();
      }, WAKE_DEFAULTS.floorRecheckMs);
      this.floorTimer.unref();
    }
  }

  private queueChanged(): void {
    this.hub.fleetChanged();
  }

  /** The owner's Start now: a queued run starts at once, over the limits this once. */
  startNow(agentId: string): { started: boolean; run_id: string | null } {
    const q = this.dequeue(agentId);
    if (!q) return { started: false, run_id: null };
    this.tryStart(agentId, q.wokenAt, true);
    const id = this.agents.get(agentId)?.run?.id ?? null;
    return { started: id !== null, run_id: id };
  }

  queuedOf(agentId: string): WakeQueued | null {
    const i = this.queue.indexOf(agentId);
    return i < 0 ? null : (this.queue.views((id) => this.nameOf(id))[i] ?? null);
  }

  /**
   * The limits, the machine, and what runs and waits now (running lists only what this hub started). brief (the fleet
   * item): no machine and no samples, so it changes only when runs start, end or queue (samples go out as wake_run).
   */
  limits(opts: { brief?: boolean } = {}): WakeLimits {
    const running: WakeLimits['running'] = [];
    for (const [agentId, st] of this.agents) {
      if (st.run)
        running.push({
          agent: { id: agentId, name: this.nameOf(agentId) },
          run_id: st.run.id,
          since: st.run.startedAt,
          live: opts.brief ? null : (st.run.res ?? null),
        });
    }
    return this.queue.limits(running, {
      brief: !!opts.brief,
      nameOf: (id) => this.nameOf(id),
      containment: this.launcher?.containment?.() ?? null,
    });
  }

  private nameOf(id: string): string {
    try {
      return this.hub.user(id).name;
    } catch {
      return id;
    }
  }

  private firstCall(runId: string): void {
    if (!this.closed) this.records.update(runId, { first_call_at: clock() });
  }

  private ended(agentId: string, live: LiveRun, end: WakeEnd): void {
    clearTimeout(live.timer);
    live.revokeKey();
    const st = this.state(agentId);
    if (st.run === live) st.run = undefined;
    if (this.closed) return; // recorded as interrupted when the hub closed
    try {
      this.record(agentId, live, end);
    } catch (err) {
      process.stderr.write(`perch: after wake run ${live.id}: ${(err as Error).message}\n`);
    } finally {
      this.pump(); // a slot is free: the next queued run starts now
    }
  }

  private record(agentId: string, live: LiveRun, end: WakeEnd): void {
    const st = this.state(agentId);
    const action = wakeActionOf(this.hub.db, agentId);
    const ceiling = action ? (JSON.parse(action.action) as WakeAction).memory_ceiling_mb : undefined;
    const status = endStatus(live.endedBy, end);
    const error = endError(status, end, { ceilingMb: ceiling, rssBytes: live.res?.rss_bytes ?? 0, ceilingGraceMs: this.ceilingGraceMs });
    const res = live.res ? { peak_rss_bytes: live.res.peak_rss_bytes, cpu_secs: live.res.cpu_secs } : {};
    this.records.update(
      live.id,
      {
        status,
        ended_at: clock(),
        exit_code: end.exitCode,
        signal: end.signal,
        error,
        usage: end.usage ? JSON.stringify(end.usage) : null,
        ...res,
      },
      { end: true },
    );
    if (end.usage) countRunUsage(this.hub, agentId, end.usage);
    if (status === 'over_memory' && !this.toldMemory.has(agentId)) {
      // The owner is told once per agent (each run's record says it too).
      this.toldMemory.add(agentId);
      const reason = `Perch stopped ${this.nameOf(agentId)}'s wake run: ${error} Raise its memory ceiling in its wake settings if it needs more.`;
      this.hub.bus.publish({ kind: 'hub', value: { wake_memory: { agent_id: agentId, run_id: live.id, reason } } });
      process.stderr.write(`perch: ${reason}\n`);
    }

    const row = wakeActionOf(this.hub.db, agentId);
    if (!row) return;
    const confirmedNow = cursorOf(this.hub.db, agentId).confirmed_gid;
    const turnedOff = countFailure(this.hub, this.armed, row, {
      status,
      error,
      confirmedSomething: confirmedNow > live.confirmedAtStart,
      maxFailures: this.maxFailures,
      name: this.nameOf(agentId),
    });
    if (turnedOff) return;
    if (!row.enabled || status === 'stopped') return;
    // Waking events still unconfirmed: run again after the backoff (doubling while it keeps happening).
    if (unconfirmedWakes(this.hub.db, agentId, confirmedNow, 1).length) {
      const delay = st.backoffMs;
      st.backoffMs = Math.min(st.backoffMs * 2, this.backoffMaxMs);
      this.schedule(agentId, delay);
    } else {
      st.backoffMs = this.backoffMs;
    }
  }

  private schedule(agentId: string, ms: number): void {
    const st = this.state(agentId);
    if (st.retry || this.closed) return;
    st.retry = setTimeout(() => {
      st.retry = undefined;
      try {
        this.tryStart(agentId, clock());
      } catch (err) {
        process.stderr.write(`perch: wake run of ${agentId} could not start: ${(err as Error).message}\n`);
      }
    }, ms);
    st.retry.unref();
  }

  /** The owner stops the agent's running run (SIGTERM, then SIGKILL of its group after the grace), or cancels its queued one. */
  stop(agentId: string): { stopped: boolean; run_id: string | null; cancelled: boolean } {
    const st = this.agents.get(agentId);
    if (st?.retry) {
      clearTimeout(st.retry);
      st.retry = undefined;
    }
    const cancelled = this.dequeue(agentId) !== undefined;
    const run = st?.run;
    if (!run) return { stopped: false, run_id: null, cancelled };
    run.endedBy ??= 'owner';
    run.handle.stop();
    return { stopped: true, run_id: run.id, cancelled };
  }

  /** The agent's run now (null when none runs, or runs are not handled here). */
  runningRunId(agentId: string): string | null {
    if (!this.running) return null;
    return this.agents.get(agentId)?.run?.id ?? null;
  }

  readLog(logFile: string, maxBytes: number): string {
    return this.launcher!.readLog(logFile, maxBytes);
  }

  /**
   * Hub shutdown (app.ts, before the hub closes): every running process gets SIGTERM and its run is
   * recorded as interrupted; what has not ended after graceMs is killed with its process group, so no run
   * outlives the hub.
   */
  async shutdown(graceMs: number): Promise<void> {
    this.close();
    await this.launcher?.drain?.(graceMs);
  }

  /**
   * Every running process gets SIGTERM and its run is recorded as interrupted (also when the hub closes); its agent
   * waits first in the stored queue, which the next start takes up (where each run lives stays stored until then, so
   * a hub killed while its runs stop still has them ended by the next).
   */
  private close(): void {
    if (this.closed) return;
    const live: Array<{ run: LiveRun; agentId: string }> = [];
    for (const [agentId, st] of this.agents) {
      if (st.retry) clearTimeout(st.retry);
      if (st.run) live.push({ run: st.run, agentId });
    }
    for (const { run, agentId } of [...live].reverse()) {
      if (this.state(agentId).queued) continue;
      this.queue.add({ agentId, since: Date.now(), wokenAt: run.startedAt, byOwner: false }, { front: true });
    }
    for (const st of this.agents.values()) st.queued = undefined;
    this.queue.clear();
    this.records.close();
    if (this.floorTimer) clearTimeout(this.floorTimer);
    const at = clock();
    for (const { run } of live) {
      run.endedBy = 'shutdown';
      clearTimeout(run.timer);
      run.revokeKey();
      try {
        this.hub.write(() => endRun(this.hub, run.id, { status: 'interrupted', ended_at: at, error: INTERRUPTED_ERROR }));
      } catch {
        /* closing anyway */
      }
      try {
        run.handle.stop();
      } catch {
        /* gone */
      }
    }
    this.closed = true;
    this.stopListening?.();
    this.stopListening = undefined;
  }
}
