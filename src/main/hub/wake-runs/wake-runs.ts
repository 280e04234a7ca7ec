// Wake runs, the policy: when an event wakes an agent and no get_updates of it is waiting, start ONE run
// of the wake action the owner configured (docs/design.md, "What always holds" 3). Wakes during a
// run are coalesced; when it ends and waking events are still unconfirmed it runs again after a backoff
// (5 s doubling to 5 min); runs per hour are capped; five failed runs in a row switch the action off and
// the owner is told why. Starting processes and POSTing webhooks is OS work done by a WakeLauncher
// (src/main/wake/runner.ts); this module decides and keeps the records, and knows nothing of processes.
// The owner's side is beside it: the action (wake-action.ts: the owner's input checked and stored) and the views
// (wake-views.ts: state, runs, log, stop).
import { isPaused, recordUsage } from '../control/control';
import type { Hub } from '../core/hub';
import { newTimeOrderedId } from '../core/hub';
import { issueRunKey } from '../identity/run-keys';
import { cursorOf } from '../../store/tables/talk/events';
import { OutsideMemo } from '../core/outside-writes';
import {
  enabledWakeAgents, insertWakeRun, interruptLeftoverRuns, pruneWakeRuns, runsStartedSince, setWakeFailures,
  unconfirmedWakes, updateWakeRun, wakeActionOf, wakeRunById, type WakeRunRow,
} from '../../store/tables/agents/wake';
import { WAKE_DEFAULTS, type WakeAction, type WakeRunStatus, type WakeRunView, type WakeSummary } from '../../../shared/agents/wake';
import type { WakeEnd, WakeHandle, WakeLauncher } from './launcher';

/** Runs kept per agent (rows and their logs); older ended runs are dropped when a new one starts. */
export const WAKE_RUNS_KEPT = 200;

export interface WakeOptions {
  /** Runs kept per agent (default WAKE_RUNS_KEPT). */
  keepRuns?: number;
  backoffMs?: number;
  backoffMaxMs?: number;
  maxFailures?: number;
}

// ---- the seam for owner control -------------------------------------------------------------

/** Whether Perch may start a run of this agent now; otherwise why not. */
export function mayWake(hub: Hub, agentId: string): { ok: true } | { ok: false; why: string } {
  hub.forgetUser(agentId);
  const u = hub.user(agentId);
  if (u.kind !== 'agent') return { ok: false, why: 'not an agent' };
  if (u.revoked_at != null) return { ok: false, why: 'the agent is revoked' };
  // owner control: paused agents are never started (a spend cap reached pauses the agent too, reason budget).
  const pause = isPaused(hub, agentId);
  if (pause.paused) return { ok: false, why: `the agent is paused${pause.reason ? ` (${pause.reason})` : ''}` };
  return { ok: true };
}

/** data_version is read at most once per event-loop turn (hub/core/outside-writes.ts), however many agents one commit wakes. */
function hasWakeAction(hub: Hub, agentId: string): boolean {
  return hub.services.wakeRuns.armed.get('', () => new Set(enabledWakeAgents(hub.db)))!.has(agentId);
}

// ---- the policy ---------------------------------------------------------------------------

interface LiveRun {
  id: string;
  handle: WakeHandle;
  confirmedAtStart: number;
  timer: NodeJS.Timeout;
  endedBy?: 'timeout' | 'owner' | 'shutdown';
  revokeKey: () => void;
}

interface AgentState {
  run?: LiveRun;
  retry?: NodeJS.Timeout;
  backoffMs: number;
}

const clock = () => performance.timeOrigin + performance.now();

declare module '../core/hub' {
  interface HubServices {
    /** Wake runs (hub/waking/wake-runs.ts): they run only in the hub that started them (app.ts), never in the CLI. */
    wakeRuns: WakeRuns;
  }
}

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

  constructor(private readonly hub: Hub, private readonly launcher: WakeLauncher | null, opts: WakeOptions = {}) {
    this.armed = new OutsideMemo(hub.outside);
    this.keepRuns = Math.max(1, opts.keepRuns ?? WAKE_RUNS_KEPT);
    this.backoffMs = opts.backoffMs ?? WAKE_DEFAULTS.backoffMs;
    this.backoffMaxMs = Math.max(this.backoffMs, opts.backoffMaxMs ?? WAKE_DEFAULTS.backoffMaxMs);
    this.maxFailures = opts.maxFailures ?? WAKE_DEFAULTS.maxFailures;
  }

  /**
   * Starts waking agents (app.ts, once the port is known: runs are told the MCP URL): runs a previous hub left marked
   * running (it crashed) are recorded as interrupted, and wakes nobody heard start runs from now on. On close,
   * running processes get SIGTERM.
   */
  start(): void {
    if (this.started) return;
    if (!this.launcher) throw new Error('wake runs need a launcher to start');
    this.started = true;
    const hub = this.hub;
    hub.write(() => interruptLeftoverRuns(hub.db, Date.now()));
    this.stopListening = hub.bus.onUnheard((userId) => this.unheard(userId));
    hub.onClose(() => this.close());
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
    if (st?.run || st?.retry) return; // coalesced: the running run, or the retry, reads it
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

  private tryStart(agentId: string, wokenAt: number): void {
    if (this.closed) return;
    const st = this.state(agentId);
    if (st.run || st.retry) return;
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
    const why: WakeSummary = {
      count: pending.length,
      reasons: pending.slice(0, 5).map((e) => ({ type: e.type, conv_id: e.conv_id, seq: e.seq, gid: e.gid, by: e.actor_id ? this.nameOf(e.actor_id) : null })),
    };
    const agent = this.hub.user(agentId);
    const runId = newTimeOrderedId('run');
    const startedAt = clock();
    const timeoutMs = action.timeout_secs * 1000;
    const isCommand = action.kind === 'command';
    const issued = isCommand
      ? issueRunKey(this.hub, agentId, runId, Date.now() + timeoutMs + WAKE_DEFAULTS.keyGraceMs, () => this.firstCall(runId))
      : undefined;
    const runRow: WakeRunRow = {
      id: runId, agent_id: agentId, kind: action.kind, status: 'running', woken_at: wokenAt, started_at: startedAt, running_at: null,
      first_call_at: null, ended_at: null, exit_code: null, signal: null, error: null, why: JSON.stringify(why), usage: null, pid: null, log_file: null,
    };
    const dropped = this.hub.write(() => {
      insertWakeRun(this.hub.db, runRow);
      return pruneWakeRuns(this.hub.db, agentId, this.keepRuns);
    });
    if (dropped.length) this.launcher!.removeLogs?.(dropped);
    const live: LiveRun = { id: runId, handle: undefined as unknown as WakeHandle, confirmedAtStart: confirmed, timer: undefined as unknown as NodeJS.Timeout, revokeKey: issued?.revoke ?? (() => undefined) };
    st.run = live;
    let ended = false;
    live.timer = setTimeout(() => {
      live.endedBy ??= 'timeout';
      live.handle.stop();
    }, timeoutMs);
    try {
      live.handle = this.launcher!.launch(
        { runId, agent: { id: agentId, name: agent.name }, action, webhookSecret: row.webhook_secret, key: issued?.key ?? null, mcpUrl: `${this.hub.baseUrl}/mcp`, why },
        {
          running: (pid) => {
            if (this.closed || ended) return;
            this.update(runId, { running_at: clock(), pid });
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
    if (!ended && live.handle.logFile) this.update(runId, { log_file: live.handle.logFile });
  }

  private nameOf(id: string): string {
    try { return this.hub.user(id).name; } catch { return id; }
  }

  private firstCall(runId: string): void {
    if (!this.closed) this.update(runId, { first_call_at: clock() });
  }

  private update(runId: string, patch: Partial<WakeRunRow>): void {
    try {
      this.hub.write(() => updateWakeRun(this.hub.db, runId, patch));
    } catch (err) {
      process.stderr.write(`perch: wake run ${runId} not recorded: ${(err as Error).message}\n`);
      return;
    }
    this.publish(runId);
  }

  private publish(runId: string): void {
    if (!this.hub.bus.hasSubscribers()) return;
    const row = wakeRunById(this.hub.db, runId);
    if (row) this.hub.bus.publish({ kind: 'hub', value: { wake_run: runView(this.hub, row) } });
  }

  private ended(agentId: string, live: LiveRun, end: WakeEnd): void {
    clearTimeout(live.timer);
    live.revokeKey();
    const st = this.state(agentId);
    if (st.run === live) st.run = undefined;
    if (this.closed) return; // recorded as interrupted when the hub closed
    const status: WakeRunStatus =
      live.endedBy === 'timeout' ? 'timed_out'
      : live.endedBy === 'owner' ? 'stopped'
      : live.endedBy === 'shutdown' ? 'interrupted'
      : end.exitCode === 0 && !end.error ? 'succeeded' : 'failed';
    const error = end.error ?? (status === 'timed_out' ? 'It ran past its timeout and was stopped.' : status === 'stopped' ? 'Stopped by the owner.' : status === 'failed' ? `It exited with ${end.signal ? `signal ${end.signal}` : `code ${end.exitCode}`}.` : null);
    this.update(live.id, { status, ended_at: clock(), exit_code: end.exitCode, signal: end.signal, error, usage: end.usage ? JSON.stringify(end.usage) : null });
    if (end.usage) countRunUsage(this.hub, agentId, end.usage);

    const row = wakeActionOf(this.hub.db, agentId);
    if (!row) return;
    const confirmedNow = cursorOf(this.hub.db, agentId).confirmed_gid;
    const confirmedSomething = confirmedNow > live.confirmedAtStart;
    if ((status === 'failed' || status === 'timed_out') && !confirmedSomething) {
      const failures = row.consecutive_failures + 1;
      const off = failures >= this.maxFailures ? { reason: `Perch switched ${this.nameOf(agentId)}'s wake action off: ${failures} runs in a row failed before confirming anything (last: ${error}). Check the command and its log, then set it again.` } : null;
      this.armed.changing(() => this.hub.write(() => setWakeFailures(this.hub.db, agentId, failures, off, Date.now())));
      if (off) {
        this.hub.bus.publish({ kind: 'hub', value: { wake_off: { agent_id: agentId, reason: off.reason } } });
        process.stderr.write(`perch: ${off.reason}\n`);
        return;
      }
    } else if (status === 'succeeded' || confirmedSomething) {
      if (row.consecutive_failures) this.hub.write(() => setWakeFailures(this.hub.db, agentId, 0, null, Date.now()));
    }
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

  /** The owner stops the agent's running run (SIGTERM, then SIGKILL of its group after the grace). */
  stop(agentId: string): { stopped: boolean; run_id: string | null } {
    const st = this.agents.get(agentId);
    if (st?.retry) {
      clearTimeout(st.retry);
      st.retry = undefined;
    }
    const run = st?.run;
    if (!run) return { stopped: false, run_id: null };
    run.endedBy ??= 'owner';
    run.handle.stop();
    return { stopped: true, run_id: run.id };
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

  /** Every running process gets SIGTERM and its run is recorded as interrupted (also when the hub closes). */
  private close(): void {
    if (this.closed) return;
    const live: LiveRun[] = [];
    for (const st of this.agents.values()) {
      if (st.retry) clearTimeout(st.retry);
      if (st.run) live.push(st.run);
    }
    const at = clock();
    for (const run of live) {
      run.endedBy = 'shutdown';
      clearTimeout(run.timer);
      run.revokeKey();
      try {
        this.hub.write(() => updateWakeRun(this.hub.db, run.id, { status: 'interrupted', ended_at: at, error: 'The hub stopped while it ran.' }));
      } catch { /* closing anyway */ }
      try { run.handle.stop(); } catch { /* gone */ }
    }
    this.closed = true;
    this.stopListening?.();
    this.stopListening = undefined;
  }
}

/**
 * A run's usage, as Claude Code's JSON result reports it (total_cost_usd, usage.input_tokens/output_tokens),
 * is counted for the agent like usage it reports itself (hub/control/control.ts): a daily cap it reaches pauses it.
 */
function countRunUsage(hub: Hub, agentId: string, u: NonNullable<WakeRunView['usage']>): void {
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
  const usage = { input_tokens: Math.round(num(u.usage?.input_tokens)), output_tokens: Math.round(num(u.usage?.output_tokens)), cost_usd: num(u.total_cost_usd) };
  try {
    recordUsage(hub, agentId, { usage });
  } catch (err) {
    process.stderr.write(`perch: the usage of a wake run of ${agentId} was not counted: ${err instanceof Error ? err.message : String(err)}\n`);
  }
}

// ---- a run as the owner sees it: published on each change (above), listed and read by wake-views.ts ----

export function runView(hub: Hub, r: WakeRunRow): WakeRunView {
  let name = r.agent_id;
  try { name = hub.user(r.agent_id).name; } catch { /* gone */ }
  const end = r.ended_at;
  return {
    id: r.id, agent_id: r.agent_id, agent_name: name, kind: r.kind as WakeRunView['kind'], status: r.status as WakeRunStatus,
    woken_at: r.woken_at, started_at: r.started_at, running_at: r.running_at, first_call_at: r.first_call_at, ended_at: end,
    duration_ms: end != null ? Math.round(end - r.started_at) : null, exit_code: r.exit_code, signal: r.signal, error: r.error,
    why: JSON.parse(r.why) as WakeSummary, usage: r.usage ? JSON.parse(r.usage) : null, pid: r.pid,
  };
}
