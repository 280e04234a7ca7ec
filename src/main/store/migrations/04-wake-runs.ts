// Migration 4: wake runs. It has shipped: never edit it; a change is a new migration (index.ts).
import type { Migration } from './migration';

export const migration04: Migration = {
  version: 4,
  name: 'wake runs',
  // - wake_actions: what the owner configured to start an agent that is not listening (one row per
  //   agent; action is JSON, see shared/agents/wake.ts); enabled goes 0 after repeated failures (off_reason).
  // - wake_runs: every run, its status, why it was woken and its captured output's file.
  sql: /* sql */ `
CREATE TABLE wake_actions (
  agent_id             TEXT PRIMARY KEY,
  action               TEXT NOT NULL,
  enabled              INTEGER NOT NULL DEFAULT 1,
  off_reason           TEXT,
  consecutive_failures INTEGER NOT NULL DEFAULT 0,
  webhook_secret       TEXT,
  updated_at           INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE wake_runs (
  id            TEXT PRIMARY KEY,
  agent_id      TEXT NOT NULL,
  kind          TEXT NOT NULL,
  status        TEXT NOT NULL,
  woken_at      REAL NOT NULL,
  started_at    REAL NOT NULL,
  running_at    REAL,
  first_call_at REAL,
  ended_at      REAL,
  exit_code     INTEGER,
  signal        TEXT,
  error         TEXT,
  why           TEXT NOT NULL,
  usage         TEXT,
  pid           INTEGER,
  log_file      TEXT
) WITHOUT ROWID;
CREATE INDEX wake_runs_by_agent ON wake_runs (agent_id, started_at);
CREATE INDEX wake_runs_running ON wake_runs (status) WHERE status = 'running';
`,
};
