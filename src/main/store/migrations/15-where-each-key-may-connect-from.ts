// Migration 15: where each key may connect from. It has shipped: never edit it; a change is a new migration (index.ts).
import type { Migration } from './migration';

export const migration15: Migration = {
  version: 15,
  name: 'where each key may connect from',
  // A key's allowed places (hub/identity/places.ts): a JSON array of local (loopback, the default), containers
  // (the container bridge listener), tailnet (through the HTTPS front) and address ranges (CIDR). On an agent's
  // own key (users; a wake run's key inherits it) and on each scoped key (agent_keys). Existing keys stay local.
  sql: /* sql */ `
ALTER TABLE users ADD COLUMN allowed_from TEXT NOT NULL DEFAULT '["local"]';
ALTER TABLE agent_keys ADD COLUMN allowed_from TEXT NOT NULL DEFAULT '["local"]';
`,
};
