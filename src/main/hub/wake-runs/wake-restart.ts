// Wake runs across a restart of the hub. A hub killed with SIGKILL (or a crash) ends none of its runs: their processes
// live on, and their rows still say running. The next hub, before it starts anything, takes each such run: records it
// interrupted, asks the launcher to end what is left of it (only after checking it is still that run: its cgroup, or
// its root's start time; launcher/runner.ts endLeftover) and counts it against the limit, and against its agent, until
// nothing of it is alive. Its agent is queued again (its wakes were not answered), before the queue the previous hub
// stored (wake-queue.ts): so across any restart at most at_once runs live, one per agent, and no queued wake is lost.
import type { Hub } from '../core/hub';
import { INTERRUPTED_ERROR, interruptLeftoverRuns, type WakeRunRow } from '../../store/tables/agents/wake';
import { databaseIdentity, dropStalePlaces, leftoverRuns, runPlaceOf, setRunPlace } from '../../store/tables/agents/wake-keep';
import type { RunPlace, WakeLauncher } from './launcher';
import type { QueuedRun } from './wake-queue';

export interface Leftover {
  runId: string;
  agentId: string;
  wokenAt: number;
  /** Resolves once nothing of the run is alive (or nothing can be found that is surely it). */
  gone: Promise<void>;
}

function placeOf(text: string | undefined): RunPlace | null {
  if (!text) return null;
  try {
    const p = JSON.parse(text) as RunPlace;
    if (p.hub !== undefined && typeof p.hub !== 'string') return null;
    return typeof p.pid === 'number' ? p : null;
  } catch {
    return null;
  }
}

/**
 * The runs a previous hub left running, recorded interrupted now; each being ended by the launcher. On a full disk the
 * hub still starts: the interrupted records are handed to keep (written once the disk allows), the runs ended all the
 * same.
 */
export function takeLeftovers(hub: Hub, launcher: WakeLauncher, keep: (runId: string, patch: Partial<WakeRunRow>) => void): Leftover[] {
  const rows = leftoverRuns(hub.db);
  const places = new Map(rows.map((r) => [r.id, placeOf(runPlaceOf(hub.db, r.id))]));
  const at = Date.now();
  try {
    hub.write(() => interruptLeftoverRuns(hub.db, at));
  } catch (err) {
    process.stderr.write(
      `perch: the wake runs a previous hub left are not recorded interrupted yet (${(err as Error).message}); they are ended now and recorded once the disk allows\n`,
    );
    for (const r of rows) if (r.status === 'running') keep(r.id, { status: 'interrupted', ended_at: at, error: INTERRUPTED_ERROR });
  }
  const here = databaseIdentity(hub.db);
  return rows.map((r) => {
    const place = places.get(r.id) ?? null;
    // A place stamped by another database file: this data dir is a copy, and the run is the original hub's (its
    // processes may be alive under that hub). Recorded interrupted here, its processes left alone.
    const elsewhere = place?.hub !== undefined && here !== null && place.hub !== here;
    if (elsewhere)
      process.stderr.write(
        `perch: wake run ${r.id} was started by the hub of another data dir (this one is a copy of it): recorded interrupted here, its processes left alone\n`,
      );
    const ending = elsewhere || !launcher.endLeftover ? Promise.resolve() : launcher.endLeftover(r.id, place);
    const gone = ending
      .catch((err: unknown) => {
        process.stderr.write(`perch: what was left of wake run ${r.id} could not be ended: ${(err as Error).message}\n`);
      })
      .then(() => {
        try {
          hub.write(() => setRunPlace(hub.db, r.id, null));
        } catch {
          /* dropped at the next start (dropStalePlaces) */
        }
      });
    return { runId: r.id, agentId: r.agent_id, wokenAt: r.woken_at, gone };
  });
}

/** Places of runs that are not running any more (written before their end was, or left by a failed delete). */
export function sweepPlaces(hub: Hub): void {
  try {
    hub.write(() => dropStalePlaces(hub.db));
  } catch {
    /* next start */
  }
}

/**
 * The queue a starting hub takes up: the agents of the runs it found left (they were woken first, and their wakes were
 * not answered), then the queue the previous hub stored, in its order; one entry per agent, the owner's wakes first.
 */
export function restoredQueue(left: Leftover[], stored: QueuedRun[]): QueuedRun[] {
  const out: QueuedRun[] = [];
  const seen = new Set<string>();
  for (const q of [...left.map((l) => ({ agentId: l.agentId, since: Date.now(), wokenAt: l.wokenAt, byOwner: false })), ...stored]) {
    if (seen.has(q.agentId)) continue;
    seen.add(q.agentId);
    out.push(q);
  }
  return [...out.filter((q) => q.byOwner), ...out.filter((q) => !q.byOwner)];
}
