// Migration 5: owner control: pause and daily caps per agent, daily usage. It has shipped: never edit it; a change is a new migration (index.ts).
import type { Migration } from './migration';

export const migration05: Migration = {
  version: 5,
  name: 'owner control: pause and daily caps per agent, daily usage',
  // Owner control (hub/control/control.ts): agent_controls holds an agent's pause (who paused it, why, since when)
  // and its daily caps (NULL = no cap); usage_daily sums each agent's reported usage, messages and tool
  // calls per day of the owner's local time (one small row per agent per day, upserted).
  sql: /* sql */ `
CREATE TABLE agent_controls (
  user_id         TEXT PRIMARY KEY REFERENCES users (id),
  paused_at       INTEGER,
  paused_by       TEXT,
  paused_reason   TEXT,
  paused_detail   TEXT,
  cap_cost_usd    REAL,
  cap_messages    INTEGER,
  cap_tool_calls  INTEGER
) WITHOUT ROWID;

CREATE TABLE usage_daily (
  user_id        TEXT NOT NULL,
  day            TEXT NOT NULL,
  input_tokens   INTEGER NOT NULL DEFAULT 0,
  output_tokens  INTEGER NOT NULL DEFAULT 0,
  cost_usd       REAL NOT NULL DEFAULT 0,
  messages       INTEGER NOT NULL DEFAULT 0,
  tool_calls     INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, day)
) WITHOUT ROWID;
`,
};
