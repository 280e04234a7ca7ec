// The flight recorder's hash chain (ledger_records): rows are only ever added, and each local day's rows form a chain
// — a row's SHA-256 covers its own fields and the previous row of that day — so an edited row, or a removed row that
// had a successor, breaks it (hub/features/ledger/recorder.ts verifyLedger). Here in core because every area appends
// to it: the OTLP receiver's and the hook doors' records (features/ledger), the pauses (control), the standing rules
// (features/requests), the wake runs (wake-runs).
import crypto from 'node:crypto';
import { localDay } from '../../../shared/agents/control';
import { chainHead, insertRecord, type LedgerRow } from '../../store/tables/ledger/records';
import { rowHash } from '../../store/tables/ledger/chain-hash';
import type { Db } from '../../store/db/db';
import type { PerchEvent } from '../../../shared/ledger/harness-events';
import type { Hub } from './hub';

/** A row before it is placed in the chain: what it says, without its id, day, time received and hash. */
export type NewLedgerRow = Omit<LedgerRow, 'id' | 'day' | 'received_at' | 'hash'>;

/**
 * Appends rows to the chain of the day `receivedAt` falls on, in order; a row whose dedupe the agent already has (an
 * exporter's retry) is skipped. Call inside the writing transaction. Returns the rows added.
 */
export function appendToChain(db: Db, receivedAt: number, rows: readonly NewLedgerRow[]): LedgerRow[] {
  const day = localDay(receivedAt);
  let { nextId, prev } = chainHead(db, day);
  const added: LedgerRow[] = [];
  for (const r of rows) {
    const row: Omit<LedgerRow, 'hash'> = { id: nextId, day, received_at: receivedAt, ...r };
    const hash = rowHash(prev, row);
    if (!insertRecord(db, { ...row, hash })) continue; // resent: the agent has it already
    prev = hash;
    nextId++;
    added.push({ ...row, hash });
  }
  return added;
}

/** A dedupe for a record nothing resends (Perch's own): unique. */
export function freshDedupe(): Buffer {
  return crypto.randomBytes(32);
}

/** How much of an event's text a record keeps. */
const EVENT_TEXT_CHARS = 500;

/**
 * Appends one of Perch's own events (a wake run, a pause, a rule) for an agent to today's chain. Call inside the
 * writing transaction of the change it records, so the record and the change are kept or lost together.
 */
export function appendPerchEvent(hub: Pick<Hub, 'db' | 'now'>, agentId: string, event: PerchEvent): void {
  const e: PerchEvent = { ...event };
  for (const k of ['why', 'error', 'reason', 'detail', 'rule'] as const) {
    const v = e[k];
    if (typeof v === 'string' && v.length > EVENT_TEXT_CHARS) e[k] = `${v.slice(0, EVENT_TEXT_CHARS - 1)}…`;
  }
  const at = hub.now();
  appendToChain(hub.db, at, [
    {
      at,
      agent_id: agentId,
      harness: 'perch',
      kind: 'perch_event',
      session_id: null,
      call_id: null,
      tool: null,
      model: null,
      detail: JSON.stringify({ perch_event: e }),
      input_tokens: null,
      output_tokens: null,
      cache_read_tokens: null,
      cache_write_tokens: null,
      cost_usd: null,
      cost_source: null,
      dedupe: freshDedupe(),
    },
  ]);
}
