// Migration 8: phone approvals: paired devices, pairings, device audit, push subscriptions, spent action tokens. It has shipped: never edit it; a change is a new migration (index.ts).
import type { Migration } from './migration';

export const migration08: Migration = {
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
};
