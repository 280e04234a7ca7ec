// The flight recorder in an archive (kind ledger_records, format version 2; docs/archive-format.md). Each record
// comes as its hub chained it: its id, its day, its agent's id in that hub, its dedupe and its hash. perch import
// first verifies every day's chain against the archive's own ids and fields (ArchiveChains, in the checking walk:
// a record that does not follow refuses the whole archive, nothing written), then re-chains each record into this
// hub's chain of the same day, under an id of this hub and its agent's id here (LedgerImport, in the writing walk),
// and notes the import in today's chain with one record of the owner (a perch_event `ledger_imported`) naming the
// archive's verified heads: the end of each of its days' chains. So `perch ledger verify` here checks the imported
// records like any others, and the heads tie them to the archive they came from. Re-chaining is needed because the
// hash covers the record's id and agent id, which this hub gives anew; a record this agent already has (the same
// dedupe: the same archive imported twice, or the same report received by both hubs) is skipped.
import crypto from 'node:crypto';
import { sql, type Db } from '../db/db';
import { localDay } from '../../../shared/agents/control';
import type { LedgerHead } from '../../../shared/ledger/harness-events';
import { rowHash } from '../tables/ledger/chain-hash';
import { insertRecord, type LedgerRow } from '../tables/ledger/records';
import { ExportFileError } from './tar';

type Row = Record<string, unknown>;

/**
 * The archive's chains, checked record by record in the archive's order (its ids strictly rising, as the hub added
 * them): each record's hash must be the hash of its fields after the previous record of its day (the day's first:
 * after the day's genesis). Memory: one head per day.
 */
export class ArchiveChains {
  private lastId = 0;
  private readonly days = new Map<string, LedgerHead>();
  records = 0;

  /** The record as a hub row (dedupe and hash as bytes), once it is known to follow its day's chain. */
  take(r: Row, where: string): LedgerRow {
    const row = { ...r, dedupe: Buffer.from(r.dedupe as string, 'hex'), hash: Buffer.from(r.hash as string, 'hex') } as LedgerRow;
    if (row.id <= this.lastId)
      throw new ExportFileError(
        `${where}: ledger record ${row.id} comes after record ${this.lastId}; an archive lists them as they were added`,
      );
    const head = this.days.get(row.day);
    const { hash, ...fields } = row;
    if (!rowHash(head ? Buffer.from(head.hash, 'hex') : undefined, fields).equals(hash))
      throw new ExportFileError(
        `${where}: ledger record ${row.id} of ${row.day} does not follow that day's hash chain (it, or a record before it that day, was changed or removed after it was recorded)`,
      );
    this.days.set(row.day, { day: row.day, id: row.id, hash: r.hash as string, records: (head?.records ?? 0) + 1 });
    this.lastId = row.id;
    this.records++;
    return row;
  }

  /** Each day's last record (id and hash, as in the archive) and its number of records, by day. */
  heads(): LedgerHead[] {
    return [...this.days.values()].sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
  }
}

/** Writes the archive's records into this hub's chains (inside the import's transaction). */
export class LedgerImport {
  /** Checked again while writing: the file is read twice, and what is written must be what was verified. */
  private readonly chains = new ArchiveChains();
  private nextId: number;
  /** This hub's last hash of each day the import writes in (undefined: the day has no record here yet). */
  private readonly heads = new Map<string, Buffer | undefined>();
  added = 0;
  skipped = 0;

  constructor(private readonly db: Db) {
    this.nextId = (sql<{ m: number | null }>(db, 'SELECT MAX(id) AS m FROM ledger_records').get()?.m ?? 0) + 1;
  }

  private prev(day: string): Buffer | undefined {
    if (!this.heads.has(day))
      this.heads.set(
        day,
        sql<{ hash: Buffer }>(this.db, 'SELECT hash FROM ledger_records WHERE day = ? ORDER BY id DESC LIMIT 1').get(day)?.hash,
      );
    return this.heads.get(day);
  }

  private append(fields: Omit<LedgerRow, 'id' | 'hash'>): boolean {
    const row = { ...fields, id: this.nextId };
    const hash = rowHash(this.prev(row.day), row);
    if (!insertRecord(this.db, { ...row, hash })) return false;
    this.heads.set(row.day, hash);
    this.nextId++;
    return true;
  }

  /** One archive record, for `agentId` (its agent's id here); whether it was added (not: this agent has it already). */
  row(r: Row, where: string, agentId: string): boolean {
    const { id: _id, hash: _hash, ...fields } = this.chains.take(r, where);
    const added = this.append({ ...fields, agent_id: agentId });
    if (added) this.added++;
    else this.skipped++;
    return added;
  }

  /**
   * When any record was added: the owner's `ledger_imported` record in today's chain, after them, naming the
   * archive (`from`) and its verified heads.
   */
  finish(ownerId: string | undefined, from: string, now: number): void {
    if (this.added === 0 || ownerId === undefined) return;
    this.append({
      day: localDay(now),
      received_at: now,
      at: now,
      agent_id: ownerId,
      harness: 'perch',
      kind: 'perch_event',
      session_id: null,
      call_id: null,
      tool: null,
      model: null,
      detail: JSON.stringify({
        perch_event: { event: 'ledger_imported', reason: from, records: this.added, heads: this.chains.heads() },
      }),
      input_tokens: null,
      output_tokens: null,
      cache_read_tokens: null,
      cache_write_tokens: null,
      cost_usd: null,
      cost_source: null,
      dedupe: crypto.randomBytes(32),
    });
  }
}
