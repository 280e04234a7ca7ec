// Numbered, append-only migrations. The database's version is kept in PRAGMA user_version.
// Never edit a migration that has shipped: add a new one at the end.

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
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
  },
  {
    version: 2,
    name: 'search without reading whole histories',
    // - messages_by_conv_time: a conversation's messages newest first, in search's own order
    //   (created_at, seq), so a search can stop after `limit` matches instead of reading a
    //   conversation's whole history.
    // - messages_out_of_time_order: set when some message has an earlier created_at than the one
    //   created before it (the clock went back); search then does not rely on creation order being
    //   time order (store/messages.ts). New messages keep it up to date.
    // (The text index for search is kept beside the database by a worker: store/background.ts.)
    sql: /* sql */ `
CREATE INDEX messages_by_conv_time ON messages (conv_id, created_at, seq);

INSERT OR IGNORE INTO settings (key, value)
  SELECT 'messages_out_of_time_order', '1' WHERE EXISTS (
    SELECT 1 FROM (SELECT created_at < lag(created_at) OVER (ORDER BY rowid) AS back FROM messages) WHERE back);
`,
  },
  {
    version: 3,
    name: 'review mode: held items',
    // - review_mode: agents whose sends are held for the owner (hub/features/review.ts).
    // - held_items: a held send_message / send_card / send_file: the validated input (JSON), for a file
    //   its processed bytes (data, thumb; cleared once sent or discarded), state held → sent | discarded.
    // - messages.reviewed: 1 when a person reviewed the message before it was posted, 2 when they also
    //   edited its text (provenance.reviewed / provenance.owner_edited, hub/core/views.ts).
    sql: /* sql */ `
CREATE TABLE review_mode (
  agent_id  TEXT PRIMARY KEY,
  since     INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE held_items (
  id          TEXT PRIMARY KEY,
  agent_id    TEXT NOT NULL,
  conv_id     TEXT NOT NULL,
  kind        TEXT NOT NULL CHECK (kind IN ('message', 'card', 'file')),
  input       TEXT NOT NULL,
  data        BLOB,
  thumb       BLOB,
  created_at  INTEGER NOT NULL,
  state       TEXT NOT NULL DEFAULT 'held' CHECK (state IN ('held', 'sent', 'discarded')),
  decided_at  INTEGER,
  msg_id      TEXT,
  sent_text   TEXT
);
CREATE INDEX held_items_by_state ON held_items (state, created_at);

ALTER TABLE messages ADD COLUMN reviewed INTEGER;
`,
  },
  {
    version: 4,
    name: 'wake runs',
    // - wake_actions: what the owner configured to start an agent that is not listening (one row per
    //   agent; action is JSON, see shared/wake.ts); enabled goes 0 after repeated failures (off_reason).
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
  },
  {
    version: 5,
    name: 'owner control: pause and daily caps per agent, daily usage',
    // Issue 10 (hub/control/control.ts): agent_controls holds an agent's pause (who paused it, why, since when)
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
  },
  {
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
  },
  {
    version: 7,
    name: 'sessions of one agent, scoped keys, read receipts',
    // - messages.sender_instance / to_instance: the instance name a message was sent from / addressed to.
    // - agent_instances: the instance names in use under an agent (store/instances.ts keeps at most 50).
    // - instance_cursors: each named instance's own confirmed position in get_updates (the unnamed
    //   session keeps delivery_cursors).
    // - read_receipts: how far each member (instance '' = unnamed) confirmed in each conversation.
    // - agent_keys: extra keys of an agent, each with scopes and an optional expiry (store/agent-keys.ts).
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
  },
  {
    version: 8,
    name: 'phone approvals: paired devices, pairings, device audit, push subscriptions, spent action tokens',
    // - devices: a paired phone's credential (hashed), scope (approvals | full), last use; revoked_at ends it.
    // - device_pairings: a single-use pairing code (hashed, 5 minutes), the phone's claim (claim secret hashed,
    //   the phrase both screens show), the owner's confirmation and the device it made.
    // - device_audit: every call a device made through the HTTPS front, allowed or refused.
    // - push_subscriptions: one Web Push subscription per device (endpoint and its keys).
    // - used_action_tokens: a push button's single-use token, once spent (a replay gets 409); kept past expiry.
    // Phone settings (public URL, push content, ntfy, VAPID keys, the action-token secret) live in settings.
    sql: /* sql */ `
CREATE TABLE devices (
  id            TEXT PRIMARY KEY,
  name          TEXT NOT NULL,
  scope         TEXT NOT NULL,
  token_hash    BLOB NOT NULL UNIQUE,
  token_hint    TEXT NOT NULL,
  created_at    INTEGER NOT NULL,
  last_used_at  INTEGER,
  revoked_at    INTEGER
);

CREATE TABLE device_pairings (
  id            TEXT PRIMARY KEY,
  code_hash     BLOB NOT NULL UNIQUE,
  name          TEXT NOT NULL DEFAULT '',
  scope         TEXT NOT NULL,
  created_at    INTEGER NOT NULL,
  expires_at    INTEGER NOT NULL,
  claimed_at    INTEGER,
  claim_hash    BLOB,
  phrase        TEXT,
  device_name   TEXT,
  confirmed_at  INTEGER,
  device_id     TEXT,
  delivered_at  INTEGER,
  cancelled_at  INTEGER
);

CREATE TABLE device_audit (
  id           INTEGER PRIMARY KEY,
  at           INTEGER NOT NULL,
  device_id    TEXT,
  device_name  TEXT NOT NULL,
  action       TEXT NOT NULL,
  target       TEXT,
  outcome      TEXT NOT NULL
);
CREATE INDEX device_audit_by_device ON device_audit (device_id, id);

CREATE TABLE push_subscriptions (
  device_id    TEXT PRIMARY KEY,
  endpoint     TEXT NOT NULL,
  p256dh       TEXT NOT NULL,
  auth         TEXT NOT NULL,
  created_at   INTEGER NOT NULL,
  last_ok_at   INTEGER,
  failures     INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

CREATE TABLE used_action_tokens (
  token_hash   BLOB PRIMARY KEY,
  used_at      INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL
) WITHOUT ROWID;
`,
  },
  {
    version: 9,
    name: 'review mode: every write others read can be held',
    // held_items.kind gains edit, request, task, group, task_update and handoff (hub/features/review-calls.ts: the
    // input is the tool's arguments), and conv_id may be NULL (a task channel or group not made yet).
    // SQLite cannot change a CHECK, so the table is made again with the rows copied.
    sql: /* sql */ `
CREATE TABLE held_items_new (
  id          TEXT PRIMARY KEY,
  agent_id    TEXT NOT NULL,
  conv_id     TEXT,
  kind        TEXT NOT NULL CHECK (kind IN ('message', 'card', 'file', 'edit', 'request', 'task', 'group', 'task_update', 'handoff')),
  input       TEXT NOT NULL,
  data        BLOB,
  thumb       BLOB,
  created_at  INTEGER NOT NULL,
  state       TEXT NOT NULL DEFAULT 'held' CHECK (state IN ('held', 'sent', 'discarded')),
  decided_at  INTEGER,
  msg_id      TEXT,
  sent_text   TEXT
);
INSERT INTO held_items_new (id, agent_id, conv_id, kind, input, data, thumb, created_at, state, decided_at, msg_id, sent_text)
  SELECT id, agent_id, conv_id, kind, input, data, thumb, created_at, state, decided_at, msg_id, sent_text FROM held_items;
DROP TABLE held_items;
ALTER TABLE held_items_new RENAME TO held_items;
CREATE INDEX held_items_by_state ON held_items (state, created_at);
`,
  },
  {
    version: 10,
    name: 'messages the owner hid',
    // A person hides a message from their own view (an agent's message that is unpleasant or will not
    // display); it stays in the conversation for everyone else. Showing it again deletes the row.
    sql: /* sql */ `
CREATE TABLE hidden_messages (
  user_id    TEXT NOT NULL,
  msg_id     TEXT NOT NULL,
  hidden_at  INTEGER NOT NULL,
  PRIMARY KEY (user_id, msg_id)
) WITHOUT ROWID;
`,
  },
  {
    version: 11,
    name: 'scoped keys read from their own get_updates positions',
    // - key_cursors: each scoped key's own confirmed position in get_updates (instance '' = unnamed; a named
    //   instance read through the key has its own), so a key never moves the agent's position
    //   (store/agent-keys.ts). Dropped with the key when it is revoked.
    sql: /* sql */ `
CREATE TABLE key_cursors (
  key_id         TEXT NOT NULL,
  instance       TEXT NOT NULL DEFAULT '',
  confirmed_gid  INTEGER NOT NULL DEFAULT 0,
  last_upto      INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, instance)
) WITHOUT ROWID;
`,
  },
  {
    version: 12,
    name: 'device audit: refusals of callers without a device credential are tallied (count), apart from device entries',
    // A refusal with no device behind it (junk pairing claims, malformed button tokens …) adds to one row per
    // window and (action, outcome) with a count, instead of a row each; those rows and the devices' own entries are
    // pruned separately, so junk never pushes a device's entries out. Earlier such rows become tallies of 1.
    sql: /* sql */ `
ALTER TABLE device_audit ADD COLUMN count INTEGER;
UPDATE device_audit SET count = 1 WHERE device_id IS NULL AND outcome LIKE 'refused:%';
CREATE INDEX device_audit_tallies ON device_audit (action, outcome, at) WHERE count IS NOT NULL;
CREATE INDEX device_audit_entries ON device_audit (id) WHERE count IS NULL;
`,
  },
  {
    version: 13,
    name: 'standing rules for agents\' own permission prompts',
    // The owner's "always allow / always deny" for an agent's harness prompts (perch hook permission-request):
    // one tool, or one command prefix of it. store/permission-rules.ts, hub/features/permission-rules.ts.
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
  },
  {
    version: 14,
    name: 'imported history: provenance of messages and events from an archive',
    // perch import (store/archive-import.ts) writes the rows of a Perch archive into this hub:
    // - messages.provenance: 'imported' for a message that came from an archive (NULL: written here).
    // - events.imported: 1 for an event that came from an archive. get_updates never delivers such events and
    //   unread counts leave them out, so an import wakes nobody; history, search and the owner's views show them.
    sql: /* sql */ `
ALTER TABLE messages ADD COLUMN provenance TEXT;
ALTER TABLE events ADD COLUMN imported INTEGER;
`,
  },
  {
    version: 15,
    name: 'where each key may connect from',
    // A key's allowed places (hub/identity/places.ts): a JSON array of local (loopback, the default), containers
    // (the container bridge listener), tailnet (through the HTTPS front) and address ranges (CIDR). On an agent's
    // own key (users; a wake run's key inherits it) and on each scoped key (agent_keys). Existing keys stay local.
    sql: /* sql */ `
ALTER TABLE users ADD COLUMN allowed_from TEXT NOT NULL DEFAULT '["local"]';
ALTER TABLE agent_keys ADD COLUMN allowed_from TEXT NOT NULL DEFAULT '["local"]';
`,
  },
  {
    version: 16,
    name: 'archived conversations, retention rules, and search entries to forget',
    // - conversations.archived_at: the owner archived it (hub/talk/archive.ts): out of the agents' lists and
    //   read-only for them; archived_by is who ('owner', or 'retention' for an idle rule).
    // - retention_rules: the owner's rules (hub/features/retention.ts): scope '' is the whole hub, else a conv_id.
    //   keep_days: events and messages older than that go (NULL: kept); the keep_* flags keep pinned messages,
    //   requests and agents' summaries; archive_idle_days: archive a conversation idle that long.
    // - search_forget: creation-event gids of messages retention deleted; the store's worker removes them from the
    //   search index (store/background-worker.ts) and records how far it got in the index file.
    // - files_by_msg, requests_by_msg: retention deletes a message's files and request without reading the tables.
    sql: /* sql */ `
ALTER TABLE conversations ADD COLUMN archived_at INTEGER;
ALTER TABLE conversations ADD COLUMN archived_by TEXT;
CREATE TABLE retention_rules (
  scope              TEXT PRIMARY KEY,
  keep_days          INTEGER,
  keep_pinned        INTEGER NOT NULL DEFAULT 1,
  keep_requests      INTEGER NOT NULL DEFAULT 1,
  keep_checkpoints   INTEGER NOT NULL DEFAULT 1,
  archive_idle_days  INTEGER,
  updated_at         INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE search_forget (
  id   INTEGER PRIMARY KEY AUTOINCREMENT,
  gid  INTEGER NOT NULL
);
CREATE INDEX files_by_msg ON files (msg_id) WHERE msg_id IS NOT NULL;
CREATE INDEX requests_by_msg ON requests (msg_id);
`,
  },
  {
    version: 17,
    name: 'standing rules: which door filed a prompt, and who added a rule',
    // - requests.door: 'hook' or 'channel' when `perch hook permission-request` or `perch channel` filed the request
    //   as a harness's permission prompt through the hook door (mcp/hook-door.ts); NULL for every request_human an
    //   agent made itself. Only a door's prompt can be decided by a standing rule (hub/features/permission-rules.ts).
    // - permission_rules.added_by: 'laptop', or the id of the paired device that added the rule (a device adds deny
    //   rules only); added_by_name: that device's name then. NULL for rules added before this version.
    sql: /* sql */ `
ALTER TABLE requests ADD COLUMN door TEXT;
ALTER TABLE permission_rules ADD COLUMN added_by TEXT;
ALTER TABLE permission_rules ADD COLUMN added_by_name TEXT;
`,
  },
  {
    version: 18,
    name: 'what a wake run cost the machine',
    // A wake run's process tree is sampled while it lives (wake/resources.ts): its peak resident memory (bytes) and the
    // CPU seconds it used are kept with the run. NULL: never sampled (a webhook, a platform without sampling).
    sql: /* sql */ `
ALTER TABLE wake_runs ADD COLUMN peak_rss_bytes INTEGER;
ALTER TABLE wake_runs ADD COLUMN cpu_secs REAL;
`,
  },
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** Checks the registry itself: versions start at 1 and rise by one. */
export function checkMigrationOrder(list: readonly Migration[] = MIGRATIONS): void {
  list.forEach((m, i) => {
    if (m.version !== i + 1) {
      throw new Error(`migration ${m.name} has version ${m.version}, expected ${i + 1}`);
    }
  });
}
