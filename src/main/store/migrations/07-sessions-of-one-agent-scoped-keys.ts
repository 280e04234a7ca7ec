// Migration 7: sessions of one agent, scoped keys, read receipts. It has shipped: never edit it; a change is a new migration (index.ts).
import type { Migration } from './migration';

export const migration07: Migration = {
  version: 7,
  name: 'sessions of one agent, scoped keys, read receipts',
  // - messages.sender_instance / to_instance: the instance name a message was sent from / addressed to.
  // - agent_instances: the instance names in use under an agent (store/tables/talk/agent-sessions.ts keeps at most 50).
  // - instance_cursors: each named instance's own confirmed position in get_updates (the unnamed
  //   session keeps delivery_cursors).
  // - read_receipts: how far each member (instance '' = unnamed) confirmed in each conversation.
  // - agent_keys: extra keys of an agent, each with scopes and an optional expiry (store/tables/agents/agent-keys.ts).
  sql: /* sql */ `
ALTER TABLE messages ADD COLUMN sender_instance TEXT;
ALTER TABLE messages ADD COLUMN to_instance TEXT;

CREATE TABLE agent_instances (
  user_id     TEXT NOT NULL,
  name        TEXT NOT NULL,
  note        TEXT NOT NULL DEFAULT '',
  first_seen  INTEGER NOT NULL,
  last_seen   INTEGER NOT NULL,
  PRIMARY KEY (user_id, name)
) WITHOUT ROWID;

CREATE TABLE instance_cursors (
  user_id        TEXT NOT NULL,
  instance       TEXT NOT NULL,
  confirmed_gid  INTEGER NOT NULL DEFAULT 0,
  last_upto      INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, instance)
) WITHOUT ROWID;

CREATE TABLE read_receipts (
  conv_id   TEXT NOT NULL,
  user_id   TEXT NOT NULL,
  instance  TEXT NOT NULL DEFAULT '',
  seq       INTEGER NOT NULL,
  at        INTEGER NOT NULL,
  PRIMARY KEY (conv_id, user_id, instance)
) WITHOUT ROWID;

CREATE TABLE agent_keys (
  id          TEXT PRIMARY KEY,
  user_id     TEXT NOT NULL,
  name        TEXT NOT NULL,
  key_hash    BLOB NOT NULL UNIQUE,
  key_hint    TEXT NOT NULL,
  scopes      TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  expires_at  INTEGER,
  revoked_at  INTEGER
);
CREATE INDEX agent_keys_by_user ON agent_keys (user_id, created_at);
`,
};
