// Migration 13: standing rules for agents' own permission prompts. It has shipped: never edit it; a change is a new migration (index.ts).
import type { Migration } from './migration';

export const migration13: Migration = {
  version: 13,
  name: "standing rules for agents' own permission prompts",
  // The owner's "always allow / always deny" for an agent's harness prompts (perch hook permission-request):
  // one tool, or one command prefix of it. store/tables/agents/permission-rules.ts, hub/features/requests/permission-rules.ts.
  sql: /* sql */ `
CREATE TABLE permission_rules (
  id              TEXT PRIMARY KEY,
  agent_id        TEXT NOT NULL,
  tool            TEXT NOT NULL,
  command_prefix  TEXT,
  behavior        TEXT NOT NULL CHECK (behavior IN ('allow', 'deny')),
  created_at      INTEGER NOT NULL
);
CREATE INDEX permission_rules_by_agent ON permission_rules (agent_id, tool);
`,
};
