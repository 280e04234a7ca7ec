// Requests expire on time through one timer per hub, and lazily on every read, so a late or missed timer never
// shows a wrong state.
import type { TalkServices } from '../../talk/services';
import type { Hub } from '../../core/hub';
import { conversationById } from '../../../store/tables/talk/conversations';
import { dueRequests, finishRequest, nextRequestExpiry, type RequestRow } from '../../../store/tables/talk/requests';
import { isTerminalTask } from '../../talk/access';
import { deadlineTimer, type DeadlineTimer } from '../../core/deadlines';
import type { PromptWaits } from './prompt-waits';

/** The hub as this module reaches it: the services it uses (the whole set: src/main/hub/services.ts). */
export type RequestsHub = Hub<TalkServices & { requestExpiry: RequestExpiry; promptWaits: PromptWaits }>;

/** A decision is addressed to the requester; in an ended task nobody is woken (DESIGN invariant 3). */
export function requesterWake(hub: RequestsHub, r: RequestRow): string[] {
  const conv = conversationById(hub.db, r.conv_id);
  return conv && isTerminalTask(conv) ? [] : [r.requester_id];
}

/** The hub's request-expiry timer (deadlines.ts), made on the first request or by startRequestExpiry. */
export class RequestExpiry {
  private timer: DeadlineTimer | undefined = undefined;

  constructor(private readonly hub: RequestsHub) {}

  /** The timer, made on first use (it stops when the hub closes). */
  ensure(): DeadlineTimer {
    let t = this.timer;
    if (!t) {
      const hub = this.hub;
      const timer = deadlineTimer({ next: () => nextRequestExpiry(hub.db), fire: () => expireDueRequests(hub), now: () => hub.now() });
      this.timer = t = timer;
      hub.onClose(() => timer.close());
    }
    return t;
  }

  /** Requests changed: the timer (if any) re-reads the soonest expiry. */
  armSoon(): void {
    this.timer?.armSoon();
  }
}

/** Expires every pending request whose time is up (request.expired wakes its requester). Returns how many. */
export function expireDueRequests(hub: RequestsHub): number {
  const now = hub.now();
  // Outside a transaction, check cheaply first so reads do not take the write lock for nothing.
  if (!hub.db.inTransaction && dueRequests(hub.db, now).length === 0) return 0;
  const n = hub.write(() => {
    let count = 0;
    for (const r of dueRequests(hub.db, now)) {
      if (!finishRequest(hub.db, r.id, { state: 'expired', outcome: null, at: now, by: null })) continue;
      hub.emit(r.conv_id, 'request.expired', null, {
        msgId: r.msg_id,
        data: { request_id: r.id, state: 'expired', expires_at: r.expires_at },
        wake: requesterWake(hub, r),
      });
      count++;
    }
    return count;
  });
  if (n) hub.services.requestExpiry.armSoon();
  return n;
}

/** Makes sure the hub's expiry timer runs (started on the first request if the door did not start it). */
export function ensureExpiry(hub: RequestsHub): DeadlineTimer {
  const t = hub.services.requestExpiry.ensure();
  t.armSoon();
  return t;
}

/**
 * Starts expiring requests on time: expires what is already overdue (e.g. across a restart),
 * then keeps one timer for the next expiry. Idempotent; stopped by hub.close().
 */
export function startRequestExpiry(hub: RequestsHub): void {
  ensureExpiry(hub);
  expireDueRequests(hub);
}
