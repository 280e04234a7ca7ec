// Migration 17 on a database as version 16 left it, with a standing rule and a request in it: opening it with this
// build adds requests.door (which door filed a harness's permission prompt) and permission_rules.added_by /
// added_by_name (who added a rule). Every row that was there is still there, unchanged; what version 16 could not
// know stays NULL: no earlier request counts as filed by the hook door, no earlier rule claims an author.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase, schemaVersion } from '../../src/main/store/db/db';
import { LATEST_VERSION, MIGRATIONS } from '../../src/main/store/migrations';

test('migration 17 adds requests.door and permission_rules.added_by / added_by_name, NULL for the rows already there, and keeps every row', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-migration-17-'));
  try {
    const file = path.join(dir, 'perch.sqlite');
    const old = new Database(file);
    for (const m of MIGRATIONS.filter((x) => x.version <= 16)) old.exec(m.sql);
    old.pragma('user_version = 16');
    old.prepare(`INSERT INTO permission_rules (id, agent_id, tool, command_prefix, behavior, created_at) VALUES ('pr_1', 'u_bot', 'Bash', 'npm test', 'allow', 5)`).run();
    old.prepare(`INSERT INTO requests (id, conv_id, msg_id, requester_id, kind, title, options, context, assignees, state, created_at, expires_at)
                 VALUES ('r_1', 'c_1', 'm_1', 'u_bot', 'approve', 'Allow Bash: npm test?', NULL, '{"source":"permission_prompt"}', '["u_owner"]', 'pending', 6, 99)`).run();
    old.close();

    const db = openDatabase(file);
    try {
      assert.equal(schemaVersion(db), LATEST_VERSION);
      assert.deepEqual({ ...(db.prepare('SELECT * FROM permission_rules').get() as object) }, {
        id: 'pr_1', agent_id: 'u_bot', tool: 'Bash', command_prefix: 'npm test', behavior: 'allow', created_at: 5, added_by: null, added_by_name: null,
      });
      const r = db.prepare('SELECT id, title, context, state, door FROM requests').get() as Record<string, unknown>;
      assert.deepEqual({ ...r }, { id: 'r_1', title: 'Allow Bash: npm test?', context: '{"source":"permission_prompt"}', state: 'pending', door: null });
      db.prepare(`INSERT INTO permission_rules (id, agent_id, tool, command_prefix, behavior, created_at, added_by, added_by_name) VALUES ('pr_2', 'u_bot', 'Bash', 'curl', 'deny', 7, 'dev_1', 'Phone')`).run();
      assert.equal((db.prepare("SELECT added_by_name FROM permission_rules WHERE id = 'pr_2'").get() as { added_by_name: string }).added_by_name, 'Phone');
    } finally {
      db.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
