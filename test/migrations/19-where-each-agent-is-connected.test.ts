// Migration 19: the connections table, empty after the upgrade (nothing recorded before it: the hook door answers as
// before); one agent per (client, scope, dir), and an agent's connections go with it.
import assert from 'node:assert/strict';
import { migrationTest, rows, seedConversation } from '../support/migration-test';

migrationTest({
  version: 19,
  seed: (db) => {
    seedConversation(db);
  },
  check: (db) => {
    assert.deepEqual(rows(db, 'SELECT * FROM connections'), [], 'nothing was connected before');
    db.exec("INSERT INTO connections (client, scope, dir, agent_id, connected_at) VALUES ('claude-code', 'user', '/home/me', 'u_bot', 1)");
    db.exec(
      "INSERT INTO connections (client, scope, dir, agent_id, connected_at) VALUES ('claude-code', 'project', '/home/me/src/web', 'u_bot', 2)",
    );
    assert.throws(
      () =>
        db.exec(
          "INSERT INTO connections (client, scope, dir, agent_id, connected_at) VALUES ('claude-code', 'user', '/home/me', 'u_bot', 3)",
        ),
      /UNIQUE|PRIMARY KEY/,
      'one agent per client, scope and dir',
    );
    assert.throws(
      () => db.exec("INSERT INTO connections (client, scope, dir, agent_id, connected_at) VALUES ('codex', 'global', '/', 'u_bot', 3)"),
      /CHECK/,
    );
    assert.deepEqual(rows(db, "SELECT dir FROM connections WHERE client = 'claude-code' ORDER BY dir"), [
      { dir: '/home/me' },
      { dir: '/home/me/src/web' },
    ]);
  },
});
