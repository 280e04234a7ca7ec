// Migration 19: where each agent is connected. It has shipped: never edit it; a change is a new migration (index.ts).
import type { Migration } from './migration';

export const migration19: Migration = {
  version: 19,
  name: 'where each agent is connected',
  // What `perch connect --write` wired (and `perch disconnect` unwires): a harness's config at the user's scope (dir:
  // the home folder) or a project's (dir: the project folder as the file system names it), one agent's each. The hook
  // door reads it so that one agent answers for a session: the most specific connection covering the session's
  // folder (hub/control/connections.ts).
  sql: /* sql */ `
CREATE TABLE connections (
  client       TEXT NOT NULL,
  scope        TEXT NOT NULL CHECK (scope IN ('user', 'project')),
  dir          TEXT NOT NULL,
  agent_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  connected_at INTEGER NOT NULL,
  PRIMARY KEY (client, scope, dir)
) WITHOUT ROWID;
`,
};
