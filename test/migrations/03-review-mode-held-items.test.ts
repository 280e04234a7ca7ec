// Migration 3: review_mode and held_items (state defaults to 'held'), messages.reviewed (NULL for the messages already there).
import assert from 'node:assert/strict';
import { column, indexColumns, migrationTest, rows, seedConversation } from '../support/migration-test';

migrationTest({
  version: 3,
  seed: seedConversation,
  check: (db) => {
    assert.deepEqual(rows(db, 'SELECT id, reviewed FROM messages'), [{ id: 'm_1', reviewed: null }], 'an earlier message was not reviewed');
    assert.equal(column(db, 'messages', 'reviewed')?.type, 'INTEGER');
    db.exec("INSERT INTO review_mode (agent_id, since) VALUES ('u_bot', 3000)");
    db.exec(
      `INSERT INTO held_items (id, agent_id, conv_id, kind, input, created_at) VALUES ('h_1', 'u_bot', 'c_1', 'message', '{"text":"hi"}', 3001)`,
    );
    assert.deepEqual(rows(db, 'SELECT state, decided_at FROM held_items'), [{ state: 'held', decided_at: null }]);
    assert.deepEqual(indexColumns(db, 'held_items_by_state'), ['state', 'created_at']);
    assert.throws(() => db.exec("UPDATE held_items SET state = 'lost'"), /CHECK/);
  },
});
