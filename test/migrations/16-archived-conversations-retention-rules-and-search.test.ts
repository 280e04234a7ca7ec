// Migration 16: conversations.archived_at / archived_by (NULL: nothing is archived by the upgrade), retention_rules (keep_*
// flags default 1), search_forget, and the indexes files_by_msg and requests_by_msg.
import assert from 'node:assert/strict';
import { indexColumns, migrationTest, rows, seedConversation } from '../support/migration-test';

migrationTest({
  version: 16,
  seed: (db) => {
    seedConversation(db);
    db.exec(`INSERT INTO requests (id, conv_id, msg_id, requester_id, kind, title, assignees, created_at, expires_at)
             VALUES ('r_1', 'c_1', 'm_1', 'u_bot', 'approve', 'Deploy?', '["u_owner"]', 2000, 9000)`);
  },
  check: (db) => {
    assert.deepEqual(rows(db, 'SELECT archived_at, archived_by FROM conversations'), [{ archived_at: null, archived_by: null }]);
    assert.deepEqual(rows(db, 'SELECT * FROM retention_rules'), [], 'no retention rule: everything is kept');
    db.exec("INSERT INTO retention_rules (scope, updated_at) VALUES ('', 3000)");
    assert.deepEqual(rows(db, 'SELECT keep_days, keep_pinned, keep_requests, keep_checkpoints, archive_idle_days FROM retention_rules'), [
      { keep_days: null, keep_pinned: 1, keep_requests: 1, keep_checkpoints: 1, archive_idle_days: null },
    ]);
    db.exec('INSERT INTO search_forget (gid) VALUES (1)');
    assert.deepEqual(indexColumns(db, 'files_by_msg'), ['msg_id']);
    assert.deepEqual(indexColumns(db, 'requests_by_msg'), ['msg_id']);
  },
});
