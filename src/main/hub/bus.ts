// In-process wake-ups and live subscriptions. No polling: waiters are promises resolved on commit.

export type { LiveEvent, LiveItem } from '../../shared/types';
import type { EventType, LiveItem } from '../../shared/types';

type Waiter = () => void;

export class Bus {
  private waiters = new Map<string, Set<Waiter>>();
  private subscribers = new Set<(item: LiveItem) => void>();

  /** Resolves 'woken' when the user is woken, 'timeout' after ms, 'aborted' when signal fires. */
  wait(userId: string, ms: number, signal?: AbortSignal): Promise<'woken' | 'timeout' | 'aborted'> {
    return new Promise((resolve) => {
      let set = this.waiters.get(userId);
      if (!set) this.waiters.set(userId, (set = new Set()));
      const done = (why: 'woken' | 'timeout' | 'aborted') => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const s = this.waiters.get(userId);
        if (s) {
          s.delete(waiter);
          if (s.size === 0) {
            this.waiters.delete(userId);
            this.publishWaiting(userId, false);
          }
        }
        resolve(why);
      };
      const waiter: Waiter = () => done('woken');
      const onAbort = () => done('aborted');
      const timer = setTimeout(() => done('timeout'), ms);
      set.add(waiter);
      if (set.size === 1) this.publishWaiting(userId, true);
      if (signal) {
        if (signal.aborted) return done('aborted');
        signal.addEventListener('abort', onAbort, { once: true });
      }
    });
  }

  /** The owner sees who is waiting for news, live: sent when a user's first wait starts or last one ends. */
  private publishWaiting(userId: string, waiting: boolean): void {
    if (this.subscribers.size) this.publish({ kind: 'hub', value: { waiting: { [userId]: waiting } } });
  }

  waitingCount(userId?: string): number {
    if (userId) return this.waiters.get(userId)?.size ?? 0;
    let n = 0;
    for (const s of this.waiters.values()) n += s.size;
    return n;
  }

  isWaiting(userId: string): boolean {
    return this.waiters.has(userId);
  }

  /** Wake runs: told of a wake that no waiting call heard (hub/wake-runs.ts starts the agent if it has a wake action). */
  onUnheard?: (userId: string) => void;

  wake(userId: string): void {
    const set = this.waiters.get(userId);
    if (!set) return void this.onUnheard?.(userId);
    for (const w of [...set]) w();
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
