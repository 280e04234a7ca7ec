// The flight recorder's hot path and its hash chain on a real hub's SQLite file (hub/features/ledger/recorder.ts,
// store/tables/ledger/records.ts): a batch costs one statement per record plus a fixed few (no lookup repeated per
// record), neither ingest nor `perch ledger verify` sorts a day's rows (verify reads every row once), and the chain
// holds when days interleave (the clock went back) and breaks at an edited row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type Database from 'better-sqlite3';
import { withHub } from '../support/helpers';
import { attrs, logsBody } from '../support/otlp-bodies';
import { logFacts } from '../../src/main/mcp/otlp-door';
import { recordFacts, verifyLedger } from '../../src/main/hub/features/ledger/recorder';
import { putPrice } from '../../src/main/store/tables/ledger/prices';

/** A logs body checked whole and its facts recorded in one write (the door does the same a step at a time). */
function ingestLogs(hub: Parameters<typeof logFacts>[0], agentId: string, text: string): { added: number } {
  const facts = logFacts(hub, text);
  if (typeof facts === 'string') throw new Error(facts);
  return { added: recordFacts(hub, agentId, facts).added };
}

/** A Codex batch of `n` priced API requests (response.completed), each its own record. */
function codexBatch(n: number, t0: number, model = 'house-model'): string {
  return logsBody(
    'codex_cli_rs',
    Array.from({ length: n }, (_, i) => ({
      timeUnixNano: `${t0 + i}000000`,
      attributes: attrs({
        'event.name': 'codex.sse_event',
        'event.kind': 'response.completed',
        'conversation.id': 'conv-1',
        model,
        input_token_count: { int: 1000 + i },
        cached_token_count: { int: 0 },
        output_token_count: { int: 10 },
        reasoning_token_count: { int: 0 },
      }),
    })),
  );
}

/** Counts each statement's runs on db (by its SQL text) while fn runs; statements prepared before are not seen. */
function countRuns(db: Database.Database, fn: () => void): Map<string, number> {
  const runs = new Map<string, number>();
  const prepare = db.prepare;
  db.prepare = function (this: Database.Database, text: string) {
    const stmt = prepare.call(this, text);
    return new Proxy(stmt, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (typeof v !== 'function' || !['run', 'get', 'all', 'iterate'].includes(String(prop))) return v;
        return (...args: unknown[]) => {
          runs.set(text, (runs.get(text) ?? 0) + 1);
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  } as typeof db.prepare;
  try {
    fn();
  } finally {
    db.prepare = prepare;
  }
  return runs;
}

test('a batch of 200 records (100 of them sent twice) costs one statement per record and a fixed few: no dedupe or price lookup per record', () =>
  withHub((t) => {
    const kit = t.agent('kit');
    putPrice(t.hub.db, { model: 'house-model', input_per_mtok: 1, cached_input_per_mtok: 0.1, output_per_mtok: 2, updated_at: 1 });
    const once = JSON.parse(codexBatch(100, 1_700_000_000_000));
    const logs = once.resourceLogs[0].scopeLogs[0];
    logs.logRecords = [...logs.logRecords, ...logs.logRecords]; // an exporter's retry inside one batch
    const runs = countRuns(t.hub.db, () => assert.deepEqual(ingestLogs(t.hub, kit.id, JSON.stringify(once)), { added: 100 }));
    const total = (re: RegExp) => [...runs].filter(([text]) => re.test(text)).reduce((n, [, c]) => n + c, 0);
    assert.equal(total(/model_prices/), 1, 'the price of the one model looked up once');
    assert.ok(
      total(/ledger_records/) <= 200 + 4,
      `statements on ledger_records (chain head, today's measured cost and one each): ${total(/ledger_records/)}`,
    );
    assert.deepEqual(verifyLedger(t.hub.db), { ok: true, records: 100, days: 1 });
  }));

test("neither ingest nor verify sorts a day's rows: no statement they run plans a temporary sort", () =>
  withHub((t) => {
    const kit = t.agent('kit');
    const db = t.hub.db;
    const runs = countRuns(db, () => {
      ingestLogs(t.hub, kit.id, codexBatch(3, 1_700_000_000_000));
      ingestLogs(t.hub, kit.id, codexBatch(3, 1_700_000_001_000));
      assert.equal(verifyLedger(db).ok, true);
    });
    const ledger = [...runs.keys()].filter((text) => /^\s*SELECT\b[\s\S]*ledger_records/.test(text));
    assert.ok(ledger.length >= 3, ledger.join('\n'));
    for (const text of ledger) {
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${text}`)
        .all(...Array.from({ length: (text.match(/\?/g) ?? []).length }, () => null))
        .map((r) => (r as { detail: string }).detail);
      assert.ok(!plan.some((d) => /TEMP B-TREE/.test(d)), `${text}\n  plans: ${plan.join(' | ')}`);
    }
  }));

test("the chain holds when the clock goes back a day between batches (each day's rows chained in the order they came), and verify finds an edited row", () => {
  let clock = new Date(2026, 11, 5, 12).getTime();
  return withHub({ now: () => clock }, (t) => {
    const kit = t.agent('kit');
    ingestLogs(t.hub, kit.id, codexBatch(2, 1_700_000_000_000));
    clock -= 86_400_000; // the clock went back a day
    ingestLogs(t.hub, kit.id, codexBatch(2, 1_700_000_010_000));
    clock += 86_400_000;
    ingestLogs(t.hub, kit.id, codexBatch(2, 1_700_000_020_000));
    const rows = t.hub.db.prepare('SELECT id, day FROM ledger_records ORDER BY id').all() as Array<{ id: number; day: string }>;
    assert.deepEqual(
      rows.map((r) => r.day),
      ['2026-12-05', '2026-12-05', '2026-12-04', '2026-12-04', '2026-12-05', '2026-12-05'],
    );
    assert.deepEqual(verifyLedger(t.hub.db), { ok: true, records: 6, days: 2 });
    t.hub.db.prepare('UPDATE ledger_records SET output_tokens = 1 WHERE id = ?').run(rows[4]!.id);
    const r = verifyLedger(t.hub.db);
    assert.equal(r.ok, false);
    assert.deepEqual(!r.ok && r.first_break.id, rows[4]!.id);
  });
});
