// Group commit for the MCP door. Writing tool calls that arrive together (in one turn of the event loop)
// run one after the other in ONE transaction with one COMMIT (each call is its own savepoint, so a
// failing call changes nothing and the others still commit). Every answer is sent after that commit: a
// successful call is on disk before it returns, as without batching. Under load this turns N commits
// (each writing the same B-tree pages again) into one. Read-only tools do not wait for it, nor do tools
// the catalog marks groupCommitted: false; while the disk is full every call commits (or fails) alone.
import type { PerchHub } from '../hub/services';

/** Most writing calls committed together. */
const MAX_BATCH = 64;

/** One call: run() does its work inside the transaction; settle() answers once the batch has committed (or not). */
export interface Unit {
  run(): void;
  /** commitError is undefined when the batch committed. */
  settle(commitError: unknown): void;
}

export class GroupCommit {
  private readonly queue: Unit[] = [];
  private drainScheduled = false;
  private readonly drainBound = () => this.drain();

  constructor(private readonly hub: Pick<PerchHub, 'batch' | 'storageFull'>) {}

  /**
   * Runs a call: in the next batch when it is groupCommitted, else (and while the disk is full, so a
   * failure rolls back only its own call and get_updates still answers when its save fails) at once,
   * alone, and settled right away.
   */
  submit(unit: Unit, groupCommitted: boolean): void {
    if (!groupCommitted || this.hub.storageFull) {
      unit.run();
      unit.settle(undefined);
      return;
    }
    this.queue.push(unit);
    if (!this.drainScheduled) {
      this.drainScheduled = true;
      setImmediate(this.drainBound);
    }
  }

  private drain(): void {
    this.drainScheduled = false;
    const units = this.queue.splice(0, MAX_BATCH);
    if (this.queue.length) {
      this.drainScheduled = true;
      setImmediate(this.drainBound);
    }
    let commitError: unknown;
    try {
      this.hub.batch(() => {
        for (const u of units) u.run();
      });
    } catch (err) {
      commitError = err ?? new Error('commit failed');
    }
    for (const u of units) u.settle(commitError);
  }
}
