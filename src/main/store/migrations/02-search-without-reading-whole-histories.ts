// Migration 2: search without reading whole histories. It has shipped: never edit it; a change is a new migration (index.ts).
import type { Migration } from './migration';

export const migration02: Migration = {
  version: 2,
  name: 'search without reading whole histories',
  // - messages_by_conv_time: a conversation's messages newest first, in search's own order
  //   (created_at, seq), so a search can stop after `limit` matches instead of reading a
  //   conversation's whole history.
  // - messages_out_of_time_order: set when some message has an earlier created_at than the one
  //   created before it (the clock went back); search then does not rely on creation order being
  //   time order (store/tables/talk/messages.ts). New messages keep it up to date.
  // (The text index for search is kept beside the database by a worker: store/worker/background.ts.)
  sql: /* sql */ `
CREATE INDEX messages_by_conv_time ON messages (conv_id, created_at, seq);

INSERT OR IGNORE INTO settings (key, value)
  SELECT 'messages_out_of_time_order', '1' WHERE EXISTS (
    SELECT 1 FROM (SELECT created_at < lag(created_at) OVER (ORDER BY rowid) AS back FROM messages) WHERE back);
`,
};
