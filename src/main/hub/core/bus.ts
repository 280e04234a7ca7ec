// In-process wake-ups and live subscriptions. No polling: waiters are promises resolved on commit.

export type { LiveEvent, LiveItem } from '../../../shared/api/event-log';
import type { EventType } from '../../../shared/types';
import type { LiveItem } from '../../../shared/api/event-log';

type Waiter = () => void;

/**
 * Waits keyed by id (a user, a pairing, …): promises resolved when the id is woken, after ms, or when the signal
 * aborts. onWaiting hears when an id's first wait starts and its last one ends.
 */
export class Waiters {
  private sets = new Map<string, Set<Waiter>>();

  constructor(private readonly onWaiting?: (id: string, waiting: boolean) => void) {}

  /** Resolves 'woken' when the id is woken, 'timeout' after ms, 'aborted' when signal fires. */
  wait(id: string, ms: number, signal?: AbortSignal): Promise<'woken' | 'timeout' | 'aborted'> {
    return new Promise((resolve) => {
      let set = this.sets.get(id);
      if (!set) this.sets.set(id, (set = new Set()));
      const done = (why: 'woken' | 'timeout' | 'aborted') => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const s = this.sets.get(id);
        if (s) {
          s.delete(waiter);
          if (s.size === 0) {
            this.sets.delete(id);
            this.onWaiting?.(id, false);
          }
        }
        resolve(why);
      };
      const waiter: Waiter = () => done('woken');
      const onAbort = () => done('aborted');
      const timer = setTimeout(() => done('timeout'), ms);
      set.add(waiter);
      if (set.size === 1) this.onWaiting?.(id, true);
      if (signal) {
        if (signal.aborted) return done('aborted');
        signal.addEventListener('abort', onAbort, { once: true });
      }
    });
  }

  /** Wakes every wait on id; false when none was waiting. */
  wake(id: string): boolean {
    const set = this.sets.get(id);
    if (!set) return false;
    for (const w of [...set]) w();
    return true;
  }

  /** Waits on id, or on every id. */
  count(id?: string): number {
    if (id !== undefined) return this.sets.get(id)?.size ?? 0;
    let n = 0;
    for (const s of this.sets.values()) n += s.size;
    return n;
  }

  has(id: string): boolean {
    return this.sets.has(id);
  }
}

export class Bus {
  private waiters = new Waiters((userId, waiting) => this.publishWaiting(userId, waiting));
  /** Waits of read-only keys (observers): woken with the user, but not the user listening (isWaiting, wakes heard). */
  private observers = new Waiters();
  private subscribers = new Set<(item: LiveItem) => void>();

  /**
   * Resolves 'woken' when the user is woken, 'timeout' after ms, 'aborted' when signal fires. observer: the wait of a
   * read-only key, which is woken as the user's but is not the user waiting (never shown, never hears a wake for it).
   */
  wait(userId: string, ms: number, signal?: AbortSignal, observer = false): Promise<'woken' | 'timeout' | 'aborted'> {
    return (observer ? this.observers : this.waiters).wait(userId, ms, signal);
  }

  /** Every wait under a user, an observer's too (the per-agent limit on waiting calls counts them all). */
  waitsOf(userId: string): number {
    return this.waiters.count(userId) + this.observers.count(userId);
  }

  /** Every waiting call of every user, observers' too. */
  allWaits(): number {
    return this.waiters.count() + this.observers.count();
  }

  /** The owner sees who is waiting for news, live: sent when a user's first wait starts or last one ends. */
  private publishWaiting(userId: string, waiting: boolean): void {
    if (this.subscribers.size) this.publish({ kind: 'hub', value: { waiting: { [userId]: waiting } } });
  }

  waitingCount(userId?: string): number {
    return this.waiters.count(userId || undefined);
  }

  isWaiting(userId: string): boolean {
    return this.waiters.has(userId);
  }

  private unheard = new Set<(userId: string) => void>();

  /**
   * Tells fn of every wake that no waiting call heard (hub/wake-runs/wake-runs.ts starts the agent if it has a wake
   * action). Returns the removal.
   */
  onUnheard(fn: (userId: string) => void): () => void {
    this.unheard.add(fn);
    return () => this.unheard.delete(fn);
  }

  wake(userId: string): void {
    this.observers.wake(userId);
    if (this.waiters.wake(userId) || this.unheard.size === 0) return;
    for (const fn of [...this.unheard]) {
      try {
        fn(userId);
      } catch {
        /* a broken listener never blocks the hub */
      }
    }
  }

  private viewerCounts = new Set<() => number>();

  /**
   * A door tells how many owner views it has open (the owner API's event streams; the desktop window): work done only
   * for what the owner sees (the live fleet, hub/control/fleet-live.ts) waits while none is open. Returns the removal.
   */
  countViewers(count: () => number): () => void {
    this.viewerCounts.add(count);
    return () => this.viewerCounts.delete(count);
  }

  /** Whether any door has an owner view open. */
  hasViewers(): boolean {
    for (const c of this.viewerCounts) if (c() > 0) return true;
    return false;
  }

  subscribe(fn: (item: LiveItem) => void): () => void {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
  }

  hasSubscribers(): boolean {
    return this.subscribers.size > 0;
  }

  publish(item: LiveItem): void {
    for (const fn of this.subscribers) {
      try {
        fn(item);
      } catch {
        /* a broken subscriber never blocks the hub */
      }
    }
  }
}

/**
 * The type of a published event, known without reading its value (the hub builds the owner's view of an event only
 * when a subscriber reads item.value: a subscriber that wants a few kinds of events asks this first). Kept beside
 * the item, not in it: the item itself goes to the owner's stream as it is.
 */
const eventTypes = new WeakMap<LiveItem, EventType>();

export function tagEventType(item: LiveItem, type: EventType): LiveItem {
  eventTypes.set(item, type);
  return item;
}

/** The event type tagged on an item by the hub (undefined for other items). */
export function eventTypeOf(item: LiveItem): EventType | undefined {
  return eventTypes.get(item);
}
