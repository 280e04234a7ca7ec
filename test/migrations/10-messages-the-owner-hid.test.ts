// Migration 10: hidden_messages, empty after the upgrade (no message is hidden), one row per person and message.
import assert from 'node:assert/strict';
import { migrationTest, rows, seedConversation } from '../support/migration-test';

migrationTest({
  version: 10,
  seed: seedConversation,
  check: (db) => {
    assert.deepEqual(rows(db, 'SELECT * FROM hidden_messages'), []);
    const hide = db.prepare("INSERT INTO hidden_messages (user_id, msg_id, hidden_at) VALUES ('u_owner', 'm_1', ?)");
    hide.run(3000);
    assert.throws(() => hide.run(3001), /UNIQUE|PRIMARY KEY/, 'a person hides a message once');
  },
});
