// Migration 4: wake_actions (enabled 1, no failures by default) and wake_runs with their indexes; the agents already there are untouched.
import assert from 'node:assert/strict';
import { indexColumns, migrationTest, rows, seedConversation } from '../support/migration-test';

migrationTest({
  version: 4,
  seed: seedConversation,
  check: (db) => {
    assert.deepEqual(rows(db, 'SELECT * FROM wake_actions'), [], 'no agent has a wake action yet');
    db.exec(`INSERT INTO wake_actions (agent_id, action, updated_at) VALUES ('u_bot', '{"kind":"command"}', 3000)`);
    assert.deepEqual(rows(db, 'SELECT enabled, off_reason, consecutive_failures FROM wake_actions'), [
      { enabled: 1, off_reason: null, consecutive_failures: 0 },
    ]);
    db.exec(
      "INSERT INTO wake_runs (id, agent_id, kind, status, woken_at, started_at, why) VALUES ('w_1', 'u_bot', 'command', 'running', 1.5, 1.5, 'mention')",
    );
    assert.deepEqual(indexColumns(db, 'wake_runs_by_agent'), ['agent_id', 'started_at']);
    assert.deepEqual(indexColumns(db, 'wake_runs_running'), ['status']);
  },
});
