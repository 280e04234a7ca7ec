// Migration 12: device_audit.count: earlier refusals with no device behind them become tallies of 1; a device's own
// entries and allowed calls keep count NULL; the two partial indexes exist.
import assert from 'node:assert/strict';
import { indexColumns, migrationTest, rows } from '../support/migration-test';

migrationTest({
  version: 12,
  seed: (db) => {
    db.exec(`INSERT INTO device_audit (id, at, device_id, device_name, action, target, outcome) VALUES
      (1, 100, NULL, 'unknown', 'pair.claim', NULL, 'refused:bad_code'),
      (2, 101, 'd_1', 'Phone', 'approve', 'r_1', 'refused:expired'),
      (3, 102, 'd_1', 'Phone', 'approve', 'r_2', 'allowed'),
      (4, 103, NULL, 'unknown', 'push.action', NULL, 'allowed')`);
  },
  check: (db) => {
    assert.deepEqual(rows(db, 'SELECT id, count FROM device_audit ORDER BY id'), [
      { id: 1, count: 1 },
      { id: 2, count: null },
      { id: 3, count: null },
      { id: 4, count: null },
    ]);
    assert.deepEqual(indexColumns(db, 'device_audit_tallies'), ['action', 'outcome', 'at']);
    assert.deepEqual(indexColumns(db, 'device_audit_entries'), ['id']);
  },
});
