// The flight recorder's rows (ledger_records): append-only, each day hash-chained (hub/features/ledger/recorder.ts).
import { sql, type Db } from '../../db/db';
import { allSteps } from '../../../../shared/steps';
import type { TurnUsage } from '../../../../shared/ledger/views';

export interface LedgerRow {
  id: number;
  day: string;
  received_at: number;
  at: number;
  agent_id: string;
  harness: string;
  kind: string;
  session_id: string | null;
  call_id: string | null;
  tool: string | null;
  model: string | null;
  /** JSON of the fact's detail (shared/ledger/harness-events.ts FactDetail). */
  detail: string;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  cost_usd: number | null;
  cost_source: 'harness' | 'price_table' | 'unknown' | null;
  dedupe: Buffer;
  hash: Buffer;
}

/**
 * The id the next row gets and the hash of the day's last row (undefined: the day's first). Inside the writing
 * transaction. The day's last row is found walking back from the newest row (`+day`: not through the day index, which
 * would sort every row of the day on each batch): ids only grow, so today's last row is the newest one.
 */
export function chainHead(db: Db, day: string): { nextId: number; prev: Buffer | undefined } {
  const max = sql<{ m: number | null }>(db, 'SELECT MAX(id) AS m FROM ledger_records').get();
  const last = sql<{ hash: Buffer }>(db, 'SELECT hash FROM ledger_records WHERE +day = ? ORDER BY id DESC LIMIT 1').get(day);
  return { nextId: (max?.m ?? 0) + 1, prev: last?.hash };
}

/** Adds a row unless the agent already has one with its dedupe (an exporter's retry): whether it was added. */
export function insertRecord(db: Db, row: LedgerRow): boolean {
  return (
    sql(
      db,
      `INSERT INTO ledger_records (id, day, received_at, at, agent_id, harness, kind, session_id, call_id, tool, model, detail,
       input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, cost_source, dedupe, hash)
     VALUES (@id, @day, @received_at, @at, @agent_id, @harness, @kind, @session_id, @call_id, @tool, @model, @detail,
       @input_tokens, @output_tokens, @cache_read_tokens, @cache_write_tokens, @cost_usd, @cost_source, @dedupe, @hash)
     ON CONFLICT (agent_id, dedupe) DO NOTHING`,
    ).run(row).changes === 1
  );
}

/** Every row in the order it was added (each day's chain is its rows in this order), a page at a time: for verify. */
export function recordsAfter(db: Db, id: number, limit: number): LedgerRow[] {
  return sql<LedgerRow>(db, 'SELECT * FROM ledger_records WHERE id > ? ORDER BY id LIMIT ?').all(id, limit);
}

/** Dollars measured for an agent on a day (the harness's own figures and the priced ones). */
export function measuredCostOn(db: Db, agentId: string, day: string): number {
  return (
    sql<{ c: number | null }>(
      db,
      "SELECT SUM(cost_usd) AS c FROM ledger_records WHERE day = ? AND agent_id = ? AND kind = 'api_request'",
    ).get(day, agentId)?.c ?? 0
  );
}

export interface CostRow {
  day: string;
  agent_id: string;
  harness: string;
  model: string | null;
  cost_source: string | null;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number | null;
}

/** The cost ledger: per day, agent, harness, model and cost source, from `since` (a day) on. */
export function costsSince(db: Db, since: string, agentId?: string): CostRow[] {
  return sql<CostRow>(
    db,
    `SELECT day, agent_id, harness, model, cost_source, COUNT(*) AS requests, SUM(input_tokens) AS input_tokens,
       SUM(output_tokens) AS output_tokens, SUM(cache_read_tokens) AS cache_read_tokens,
       SUM(cache_write_tokens) AS cache_write_tokens, SUM(cost_usd) AS cost_usd
     FROM ledger_records WHERE kind = 'api_request' AND day >= ? AND (? IS NULL OR agent_id = ?)
     GROUP BY day, agent_id, harness, model, cost_source ORDER BY day, agent_id, model`,
  ).all(since, agentId ?? null, agentId ?? null);
}

export interface CallQuery {
  since?: string;
  agentId?: string;
  harness?: string;
  tool?: string;
  /** That one call (the harness's call id). */
  callId?: string;
  /** Words that must appear in the tool, what it was asked, its output or error. */
  text?: string;
  limit: number;
  /** Only calls whose last record has an id below this (paging, newest first). */
  beforeId?: number;
}

/** Rows read per step while walking the ledger newest first (callKeys). */
const WALK_STEP = 1000;
/** A step's range of ids: the first, the most, and the time a step aims at (ms). */
const FIRST_SPAN = 4000;
const MAX_SPAN = 1 << 22;
const STEP_MS = 2;

/**
 * The calls (agent, call id) matching the query, newest first, each with the id of its last matching record; tool
 * calls only (rows with a call id). Each word of `text` must appear in the tool's name or the record's detail (what it
 * was asked, its output, its error).
 *
 * Walks the matching rows from the newest down, a step at a time, and stops once `limit` calls are found: the newest
 * page of a ledger with millions of rows reads a few hundred of them (a GROUP BY over every call read them all: about
 * a second per page at 1M calls). A call's first row met is its last matching one; a call met first at or above
 * `beforeId` belongs to an earlier page and is skipped.
 */
export function callKeys(db: Db, q: CallQuery): CallKey[] {
  return allSteps(callKeySteps(db, q));
}

export interface CallKey {
  agent_id: string;
  call_id: string;
  last_id: number;
}

/**
 * callKeys a step at a time: each next() reads at most one step of WALK_STEP rows, so a caller that must not hold the
 * event loop (the owner's Ledger page searching words that are rare: a walk over every row, over a second at 1M calls)
 * gives it back between steps.
 */
export function* callKeySteps(db: Db, q: CallQuery): Generator<void, CallKey[]> {
  const words = (q.text ?? '').split(/\s+/).filter(Boolean).slice(0, 8);
  const likes = words.map((w) => `%${w.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  const wordSql = likes.map(() => " AND (tool LIKE ? ESCAPE '\\' OR detail LIKE ? ESCAPE '\\')").join('');
  if (q.callId !== undefined) {
    // One call (an approval card's link, the page's call view): through the (agent, call id) index, an agent at a time.
    return sql<CallKey>(
      db,
      `SELECT agent_id, call_id, MAX(id) AS last_id FROM ledger_records
       WHERE agent_id IN (SELECT id FROM users WHERE ? IS NULL OR id = ?) AND call_id = ? AND (? IS NULL OR day >= ?)
         AND (? IS NULL OR harness = ?) AND (? IS NULL OR tool = ?)${wordSql}
       GROUP BY agent_id, call_id HAVING (? IS NULL OR MAX(id) < ?) ORDER BY last_id DESC LIMIT ?`,
    ).all(
      q.agentId ?? null,
      q.agentId ?? null,
      q.callId,
      q.since ?? null,
      q.since ?? null,
      q.harness ?? null,
      q.harness ?? null,
      q.tool ?? null,
      q.tool ?? null,
      ...likes.flatMap((l) => [l, l]),
      q.beforeId ?? null,
      q.beforeId ?? null,
      q.limit,
    );
  }
  // Only the filters given are in the statement, so each can use its index: (agent_id, id) and (harness, id) walk one
  // agent's or harness's calls in id order; a search reads rows until its page is full (a scan, at worst).
  const where = ['call_id IS NOT NULL', 'id < ?', 'id >= ?'];
  const params: unknown[] = [];
  const add = (clause: string, ...values: unknown[]) => {
    where.push(clause);
    params.push(...values);
  };
  if (q.since !== undefined) add('day >= ?', q.since);
  if (q.agentId !== undefined) add('agent_id = ?', q.agentId);
  if (q.harness !== undefined) add('harness = ?', q.harness);
  if (q.tool !== undefined) add('tool = ?', q.tool);
  for (const l of likes) add("(tool LIKE ? ESCAPE '\\' OR detail LIKE ? ESCAPE '\\')", l, l);
  const step = sql<{ id: number; agent_id: string; call_id: string }>(
    db,
    `SELECT id, agent_id, call_id FROM ledger_records WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?`,
  );
  const ends = sql<{ lo: number | null; hi: number | null }>(
    db,
    'SELECT (SELECT MIN(id) FROM ledger_records) AS lo, (SELECT MAX(id) FROM ledger_records) AS hi',
  ).get()!;
  const seen = new Set<string>();
  const out: CallKey[] = [];
  // Each step reads the ids of one range, newest first (or the first WALK_STEP matches in it): a filter no index serves
  // (words, a tool) tests every row of the range, one an index serves only its matches. The next range is this one
  // scaled by how far the step's time was from STEP_MS (at most doubled, at least quartered), so a step stays near
  // STEP_MS whatever the filter.
  let span = FIRST_SPAN;
  for (let below = (ends.hi ?? 0) + 1, first = true; out.length < q.limit && below > (ends.lo ?? 0); first = false) {
    if (!first) yield;
    const floor = Math.max(ends.lo ?? 0, below - span);
    const t0 = performance.now();
    const rows = step.all(below, floor, ...params, WALK_STEP);
    const took = performance.now() - t0;
    for (const r of rows) {
      const key = `${r.agent_id}\u0000${r.call_id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (q.beforeId !== undefined && r.id >= q.beforeId) continue;
      out.push({ agent_id: r.agent_id, call_id: r.call_id, last_id: r.id });
      if (out.length >= q.limit) break;
    }
    below = rows.length === WALK_STEP ? rows[rows.length - 1]!.id : floor;
    span = Math.round(Math.min(MAX_SPAN, Math.max(WALK_STEP, span * Math.min(2, Math.max(0.25, STEP_MS / Math.max(took, 0.01))))));
  }
  return out;
}

export function recordsOfCall(db: Db, agentId: string, callId: string): LedgerRow[] {
  return sql<LedgerRow>(db, 'SELECT * FROM ledger_records WHERE agent_id = ? AND call_id = ? ORDER BY id').all(agentId, callId);
}

/** One turn's model calls, summed (shared/ledger/views.ts TurnUsage), and the turn. */
export type TurnUsageRow = TurnUsage & { turn: string };

/**
 * The API requests of some turns of one agent's session, summed per turn (a call's turn: its detail.turn). Through the
 * (agent, session) index: it reads that session's rows only, never the whole ledger.
 */
export function turnUsage(db: Db, agentId: string, sessionId: string, turns: readonly string[]): TurnUsageRow[] {
  if (turns.length === 0) return [];
  return sql<TurnUsageRow>(
    db,
    `SELECT json_extract(detail, '$.turn') AS turn, COUNT(*) AS requests, TOTAL(input_tokens) AS input_tokens,
       TOTAL(output_tokens) AS output_tokens, TOTAL(cache_read_tokens) AS cache_read_tokens,
       TOTAL(cache_write_tokens) AS cache_write_tokens, SUM(cost_usd) AS cost_usd,
       SUM(cost_usd IS NULL) AS unpriced
     FROM ledger_records INDEXED BY ledger_records_by_session
     WHERE agent_id = ? AND session_id = ? AND kind = 'api_request'
       AND json_extract(detail, '$.turn') IN (${turns.map(() => '?').join(', ')})
     GROUP BY 1`,
  ).all(agentId, sessionId, ...turns);
}

/** The rows from `since` on (one agent's, or all), in order, a page at a time (export). */
export function recordsPage(db: Db, since: string, afterId: number, limit: number, agentId?: string): LedgerRow[] {
  return sql<LedgerRow>(
    db,
    'SELECT * FROM ledger_records WHERE day >= ? AND id > ? AND (? IS NULL OR agent_id = ?) ORDER BY id LIMIT ?',
  ).all(since, afterId, agentId ?? null, agentId ?? null, limit);
}

/** Perch's own events (kind perch_event) from `since` on, one agent's or all, newest first. */
export function perchEventRows(db: Db, since: string, limit: number, agentId?: string): LedgerRow[] {
  return sql<LedgerRow>(
    db,
    "SELECT * FROM ledger_records WHERE kind = 'perch_event' AND day >= ? AND (? IS NULL OR agent_id = ?) ORDER BY id DESC LIMIT ?",
  ).all(since, agentId ?? null, agentId ?? null, limit);
}

/** The call id of the agent's record with this dedupe (a card's decision: hub/features/ledger/decisions.ts). */
export function decisionCallId(db: Db, agentId: string, dedupe: Buffer): string | undefined {
  return (
    sql<{ call_id: string | null }>(db, 'SELECT call_id FROM ledger_records WHERE agent_id = ? AND dedupe = ?').get(agentId, dedupe)
      ?.call_id ?? undefined
  );
}

/** Whether the agent has a record with this dedupe (a hook's result recorded once: mcp/hook-door/cursor.ts). */
export function hasDedupe(db: Db, agentId: string, dedupe: Buffer): boolean {
  return (
    sql<{ one: number }>(db, 'SELECT 1 AS one FROM ledger_records WHERE agent_id = ? AND dedupe = ?').get(agentId, dedupe) !== undefined
  );
}

/** The newest record of a day before `day` (retention's starting point), or undefined when there is none. */
export function newestBefore(db: Db, day: string): number | undefined {
  return sql<{ m: number | null }>(db, 'SELECT MAX(id) AS m FROM ledger_records WHERE day < ?').get(day)?.m ?? undefined;
}

/**
 * Deletes up to `limit` records of days before `day`, at ids up to `upto`, newest first (walking the ids back, so a
 * day is removed from its end: what is left of it is still a whole chain from its start). Returns the lowest id
 * deleted, or undefined when none was left.
 */
export function deleteOldRecords(db: Db, day: string, upto: number, limit: number): { lowest: number; count: number } | undefined {
  const ids = sql<{ id: number }>(db, 'SELECT id FROM ledger_records WHERE id <= ? AND day < ? ORDER BY id DESC LIMIT ?')
    .all(upto, day, limit)
    .map((r) => r.id);
  if (ids.length === 0) return undefined;
  const del = sql(db, 'DELETE FROM ledger_records WHERE id = ?');
  for (const id of ids) del.run(id);
  return { lowest: ids[ids.length - 1]!, count: ids.length };
}

/** How many records days before `day` hold. */
export function countBefore(db: Db, day: string): number {
  return sql<{ n: number }>(db, 'SELECT count(*) AS n FROM ledger_records WHERE day < ?').get(day)?.n ?? 0;
}
