// One timer for "the soonest thing falls due": request expiry (requests.ts) and floor expiry (floor.ts).
// It is armed for the soonest due time (no polling), re-armed after firing, retried a little later when
// the database is busy (SQLITE_BUSY) or a read fails instead of giving up, unref'd so it never keeps the
// process alive, and stopped by close() (its owner registers that with hub.onClose).

/** setTimeout's longest delay; a later due time is re-armed when this fires. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export interface DeadlineOptions {
  /** The soonest due time (ms on the clock of now()), or null when nothing is due. May throw (database busy). */
  next: () => number | null;
  /** Handles everything due now. May throw (database busy): it is retried after retryMs. */
  fire: () => void;
  /** The clock next() speaks in (the hub's). */
  now: () => number;
  /** Wait before trying again after next() or fire() threw. Default 5000 ms. */
  retryMs?: number;
  /** Added to the delay so the soonest item is surely due when the timer fires. Default 1 ms. */
  slackMs?: number;
}

export interface DeadlineTimer {
  /** Re-reads the soonest due time now and arms for it. Never throws (a failed read is retried later). */
  arm(): void;
  /**
   * Re-arms once the current synchronous work is over (a microtask), so it never reads a transaction
   * that may still roll back (writes are synchronous; a microtask runs after their commit).
   */
  armSoon(): void;
  /** Stops for good: no timer fires afterwards. */
  close(): void;
  /** The due time the timer is armed for, or null (for tests and logs). */
  readonly armedFor: number | null;
  readonly closed: boolean;
}

export function deadlineTimer(opts: DeadlineOptions): DeadlineTimer {
  const retryMs = opts.retryMs ?? 5000;
  const slackMs = opts.slackMs ?? 1;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let at: number | null = null;
  let queued = false;
  let closed = false;

  function clear(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    at = null;
  }

  function start(delay: number, fn: () => void): void {
    timer = setTimeout(fn, Math.min(Math.max(delay, 0), MAX_TIMER_MS));
    timer.unref?.();
  }

  /** A read or the handler failed (busy database, or closing): try again later. */
  function retryLater(): void {
    clear();
    if (closed) return;
    start(retryMs, () => {
      timer = null;
      arm();
    });
  }

  function arm(): void {
    if (closed) return;
    let next: number | null;
    try {
      next = opts.next();
    } catch {
      retryLater();
      return;
    }
    if (next === null) {
      clear();
      return;
    }
    if (timer && at === next) return;
    clear();
    at = next;
    start(next - opts.now() + slackMs, () => {
      timer = null;
      at = null;
      if (closed) return;
      try {
        opts.fire();
      } catch {
        retryLater();
        return;
      }
      arm();
    });
  }

  return {
    arm,
    armSoon() {
      if (closed || queued) return;
      queued = true;
      queueMicrotask(() => {
        queued = false;
        arm();
      });
    },
    close() {
      closed = true;
      clear();
    },
    get armedFor() {
      return at;
    },
    get closed() {
      return closed;
    },
  };
}
