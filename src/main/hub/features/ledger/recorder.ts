// The flight recorder: what a harness reported (shared/ledger/harness-events.ts LedgerFact), kept once per record as
// sent (an exporter's retry adds nothing), priced (Claude Code's own cost_usd as is; Codex's tokens by the price
// table, or "price unknown"), each local day's rows hash-chained so that an edited or removed row is found (verify).
// After the commit, the measured cost goes to the agent's daily cost cap (hub/control/control.ts addMeasuredCost).
import crypto from 'node:crypto';
import type { FeaturesHub } from '../services';
import type { LedgerFact } from '../../../../shared/ledger/harness-events';
import { SHIPPED_PRICES, costAt, priceKey, type ModelPrice } from '../../../../shared/ledger/prices';
import { localDay } from '../../../../shared/agents/control';
import { addMeasuredCost } from '../../control/control';
import { chainHead, hasRecord, insertRecord, recordsAfter, type LedgerRow } from '../../../store/tables/ledger/records';
import { ownerPrice } from '../../../store/tables/ledger/prices';
import type { Db } from '../../../store/db/db';

/** A fact and the digest of the record it came from (what makes a resent record the same). */
export interface Reported {
  fact: LedgerFact;
  dedupe: Buffer;
}

/** The digest of a record as sent (its JSON text), per agent: a retried batch repeats it exactly. */
export function dedupeOf(recordJson: string): Buffer {
  return crypto.hash('sha256', recordJson, 'buffer');
}

/** The price of a model: the owner's, else the shipped one, else undefined ("price unknown"). */
export function priceOf(db: Db, model: string | null): (ModelPrice & { from: 'owner' | 'shipped' }) | undefined {
  if (!model) return undefined;
  const key = priceKey(model);
  const own = ownerPrice(db, key);
  if (own) return { ...own, from: 'owner' };
  return Object.hasOwn(SHIPPED_PRICES, key) ? { ...SHIPPED_PRICES[key]!, from: 'shipped' } : undefined;
}

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

function costOf(db: Db, f: LedgerFact): Pick<LedgerRow, 'cost_usd' | 'cost_source'> {
  if (f.kind !== 'api_request') return { cost_usd: null, cost_source: null };
  if (f.cost_usd !== null) return { cost_usd: f.cost_usd, cost_source: 'harness' };
  const p = priceOf(db, f.model);
  if (!p || !f.tokens) return { cost_usd: null, cost_source: 'unknown' };
  return { cost_usd: costAt(p, f.tokens), cost_source: 'price_table' };
}

/** Records what one request reported for the agent; returns how many rows were added (resent ones are not). */
export function recordFacts(hub: FeaturesHub, agentId: string, reported: readonly Reported[]): { added: number; cost_usd: number } {
  if (reported.length === 0) return { added: 0, cost_usd: 0 };
  const receivedAt = hub.now();
  const day = localDay(receivedAt);
  const done = hub.write(() => {
    let { nextId, prev } = chainHead(hub.db, day);
    let added = 0;
    let cost = 0;
    for (const { fact: f, dedupe } of reported) {
      if (hasRecord(hub.db, agentId, dedupe)) continue;
      const row: Omit<LedgerRow, 'hash'> = {
        id: nextId,
        day,
        received_at: receivedAt,
        at: Math.floor(f.at),
        agent_id: agentId,
        harness: f.harness,
        kind: f.kind,
        session_id: f.session_id,
        call_id: f.call_id,
        tool: f.tool,
        model: f.model,
        detail: JSON.stringify(f.detail),
        input_tokens: f.tokens?.input ?? null,
        output_tokens: f.tokens?.output ?? null,
        cache_read_tokens: f.tokens?.cache_read ?? null,
        cache_write_tokens: f.tokens?.cache_write ?? null,
        ...costOf(hub.db, f),
        dedupe,
      };
      const hash = rowHash(prev, row);
      insertRecord(hub.db, { ...row, hash });
      prev = hash;
      nextId++;
      added++;
      cost += row.cost_usd ?? 0;
    }
    return { added, cost_usd: cost };
  });
  addMeasuredCost(hub, agentId, done.cost_usd);
  return done;
}

export type VerifyResult =
  { ok: true; records: number; days: number } | { ok: false; records: number; first_break: { day: string; id: number; why: string } };

/** Walks every day's chain in order; the first row whose hash does not follow is the first break. */
export function verifyLedger(db: Db): VerifyResult {
  let day = '';
  let id = 0;
  let prev: Buffer | undefined;
  let records = 0;
  let days = 0;
  for (;;) {
    const page = recordsAfter(db, day, id, 1000);
    if (page.length === 0) return { ok: true, records, days };
    for (const r of page) {
      if (r.day !== day) {
        prev = undefined;
        days++;
      }
      const { hash, ...rest } = r;
      const want = rowHash(prev, rest);
      if (!Buffer.isBuffer(hash) || !crypto.timingSafeEqual(want, hash.length === want.length ? hash : Buffer.alloc(want.length)))
        return {
          ok: false,
          records,
          first_break: {
            day: r.day,
            id: r.id,
            why: "its hash does not match its content and the day's previous record: it or the record before it was changed or removed",
          },
        };
      prev = hash;
      day = r.day;
      id = r.id;
      records++;
    }
  }
}
