// Migration 22 on a database as version 21 left it, with ledger records of every kind in it: every record is kept, and
// the Ledger page's statements read through the new indexes (one agent's calls, one harness's, the cost ledger from the
// index alone, Perch's events), not a scan of every row.
import assert from 'node:assert/strict';
import { migrationTest, rows, seedConversation } from '../support/migration-test';

const insert = (id: number, kind: string, callId: string | null) =>
  `INSERT INTO ledger_records (id, day, received_at, at, agent_id, harness, kind, call_id, detail, cost_usd, cost_source, dedupe, hash)
   VALUES (${id}, '2026-01-01', 1, 1, 'u_bot', 'codex', '${kind}', ${callId === null ? 'NULL' : `'${callId}'`}, '{}',
     ${kind === 'api_request' ? "0.5, 'price_table'" : 'NULL, NULL'}, x'0${id}', x'00')`;

const plan = (db: Parameters<typeof rows>[0], text: string) =>
  rows(db, `EXPLAIN QUERY PLAN ${text}`)
    .map((r) => (r as { detail: string }).detail)
    .join(' | ');

migrationTest({
  version: 22,
  seed: (db) => {
    seedConversation(db);
    db.exec(insert(1, 'tool_decision', 'call_1'));
    db.exec(insert(2, 'tool_result', 'call_1'));
    db.exec(insert(3, 'api_request', null));
    db.exec(insert(4, 'perch_event', null));
  },
  check: (db) => {
    assert.deepEqual(rows(db, 'SELECT id, kind FROM ledger_records ORDER BY id'), [
      { id: 1, kind: 'tool_decision' },
      { id: 2, kind: 'tool_result' },
      { id: 3, kind: 'api_request' },
      { id: 4, kind: 'perch_event' },
    ]);
    assert.match(
      plan(db, "SELECT id FROM ledger_records WHERE call_id IS NOT NULL AND id < 9 AND agent_id = 'u_bot' ORDER BY id DESC"),
      /USING (COVERING )?INDEX ledger_calls_by_agent/,
    );
    assert.match(
      plan(db, "SELECT id FROM ledger_records WHERE call_id IS NOT NULL AND id < 9 AND harness = 'codex' ORDER BY id DESC"),
      /USING (COVERING )?INDEX ledger_calls_by_harness/,
    );
    assert.match(
      plan(
        db,
        "SELECT day, agent_id, SUM(cost_usd) FROM ledger_records WHERE kind = 'api_request' AND day >= '2026-01-01' GROUP BY day, agent_id",
      ),
      /USING COVERING INDEX ledger_costs_by_day/,
    );
    assert.match(plan(db, "SELECT * FROM ledger_records WHERE kind = 'perch_event' ORDER BY id DESC LIMIT 5"), /INDEX ledger_perch_events/);
  },
});
