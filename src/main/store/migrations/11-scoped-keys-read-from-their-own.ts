// Migration 11: scoped keys read from their own get_updates positions. It has shipped: never edit it; a change is a new migration (index.ts).
import type { Migration } from './migration';

export const migration11: Migration = {
  version: 11,
  name: 'scoped keys read from their own get_updates positions',
  // - key_cursors: each scoped key's own confirmed position in get_updates (instance '' = unnamed; a named
  //   instance read through the key has its own), so a key never moves the agent's position
  //   (store/tables/agents/agent-keys.ts). Dropped with the key when it is revoked.
  sql: /* sql */ `
CREATE TABLE key_cursors (
  key_id         TEXT NOT NULL,
  instance       TEXT NOT NULL DEFAULT '',
  confirmed_gid  INTEGER NOT NULL DEFAULT 0,
  last_upto      INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, instance)
) WITHOUT ROWID;
`,
};
