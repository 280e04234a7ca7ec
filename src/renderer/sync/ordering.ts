// Live events of each conversation applied in seq order, each once: the one place that decides when an
// event is applied, held back, dropped as a duplicate, or a gap is filled from history.
// Pure TypeScript: no DOM, no stores, no transport. The caller says where a timeline stands, how to apply
// events to it and how to read history after a seq (see sync/timeline.ts); test/unit/ui-ordering.test.ts drives it.

export interface Sequenced {
  seq: number;
}

/** A page of history after a seq, oldest first (conversations.history with after_seq). */
export interface PageAfter<E> {
  events: E[];
  more: boolean;
}

export interface OrderingHost<E> {
  /**
   * Where a conversation's loaded timeline stands: null when none is loaded (its events are not kept),
   * ready false while its first page loads (events are held until it is in).
   */
  position(convId: string): { lastSeq: number; ready: boolean } | null;
  /** Applies events above the position, oldest first; the host moves its position to the last one. */
  apply(convId: string, events: E[]): void;
  /** Reads history after a seq. */
  fetchAfter(convId: string, afterSeq: number): Promise<PageAfter<E>>;
}

export interface Ordering<E> {
  /** A live event: applied now when it is the next seq, dropped when already applied, held otherwise. */
  offer(convId: string, ev: E): void;
  /** Applies what is held and now in order (after a first page or a catch-up); a gap starts a catch-up. */
  drain(convId: string): void;
  /** Fills a timeline from its position (after a gap or a reconnect), then drains what is held. */
  catchUp(convId: string): Promise<void>;
  /** Drops what is held for a conversation (its timeline failed to load). */
  forget(convId: string): void;
  /** How many events are held for a conversation. */
  held(convId: string): number;
}

/** Pages read per catch-up at most (the next event or reconnect continues). */
export const CATCH_UP_PAGES = 50;

export function createOrdering<E extends Sequenced>(host: OrderingHost<E>, maxPages = CATCH_UP_PAGES): Ordering<E> {
  const pending = new Map<string, E[]>();
  const catching = new Set<string>();

  const hold = (convId: string, ev: E): void => {
    const list = pending.get(convId) ?? [];
    list.push(ev);
    pending.set(convId, list);
  };

  const applyNew = (convId: string, events: E[]): void => {
    if (events.length > 0) host.apply(convId, events);
  };

  function offer(convId: string, ev: E): void {
    const at = host.position(convId);
    if (!at) return;
    if (!at.ready || catching.has(convId)) hold(convId, ev);
    else if (ev.seq <= at.lastSeq) {
      /* already applied */
    } else if (ev.seq === at.lastSeq + 1) applyNew(convId, [ev]);
    else {
      hold(convId, ev);
      void catchUp(convId);
    }
  }

  function drain(convId: string, fillGap = true): void {
    const list = (pending.get(convId) ?? []).sort((a, b) => a.seq - b.seq);
    pending.delete(convId);
    const at = host.position(convId);
    if (!at || list.length === 0) return;
    let last = at.lastSeq;
    const inOrder: E[] = [];
    for (let i = 0; i < list.length; i++) {
      const ev = list[i]!;
      if (ev.seq <= last) continue;
      if (ev.seq !== last + 1) {
        pending.set(convId, list.slice(i));
        applyNew(convId, inOrder);
        if (fillGap) void catchUp(convId);
        return;
      }
      inOrder.push(ev);
      last = ev.seq;
    }
    applyNew(convId, inOrder);
  }

  async function catchUp(convId: string): Promise<void> {
    if (catching.has(convId)) return;
    catching.add(convId);
    let failed = false;
    try {
      for (let pages = 0; pages < maxPages; pages++) {
        const at = host.position(convId);
        if (!at || !at.ready) break;
        const page = await host.fetchAfter(convId, at.lastSeq);
        applyNew(
          convId,
          page.events.filter((e) => e.seq > at.lastSeq),
        );
        if (!page.more) break;
      }
    } catch {
      failed = true; // the next event or reconnect tries again (not a retry loop while the hub is away)
    } finally {
      catching.delete(convId);
      drain(convId, !failed);
    }
  }

  return {
    offer,
    drain: (convId) => drain(convId),
    catchUp,
    forget: (convId) => void pending.delete(convId),
    held: (convId) => pending.get(convId)?.length ?? 0,
  };
}
