// A new data dir's database is made under durability normal with its header and schema written unsynced
// (synchronous=OFF, store/db/db.ts), durability applied after. A crash of the process (kill -9) at that point loses
// nothing the next start needs: it opens the file, or makes it anew, and serves. A preload (NODE_OPTIONS --require)
// kills `perch serve` at the chosen step of its first start, from inside, so nothing here depends on timing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { cliAsync, removeDataDir, startServe, tempDataDir, tempDir } from '../support/serve-harness';

const KILL_PRELOAD = `
// better-sqlite3's JavaScript is bundled into dist/serve.js; its compiled addon is loaded by path, once per process:
// the statements reach SQLite through the addon's Database (prepare for a pragma, exec for the schema).
const path = require('node:path');
const pkg = require.resolve('better-sqlite3/package.json', { paths: [process.cwd()] });
const addon = require(path.join(path.dirname(pkg), 'build', 'Release', 'better_sqlite3.node'));
const at = process.env.PERCH_TEST_KILL_AT;
const { prepare, exec } = addon.Database.prototype;
let unsynced = false;
let execs = 0;
addon.Database.prototype.prepare = function (source, ...rest) {
  if (/^PRAGMA synchronous = (OFF|0)$/.test(source)) unsynced = true;
  else if (unsynced && /^PRAGMA synchronous = /.test(source) && at === 'durability') process.kill(process.pid, 'SIGKILL');
  return prepare.call(this, source, ...rest);
};
addon.Database.prototype.exec = function (source, ...rest) {
  if (unsynced && at.startsWith('schema:') && ++execs === Number(at.slice('schema:'.length))) process.kill(process.pid, 'SIGKILL');
  return exec.call(this, source, ...rest);
};
`;

/**
 * The schema of a database file: its version, auto_vacuum mode and every object's SQL, and its integrity check. asLeft:
 * read from a copy of the file and its -wal, so that the data dir stays as the crash left it.
 */
function schemaOf(file: string, asLeft = false) {
  if (asLeft) {
    const copy = path.join(tempDir('perch-new-dir-copy-'), 'copy.sqlite');
    for (const ext of ['', '-wal']) if (fs.existsSync(file + ext)) fs.copyFileSync(file + ext, copy + ext);
    file = copy;
  }
  const db = new Database(file, { readonly: !asLeft });
  try {
    return {
      version: db.pragma('user_version', { simple: true }),
      autoVacuum: db.pragma('auto_vacuum', { simple: true }),
      objects: db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY type, name').all(),
      integrity: db.pragma('integrity_check', { simple: true }),
    };
  } finally {
    db.close();
  }
}

let fresh: ReturnType<typeof schemaOf> | undefined;
/** What a new data dir's first start makes, undisturbed. */
async function freshSchema() {
  if (fresh) return fresh;
  const dir = tempDataDir();
  const served = await startServe(dir);
  assert.equal(await served.stop(), 0, served.stderr());
  fresh = schemaOf(path.join(dir, 'perch.sqlite'));
  removeDataDir(dir);
  return fresh;
}

const POINTS = [
  ['durability', 'after the unsynced schema, before durability is applied'],
  ['schema:1', 'at the first statement of the unsynced schema'],
  ['schema:25', 'in the middle of the unsynced schema'],
] as const;

/** A new data dir whose first perch serve was killed (SIGKILL, from inside) at `at`. */
async function killedAt(at: string): Promise<string> {
  const tmp = tempDir('perch-new-dir-crash-');
  const preload = path.join(tmp, 'kill.cjs');
  fs.writeFileSync(preload, KILL_PRELOAD);
  const dir = tempDataDir();
  const first = await cliAsync(['serve', '--data-dir', dir, '--port', '0', '--json'], {
    env: { NODE_OPTIONS: `--require ${preload}`, PERCH_TEST_KILL_AT: at },
    timeoutMs: 20_000,
  });
  fs.rmSync(tmp, { recursive: true, force: true });
  assert.equal(first.code, null, `killed at ${at}: ${first.stderr}`);
  assert.equal(first.stdout, '', 'killed before its ready line');
  assert.ok(fs.existsSync(path.join(dir, 'perch.sqlite')), 'the killed start made the file');
  return dir;
}

/** perch serve on dir starts and serves; then its schema is a new data dir's. */
async function servesWithWholeSchema(dir: string): Promise<void> {
  const want = await freshSchema();
  const served = await startServe(dir);
  try {
    const r = await fetch(served.mcpUrl, { method: 'POST' });
    assert.equal(r.status, 401, 'the hub serves');
  } finally {
    assert.equal(await served.stop(), 0, served.stderr());
  }
  assert.deepEqual(schemaOf(path.join(dir, 'perch.sqlite')), want);
}

for (const [at, where] of POINTS) {
  test(`kill -9 of a new data dir's first perch serve ${where}: the next start opens it and serves, with the whole schema`, async () => {
    const want = await freshSchema();
    const dir = await killedAt(at);
    try {
      const left = schemaOf(path.join(dir, 'perch.sqlite'), true);
      if (at === 'durability') assert.deepEqual(left, want, 'the unsynced schema was kept through the crash');
      else assert.deepEqual([left.version, left.objects], [0, []], 'the schema transaction was not committed');
      await servesWithWholeSchema(dir);
    } finally {
      removeDataDir(dir);
    }
  });
}

// What a power cut may leave of writes that were never synced (the OS had not written them yet): the file and its WAL
// empty, the WAL lost, or the file itself lost beside its WAL. Each is made from a start killed after its schema.
const LOST = [
  ['the file and its WAL empty', (db: string) => [db, `${db}-wal`].forEach((f) => fs.truncateSync(f, 0))],
  ['the WAL lost', (db: string) => fs.rmSync(`${db}-wal`)],
  ['the file lost beside its WAL', (db: string) => fs.rmSync(db)],
] as const;

for (const [what, lose] of LOST) {
  test(`a new data dir whose unsynced schema never reached the disk (${what}) opens at the next start and serves, with the whole schema`, async () => {
    const dir = await killedAt('durability');
    try {
      fs.rmSync(path.join(dir, 'perch.sqlite-shm'), { force: true });
      lose(path.join(dir, 'perch.sqlite'));
      await servesWithWholeSchema(dir);
    } finally {
      removeDataDir(dir);
    }
  });
}

test('a data dir whose database file is not a database (its first page zeros) stops perch serve with one clear line and changes nothing', async () => {
  const dir = tempDataDir();
  try {
    const file = path.join(dir, 'perch.sqlite');
    fs.writeFileSync(file, Buffer.alloc(4096));
    const r = await cliAsync(['serve', '--data-dir', dir, '--port', '0', '--json'], { timeoutMs: 20_000 });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
    assert.match(r.stderr, /^perch: .*perch\.sqlite.* is not a database .*nothing was changed.*perch restore/);
    assert.deepEqual(fs.readdirSync(dir), ['perch.sqlite']);
    assert.ok(fs.readFileSync(file).equals(Buffer.alloc(4096)), 'the file is left as it was');
  } finally {
    removeDataDir(dir);
  }
});
