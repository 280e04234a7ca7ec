// Migration 18: wake_runs.peak_rss_bytes and wake_runs.cpu_secs, NULL by default: a run recorded before sampling
// existed keeps NULL (never sampled), and a new run can record what it cost the machine.
import assert from 'node:assert/strict';
import { column, migrationTest, rows, seedConversation } from '../support/migration-test';

migrationTest({
  version: 18,
  seed: (db) => {
    seedConversation(db);
    db.exec(
      "INSERT INTO wake_runs (id, agent_id, kind, status, woken_at, started_at, why) VALUES ('w_old', 'u_bot', 'command', 'exited', 1.5, 1.5, 'mention')",
    );
  },
  check: (db) => {
    assert.deepEqual(
      column(db, 'wake_runs', 'peak_rss_bytes'),
      { type: 'INTEGER', notnull: 0, dflt_value: null },
      'wake_runs.peak_rss_bytes',
    );
    assert.deepEqual(column(db, 'wake_runs', 'cpu_secs'), { type: 'REAL', notnull: 0, dflt_value: null }, 'wake_runs.cpu_secs');
    assert.deepEqual(
      rows(db, "SELECT peak_rss_bytes, cpu_secs FROM wake_runs WHERE id = 'w_old'"),
      [{ peak_rss_bytes: null, cpu_secs: null }],
      'a run from before was never sampled',
    );
    db.exec(
      "INSERT INTO wake_runs (id, agent_id, kind, status, woken_at, started_at, why, peak_rss_bytes, cpu_secs) VALUES ('w_new', 'u_bot', 'command', 'exited', 2, 2, 'mention', 167772160, 1.25)",
    );
    assert.deepEqual(rows(db, "SELECT peak_rss_bytes, cpu_secs FROM wake_runs WHERE id = 'w_new'"), [
      { peak_rss_bytes: 167772160, cpu_secs: 1.25 },
    ]);
  },
});
