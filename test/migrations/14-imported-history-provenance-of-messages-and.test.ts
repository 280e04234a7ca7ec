// Migration 14: messages.provenance and events.imported, NULL for everything already there (written here, not imported).
import assert from 'node:assert/strict';
import { column, migrationTest, rows, seedConversation } from '../support/migration-test';

migrationTest({
  version: 14,
  seed: seedConversation,
  check: (db) => {
    assert.equal(column(db, 'messages', 'provenance')?.type, 'TEXT');
    assert.equal(column(db, 'events', 'imported')?.type, 'INTEGER');
    assert.deepEqual(rows(db, 'SELECT provenance FROM messages'), [{ provenance: null }]);
    assert.deepEqual(rows(db, 'SELECT imported FROM events'), [{ imported: null }]);
  },
});
