// Wake runs, writing a run's record: each change of its row (with where it lives in the OS, stored beside it while it
// runs: store/tables/agents/wake-keep.ts) and the owner's live view of it. A run's end that cannot be written (a full
// disk) is kept and written again on a timer (every PENDING_FIRST_MS, doubling to PENDING_MAX_MS) until the write
// works, so its row does not stay running (the next start would then mark a success interrupted); other changes that
// fail are dropped with a line on stderr. The ends kept are tried once more when the hub closes.
import type { Hub } from '../core/hub';
import { insertWakeRun, updateWakeRun, wakeRunById, type WakeRunRow } from '../../store/tables/agents/wake';
import { databaseIdentity, setRunPlace } from '../../store/tables/agents/wake-keep';
import type { WakeResources, WakeSummary } from '../../../shared/agents/wake';
import { wakeWhy } from './run-end';
import type { RunPlace } from './launcher';
import { runView } from './run-view';
import { appendPerchEvent } from '../core/ledger-chain';

const PENDING_FIRST_MS = 500;
const PENDING_MAX_MS = 30_000;

type RecordsHub = Hub<{ wakeRuns: { liveResources(runId: string): WakeResources | null } }>;

/** A run's row added, and its start in the flight recorder, inside the caller's transaction. */
export function insertRun(hub: Pick<Hub, 'db' | 'now'>, row: WakeRunRow, why: WakeSummary): void {
  insertWakeRun(hub.db, row);
  appendPerchEvent(hub, row.agent_id, { event: 'wake_run_started', run_id: row.id, run_kind: row.kind, why: wakeWhy(why) });
}

/** A run's end written (a patch with ended_at), and in the flight recorder, inside the caller's transaction. */
export function endRun(hub: Pick<Hub, 'db' | 'now'>, runId: string, patch: Partial<WakeRunRow>): void {
  updateWakeRun(hub.db, runId, patch);
  endInLedger(hub, runId);
}

/** A run's end in the flight recorder (hub/core/ledger-chain.ts), with the end the same transaction writes. */
export function endInLedger(hub: Pick<Hub, 'db' | 'now'>, runId: string): void {
  const r = wakeRunById(hub.db, runId);
  if (!r || r.ended_at === null) return;
  appendPerchEvent(hub, r.agent_id, {
    event: 'wake_run_ended',
    run_id: r.id,
    status: r.status,
    exit_code: r.exit_code,
    signal: r.signal,
    duration_ms: Math.max(0, r.ended_at - r.started_at),
    error: r.error,
  });
}

export class RunRecords {
  /** Ends not written yet, in the order they came: run → its end, and whether its place goes with it (null) or stays. */
  private readonly pending = new Map<string, { patch: Partial<WakeRunRow>; place: null | undefined }>();
  private timer: NodeJS.Timeout | undefined;
  private delayMs = PENDING_FIRST_MS;

  constructor(private readonly hub: RecordsHub) {}

  /** Ends waiting for the disk. */
  get pendingEnds(): number {
    return this.pending.size;
  }

  /**
   * Writes a change of a run's record; place: where it lives now (stored beside it). end: the run is over (its place
   * goes), and if the write fails the end is kept and written once the disk allows.
   */
  update(runId: string, patch: Partial<WakeRunRow>, opts: { place?: RunPlace; end?: boolean } = {}): void {
    try {
      this.write(runId, patch, opts.end ? null : opts.place);
    } catch (err) {
      if (opts.end) {
        process.stderr.write(
          `perch: the end of wake run ${runId} is not recorded yet (${(err as Error).message}); it is kept and written once the disk allows\n`,
        );
        this.keep(runId, patch, null);
      } else {
        process.stderr.write(`perch: wake run ${runId} not recorded: ${(err as Error).message}\n`);
      }
      return;
    }
    this.publish(runId);
  }

  /**
   * Keeps a run's end that could not be written (a full disk) and writes it once the disk allows; place: null, its
   * place goes with it; undefined, its place stays (a leftover run still being ended: wake-restart.ts).
   */
  keep(runId: string, patch: Partial<WakeRunRow>, place: null | undefined): void {
    this.pending.set(runId, { patch, place });
    this.arm();
  }

  publish(runId: string): void {
    if (!this.hub.bus.hasSubscribers()) return;
    const row = wakeRunById(this.hub.db, runId);
    if (row) this.hub.bus.publish({ kind: 'hub', value: { wake_run: runView(this.hub, row) } });
  }

  /** The hub closes: the kept ends are tried once more, then no more. */
  close(): void {
    this.flush();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** place: where the run lives now; null: nowhere any more (its end); undefined: unchanged. */
  private write(runId: string, patch: Partial<WakeRunRow>, place: RunPlace | null | undefined): void {
    this.hub.write(() => {
      updateWakeRun(this.hub.db, runId, patch);
      if (place !== undefined)
        setRunPlace(this.hub.db, runId, place && JSON.stringify({ ...place, hub: databaseIdentity(this.hub.db) ?? undefined }));
      if (place === null) endInLedger(this.hub, runId);
    });
  }

  /** Writes the kept ends, in order; what still fails waits for the next try. */
  private flush(): void {
    for (const [runId, { patch, place }] of this.pending) {
      try {
        this.write(runId, patch, place);
      } catch {
        break; // the disk is still full: the rest waits too
      }
      this.pending.delete(runId);
      process.stderr.write(`perch: the end of wake run ${runId} is recorded now that the disk allows\n`);
      this.publish(runId);
    }
    if (this.pending.size === 0) this.delayMs = PENDING_FIRST_MS;
  }

  private arm(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
      if (this.pending.size) {
        this.delayMs = Math.min(this.delayMs * 2, PENDING_MAX_MS);
        this.arm();
      }
    }, this.delayMs);
    this.timer.unref();
  }
}
