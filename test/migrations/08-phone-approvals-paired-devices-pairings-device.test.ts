// Migration 8: devices, device_pairings, device_audit, push_subscriptions and used_action_tokens, with their defaults.
import assert from 'node:assert/strict';
import { indexColumns, migrationTest, rows, seedConversation, tableExists } from '../support/migration-test';

migrationTest({
  version: 8,
  seed: seedConversation,
  check: (db) => {
    for (const t of ['devices', 'device_pairings', 'device_audit', 'push_subscriptions', 'used_action_tokens'])
      assert.ok(tableExists(db, t), `table ${t} exists`);
    db.exec(
      "INSERT INTO devices (id, name, scope, token_hash, token_hint, created_at) VALUES ('d_1', 'Phone', 'approvals', x'01', 'p…', 1)",
    );
    assert.throws(
      () =>
        db.exec("INSERT INTO devices (id, name, scope, token_hash, token_hint, created_at) VALUES ('d_2', 'P2', 'full', x'01', 'p…', 1)"),
      /UNIQUE/,
    );
    db.exec("INSERT INTO device_pairings (id, code_hash, scope, created_at, expires_at) VALUES ('p_1', x'02', 'full', 1, 2)");
    assert.deepEqual(rows(db, 'SELECT name, claimed_at FROM device_pairings'), [{ name: '', claimed_at: null }]);
    db.exec(
      "INSERT INTO push_subscriptions (device_id, endpoint, p256dh, auth, created_at) VALUES ('d_1', 'https://push.example/1', 'k', 'a', 1)",
    );
    assert.deepEqual(rows(db, 'SELECT failures FROM push_subscriptions'), [{ failures: 0 }]);
    assert.deepEqual(indexColumns(db, 'device_audit_by_device'), ['device_id', 'id']);
  },
});
