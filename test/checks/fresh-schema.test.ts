// A new data dir gets today's schema in one step (src/main/store/db/fresh-schema.generated.ts, written by
// `npm run schema`); the migrations stay the way every older database is upgraded (test/migrations/). Both must build
// the same database: sqlite_master, the schema version and every table's rows are compared.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createFreshSchema, migrateTo, openDatabase, registerFunctions, type Db } from '../../src/main/store/db/db';
import { LATEST_VERSION } from '../../src/main/store/migrations';
import { FRESH_SCHEMA_FILE, freshSchemaSource } from '../../scripts/schema';
import { FRESH_SCHEMA } from '../../src/main/store/db/fresh-schema.generated';

const REGENERATE = `run \`npm run schema\` to regenerate ${FRESH_SCHEMA_FILE} from the migrations`;

function describeDb(db: Db) {
  const master = db
    .prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_autoindex%' ORDER BY type, name")
    .all() as Array<{ type: string; name: string; tbl_name: string; sql: string | null }>;
  const rows = Object.fromEntries(
    master
      .filter((m) => m.type === 'table')
      .map((m) => [
        m.name,
        db
          .prepare(`SELECT * FROM "${m.name}"`)
          .all()
          .map((r) => JSON.stringify(r))
          .sort(),
      ]),
  );
  return { version: db.pragma('user_version', { simple: true }), master, rows };
}

test('the one-step schema of a new data dir is the schema the migrations build (sqlite_master, version and rows compared)', () => {
  const migrated = new Database(':memory:');
  const oneStep = new Database(':memory:');
  try {
    registerFunctions(migrated);
    migrateTo(migrated, LATEST_VERSION);
    registerFunctions(oneStep);
    createFreshSchema(oneStep);
    assert.deepEqual(describeDb(oneStep), describeDb(migrated), `the one-step schema differs from the migrations': ${REGENERATE}`);
  } finally {
    migrated.close();
    oneStep.close();
  }
});

test(`${FRESH_SCHEMA_FILE} is what \`npm run schema\` writes now`, () => {
  assert.ok(fs.readFileSync(FRESH_SCHEMA_FILE, 'utf8') === freshSchemaSource(), `${FRESH_SCHEMA_FILE} is out of date: ${REGENERATE}`);
});

test('a new data dir opened by the hub has the latest schema, the same as one upgraded migration by migration', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-fresh-schema-'));
  const migrated = new Database(':memory:');
  try {
    const db = openDatabase(path.join(dir, 'perch.sqlite'));
    registerFunctions(migrated);
    migrateTo(migrated, LATEST_VERSION);
    try {
      assert.deepEqual(describeDb(db), describeDb(migrated));
    } finally {
      db.close();
    }
  } finally {
    migrated.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** SQLite's schema cookie: it counts every change to the schema made on this database. */
function schemaChanges(db: Db): number {
  return db.pragma('schema_version', { simple: true }) as number;
}

test('a new data dir opened by the hub is made by the one-step schema alone: user_version set, no migration run after it', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-fresh-schema-'));
  const oneStep = new Database(':memory:');
  const migrated = new Database(':memory:');
  try {
    registerFunctions(oneStep);
    createFreshSchema(oneStep);
    registerFunctions(migrated);
    migrateTo(migrated, LATEST_VERSION);
    assert.ok(schemaChanges(oneStep) < schemaChanges(migrated), 'the migrations change the schema more times than the one step');
    const db = openDatabase(path.join(dir, 'perch.sqlite'));
    try {
      assert.equal(db.pragma('user_version', { simple: true }), LATEST_VERSION);
      assert.equal(schemaChanges(db), schemaChanges(oneStep), "the hub's new database had the one step's schema changes and no others");
    } finally {
      db.close();
    }
  } finally {
    oneStep.close();
    migrated.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the comparison sees a real difference: a statement left out, a default changed, a row added', () => {
  const migrated = new Database(':memory:');
  try {
    registerFunctions(migrated);
    migrateTo(migrated, LATEST_VERSION);
    const want = describeDb(migrated);
    const built = (statements: readonly string[], extra = '') => {
      const db = new Database(':memory:');
      try {
        registerFunctions(db);
        for (const s of statements) db.exec(s);
        if (extra) db.exec(extra);
        db.pragma(`user_version = ${LATEST_VERSION}`);
        return describeDb(db);
      } finally {
        db.close();
      }
    };
    assert.deepEqual(built(FRESH_SCHEMA), want, 'the statements as generated build the same database');
    assert.notDeepEqual(built(FRESH_SCHEMA.slice(0, -1)), want, 'the last statement left out');
    const i = FRESH_SCHEMA.findIndex((s) => s.includes("DEFAULT '{}'"));
    assert.ok(i >= 0);
    const changed = FRESH_SCHEMA.map((s, j) => (j === i ? s.replace("DEFAULT '{}'", "DEFAULT '[]'") : s));
    assert.notDeepEqual(built(changed), want, 'a default changed');
    assert.notDeepEqual(built(FRESH_SCHEMA, "INSERT INTO settings (key, value) VALUES ('x', '1')"), want, 'a row added');
  } finally {
    migrated.close();
  }
});
