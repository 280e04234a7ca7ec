// Wake runs, the owner's views: an agent's wake state, the runs list and a run's log, and stopping a running run.
// What runs now, a run's captured output and stop are the running hub's (wake-runs.ts); without one (the CLI) only the
// records are read.
import type { WakeHub } from './services';
import { HubError } from '../../../shared/errors';
import { findAgent } from '../identity/identities';
import { listWakeRuns, runsStartedSince, wakeActionOf, wakeRunById, type WakeActionRow } from '../../store/tables/agents/wake';
import type { WakeAction, WakeRunView, WakeState } from '../../../shared/agents/wake';
import { runView, type WakeRuns } from './wake-runs';

export function wakeState(hub: WakeHub, nameOrId: string): WakeState {
  const agent = findAgent(hub, nameOrId);
  const row: WakeActionRow | undefined = wakeActionOf(hub.db, agent.id);
  const runningId = hub.services.wakeRuns.runningRunId(agent.id);
  const running = runningId ? wakeRunById(hub.db, runningId) : undefined;
  return {
    agent: { id: agent.id, name: agent.name },
    action: row ? (JSON.parse(row.action) as WakeAction) : null,
    enabled: !!row?.enabled,
    off_reason: row?.off_reason ?? null,
    consecutive_failures: row?.consecutive_failures ?? 0,
    webhook_secret: row?.webhook_secret ?? null,
    running: running ? runView(hub, running) : null,
    runs_last_hour: runsStartedSince(hub.db, agent.id, Date.now() - 3_600_000).length,
    queued: hub.services.wakeRuns.queuedOf(agent.id),
  };
}

export function listRuns(hub: WakeHub, input: { agent?: string; limit?: number }): WakeRunView[] {
  const agentId = input.agent ? findAgent(hub, input.agent).id : null;
  return listWakeRuns(hub.db, agentId, Math.min(input.limit ?? 50, 500)).map((r) => runView(hub, r));
}

function runningHubRuns(hub: WakeHub): WakeRuns {
  const w = hub.services.wakeRuns;
  if (!w.running)
    throw new HubError(
      'conflict',
      'Wake runs are handled by the running hub only.',
      'Use `perch owner` or the app while `perch serve` runs.',
    );
  return w;
}

export function stopRun(hub: WakeHub, nameOrId: string): { agent: string; stopped: boolean; run_id: string | null; cancelled: boolean } {
  const agent = findAgent(hub, nameOrId);
  return { agent: agent.id, ...runningHubRuns(hub).stop(agent.id) };
}

/** The owner's Start now: the agent's queued run starts at once, over the limit of runs at once this one time. */
export function startQueuedRun(hub: WakeHub, nameOrId: string): { agent: string; started: boolean; run_id: string | null } {
  const agent = findAgent(hub, nameOrId);
  const w = runningHubRuns(hub);
  if (!w.queuedOf(agent.id))
    throw new HubError('conflict', `${agent.name} has no wake run waiting for a slot.`, 'wake.limits.get lists the queued runs.');
  return { agent: agent.id, ...w.startNow(agent.id) };
}

/** A run and the newest part of its captured output (max_bytes, default 8 KiB). */
export function runLog(hub: WakeHub, runId: string, maxBytes = 8192): { run: WakeRunView; tail: string } {
  const row = wakeRunById(hub.db, runId);
  if (!row) throw new HubError('not_found', `No wake run ${runId}.`, 'List runs with wake.runs.');
  const tail = row.log_file ? runningHubRuns(hub).readLog(row.log_file, Math.min(Math.max(maxBytes, 1), 256 * 1024)) : '';
  return { run: runView(hub, row), tail };
}
