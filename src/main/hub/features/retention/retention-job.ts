// The retention job: applies the owner's rules (hub/features/retention/retention.ts) in small steps between requests, so an agent
// never waits on it for more than one step (a few milliseconds).
//
// A pass walks every conversation that follows a rule, in id order. For each: an idle one is archived
// (archive_idle_days, hub/talk/archive.ts); then its log is read in seq order from the start, and every event older
// than the rule's cutoff goes, unless it belongs to a message that stays (pinned, a request, see store/tables/talk/retention.ts
// KEPT); a message that goes takes all its events, reactions, card answers, files (their bytes), pin, request and
// hidden marks with it, and its search index entry is forgotten by the store's worker (search_forget). The walk of a
// conversation stops at its first event newer than the cutoff. Agents' summaries older than the cutoff go unless
// the rule keeps checkpoints.
// Each step is one transaction of at most `batch` rows (a message counts as its rows), then the job yields
// (setTimeout) before the next; after a pass, freed pages go back to the disk the same way, `vacuumPages` per step
// (incremental vacuum: files made by this version; see docs/guide/data.md for older files). Then it sleeps until the next pass
// (`intervalMs`, or at once when a rule changes).
// Export first (the owner's export_dir): before a pass deletes anything, the conversations it will delete from are
// exported whole (store/export/write.ts, its own read-only connection and read transaction, in short async steps)
// into that folder; the pass's cutoff is fixed when it starts, so everything it deletes is in the export. If the
// export fails, the pass is dropped before any deletion: the error is kept for retention.get (and logged), and the
// next pass tries again.
// The flight recorder (ledger_records) follows the hub's rule: once the conversations are done, whole days older than
// keep_days go, a step at a time (ledger-retention.ts).
import type { TalkHub } from '../../talk/services';
import { exportHub } from '../owner/export';
import { archiveConversation } from '../../talk/archive';
import {
  autoVacuumMode,
  conversationsAfter,
  deleteEvent,
  deleteMessageFully,
  deleteSummariesBefore,
  eventsAfterSeq,
  incrementalVacuum,
  messageKept,
  pruneSearchForget,
  retentionExportDir,
  type KeepFlags,
  type RetentionRuleRow,
} from '../../../store/tables/talk/retention';
import { searchForgotUpto } from '../../../store/worker/search-index';
import { DAY_MS, effectiveRule, exportFileName, idleToArchive, retentionDryRun, ruleTable } from './retention-plan';
import { ledgerStep, type LedgerPass } from './ledger-retention';

export interface RetentionOptions {
  /** Rows per step (one transaction). Default 100 (about 50 messages: 1-2 ms on a laptop). */
  batch?: number;
  /** Pause between steps while there is work (ms). Default 10. */
  gapMs?: number;
  /** Between passes (ms). Default one hour. */
  intervalMs?: number;
  /** Pages given back per vacuum step. Default 256 (1 MiB of 4 KiB pages). */
  vacuumPages?: number;
  /** Where a failed export-first is told (the running hub's log). */
  log?: (line: string) => void;
}

/** What one pass (or one step) removed. */
export interface RetentionTally {
  messages: number;
  events: number;
  files: number;
  file_bytes: number;
  summaries: number;
  archived: number;
  /** Flight-recorder records of whole days past the hub's keep_days. */
  ledger_records: number;
}

const emptyTally = (): RetentionTally => ({
  messages: 0,
  events: 0,
  files: 0,
  file_bytes: 0,
  summaries: 0,
  archived: 0,
  ledger_records: 0,
});

interface Current {
  convId: string;
  afterSeq: number;
  keep: KeepFlags;
  rule: RetentionRuleRow;
}

interface Pass {
  at: number;
  table: ReturnType<typeof ruleTable>;
  /** Conversations not yet looked at (fetched a page at a time after `cursor`). */
  queue: ReturnType<typeof conversationsAfter>;
  cursor: string;
  exhausted: boolean;
  current: Current | undefined;
  tally: RetentionTally;
  /** Export first: the export of what this pass deletes is written (or none was asked for). */
  exported: boolean;
  /** The ledger's part (ledger-retention.ts): the next record to look at, walking back; null once done. */
  ledger?: LedgerPass | null;
}

export class Retention {
  private readonly batch: number;
  private readonly gapMs: number;
  private readonly intervalMs: number;
  private readonly vacuumPages: number;
  private pass: Pass | undefined;
  private vacuuming = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private started = false;
  private closed = false;
  /** The export being written before a pass deletes (export-first); the pass waits for it. */
  private exporting: Promise<void> | undefined;
  /** The last pass's tally (for logs and tests). */
  lastPass: RetentionTally | undefined;
  /** The last export written before a pass deleted (export-first). */
  lastExport: { at: number; file: string; conversations: number } | undefined;
  /** Why the last export-first failed (cleared by one that works). */
  exportError: { at: number; message: string } | undefined;

  constructor(
    private readonly hub: TalkHub,
    private readonly opts: RetentionOptions = {},
  ) {
    this.batch = opts.batch ?? 100;
    this.gapMs = opts.gapMs ?? 10;
    this.intervalMs = opts.intervalMs ?? 60 * 60 * 1000;
    this.vacuumPages = opts.vacuumPages ?? 256;
  }

  /** Starts the job (a running hub, app.ts); it stops when the hub closes. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.hub.onClose(() => {
      this.closed = true;
      if (this.timer) clearTimeout(this.timer);
    });
    this.schedule(1000);
  }

  /** A rule changed: a new pass starts soon (the one under way is dropped; what it removed stays removed). */
  rulesChanged(): void {
    this.pass = undefined;
    if (this.started) this.schedule(50);
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), ms);
    this.timer.unref?.();
  }

  private tick(): void {
    this.timer = undefined;
    if (this.closed) return;
    let more: boolean;
    try {
      more = this.step();
    } catch {
      this.pass = undefined; // busy or full disk: a new pass later
      this.schedule(5000);
      return;
    }
    if (this.exporting) return; // the export schedules the next step when it ends
    this.schedule(more ? this.gapMs : this.intervalMs);
  }

  /** Runs a whole pass now, step by step, waiting for its export first (tests); returns the pass's tally. */
  async runNow(): Promise<RetentionTally> {
    if (this.exporting) await this.exporting;
    this.pass = undefined;
    for (;;) {
      const more = this.step();
      if (this.exporting) await this.exporting;
      else if (!more) break;
    }
    return this.lastPass ?? emptyTally();
  }

  /** Starts the export of what the pass will delete; true when the pass must wait for it. */
  private exportFirst(pass: Pass): boolean {
    const dir = retentionExportDir(this.hub.db);
    if (dir === undefined) return false;
    const plan = retentionDryRun(this.hub, undefined, pass.at);
    const convs = plan.conversations.filter((c) => c.messages + c.events + c.summaries > 0).map((c) => c.conv_id);
    if (!convs.length) return false;
    const file = exportFileName(dir, pass.at);
    this.exporting = exportHub(this.hub, { conversations: convs }, file)
      .then(
        () => {
          this.lastExport = { at: pass.at, file, conversations: convs.length };
          this.exportError = undefined;
          pass.exported = true;
        },
        (err: unknown) => {
          const message = `retention: could not export to ${dir} before deleting (${(err as Error).message}); nothing was deleted, the next pass tries again.`;
          this.exportError = { at: this.hub.now(), message };
          this.opts.log?.(message);
        },
      )
      .finally(() => {
        this.exporting = undefined;
        if (this.started) this.schedule(this.gapMs);
      });
    return true;
  }

  /** One bounded step of work; true when there is more. */
  step(): boolean {
    if (this.vacuuming) return this.vacuumStep();
    if (!this.pass) {
      const table = ruleTable(this.hub);
      if (!table.hub && table.byConv.size === 0) {
        this.lastPass = emptyTally();
        return false;
      }
      this.pass = {
        at: this.hub.now(),
        table,
        queue: [],
        cursor: '',
        exhausted: false,
        current: undefined,
        tally: emptyTally(),
        exported: false,
      };
      if (this.exportFirst(this.pass)) return true;
      this.pass.exported = true;
    }
    if (this.exporting) return true;
    const pass = this.pass;
    if (!pass.exported) {
      this.pass = undefined; // its export failed: nothing is deleted, the next pass tries again
      this.lastPass = emptyTally();
      return false;
    }
    const done = this.hub.write(() => this.work(pass) && ledgerStep(this.hub, pass, this.batch));
    const upto = searchForgotUpto(this.hub.db);
    if (upto !== undefined && upto > 0) this.hub.write(() => pruneSearchForget(this.hub.db, upto));
    if (!done) return true;
    this.lastPass = pass.tally;
    this.pass = undefined;
    this.vacuuming = autoVacuumMode(this.hub.db) === 2;
    return this.vacuuming;
  }

  /** Gives up to vacuumPages free pages back; true while free pages remain. */
  private vacuumStep(): boolean {
    const free = incrementalVacuum(this.hub.db, this.vacuumPages);
    this.vacuuming = free > this.vacuumPages;
    return this.vacuuming;
  }

  /** Up to `batch` rows of the pass, in the step's transaction; true when the pass is done. */
  private work(pass: Pass): boolean {
    const hub = this.hub;
    let budget = this.batch;
    while (budget > 0) {
      if (!pass.current) {
        if (pass.queue.length === 0) {
          if (pass.exhausted) return true;
          pass.queue = conversationsAfter(hub.db, pass.cursor, 100);
          if (pass.queue.length < 100) pass.exhausted = true;
          if (pass.queue.length === 0) return true;
          pass.cursor = pass.queue[pass.queue.length - 1].id;
        }
        const conv = pass.queue.shift()!;
        budget -= 1;
        const rule = effectiveRule(pass.table, conv.id)?.row;
        if (!rule) continue;
        if (idleToArchive(rule, conv, pass.at) && archiveConversation(hub, conv.id, 'retention', rule.archive_idle_days!).changed) {
          pass.tally.archived += 1;
          budget -= 2;
        }
        if (rule.keep_days === null) continue;
        const cutoff = pass.at - rule.keep_days * DAY_MS;
        if (rule.keep_checkpoints === 0) {
          const limit = Math.max(budget, 1);
          const n = deleteSummariesBefore(hub.db, conv.id, cutoff, limit);
          pass.tally.summaries += n;
          budget -= n;
          if (n === limit) {
            // there may be more: this conversation again, in this step or the next
            pass.queue.unshift(conv);
            continue;
          }
        }
        pass.current = {
          convId: conv.id,
          afterSeq: 0,
          rule,
          keep: { cutoff, pinned: rule.keep_pinned === 1, requests: rule.keep_requests === 1 },
        };
        continue;
      }
      const cur = pass.current;
      const ask = Math.max(1, Math.min(budget, 100));
      const rows = eventsAfterSeq(hub.db, cur.convId, cur.afterSeq, ask);
      let finished = false;
      let seen = 0;
      for (const row of rows) {
        if (row.ts >= cur.keep.cutoff) {
          finished = true;
          break;
        }
        seen += 1;
        cur.afterSeq = row.seq;
        budget -= 1;
        if (row.msg_id === null) {
          deleteEvent(hub.db, row.gid);
          pass.tally.events += 1;
          continue;
        }
        const kept = messageKept(hub.db, row.msg_id, cur.keep);
        if (kept === true) continue;
        if (kept === undefined) {
          deleteEvent(hub.db, row.gid);
          pass.tally.events += 1;
          continue;
        }
        const removed = deleteMessageFully(hub.db, row.msg_id);
        pass.tally.messages += 1;
        pass.tally.events += removed.events;
        pass.tally.files += removed.files;
        pass.tally.file_bytes += removed.file_bytes;
        budget -= removed.events + removed.files;
        if (budget <= 0) break;
      }
      if (finished || (seen === rows.length && rows.length < ask)) pass.current = undefined;
    }
    return false;
  }
}
