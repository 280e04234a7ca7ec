// Migration 20: telemetry_tokens, ledger_records and model_prices, new and empty: a database from before keeps every
// row, and the new tables take what the flight recorder writes (one token per agent, a record's cost source checked).
import assert from 'node:assert/strict';
import { migrationTest, rows, seedConversation } from '../support/migration-test';

migrationTest({
  version: 20,
  seed: (db) => {
    seedConversation(db);
  },
  check: (db) => {
    assert.deepEqual(rows(db, 'SELECT COUNT(*) AS n FROM ledger_records'), [{ n: 0 }]);
    db.exec("INSERT INTO telemetry_tokens (user_id, token_hash, hint, created_at) VALUES ('u_bot', x'01', 'abcd', 1)");
    assert.throws(
      () => db.exec("INSERT INTO telemetry_tokens (user_id, token_hash, hint, created_at) VALUES ('u_bot', x'02', 'efgh', 2)"),
      /UNIQUE/,
      'one token per agent',
    );
    const insert = (id: number, source: string) =>
      db.exec(
        `INSERT INTO ledger_records (id, day, received_at, at, agent_id, harness, kind, detail, cost_usd, cost_source, dedupe, hash)
         VALUES (${id}, '2026-01-01', 1, 1, 'u_bot', 'codex', 'api_request', '{}', 0.5, '${source}', x'0${id}', x'00')`,
      );
    insert(1, 'price_table');
    assert.throws(() => insert(2, 'guess'), /CHECK/, 'a cost source is one of harness, price_table, unknown');
    assert.throws(
      () =>
        db.exec(
          "INSERT INTO model_prices (model, input_per_mtok, cached_input_per_mtok, output_per_mtok, updated_at) VALUES ('m', -1, 0, 0, 1)",
        ),
      /CHECK/,
    );
  },
});
