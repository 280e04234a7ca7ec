// Who waits in this hub for a harness's permission prompt: the hook door holds each prompt it filed (or joined) for as
// long as its hook's connection waits for the decision. A prompt nobody holds has nobody left to tell the decision to,
// so it is not decided (owner-decisions.ts) but withdrawn (abandoned-prompts.ts). Kept in memory: a restart ends
// every hook's wait, and the start withdraws what was pending.
// Also the writes about such prompts that a full disk refused (a withdrawal, a delivery): kept here and written again
// once storage works (abandoned-prompts.ts retryUnwritten), so a card never stays pending for nobody.

/** How long after a refused write it is tried again (and again, while the disk stays full). */
export const RETRY_UNWRITTEN_MS = 2_000;

/** One hook waiting for a prompt: it stops counting once its signal fires (its connection closed), even before it lets go. */
interface Holder {
  signal?: AbortSignal;
}

export class PromptWaits {
  private readonly holders = new Map<string, Set<Holder>>();
  /** The pending prompt filed for one prompt of a harness session (joinKey → request id), while hooks hold it. */
  private readonly byPrompt = new Map<string, string>();
  private readonly keyOf = new Map<string, string>();
  /** Prompts a hook is filing right now: joinKey → the card's request id once filed (startFiling). */
  private readonly inFlight = new Map<string, Promise<string | undefined>>();
  /** Withdrawals a full disk refused: request id → why (the card's words). */
  readonly unwrittenWithdrawals = new Map<string, string>();
  /** Deliveries a full disk refused: request id → what became of it. */
  readonly unwrittenDeliveries = new Map<string, 'delivered' | 'undelivered'>();
  private timer: ReturnType<typeof setTimeout> | undefined = undefined;
  private closed = false;
  private closeHooked = false;

  /**
   * A hook waits for this prompt's decision until the returned release is called (once; later calls do nothing) or its
   * signal fires. joinKey: the harness session's prompt it is (prompt-joins.ts), so a second hook for it can join.
   */
  hold(requestId: string, signal?: AbortSignal, joinKey?: string): () => void {
    let set = this.holders.get(requestId);
    if (!set) this.holders.set(requestId, (set = new Set()));
    const holder: Holder = { signal };
    set.add(holder);
    if (joinKey && !this.keyOf.has(requestId)) {
      this.byPrompt.set(joinKey, requestId);
      this.keyOf.set(requestId, joinKey);
    }
    return () => {
      const s = this.holders.get(requestId);
      if (!s?.delete(holder) || s.size) return;
      this.holders.delete(requestId);
      const key = this.keyOf.get(requestId);
      this.keyOf.delete(requestId);
      if (key !== undefined && this.byPrompt.get(key) === requestId) this.byPrompt.delete(key);
    };
  }

  /** Whether a hook of this hub still waits for the prompt's decision (one whose connection is still open). */
  isWaited(requestId: string): boolean {
    for (const h of this.holders.get(requestId) ?? []) if (!h.signal?.aborted) return true;
    return false;
  }

  /**
   * A hook files this prompt now (joinKey as hold's): until the returned done is called (with the card's request id once
   * it holds it, or undefined when it filed none; later calls do nothing), filing(joinKey) hands a second hook for the
   * same prompt the card to join instead of letting it file its own.
   */
  startFiling(joinKey: string): (requestId: string | undefined) => void {
    let resolve!: (id: string | undefined) => void;
    const p = new Promise<string | undefined>((r) => (resolve = r));
    this.inFlight.set(joinKey, p);
    return (id) => {
      if (this.inFlight.get(joinKey) === p) this.inFlight.delete(joinKey);
      resolve(id);
    };
  }

  /** The card another hook is filing for this prompt right now (see startFiling), if any. */
  filing(joinKey: string): Promise<string | undefined> | undefined {
    return this.inFlight.get(joinKey);
  }

  /** The prompt another hook filed for the same prompt of a harness session and still waits for, if any. */
  joinable(joinKey: string): string | undefined {
    const id = this.byPrompt.get(joinKey);
    return id !== undefined && this.isWaited(id) ? id : undefined;
  }

  /** Runs retry once after RETRY_UNWRITTEN_MS, unless a retry is due already or the hub closed (onClose: the hub's). */
  retrySoon(retry: () => void, onClose: (stop: () => void) => void): void {
    if (this.timer || this.closed) return;
    if (!this.closeHooked) {
      this.closeHooked = true;
      onClose(() => this.close());
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      retry();
    }, RETRY_UNWRITTEN_MS);
    this.timer.unref?.();
  }

  /** The hub closes: no more retries (what is still unwritten is dealt with at the next start). */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
