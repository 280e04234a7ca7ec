// One migration's upgrade test (test/migrations/NN-name.test.ts, one file per migration in src/main/store/migrations/).
// migrationTest({ version: N, seed, check }) registers a test that:
//   1. writes a real SQLite file at schema N-1 (migrations 1..N-1 only, migrateTo) and `seed`s rows that schema allowed;
//   2. on a copy, runs migration N alone: the version recorded is N, `check` holds, every seeded row is still there;
//   3. opens the file itself through the real open path (openDatabase: N..latest, pre-migration backup and all): the
//      version is the latest, `check` still holds, every seeded row is still there, integrity and foreign keys ok.
// `check` runs inside a savepoint that is rolled back, so it may insert rows to prove a new column or CHECK.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { migrateTo, openDatabase, registerFunctions, schemaVersion, type Db } from '../../src/main/store/db/db';
import { LATEST_VERSION, MIGRATIONS } from '../../src/main/store/migrations';

export interface MigrationCase {
  /** The migration under test. */
  version: number;
  /** Writes rows that schema version - 1 allowed (the database is at that version here). */
  seed: (db: Db) => void;
  /** Asserts what the migration promises; `at` is the version the database is at (the migration's own, then the latest). */
  check: (db: Db, at: number) => void;
}

export function migrationTest(c: MigrationCase): void {
  const m = MIGRATIONS[c.version - 1];
  assert.ok(m && m.version === c.version, `there is a migration ${c.version}`);
  test(`migration ${c.version} (${m.name}) upgrades a database written by schema ${c.version - 1}`, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `perch-migration-${c.version}-`));
    try {
      const file = path.join(dir, 'perch.sqlite');
      const old = raw(file);
      migrateTo(old, c.version - 1);
      assert.equal(schemaVersion(old), c.version - 1, `the file is at schema ${c.version - 1}`);
      old.transaction(() => c.seed(old))();
      const before = snapshot(old);
      old.close();

      const exactFile = path.join(dir, 'exact.sqlite');
      fs.copyFileSync(file, exactFile);
      const exact = raw(exactFile);
      try {
        migrateTo(exact, c.version);
        assert.equal(schemaVersion(exact), c.version, `migration ${c.version} recorded its version`);
        checked(exact, c, c.version);
        assertKept(exact, before);
      } finally {
        exact.close();
      }

      const db = openDatabase(file);
      try {
        assert.equal(schemaVersion(db), LATEST_VERSION, 'opening migrated the database to the latest version');
        checked(db, c, LATEST_VERSION);
        assertKept(db, before);
        assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
        assert.deepEqual(db.pragma('foreign_key_check'), [], 'no row breaks a foreign key');
      } finally {
        db.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}

function raw(file: string): Db {
  const db = new Database(file);
  registerFunctions(db);
  return db;
}

function checked(db: Db, c: MigrationCase, at: number): void {
  db.exec('SAVEPOINT migration_check');
  try {
    c.check(db, at);
  } finally {
    db.exec('ROLLBACK TO migration_check; RELEASE migration_check');
  }
}

type Snapshot = Map<string, { columns: string[]; rows: string[] }>;

/** Every row of every table, as JSON of its columns, sorted. */
function snapshot(db: Db): Snapshot {
  const tables = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
  return new Map(
    tables.map((t) => {
      const columns = columnNames(db, t);
      return [t, { columns, rows: rowsOf(db, t, columns) }];
    }),
  );
}

function rowsOf(db: Db, table: string, columns: readonly string[]): string[] {
  const list = columns.map((c) => `"${c}"`).join(', ');
  return (db.prepare(`SELECT ${list} FROM "${table}"`).raw().all() as unknown[][]).map((r) => JSON.stringify(r)).sort();
}

/** Every row the old schema held is still there with the same values in the old schema's columns (a table may gain rows). */
function assertKept(db: Db, before: Snapshot): void {
  for (const [table, { columns, rows }] of before) {
    if (rows.length === 0) continue;
    const now = new Set(rowsOf(db, table, columns));
    for (const r of rows) assert.ok(now.has(r), `${table} still holds the row ${r}`);
  }
}

export function columnNames(db: Db, table: string): string[] {
  return db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[];
}

/** A column as PRAGMA table_info gives it (type, notnull, dflt_value), or undefined. */
export function column(db: Db, table: string, name: string): { type: string; notnull: number; dflt_value: string | null } | undefined {
  const r = db.prepare('SELECT type, "notnull", dflt_value FROM pragma_table_info(?) WHERE name = ?').get(table, name);
  return r ? { ...(r as { type: string; notnull: number; dflt_value: string | null }) } : undefined;
}

/** The columns of an index in order, or undefined when there is no such index. */
export function indexColumns(db: Db, name: string): string[] | undefined {
  const exists = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?").get(name);
  return exists ? (db.prepare('SELECT name FROM pragma_index_info(?) ORDER BY seqno').pluck().all(name) as string[]) : undefined;
}

export function tableExists(db: Db, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/** The rows of a query as plain objects. */
export function rows(db: Db, query: string, ...params: unknown[]): Record<string, unknown>[] {
  return (db.prepare(query).all(...params) as Record<string, unknown>[]).map((r) => ({ ...r }));
}

/** Rows seeds share: an owner, an agent, and a direct conversation with one message from the agent (schema 1 on). */
export function seedConversation(db: Db): void {
  db.exec(`
INSERT INTO users (id, kind, name, created_at) VALUES ('u_owner', 'human', 'owner', 1000), ('u_bot', 'agent', 'bot', 1001);
INSERT INTO conversations (id, kind, created_by, created_at, last_seq, last_event_at, direct_key)
  VALUES ('c_1', 'direct', 'u_owner', 1002, 1, 2000, 'u_bot:u_owner');
INSERT INTO members (conv_id, user_id, role, from_seq, joined_at) VALUES ('c_1', 'u_owner', 'owner', 1, 1002), ('c_1', 'u_bot', 'member', 1, 1002);
INSERT INTO events (conv_id, seq, type, actor_id, msg_id, ts) VALUES ('c_1', 1, 'message.new', 'u_bot', 'm_1', 2000);
INSERT INTO messages (id, conv_id, seq, sender_id, text, created_at) VALUES ('m_1', 'c_1', 1, 'u_bot', 'hello', 2000);
`);
}
