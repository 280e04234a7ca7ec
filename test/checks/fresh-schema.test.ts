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
