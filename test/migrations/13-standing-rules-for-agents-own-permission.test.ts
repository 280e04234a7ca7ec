// Migration 13: permission_rules (behavior allow | deny) and its index by agent and tool; no rule exists after the upgrade.
import assert from 'node:assert/strict';
import { indexColumns, migrationTest, rows, seedConversation } from '../support/migration-test';

migrationTest({
  version: 13,
  seed: seedConversation,
  check: (db) => {
    assert.deepEqual(rows(db, 'SELECT * FROM permission_rules'), []);
    db.exec(
      "INSERT INTO permission_rules (id, agent_id, tool, command_prefix, behavior, created_at) VALUES ('pr_1', 'u_bot', 'Bash', 'npm test', 'allow', 5)",
    );
    assert.throws(
      () => db.exec("INSERT INTO permission_rules (id, agent_id, tool, behavior, created_at) VALUES ('pr_2', 'u_bot', 'Bash', 'maybe', 5)"),
      /CHECK/,
    );
    assert.deepEqual(indexColumns(db, 'permission_rules_by_agent'), ['agent_id', 'tool']);
  },
});
