// Migration 15: users.allowed_from and agent_keys.allowed_from, NOT NULL, default ["local"]: every existing key stays local.
import assert from 'node:assert/strict';
import { column, migrationTest, rows, seedConversation } from '../support/migration-test';

migrationTest({
  version: 15,
  seed: (db) => {
    seedConversation(db);
    db.exec(
      "INSERT INTO agent_keys (id, user_id, name, key_hash, key_hint, scopes, created_at) VALUES ('k_1', 'u_bot', 'ci', x'01', 'k…', '[]', 4)",
    );
  },
  check: (db) => {
    for (const t of ['users', 'agent_keys']) {
      assert.deepEqual(column(db, t, 'allowed_from'), { type: 'TEXT', notnull: 1, dflt_value: `'["local"]'` }, `${t}.allowed_from`);
    }
    assert.deepEqual(rows(db, 'SELECT id, allowed_from FROM users ORDER BY id'), [
      { id: 'u_bot', allowed_from: '["local"]' },
      { id: 'u_owner', allowed_from: '["local"]' },
    ]);
    assert.deepEqual(rows(db, 'SELECT allowed_from FROM agent_keys'), [{ allowed_from: '["local"]' }]);
  },
});
