// Every migration has its upgrade test: each src/main/store/migrations/NN-name.ts is listed in index.ts (MIGRATIONS) and
// has test/migrations/NN-name.test.ts calling migrationTest({ version: NN, … }) (test/support/migration-test.ts), and
// every file there belongs to a migration. Adding migration NN means adding that test file (copy a short one, e.g. 15).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MIGRATIONS } from '../../src/main/store/migrations';

const ROOT = path.resolve(__dirname, '..', '..');
const MIGRATIONS_DIR = path.join(ROOT, 'src', 'main', 'store', 'migrations');
const TESTS_DIR = path.join(ROOT, 'test', 'migrations');
const MIGRATION_FILE = /^(\d{2,})-[a-z0-9-]+\.ts$/;

/** What is wrong between the migration files and their tests: one line each, [] when every migration has its test. */
function migrationTestProblems(migrationsDir: string, testsDir: string, listed: readonly number[]): string[] {
  const problems: string[] = [];
  const files = fs
    .readdirSync(migrationsDir)
    .filter((f) => MIGRATION_FILE.test(f))
    .sort();
  const tests = new Set(fs.existsSync(testsDir) ? fs.readdirSync(testsDir).filter((f) => f.endsWith('.test.ts')) : []);
  const versions = files.map((f) => Number(MIGRATION_FILE.exec(f)![1]));
  if (versions.join() !== listed.join()) {
    problems.push(`the migration files are versions ${versions.join(', ')} but index.ts lists ${listed.join(', ')}`);
  }
  files.forEach((f, i) => {
    const name = f.replace(/\.ts$/, '.test.ts');
    if (!tests.delete(name)) {
      problems.push(`migration ${f} has no test: add test/migrations/${name} (see test/support/migration-test.ts)`);
      return;
    }
    const text = fs.readFileSync(path.join(testsDir, name), 'utf8');
    if (!new RegExp(`migrationTest\\(\\{\\s*version:\\s*${versions[i]},`).test(text)) {
      problems.push(`test/migrations/${name} does not call migrationTest({ version: ${versions[i]}, … })`);
    }
  });
  for (const orphan of tests) problems.push(`test/migrations/${orphan} belongs to no migration file`);
  return problems;
}

test('every migration file is listed in index.ts and has its upgrade test in test/migrations/ (same name), and every test there has its migration', () => {
  assert.deepEqual(
    migrationTestProblems(
      MIGRATIONS_DIR,
      TESTS_DIR,
      MIGRATIONS.map((m) => m.version),
    ),
    [],
  );
});

test('a migration without a test (or a test naming another version, or one unlisted) is reported', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-migration-tests-'));
  try {
    const migrations = path.join(dir, 'migrations');
    const tests = path.join(dir, 'tests');
    fs.mkdirSync(migrations);
    fs.mkdirSync(tests);
    for (const f of ['01-initial-schema.ts', '02-search.ts', 'index.ts', 'migration.ts']) fs.writeFileSync(path.join(migrations, f), '');
    fs.writeFileSync(path.join(tests, '01-initial-schema.test.ts'), 'migrationTest({\n  version: 1,\n');
    fs.writeFileSync(path.join(tests, '09-gone.test.ts'), 'migrationTest({ version: 9, ');
    assert.deepEqual(migrationTestProblems(migrations, tests, [1, 2]), [
      'migration 02-search.ts has no test: add test/migrations/02-search.test.ts (see test/support/migration-test.ts)',
      'test/migrations/09-gone.test.ts belongs to no migration file',
    ]);
    fs.writeFileSync(path.join(tests, '02-search.test.ts'), 'migrationTest({ version: 3, ');
    fs.rmSync(path.join(tests, '09-gone.test.ts'));
    fs.writeFileSync(path.join(migrations, '03-more.ts'), '');
    fs.writeFileSync(path.join(tests, '03-more.test.ts'), 'migrationTest({ version: 3, ');
    assert.deepEqual(migrationTestProblems(migrations, tests, [1, 2]), [
      'the migration files are versions 1, 2, 3 but index.ts lists 1, 2',
      'test/migrations/02-search.test.ts does not call migrationTest({ version: 2, … })',
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
