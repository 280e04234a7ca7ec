// Migration 7: messages.sender_instance / to_instance (NULL for earlier messages: the unnamed session), agent_instances,
// instance_cursors, read_receipts (instance '' by default) and agent_keys (key_hash unique).
import assert from 'node:assert/strict';
import { indexColumns, migrationTest, rows, seedConversation } from '../support/migration-test';

migrationTest({
  version: 7,
  seed: (db) => {
    seedConversation(db);
    db.exec("INSERT INTO delivery_cursors (user_id, confirmed_gid, last_upto) VALUES ('u_bot', 1, 1)");
  },
  check: (db) => {
    assert.deepEqual(rows(db, 'SELECT sender_instance, to_instance FROM messages'), [{ sender_instance: null, to_instance: null }]);
    db.exec("INSERT INTO agent_instances (user_id, name, first_seen, last_seen) VALUES ('u_bot', 'laptop', 1, 2)");
    assert.deepEqual(rows(db, 'SELECT note FROM agent_instances'), [{ note: '' }]);
    db.exec("INSERT INTO instance_cursors (user_id, instance) VALUES ('u_bot', 'laptop')");
    assert.deepEqual(rows(db, 'SELECT confirmed_gid, last_upto FROM instance_cursors'), [{ confirmed_gid: 0, last_upto: 0 }]);
    db.exec("INSERT INTO read_receipts (conv_id, user_id, seq, at) VALUES ('c_1', 'u_bot', 1, 3)");
    assert.deepEqual(rows(db, 'SELECT instance FROM read_receipts'), [{ instance: '' }]);
    const key =
      "INSERT INTO agent_keys (id, user_id, name, key_hash, key_hint, scopes, created_at) VALUES (?, 'u_bot', 'ci', x'01', 'k…', '[]', 4)";
    db.prepare(key).run('k_1');
    assert.throws(() => db.prepare(key).run('k_2'), /UNIQUE/, 'two keys never share a hash');
    assert.deepEqual(indexColumns(db, 'agent_keys_by_user'), ['user_id', 'created_at']);
  },
});
