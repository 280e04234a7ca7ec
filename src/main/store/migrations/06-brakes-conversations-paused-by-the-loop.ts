// Migration 6: brakes: conversations paused by the loop brake, per-agent budgets. It has shipped: never edit it; a change is a new migration (index.ts).
import type { Migration } from './migration';

export const migration06: Migration = {
  version: 6,
  name: 'brakes: conversations paused by the loop brake, per-agent budgets',
  // - conversation_pauses: a conversation the loop brake paused for agents (hub/control/brakes.ts); the row
  //   goes when a person lifts it (Resume, or writing in it).
  // - agent_brakes: the owner's per-agent budget (messages per hour per conversation; 0 = off);
  //   no row = the default.
  sql: /* sql */ `
CREATE TABLE conversation_pauses (
  conv_id    TEXT PRIMARY KEY,
  reason     TEXT NOT NULL,
  agents     TEXT NOT NULL,
  paused_at  INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE agent_brakes (
  user_id  TEXT PRIMARY KEY,
  budget   INTEGER NOT NULL
) WITHOUT ROWID;
`,
};
