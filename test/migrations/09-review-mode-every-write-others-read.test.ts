// Migration 9: held_items is made again so kind allows every write others read (edit, request, task, …) and conv_id may be
// NULL; the held items already there are copied as they were (the harness checks every row) and the index is back.
import assert from 'node:assert/strict';
import { column, indexColumns, migrationTest, rows, seedConversation } from '../support/migration-test';

migrationTest({
  version: 9,
  seed: (db) => {
    seedConversation(db);
    db.exec(`INSERT INTO held_items (id, agent_id, conv_id, kind, input, data, created_at, state, decided_at, msg_id, sent_text) VALUES
      ('h_1', 'u_bot', 'c_1', 'message', '{"text":"hi"}', NULL, 3000, 'held', NULL, NULL, NULL),
      ('h_2', 'u_bot', 'c_1', 'file', '{"name":"a.png"}', x'89504e47', 3001, 'sent', 3002, 'm_1', NULL)`);
  },
  check: (db) => {
    assert.equal(column(db, 'held_items', 'conv_id')?.notnull, 0, 'conv_id may be NULL');
    for (const kind of ['edit', 'request', 'task', 'group', 'task_update', 'handoff']) {
      db.prepare("INSERT INTO held_items (id, agent_id, conv_id, kind, input, created_at) VALUES (?, 'u_bot', NULL, ?, '{}', 4000)").run(
        `h_${kind}`,
        kind,
      );
    }
    assert.throws(
      () => db.exec("INSERT INTO held_items (id, agent_id, kind, input, created_at) VALUES ('h_x', 'u_bot', 'poem', '{}', 1)"),
      /CHECK/,
    );
    assert.deepEqual(rows(db, "SELECT state FROM held_items WHERE id = 'h_task'"), [{ state: 'held' }]);
    assert.deepEqual(indexColumns(db, 'held_items_by_state'), ['state', 'created_at']);
  },
});
