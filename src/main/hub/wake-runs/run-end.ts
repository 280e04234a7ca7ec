// Wake runs, a run's record: the row a run starts with, and what its end records: its status (how it ended: on its
// own, or stopped for its timeout, its memory ceiling, the owner or the hub's stop), the line saying why, its usage
// counted for the agent, and the failures in a row (five switch the action off). The policy (wake-runs.ts) writes
// the record and decides what follows (a retry after the backoff).
import { recordUsage } from '../control/control';
import type { Hub } from '../core/hub';
import type { FeatureServices } from '../features/services';
import type { OutsideMemo } from '../core/outside-writes';
import { setWakeFailures, type WakeActionRow, type WakeRunRow } from '../../store/tables/agents/wake';
import type { WakeRunStatus, WakeRunView, WakeSummary } from '../../../shared/agents/wake';
import type { WakeEnd } from './launcher';
import { MiB } from './wake-queue';

/** The record of a run that starts now. */
export function newRunRow(r: {
  id: string;
  agentId: string;
  kind: string;
  wokenAt: number;
  startedAt: number;
  why: WakeSummary;
}): WakeRunRow {
  return {
    id: r.id,
    agent_id: r.agentId,
    kind: r.kind,
    status: 'running',
    woken_at: r.wokenAt,
    started_at: r.startedAt,
    running_at: null,
    first_call_at: null,
    ended_at: null,
    exit_code: null,
    signal: null,
    error: null,
    why: JSON.stringify(r.why),
    usage: null,
    pid: null,
    log_file: null,
  };
}

/** Why Perch stopped a run (unset: it ended on its own). */
export type EndedBy = 'timeout' | 'memory' | 'owner' | 'shutdown';

export function endStatus(endedBy: EndedBy | undefined, end: WakeEnd): WakeRunStatus {
  return endedBy === 'memory' || (end.overMemory && endedBy !== 'owner' && endedBy !== 'shutdown')
    ? 'over_memory'
    : endedBy === 'timeout'
      ? 'timed_out'
      : endedBy === 'owner'
        ? 'stopped'
        : endedBy === 'shutdown'
          ? 'interrupted'
          : end.exitCode === 0 && !end.error
            ? 'succeeded'
            : 'failed';
}

/** The line a run's record says about its end (null when it succeeded or was interrupted without an error). */
export function endError(
  status: WakeRunStatus,
  end: WakeEnd,
  m: { ceilingMb: number | undefined; rssBytes: number; ceilingGraceMs: number },
): string | null {
  return (
    end.error ??
    (status === 'over_memory' && end.overMemory
      ? `It reached its memory ceiling of ${m.ceilingMb} MB and the kernel stopped it (its cgroup's limit).`
      : status === 'over_memory'
        ? `It held more than its memory ceiling of ${m.ceilingMb} MB (${Math.round(m.rssBytes / MiB)} MB) for ${Math.round(m.ceilingGraceMs / 1000)} s and was stopped.`
        : status === 'timed_out'
          ? 'It ran past its timeout and was stopped.'
          : status === 'stopped'
            ? 'Stopped by the owner.'
            : status === 'failed'
              ? `It exited with ${end.signal ? `signal ${end.signal}` : `code ${end.exitCode}`}.`
              : null)
  );
}

/**
 * A run's usage, as Claude Code's JSON result reports it (total_cost_usd, usage.input_tokens/output_tokens),
 * is counted for the agent like usage it reports itself (hub/control/control.ts): a daily cap it reaches pauses it.
 */
export function countRunUsage(hub: Hub<FeatureServices>, agentId: string, u: NonNullable<WakeRunView['usage']>): void {
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
  const usage = {
    input_tokens: Math.round(num(u.usage?.input_tokens)),
    output_tokens: Math.round(num(u.usage?.output_tokens)),
    cost_usd: num(u.total_cost_usd),
  };
  try {
    recordUsage(hub, agentId, { usage });
  } catch (err) {
    process.stderr.write(
      `perch: the usage of a wake run of ${agentId} was not counted: ${err instanceof Error ? err.message : String(err)}\n`,
    );
  }
}

/**
 * Counts a failed run that confirmed nothing against the agent's action (maxFailures in a row switch it off and the
 * owner is told why); a success or a run that confirmed something clears the count. True when the action was switched
 * off now.
 */
export function countFailure(
  hub: Hub<FeatureServices>,
  armed: OutsideMemo<Set<string>>,
  row: WakeActionRow,
  r: { status: WakeRunStatus; error: string | null; confirmedSomething: boolean; maxFailures: number; name: string },
): boolean {
  const agentId = row.agent_id;
  if ((r.status === 'failed' || r.status === 'timed_out' || r.status === 'over_memory') && !r.confirmedSomething) {
    const failures = row.consecutive_failures + 1;
    const off =
      failures >= r.maxFailures
        ? {
            reason: `Perch switched ${r.name}'s wake action off: ${failures} runs in a row failed before confirming anything (last: ${r.error}). Check the command and its log, then set it again.`,
          }
        : null;
    armed.changing(() => hub.write(() => setWakeFailures(hub.db, agentId, failures, off, Date.now())));
    if (off) {
      hub.bus.publish({ kind: 'hub', value: { wake_off: { agent_id: agentId, reason: off.reason } } });
      process.stderr.write(`perch: ${off.reason}\n`);
      return true;
    }
  } else if (r.status === 'succeeded' || r.confirmedSomething) {
    if (row.consecutive_failures) hub.write(() => setWakeFailures(hub.db, agentId, 0, null, Date.now()));
  }
  return false;
}

/** Why a run was woken, in one line for the flight recorder: "3 events: message.created by sam, …". */
export function wakeWhy(why: WakeSummary): string {
  const named = why.reasons.map((r) => `${r.type}${r.by ? ` by ${r.by}` : ''}`).join(', ');
  return `${why.count} event${why.count === 1 ? '' : 's'}${named ? `: ${named}` : ''}`;
}
