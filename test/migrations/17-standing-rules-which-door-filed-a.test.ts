// Migration 17 on a database as version 16 left it, with a standing rule and a request in it: it adds requests.door (which
// door filed a harness's permission prompt) and permission_rules.added_by / added_by_name (who added a rule). What
// version 16 could not know stays NULL: no earlier request counts as filed by the hook door, no earlier rule claims an author.
import assert from 'node:assert/strict';
import { migrationTest, rows } from '../support/migration-test';

migrationTest({
  version: 17,
  seed: (db) => {
    db.exec(
      `INSERT INTO permission_rules (id, agent_id, tool, command_prefix, behavior, created_at) VALUES ('pr_1', 'u_bot', 'Bash', 'npm test', 'allow', 5)`,
    );
    db.exec(`INSERT INTO requests (id, conv_id, msg_id, requester_id, kind, title, options, context, assignees, state, created_at, expires_at)
             VALUES ('r_1', 'c_1', 'm_1', 'u_bot', 'approve', 'Allow Bash: npm test?', NULL, '{"source":"permission_prompt"}', '["u_owner"]', 'pending', 6, 99)`);
  },
  check: (db) => {
    assert.deepEqual(
      rows(db, 'SELECT id, agent_id, tool, command_prefix, behavior, created_at, added_by, added_by_name FROM permission_rules'),
      [
        {
          id: 'pr_1',
          agent_id: 'u_bot',
          tool: 'Bash',
          command_prefix: 'npm test',
          behavior: 'allow',
          created_at: 5,
          added_by: null,
          added_by_name: null,
        },
      ],
    );
    assert.deepEqual(rows(db, 'SELECT id, state, door FROM requests'), [{ id: 'r_1', state: 'pending', door: null }]);
    db.exec(
      `INSERT INTO permission_rules (id, agent_id, tool, command_prefix, behavior, created_at, added_by, added_by_name) VALUES ('pr_2', 'u_bot', 'Bash', 'curl', 'deny', 7, 'dev_1', 'Phone')`,
    );
    assert.deepEqual(rows(db, "SELECT added_by, added_by_name FROM permission_rules WHERE id = 'pr_2'"), [
      { added_by: 'dev_1', added_by_name: 'Phone' },
    ]);
    db.exec("UPDATE requests SET door = 'hook'");
  },
});
