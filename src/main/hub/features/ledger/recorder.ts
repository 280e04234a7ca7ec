// The flight recorder: what a harness reported (shared/ledger/harness-events.ts LedgerFact), kept once per record as
// sent (an exporter's retry adds nothing), priced (Claude Code's own cost_usd as is; Codex's tokens by the price
// table, or "price unknown"), each local day's rows hash-chained so that an edited or removed row is found (verify).
// After the commit, the measured cost goes to the agent's daily cost cap (hub/control/control.ts addMeasuredCost).
import crypto from 'node:crypto';
import type { FeaturesHub } from '../services';
import type { LedgerFact } from '../../../../shared/ledger/harness-events';
import { SHIPPED_PRICES, costAt, priceKey, type ModelPrice } from '../../../../shared/ledger/prices';
import { addMeasuredCost } from '../../control/control';
import { recordsAfter, type LedgerRow } from '../../../store/tables/ledger/records';
import { appendToChain } from '../../core/ledger-chain';
import { rowHash } from '../../../store/tables/ledger/chain-hash';
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

/** A batch's prices: each model's looked up once per batch (priceOf), not once per record. */
type Prices = (model: string | null) => ReturnType<typeof priceOf>;

function batchPrices(db: Db): Prices {
  const known = new Map<string | null, ReturnType<typeof priceOf>>();
  return (model) => {
    if (!known.has(model)) known.set(model, priceOf(db, model));
    return known.get(model);
  };
}

function costOf(prices: Prices, f: LedgerFact): Pick<LedgerRow, 'cost_usd' | 'cost_source'> {
  if (f.kind !== 'api_request') return { cost_usd: null, cost_source: null };
  if (f.cost_usd !== null) return { cost_usd: f.cost_usd, cost_source: 'harness' };
  const p = prices(f.model);
  if (!p || !f.tokens) return { cost_usd: null, cost_source: 'unknown' };
  return { cost_usd: costAt(p, f.tokens), cost_source: 'price_table' };
}

/** Records what one request reported for the agent; returns how many rows were added (resent ones are not). */
export function recordFacts(hub: FeaturesHub, agentId: string, reported: readonly Reported[]): { added: number; cost_usd: number } {
  if (reported.length === 0) return { added: 0, cost_usd: 0 };
  const done = hub.write(() => {
    const prices = batchPrices(hub.db);
    const added = appendToChain(
      hub.db,
      hub.now(),
      reported.map(({ fact: f, dedupe }) => ({
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
        ...costOf(prices, f),
        dedupe,
      })),
    );
    return { added: added.length, cost_usd: added.reduce((sum, r) => sum + (r.cost_usd ?? 0), 0) };
  });
  addMeasuredCost(hub, agentId, done.cost_usd);
  return done;
}

export type VerifyResult =
  { ok: true; records: number; days: number } | { ok: false; records: number; first_break: { day: string; id: number; why: string } };

/**
 * Walks the rows once in the order they were added, each day's chain along (the last hash of every day seen so far
 * kept); the first row whose hash does not follow is the first break.
 */
export function verifyLedger(db: Db): VerifyResult {
  const last = new Map<string, Buffer>();
  let id = 0;
  let records = 0;
  for (;;) {
    const page = recordsAfter(db, id, 1000);
    if (page.length === 0) return { ok: true, records, days: last.size };
    for (const r of page) {
      const { hash, ...rest } = r;
      const want = rowHash(last.get(r.day), rest);
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
      last.set(r.day, hash);
      id = r.id;
      records++;
    }
  }
}
