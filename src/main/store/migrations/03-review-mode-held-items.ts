// Migration 3: review mode: held items. It has shipped: never edit it; a change is a new migration (index.ts).
import type { Migration } from './migration';

export const migration03: Migration = {
  version: 3,
  name: 'review mode: held items',
  // - review_mode: agents whose sends are held for the owner (hub/features/review/review.ts).
  // - held_items: a held send_message / send_card / send_file: the validated input (JSON), for a file
  //   its processed bytes (data, thumb; cleared once sent or discarded), state held → sent | discarded.
  // - messages.reviewed: 1 when a person reviewed the message before it was posted, 2 when they also
  //   edited its text (provenance.reviewed / provenance.owner_edited, hub/core/views.ts).
  sql: /* sql */ `
CREATE TABLE review_mode (
  agent_id  TEXT PRIMARY KEY,
  since     INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE held_items (
  id          TEXT PRIMARY KEY,
  agent_id    TEXT NOT NULL,
  conv_id     TEXT NOT NULL,
  kind        TEXT NOT NULL CHECK (kind IN ('message', 'card', 'file')),
  input       TEXT NOT NULL,
  data        BLOB,
  thumb       BLOB,
  created_at  INTEGER NOT NULL,
  state       TEXT NOT NULL DEFAULT 'held' CHECK (state IN ('held', 'sent', 'discarded')),
  decided_at  INTEGER,
  msg_id      TEXT,
  sent_text   TEXT
);
CREATE INDEX held_items_by_state ON held_items (state, created_at);

ALTER TABLE messages ADD COLUMN reviewed INTEGER;
`,
};
