// Migration 6: conversation_pauses and agent_brakes, empty after the upgrade (no conversation paused, every agent at the default budget).
import assert from 'node:assert/strict';
import { columnNames, migrationTest, rows, seedConversation } from '../support/migration-test';

migrationTest({
  version: 6,
  seed: seedConversation,
  check: (db) => {
    assert.deepEqual(columnNames(db, 'conversation_pauses'), ['conv_id', 'reason', 'agents', 'paused_at']);
    assert.deepEqual(columnNames(db, 'agent_brakes'), ['user_id', 'budget']);
    assert.deepEqual(rows(db, 'SELECT * FROM conversation_pauses'), []);
    assert.deepEqual(rows(db, 'SELECT * FROM agent_brakes'), []);
    db.exec(`INSERT INTO conversation_pauses VALUES ('c_1', 'loop', '["u_bot"]', 3000); INSERT INTO agent_brakes VALUES ('u_bot', 0)`);
  },
});
