// Migration 2 on a database as version 1 shipped it, with data in it: opening it with this build adds
// the index messages_by_conv_time (conv_id, created_at, seq) and, when the clock once went back, the
// messages_out_of_time_order setting; every row that was there is still there, unchanged.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase, schemaVersion } from '../../src/main/store/db/db';
import { LATEST_VERSION, MIGRATIONS } from '../../src/main/store/migrations';
import { indexColumns, migrationTest, rows, seedConversation } from '../support/migration-test';

migrationTest({
  version: 2,
  seed: (db) => {
    seedConversation(db);
    db.exec(
      "INSERT INTO messages (id, conv_id, seq, sender_id, text, created_at) VALUES ('m_2', 'c_1', 2, 'u_owner', 'earlier clock', 1500)",
    );
  },
  check: (db) => {
    assert.deepEqual(indexColumns(db, 'messages_by_conv_time'), ['conv_id', 'created_at', 'seq']);
    assert.deepEqual(
      rows(db, "SELECT value FROM settings WHERE key = 'messages_out_of_time_order'"),
      [{ value: '1' }],
      'the clock went back once',
    );
  },
});

const TABLES = ['users', 'conversations', 'members', 'events', 'messages', 'settings'];

/** A version-1 database file (migration 1 only) with two users, one conversation and its messages. */
function versionOneDatabase(createdAt: readonly number[]): { dir: string; file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-migration-'));
  const file = path.join(dir, 'perch.sqlite');
  const db = new Database(file);
  db.exec(MIGRATIONS[0]!.sql);
  db.pragma('user_version = 1');
  db.prepare(
    "INSERT INTO users (id, kind, name, created_at) VALUES ('u_owner', 'human', 'owner', 1000), ('u_bot', 'agent', 'bot', 1001)",
  ).run();
  db.prepare(
    "INSERT INTO conversations (id, kind, created_by, created_at, last_seq, last_event_at, direct_key) VALUES ('c_1', 'direct', 'u_owner', 1002, ?, 2000, 'u_bot:u_owner')",
  ).run(createdAt.length);
  db.prepare(
    "INSERT INTO members (conv_id, user_id, role, from_seq, joined_at) VALUES ('c_1', 'u_owner', 'owner', 1, 1002), ('c_1', 'u_bot', 'member', 1, 1002)",
  ).run();
  const event = db.prepare("INSERT INTO events (conv_id, seq, type, actor_id, msg_id, ts) VALUES ('c_1', ?, 'message.new', 'u_bot', ?, ?)");
  const message = db.prepare("INSERT INTO messages (id, conv_id, seq, sender_id, text, created_at) VALUES (?, 'c_1', ?, 'u_bot', ?, ?)");
  createdAt.forEach((at, i) => {
    event.run(i + 1, `m_${i + 1}`, at);
    message.run(`m_${i + 1}`, i + 1, `message ${i + 1}`, at);
  });
  db.close();
  return { dir, file };
}

/** The columns each of those tables had in version 1 (later migrations may add columns, e.g. messages.reviewed). */
const V1_COLUMNS: Record<string, string[]> = (() => {
  const m = new Database(':memory:');
  try {
    m.exec(MIGRATIONS[0]!.sql);
    return Object.fromEntries(TABLES.map((t) => [t, m.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(t) as string[]]));
  } finally {
    m.close();
  }
})();

/** Every row of the tables migration 1 made (their version-1 columns), in a stable order. */
function rowsOf(db: Database.Database): Record<string, unknown[]> {
  return Object.fromEntries(TABLES.map((t) => [t, db.prepare(`SELECT ${V1_COLUMNS[t]!.join(', ')} FROM ${t} ORDER BY 1, 2`).all()]));
}

/**
 * The rows of a migrated database restricted to the columns version 1 had (later migrations may add
 * columns, e.g. messages.sender_instance; those are not rows of version 1 that changed).
 */
function rowsAsVersionOne(db: Database.Database, before: Record<string, unknown[]>): Record<string, unknown[]> {
  const after = rowsOf(db);
  return Object.fromEntries(
    Object.entries(after).map(([t, rows]) => {
      const columns = Object.keys((before[t]?.[0] as Record<string, unknown> | undefined) ?? {});
      return [t, rows.map((r) => (columns.length ? Object.fromEntries(columns.map((c) => [c, (r as Record<string, unknown>)[c]])) : r))];
    }),
  );
}

function rowsOfFile(file: string): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true });
  try {
    assert.equal(schemaVersion(db), 1, 'the file is a version-1 database before it is opened');
    return rowsOf(db);
  } finally {
    db.close();
  }
}

function setting(db: Database.Database, key: string): string | undefined {
  return (db.prepare('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined)?.value;
}

describe('migration 2 (search without reading whole histories)', () => {
  test('adds messages_by_conv_time on (conv_id, created_at, seq) and keeps every row of a version-1 database', () => {
    const { dir, file } = versionOneDatabase([2000, 2001, 2002, 2003]);
    try {
      const before = rowsOfFile(file);
      assert.equal(before.messages!.length, 4);
      const db = openDatabase(file);
      try {
        assert.equal(schemaVersion(db), LATEST_VERSION, 'opening migrated the database to the latest version');
        const index = db.prepare("SELECT tbl_name FROM sqlite_schema WHERE type = 'index' AND name = 'messages_by_conv_time'").get() as
          { tbl_name: string } | undefined;
        assert.equal(index?.tbl_name, 'messages', 'the index exists, on messages');
        const columns = db.prepare("SELECT name FROM pragma_index_info('messages_by_conv_time') ORDER BY seqno").pluck().all();
        assert.deepEqual(columns, ['conv_id', 'created_at', 'seq']);
        assert.deepEqual(rowsAsVersionOne(db, before), before, 'every row is still there, unchanged');
        assert.equal(setting(db, 'messages_out_of_time_order'), undefined, 'messages in time order set no flag');
        assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      } finally {
        db.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a version-1 history where the clock went back gets messages_out_of_time_order = 1, its messages untouched', () => {
    const { dir, file } = versionOneDatabase([2000, 2005, 1990, 2010]);
    try {
      const before = rowsOfFile(file);
      const db = openDatabase(file);
      try {
        assert.equal(setting(db, 'messages_out_of_time_order'), '1');
        const after = rowsAsVersionOne(db, before);
        assert.deepEqual(after.messages, before.messages, 'the messages are unchanged');
        assert.deepEqual({ ...after, settings: [] }, { ...before, settings: [] }, 'the other tables are unchanged');
      } finally {
        db.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
