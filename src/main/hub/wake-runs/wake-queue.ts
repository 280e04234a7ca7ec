// Wake runs, the limits across the fleet and the queue: how many runs may live at once (a hub setting; by default from
// the machine's cores and memory), the machine's memory floor below which no new run starts, and the runs waiting for
// a slot, the owner's own wakes first, then first come first served. The policy (wake-runs.ts) asks gate() before it
// starts a run and takes the next queued run as soon as one ends; this module keeps the order and reads the settings
// (each time, so a change made from the CLI on the file counts at once too). The queue is stored on each change
// (store/tables/agents/wake-keep.ts), so a hub stopped or killed finds it again, in order, when it starts.
import os from 'node:os';
import type { Hub } from '../core/hub';
import { getSetting } from '../../store/tables/talk/settings';
import { storeWakeQueue, storedWakeQueue } from '../../store/tables/agents/wake-keep';
import { defaultAtOnce, type WakeContainment, type WakeLimits, type WakeQueued } from '../../../shared/agents/wake';
import type { MachineMemory, WakeLauncher } from './launcher';

/** Hub settings (settings table) of the limits across the fleet; set with wake.limits.set (wake-limits.ts). */
export const AT_ONCE_SETTING = 'wake_at_once';
export const FLOOR_SETTING = 'wake_min_free_mb';
export const MiB = 1024 * 1024;

/** A wake waiting for a slot. */
export interface QueuedRun {
  agentId: string;
  since: number;
  wokenAt: number;
  byOwner: boolean;
}

export class WakeQueue {
  /** Runs waiting for a slot, in the order they start: the owner's wakes, then the others, each first come first served. */
  private list: QueuedRun[] = [];
  private defaultAtOnce: number | undefined;
  /** The stored queue is behind the one here (its last write failed): written again at the next change or retry. */
  private unsaved = false;

  constructor(
    private readonly hub: Hub,
    private readonly launcher: WakeLauncher | null,
  ) {}

  get length(): number {
    return this.list.length;
  }

  /** Queues a wake: the owner's own go before every other waiting run (after the owner's earlier ones). */
  add(q: QueuedRun, opts: { front?: boolean } = {}): void {
    const at = opts.front ? 0 : q.byOwner ? this.list.findIndex((x) => !x.byOwner) : -1;
    if (at < 0) this.list.push(q);
    else this.list.splice(at, 0, q);
    this.save();
  }

  /** The first run in order that may start now (taken off the queue). */
  takeFirst(may: (q: QueuedRun) => boolean): QueuedRun | undefined {
    const i = this.list.findIndex(may);
    if (i < 0) return undefined;
    const [q] = this.list.splice(i, 1);
    this.save();
    return q;
  }

  remove(q: QueuedRun): void {
    this.list = this.list.filter((x) => x !== q);
    this.save();
  }

  /** Empties the queue here only (the hub closes): the stored queue stays for the next start. */
  clear(): void {
    this.list = [];
  }

  /** The queue a previous hub stored, in order (the hub starts). */
  stored(): QueuedRun[] {
    return storedWakeQueue(this.hub.db);
  }

  /** The queue at start (wake-restart.ts restoredQueue), stored as it is now. */
  restore(list: QueuedRun[]): void {
    this.list = [...list];
    this.save();
  }

  /** Writes the queue as it is here (a failed write is retried at the next change, or by retrySave). */
  save(): void {
    try {
      this.hub.write(() => storeWakeQueue(this.hub.db, this.list));
      this.unsaved = false;
    } catch (err) {
      if (!this.unsaved)
        process.stderr.write(
          `perch: the wake queue was not stored (${(err as Error).message}); it is kept here and stored again once the disk allows\n`,
        );
      this.unsaved = true;
    }
  }

  /** Whether the stored queue is behind (a write failed). */
  get behind(): boolean {
    return this.unsaved;
  }

  /** The agent's place in the queue (0-based), or -1. */
  indexOf(agentId: string): number {
    return this.list.findIndex((q) => q.agentId === agentId);
  }

  /** The queue as the owner sees it, in order. */
  views(nameOf: (id: string) => string): WakeQueued[] {
    return this.list.map((q, i) => queuedView(q, i, nameOf));
  }

  /**
   * The limits, the machine, and what runs (given, in any order) and waits now. brief (the fleet item): no machine, so
   * it changes only when runs start, end or queue.
   */
  limits(
    running: WakeLimits['running'],
    opts: { brief: boolean; nameOf: (id: string) => string; containment: WakeContainment | null },
  ): WakeLimits {
    const at = this.atOnce();
    const m = opts.brief ? null : this.machine();
    const floorWhy = this.list.length ? this.belowFloor() : null;
    return {
      at_once: at.value,
      at_once_default: at.isDefault,
      min_free_mb: this.floorMb(),
      machine: m && { cores: m.cores, total_mb: Math.round(m.total_bytes / MiB), available_mb: Math.round(m.available_bytes / MiB) },
      running: [...running].sort((a, b) => a.since - b.since),
      queued: this.views(opts.nameOf),
      blocked: floorWhy ? `No new run starts: ${floorWhy}.` : null,
      containment: opts.brief ? null : opts.containment,
    };
  }

  /** The machine now: the launcher's reading (procfs on Linux), else the OS's free memory. */
  machine(): MachineMemory {
    return (
      this.launcher?.machine?.() ?? {
        cores: typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length,
        total_bytes: os.totalmem(),
        available_bytes: os.freemem(),
      }
    );
  }

  /** Runs alive at once at most: the owner's setting, else the default from the machine (read when the hub started). */
  atOnce(): { value: number; isDefault: boolean } {
    const set = Number(getSetting(this.hub.db, AT_ONCE_SETTING));
    if (Number.isInteger(set) && set >= 1) return { value: set, isDefault: false };
    this.defaultAtOnce ??= (() => {
      const m = this.machine();
      return defaultAtOnce(m.cores, m.available_bytes);
    })();
    return { value: this.defaultAtOnce, isDefault: true };
  }

  floorMb(): number {
    const n = Number(getSetting(this.hub.db, FLOOR_SETTING) ?? 0);
    return Number.isFinite(n) && n > 0 ? n : 0;
  }

  /** Why no run may start now, with `alive` runs living (all slots taken, or memory below the floor); null: one may. */
  gate(alive: number): string | null {
    const atOnce = this.atOnce().value;
    if (alive >= atOnce) return `${atOnce} run${atOnce === 1 ? '' : 's'} at once, all running`;
    return this.belowFloor();
  }

  belowFloor(): string | null {
    const floor = this.floorMb();
    if (!floor) return null;
    const available = Math.floor(this.machine().available_bytes / MiB);
    return available < floor ? `the machine has ${available} MB available, below the floor of ${floor} MB` : null;
  }
}

export function queuedView(q: QueuedRun, i: number, nameOf: (id: string) => string): WakeQueued {
  return { agent: { id: q.agentId, name: nameOf(q.agentId) }, since: q.since, position: i + 1, by_owner: q.byOwner };
}
