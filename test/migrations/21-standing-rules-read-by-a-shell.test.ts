// Migration 21 on a database as version 20 left it, with a standing rule and a prompt in it: the rule keeps what it
// was (this agent, always, no widened options, never used), the prompt has no shape and no deciding rule, and the new
// columns, CHECKs and the suggestions table take what they promise.
import assert from 'node:assert/strict';
import { migrationTest, rows } from '../support/migration-test';

migrationTest({
  version: 21,
  seed: (db) => {
    db.exec(
      `INSERT INTO permission_rules (id, agent_id, tool, command_prefix, behavior, created_at, added_by) VALUES ('pr_1', 'u_bot', 'Bash', 'npm test', 'allow', 5, 'laptop')`,
    );
    db.exec(`INSERT INTO requests (id, conv_id, msg_id, requester_id, kind, title, options, context, assignees, state, created_at, expires_at, door)
             VALUES ('r_1', 'c_1', 'm_1', 'u_bot', 'approve', 'Allow Bash: npm test?', NULL, '{"source":"permission_prompt"}', '["u_owner"]', 'approved', 6, 99, 'hook')`);
  },
  check: (db) => {
    assert.deepEqual(
      rows(
        db,
        'SELECT id, any_options, exact, from_request_id, decided_count, last_used_at, scope, folder, lifetime, session_id, expires_at FROM permission_rules',
      ),
      [
        {
          id: 'pr_1',
          any_options: 0,
          exact: 0,
          from_request_id: null,
          decided_count: 0,
          last_used_at: null,
          scope: 'agent',
          folder: null,
          lifetime: 'always',
          session_id: null,
          expires_at: null,
        },
      ],
    );
    assert.deepEqual(rows(db, 'SELECT id, decided_by_rule, prompt_shape FROM requests'), [
      { id: 'r_1', decided_by_rule: null, prompt_shape: null },
    ]);
    assert.throws(() => db.exec("UPDATE permission_rules SET scope = 'world'"), /CHECK/);
    assert.throws(() => db.exec("UPDATE permission_rules SET lifetime = 'forever'"), /CHECK/);
    assert.throws(() => db.exec('UPDATE permission_rules SET any_options = 2'), /CHECK/);
    db.exec("UPDATE requests SET prompt_shape = 'Bash\tnpm test', decided_by_rule = 'pr_1'");
    db.exec("INSERT INTO rule_suggestions (agent_id, tool, shape, state, at) VALUES ('u_bot', 'Bash', 'npm test', 'dismissed', 7)");
    assert.throws(
      () => db.exec("INSERT INTO rule_suggestions (agent_id, tool, shape, state, at) VALUES ('u_bot', 'Bash', 'npm test', 'accepted', 8)"),
      /UNIQUE|PRIMARY/,
    );
    assert.throws(
      () => db.exec("INSERT INTO rule_suggestions (agent_id, tool, shape, state, at) VALUES ('u_bot', 'Bash', 'ls', 'maybe', 8)"),
      /CHECK/,
    );
  },
});
