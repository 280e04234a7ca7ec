// Migration 1: initial schema. It has shipped: never edit it; a change is a new migration (index.ts).
import type { Migration } from './migration';

export const migration01: Migration = {
  version: 1,
  name: 'initial schema',
  sql: /* sql */ `
CREATE TABLE users (
  id             TEXT PRIMARY KEY,
  kind           TEXT NOT NULL CHECK (kind IN ('human', 'agent')),
  name           TEXT NOT NULL UNIQUE,
  description    TEXT NOT NULL DEFAULT '',
  created_at     INTEGER NOT NULL,
  key_hash       BLOB UNIQUE,
  key_hint       TEXT,
  revoked_at     INTEGER,
  config         TEXT NOT NULL DEFAULT '{}',
  config_version INTEGER NOT NULL DEFAULT 1,
  inbox_id       TEXT
);

CREATE TABLE conversations (
  id             TEXT PRIMARY KEY,
  kind           TEXT NOT NULL CHECK (kind IN ('direct', 'group', 'task', 'inbox')),
  title          TEXT NOT NULL DEFAULT '',
  created_by     TEXT NOT NULL,
  created_at     INTEGER NOT NULL,
  last_seq       INTEGER NOT NULL DEFAULT 0,
  last_event_at  INTEGER NOT NULL,
  direct_key     TEXT UNIQUE,
  task_state     TEXT,
  task_assignee  TEXT,
  floor_holder   TEXT,
  floor_until    INTEGER
);
CREATE INDEX conversations_active ON conversations (last_event_at);

CREATE TABLE members (
  conv_id    TEXT NOT NULL,
  user_id    TEXT NOT NULL,
  role       TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  from_seq   INTEGER NOT NULL,
  joined_at  INTEGER NOT NULL,
  read_seq   INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (conv_id, user_id)
) WITHOUT ROWID;
CREATE INDEX members_by_user ON members (user_id, conv_id);

-- The one event log. gid orders all events; (conv_id, seq) is gap-free per conversation.
CREATE TABLE events (
  gid       INTEGER PRIMARY KEY AUTOINCREMENT,
  conv_id   TEXT NOT NULL,
  seq       INTEGER NOT NULL,
  type      TEXT NOT NULL,
  actor_id  TEXT,
  msg_id    TEXT,
  ts        INTEGER NOT NULL,
  data      TEXT,
  wake      TEXT,
  UNIQUE (conv_id, seq)
);
CREATE INDEX events_by_conv_gid ON events (conv_id, gid);
CREATE INDEX events_by_msg ON events (msg_id) WHERE msg_id IS NOT NULL;

CREATE TABLE messages (
  id           TEXT PRIMARY KEY,
  conv_id      TEXT NOT NULL,
  seq          INTEGER NOT NULL,
  sender_id    TEXT NOT NULL,
  kind         TEXT NOT NULL DEFAULT 'text',
  text         TEXT,
  intent       TEXT,
  reply_to     TEXT,
  thread_id    TEXT,
  to_ids       TEXT,
  topics       TEXT,
  refs         TEXT,
  sources      TEXT,
  payload      TEXT,
  created_at   INTEGER NOT NULL,
  edited_at    INTEGER,
  recalled_at  INTEGER,
  claimed_by   TEXT,
  claimed_at   INTEGER
);
CREATE INDEX messages_by_conv_seq ON messages (conv_id, seq);
CREATE INDEX messages_by_thread ON messages (thread_id, seq) WHERE thread_id IS NOT NULL;

CREATE TABLE reactions (
  msg_id   TEXT NOT NULL,
  user_id  TEXT NOT NULL,
  key      TEXT NOT NULL,
  at       INTEGER NOT NULL,
  PRIMARY KEY (msg_id, user_id, key)
) WITHOUT ROWID;

CREATE TABLE pins (
  conv_id    TEXT NOT NULL,
  msg_id     TEXT NOT NULL,
  pinned_by  TEXT NOT NULL,
  pinned_at  INTEGER NOT NULL,
  PRIMARY KEY (conv_id, msg_id)
) WITHOUT ROWID;

-- Idempotent writes: the same id with the same input returns the stored result.
CREATE TABLE idempotency (
  user_id     TEXT NOT NULL,
  scope       TEXT NOT NULL,
  op_id       TEXT NOT NULL,
  input_hash  TEXT NOT NULL,
  result      TEXT NOT NULL,
  at          INTEGER NOT NULL,
  PRIMARY KEY (user_id, scope, op_id)
) WITHOUT ROWID;

-- Delivery position of get_updates per agent.
CREATE TABLE delivery_cursors (
  user_id        TEXT PRIMARY KEY,
  confirmed_gid  INTEGER NOT NULL DEFAULT 0,
  last_upto      INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

CREATE TABLE requests (
  id            TEXT PRIMARY KEY,
  conv_id       TEXT NOT NULL,
  msg_id        TEXT NOT NULL,
  requester_id  TEXT NOT NULL,
  kind          TEXT NOT NULL CHECK (kind IN ('approve', 'answer', 'choose')),
  title         TEXT NOT NULL,
  options       TEXT,
  context       TEXT,
  assignees     TEXT NOT NULL,
  state         TEXT NOT NULL DEFAULT 'pending',
  outcome       TEXT,
  created_at    INTEGER NOT NULL,
  expires_at    INTEGER NOT NULL,
  decided_at    INTEGER,
  decided_by    TEXT
);
CREATE INDEX requests_pending ON requests (state, expires_at);

CREATE TABLE card_responses (
  msg_id     TEXT NOT NULL,
  user_id    TEXT NOT NULL,
  block_id   TEXT NOT NULL,
  value      TEXT NOT NULL,
  at         INTEGER NOT NULL
);
CREATE INDEX card_responses_by_msg ON card_responses (msg_id);

CREATE TABLE handoffs (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  conv_id      TEXT NOT NULL,
  agent_id     TEXT NOT NULL,
  to_user      TEXT NOT NULL,
  note         TEXT NOT NULL,
  at           INTEGER NOT NULL,
  returned_at  INTEGER,
  return_note  TEXT
);
CREATE INDEX handoffs_active ON handoffs (conv_id, agent_id) WHERE returned_at IS NULL;

CREATE TABLE files (
  id           TEXT PRIMARY KEY,
  conv_id      TEXT NOT NULL,
  msg_id       TEXT,
  uploader_id  TEXT NOT NULL,
  name         TEXT NOT NULL,
  mime         TEXT NOT NULL,
  size         INTEGER NOT NULL,
  sha256       TEXT NOT NULL,
  is_image     INTEGER NOT NULL DEFAULT 0,
  width        INTEGER,
  height       INTEGER,
  data         BLOB NOT NULL,
  thumb        BLOB,
  thumb_mime   TEXT,
  created_at   INTEGER NOT NULL
);

CREATE TABLE state_values (
  user_id     TEXT NOT NULL,
  key         TEXT NOT NULL,
  version     INTEGER NOT NULL,
  value       TEXT NOT NULL,
  at          INTEGER NOT NULL,
  PRIMARY KEY (user_id, key, version)
) WITHOUT ROWID;
CREATE TABLE state_keys (
  user_id     TEXT NOT NULL,
  key         TEXT NOT NULL,
  version     INTEGER NOT NULL,
  at          INTEGER NOT NULL,
  PRIMARY KEY (user_id, key)
) WITHOUT ROWID;

CREATE TABLE summaries (
  id        INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id   TEXT NOT NULL,
  conv_id   TEXT NOT NULL,
  from_seq  INTEGER NOT NULL,
  to_seq    INTEGER NOT NULL,
  text      TEXT NOT NULL,
  at        INTEGER NOT NULL
);
CREATE INDEX summaries_latest ON summaries (user_id, conv_id, id);

CREATE TABLE progress (
  id        INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id   TEXT NOT NULL,
  conv_id   TEXT NOT NULL,
  kind      TEXT NOT NULL,
  text      TEXT NOT NULL,
  data      TEXT,
  msg_id    TEXT,
  ts        INTEGER NOT NULL
);
CREATE INDEX progress_by_user ON progress (user_id, id);
CREATE INDEX progress_by_conv ON progress (conv_id, id);

CREATE TABLE owner_sessions (
  token_hash  BLOB PRIMARY KEY,
  kind        TEXT NOT NULL CHECK (kind IN ('login', 'session')),
  created_at  INTEGER NOT NULL,
  expires_at  INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE settings (
  key    TEXT PRIMARY KEY,
  value  TEXT NOT NULL
) WITHOUT ROWID;
`,
};
