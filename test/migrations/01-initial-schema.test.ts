// Migration 1 on a new, empty file (schema 0): every table of the first schema is made, with its defaults.
import assert from 'node:assert/strict';
import { migrationTest, rows, seedConversation, tableExists } from '../support/migration-test';

const TABLES = [
  'users',
  'conversations',
  'members',
  'events',
  'messages',
  'reactions',
  'pins',
  'idempotency',
  'delivery_cursors',
  'requests',
  'card_responses',
  'handoffs',
  'files',
  'state_values',
  'state_keys',
  'summaries',
  'progress',
  'owner_sessions',
  'settings',
];

migrationTest({
  version: 1,
  seed: () => {}, // schema 0 is an empty file: nothing to write
  check: (db) => {
    for (const t of TABLES) assert.ok(tableExists(db, t), `table ${t} exists`);
    seedConversation(db);
    assert.deepEqual(rows(db, "SELECT description, config, config_version, revoked_at FROM users WHERE id = 'u_bot'"), [
      { description: '', config: '{}', config_version: 1, revoked_at: null },
    ]);
    assert.deepEqual(rows(db, "SELECT kind FROM messages WHERE id = 'm_1'"), [{ kind: 'text' }], "a message's kind defaults to text");
    assert.throws(() => db.exec("INSERT INTO users (id, kind, name, created_at) VALUES ('u_x', 'robot', 'x', 1)"), /CHECK/);
  },
});
