// Migration 16: archived conversations, retention rules, and search entries to forget. It has shipped: never edit it; a change is a new migration (index.ts).
import type { Migration } from './migration';

export const migration16: Migration = {
  version: 16,
  name: 'archived conversations, retention rules, and search entries to forget',
  // - conversations.archived_at: the owner archived it (hub/talk/archive.ts): out of the agents' lists and
  //   read-only for them; archived_by is who ('owner', or 'retention' for an idle rule).
  // - retention_rules: the owner's rules (hub/features/retention/retention.ts): scope '' is the whole hub, else a conv_id.
  //   keep_days: events and messages older than that go (NULL: kept); the keep_* flags keep pinned messages,
  //   requests and agents' summaries; archive_idle_days: archive a conversation idle that long.
  // - search_forget: creation-event gids of messages retention deleted; the store's worker removes them from the
  //   search index (store/worker/background-worker.ts) and records how far it got in the index file.
  // - files_by_msg, requests_by_msg: retention deletes a message's files and request without reading the tables.
  sql: /* sql */ `
ALTER TABLE conversations ADD COLUMN archived_at INTEGER;
ALTER TABLE conversations ADD COLUMN archived_by TEXT;
CREATE TABLE retention_rules (
  scope              TEXT PRIMARY KEY,
  keep_days          INTEGER,
  keep_pinned        INTEGER NOT NULL DEFAULT 1,
  keep_requests      INTEGER NOT NULL DEFAULT 1,
  keep_checkpoints   INTEGER NOT NULL DEFAULT 1,
  archive_idle_days  INTEGER,
  updated_at         INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE search_forget (
  id   INTEGER PRIMARY KEY AUTOINCREMENT,
  gid  INTEGER NOT NULL
);
CREATE INDEX files_by_msg ON files (msg_id) WHERE msg_id IS NOT NULL;
CREATE INDEX requests_by_msg ON requests (msg_id);
`,
};
