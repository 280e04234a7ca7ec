// Migration 9: review mode: every write others read can be held. It has shipped: never edit it; a change is a new migration (index.ts).
import type { Migration } from './migration';

export const migration09: Migration = {
  version: 9,
  name: 'review mode: every write others read can be held',
  // held_items.kind gains edit, request, task, group, task_update and handoff (hub/features/review/review-calls.ts: the
  // input is the tool's arguments), and conv_id may be NULL (a task channel or group not made yet).
  // SQLite cannot change a CHECK, so the table is made again with the rows copied.
  sql: /* sql */ `
CREATE TABLE held_items_new (
  id          TEXT PRIMARY KEY,
  agent_id    TEXT NOT NULL,
  conv_id     TEXT,
  kind        TEXT NOT NULL CHECK (kind IN ('message', 'card', 'file', 'edit', 'request', 'task', 'group', 'task_update', 'handoff')),
  input       TEXT NOT NULL,
  data        BLOB,
  thumb       BLOB,
  created_at  INTEGER NOT NULL,
  state       TEXT NOT NULL DEFAULT 'held' CHECK (state IN ('held', 'sent', 'discarded')),
  decided_at  INTEGER,
  msg_id      TEXT,
  sent_text   TEXT
);
INSERT INTO held_items_new (id, agent_id, conv_id, kind, input, data, thumb, created_at, state, decided_at, msg_id, sent_text)
  SELECT id, agent_id, conv_id, kind, input, data, thumb, created_at, state, decided_at, msg_id, sent_text FROM held_items;
DROP TABLE held_items;
ALTER TABLE held_items_new RENAME TO held_items;
CREATE INDEX held_items_by_state ON held_items (state, created_at);
`,
};
