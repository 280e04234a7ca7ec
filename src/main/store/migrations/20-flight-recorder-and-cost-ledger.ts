// Migration 20: the flight recorder and the cost ledger. It has shipped once merged: never edit it; a change is a new
// migration (index.ts).
import type { Migration } from './migration';

export const migration20: Migration = {
  version: 20,
  name: 'the flight recorder and the cost ledger',
  // telemetry_tokens: one telemetry-only token per agent (hashed like keys): it may add usage records for its agent at
  // the OTLP receiver and nothing else. Rotating the agent's key drops it; revoking the agent stops it.
  // ledger_records: what the harnesses reported (tool decisions, tool results, API requests with tokens and cost),
  // append-only; each local day's rows are hash-chained (hash covers the previous row's hash of that day and the
  // row's own fields), so an edited or removed row breaks the chain (perch ledger verify). `dedupe` is a digest of the
  // record as sent: an exporter's retry of the same batch adds nothing.
  // model_prices: the owner's own prices per model (USD per million tokens); shipped prices live in the code.
  sql: /* sql */ `
CREATE TABLE telemetry_tokens (
  user_id     TEXT PRIMARY KEY REFERENCES users(id),
  token_hash  BLOB NOT NULL UNIQUE,
  hint        TEXT NOT NULL,
  created_at  INTEGER NOT NULL
);

CREATE TABLE ledger_records (
  id                 INTEGER PRIMARY KEY,
  day                TEXT NOT NULL,
  received_at        INTEGER NOT NULL,
  at                 INTEGER NOT NULL,
  agent_id           TEXT NOT NULL REFERENCES users(id),
  harness            TEXT NOT NULL,
  kind               TEXT NOT NULL,
  session_id         TEXT,
  call_id            TEXT,
  tool               TEXT,
  model              TEXT,
  detail             TEXT NOT NULL,
  input_tokens       INTEGER,
  output_tokens      INTEGER,
  cache_read_tokens  INTEGER,
  cache_write_tokens INTEGER,
  cost_usd           REAL,
  cost_source        TEXT CHECK (cost_source IN ('harness', 'price_table', 'unknown')),
  dedupe             BLOB NOT NULL,
  hash               BLOB NOT NULL,
  UNIQUE (agent_id, dedupe)
);
CREATE INDEX ledger_records_by_call ON ledger_records (agent_id, call_id) WHERE call_id IS NOT NULL;
CREATE INDEX ledger_records_by_day ON ledger_records (day, agent_id);
CREATE INDEX ledger_records_by_session ON ledger_records (agent_id, session_id, id);

CREATE TABLE model_prices (
  model                  TEXT PRIMARY KEY,
  input_per_mtok         REAL NOT NULL CHECK (input_per_mtok >= 0),
  cached_input_per_mtok  REAL NOT NULL CHECK (cached_input_per_mtok >= 0),
  output_per_mtok        REAL NOT NULL CHECK (output_per_mtok >= 0),
  updated_at             INTEGER NOT NULL
);
`,
};
