// Migration 10: messages the owner hid. It has shipped: never edit it; a change is a new migration (index.ts).
import type { Migration } from './migration';

export const migration10: Migration = {
  version: 10,
  name: 'messages the owner hid',
  // A person hides a message from their own view (an agent's message that is unpleasant or will not
  // display); it stays in the conversation for everyone else. Showing it again deletes the row.
  sql: /* sql */ `
CREATE TABLE hidden_messages (
  user_id    TEXT NOT NULL,
  msg_id     TEXT NOT NULL,
  hidden_at  INTEGER NOT NULL,
  PRIMARY KEY (user_id, msg_id)
) WITHOUT ROWID;
`,
};
