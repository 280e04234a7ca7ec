// Migration 11: key_cursors (instance '' and positions 0 by default); the agent's own cursors are untouched.
import assert from 'node:assert/strict';
import { migrationTest, rows, seedConversation } from '../support/migration-test';

migrationTest({
  version: 11,
  seed: (db) => {
    seedConversation(db);
    db.exec(
      "INSERT INTO agent_keys (id, user_id, name, key_hash, key_hint, scopes, created_at) VALUES ('k_1', 'u_bot', 'ci', x'01', 'k…', '[]', 4)",
    );
    db.exec("INSERT INTO delivery_cursors (user_id, confirmed_gid, last_upto) VALUES ('u_bot', 1, 1)");
  },
  check: (db) => {
    assert.deepEqual(rows(db, 'SELECT * FROM key_cursors'), [], 'no key has a position of its own yet');
    db.exec("INSERT INTO key_cursors (key_id) VALUES ('k_1')");
    assert.deepEqual(rows(db, 'SELECT instance, confirmed_gid, last_upto FROM key_cursors'), [
      { instance: '', confirmed_gid: 0, last_upto: 0 },
    ]);
  },
});
