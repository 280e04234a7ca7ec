// Migration 5: agent_controls (pause and caps, NULL = none) referencing users, usage_daily (counters start at 0).
import assert from 'node:assert/strict';
import { migrationTest, rows, seedConversation } from '../support/migration-test';

migrationTest({
  version: 5,
  seed: seedConversation,
  check: (db) => {
    assert.deepEqual(rows(db, 'SELECT * FROM agent_controls'), [], 'no agent is paused or capped after the upgrade');
    db.exec("INSERT INTO agent_controls (user_id) VALUES ('u_bot')");
    assert.deepEqual(rows(db, 'SELECT paused_at, cap_cost_usd, cap_messages, cap_tool_calls FROM agent_controls'), [
      { paused_at: null, cap_cost_usd: null, cap_messages: null, cap_tool_calls: null },
    ]);
    assert.deepEqual(rows(db, 'SELECT p."table" AS t, p."from" AS f FROM pragma_foreign_key_list(\'agent_controls\') p'), [
      { t: 'users', f: 'user_id' },
    ]);
    db.exec("INSERT INTO usage_daily (user_id, day) VALUES ('u_bot', '2026-12-03')");
    assert.deepEqual(rows(db, 'SELECT input_tokens, output_tokens, cost_usd, messages, tool_calls FROM usage_daily'), [
      { input_tokens: 0, output_tokens: 0, cost_usd: 0, messages: 0, tool_calls: 0 },
    ]);
  },
});
