// The hash of a flight-recorder row (ledger_records): each local day's rows form a chain, a row's SHA-256 covering its
// own fields and the hash of the day's previous row (the day's first row: the day's genesis). Here in store because
// both the hub that appends (hub/core/ledger-chain.ts) and perch import, which verifies an archive's chain and
// re-chains its rows into this hub's days (store/export/ledger-rows.ts), compute it.
import crypto from 'node:crypto';
import type { LedgerRow } from './records';

/** The fields a row's hash covers, in a fixed order (everything but the hash itself). */
function chained(r: Omit<LedgerRow, 'hash'>): string {
  return JSON.stringify([
    r.id,
    r.day,
    r.received_at,
    r.at,
    r.agent_id,
    r.harness,
    r.kind,
    r.session_id,
    r.call_id,
    r.tool,
    r.model,
    r.detail,
    r.input_tokens,
    r.output_tokens,
    r.cache_read_tokens,
    r.cache_write_tokens,
    r.cost_usd,
    r.cost_source,
    r.dedupe.toString('hex'),
  ]);
}

/** Where each day's chain starts. */
function genesis(day: string): Buffer {
  return crypto.hash('sha256', `perch ledger ${day}`, 'buffer');
}

export function rowHash(prev: Buffer | undefined, r: Omit<LedgerRow, 'hash'>): Buffer {
  return crypto
    .createHash('sha256')
    .update(prev ?? genesis(r.day))
    .update(chained(r))
    .digest();
}
