// Backups as the owner uses them: `perch backup` while a real hub serves and agents write,
// `perch restore` (refused while serving, refused for a bad file without touching anything,
// working when stopped), the hub's daily backups and their retention, and the copy taken before a
// schema migration.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { addAgent, cli, cliAsync, eventually, rawCall, startServe, tempDataDir, type AgentKey } from '../support/serve-harness';
import { LATEST_VERSION, MIGRATIONS } from '../../src/main/store/migrations';
import { backupStamp, checkPerchDatabase } from '../../src/main/store/backup/backup';

const DAY = 24 * 60 * 60 * 1000;

function sha(file: string): string {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** Opens a database file read-only and returns what a check needs. */
function inspect(file: string): { integrity: unknown; version: number; texts: Set<string>; agents: string[] } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return {
      integrity: db.pragma('integrity_check', { simple: true }),
      version: db.pragma('user_version', { simple: true }) as number,
      texts: new Set(db.prepare('SELECT text FROM messages WHERE text IS NOT NULL').pluck().all() as string[]),
      agents: db.prepare("SELECT name FROM users WHERE kind = 'agent' ORDER BY name").pluck().all() as string[],
    };
  } finally {
    db.close();
  }
}

async function newGroup(mcpUrl: string, a: AgentKey, title: string): Promise<string> {
  return (await rawCall(mcpUrl, a.key, 'create_group', { title, members: [] })).structuredContent!.conversation.conv_id as string;
}

async function send(mcpUrl: string, a: AgentKey, convId: string, text: string): Promise<void> {
  const r = await rawCall(mcpUrl, a.key, 'send_message', { conv_id: convId, text });
  assert.ok(!r.isError, `send_message failed: ${JSON.stringify(r.structuredContent)}`);
}

async function historyTexts(mcpUrl: string, a: AgentKey, convId: string): Promise<string[]> {
  const h = (await rawCall(mcpUrl, a.key, 'get_history', { conv_id: convId, limit: 200 })).structuredContent!;
  return h.events.filter((e: { message?: { text?: string } }) => e.message?.text).map((e: { message: { text: string } }) => e.message.text);
}

function backupsIn(dir: string, re: RegExp): string[] {
  try {
    return fs
      .readdirSync(path.join(dir, 'backups'))
      .filter((n) => re.test(n))
      .sort();
  } catch {
    return [];
  }
}

describe('perch backup', () => {
  test('while a real hub serves and two agents write, the copy opens, passes integrity_check and holds every message acknowledged before it started', async () => {
    const dir = tempDataDir();
    // A write load, not a conversation: 300 messages an hour in one conversation is what the budget brake stops.
    const hub = await startServe(dir, { args: ['--backups', '0'], env: { PERCH_BRAKES: 'off' } });
    try {
      const a = await addAgent(dir, 'writer-a');
      const b = await addAgent(dir, 'writer-b');
      const convA = await newGroup(hub.mcpUrl, a, 'a writes here');
      const convB = await newGroup(hub.mcpUrl, b, 'b writes here');
      // Enough data that the copy spans many pages (~2 MB).
      const filler = 'x'.repeat(4000);
      for (let i = 0; i < 250; i++) await send(hub.mcpUrl, i % 2 ? a : b, i % 2 ? convA : convB, `before ${i} ${filler}`);
      const acked = new Set<string>();
      for (let i = 0; i < 250; i++) acked.add(`before ${i} ${filler}`);

      // Writers keep going (bounded: 600 writes, 60 s) while the backup runs.
      let stop = false;
      let written = 0;
      const writer = async (agent: AgentKey, conv: string, tag: string) => {
        const end = Date.now() + 60_000;
        for (let i = 0; !stop && i < 300 && Date.now() < end; i++) {
          await send(hub.mcpUrl, agent, conv, `${tag} during ${i}`);
          acked.add(`${tag} during ${i}`);
          written++;
        }
      };
      const writers = Promise.all([writer(a, convA, 'a'), writer(b, convB, 'b')]);
      await eventually(() => written >= 20, 30_000, 'writes under way');
      const ackedBefore = new Set(acked);
      const writtenAtStart = written;
      const r = await cliAsync(['backup', '--data-dir', dir, '--json'], { timeoutMs: 60_000 });
      const writtenWhileBackingUp = written - writtenAtStart;
      stop = true;
      await writers;
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout) as { file: string; bytes: number };
      assert.equal(path.dirname(out.file), path.join(dir, 'backups'), 'default destination: <data dir>/backups');
      assert.match(path.basename(out.file), /^perch-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.sqlite$/);
      assert.equal(out.bytes, fs.statSync(out.file).size);
      assert.ok(out.bytes > 1_000_000, `the copy has the data (${out.bytes} bytes)`);
      assert.ok(!fs.existsSync(`${out.file}-wal`), 'the copy is one self-contained file');
      assert.ok(writtenWhileBackingUp > 0, 'agents wrote while the backup ran');

      const copy = inspect(out.file);
      assert.equal(copy.integrity, 'ok');
      assert.equal(copy.version, LATEST_VERSION);
      assert.deepEqual(copy.agents, ['writer-a', 'writer-b']);
      for (const t of ackedBefore)
        assert.ok(copy.texts.has(t), `the copy holds a message acknowledged before the backup started (${t.slice(0, 14)})`);
      assert.ok(
        !fs.readdirSync(path.join(dir, 'backups')).some((n) => n.endsWith('.partial') || n.startsWith('.perch-backup-')),
        'no partial file is left',
      );
      assert.ok(!fs.existsSync(path.join(dir, 'backups', 'perch-search.sqlite')), 'the search index is not backed up');

      // Human output names the file and its size; an existing file is refused without --force.
      const human = await cliAsync(['backup', '--data-dir', dir, '--to', path.join(dir, 'mine.sqlite')], { timeoutMs: 60_000 });
      assert.equal(human.code, 0, human.stderr);
      assert.match(human.stdout, /mine\.sqlite \(\d+(\.\d)? (KiB|MiB)\)/);
      const before = sha(path.join(dir, 'mine.sqlite'));
      const again = await cliAsync(['backup', '--data-dir', dir, '--to', path.join(dir, 'mine.sqlite')], { timeoutMs: 60_000 });
      assert.notEqual(again.code, 0);
      assert.match(again.stderr, /exists; nothing was written.*--force/);
      assert.equal(sha(path.join(dir, 'mine.sqlite')), before, 'the existing file is untouched');
      await send(hub.mcpUrl, a, convA, 'after the first copy');
      const forced = await cliAsync(['backup', '--data-dir', dir, '--to', path.join(dir, 'mine.sqlite'), '--force', '--json'], {
        timeoutMs: 60_000,
      });
      assert.equal(forced.code, 0, forced.stderr);
      assert.ok(inspect(path.join(dir, 'mine.sqlite')).texts.has('after the first copy'), '--force wrote a new copy');
    } finally {
      await hub.stop();
    }
  });

  test('a data dir without a database is a clear error', () => {
    const dir = tempDataDir();
    const r = cli(['backup', '--data-dir', dir]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no database to back up/);
    assert.ok(!fs.existsSync(path.join(dir, 'backups')), 'nothing was created');
  });
  test('perch backup never writes through a name planted beside --to FILE (a symlink at the old working names, a folder in the way): the victim is unchanged, the copy is whole', () => {
    const dir = tempDataDir();
    cli(['agent', 'add', 'keeper', '--data-dir', dir]);
    const victim = path.join(dir, 'victim.txt');
    fs.writeFileSync(victim, 'precious\n');
    const to = path.join(dir, 'copy.sqlite');
    for (const name of [`${to}.partial`, `${to}.new`, `${to}.new.partial`, `${to}.new.partial-journal`]) fs.symlinkSync(victim, name);
    const blocked = path.join(dir, 'blocked.sqlite');
    fs.mkdirSync(`${blocked}.new.partial`); // once a folder SQLite could not open: the copy failed
    for (const dest of [to, blocked]) {
      const r = cli(['backup', '--data-dir', dir, '--to', dest]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(checkPerchDatabase(dest).version, LATEST_VERSION, `${dest} is a whole database`);
      assert.ok(fs.lstatSync(dest).isFile());
    }
    assert.equal(fs.readFileSync(victim, 'utf8'), 'precious\n', 'the symlink target is unchanged');
    assert.ok(!fs.readdirSync(dir).some((n) => n.startsWith('.perch-backup-')), 'no staging folder is left');
  });

  test('a --to FILE that cannot be written there (below a file, a missing folder) is a clear error and writes nothing', () => {
    const dir = tempDataDir();
    cli(['agent', 'add', 'keeper', '--data-dir', dir]);
    const dbFile = path.join(dir, 'perch.sqlite');
    assert.ok(fs.existsSync(dbFile));
    const aFile = path.join(dir, 'a-file');
    fs.writeFileSync(aFile, 'not a folder\n');
    // A folder that does not exist is refused, not created (one line naming it, exit 2), as perch export --out.
    const missing = path.join(dir, 'no-such-folder', 'copy.sqlite');
    const m = cli(['backup', '--data-dir', dir, '--to', missing]);
    assert.deepEqual(
      [m.code, m.stdout, m.stderr],
      [
        2,
        '',
        `perch: the folder ${path.dirname(missing)} does not exist; nothing was written. Create it first, or pick another --to FILE.\n`,
      ],
    );
    // A file where its folder should be is refused the same way (exit 2, one line naming it), before any copy starts.
    const below = cli(['backup', '--data-dir', dir, '--to', path.join(aFile, 'copy.sqlite')]);
    assert.deepEqual(
      [below.code, below.stdout, below.stderr],
      [2, '', `perch: ${aFile} is not a folder; nothing was written. Pick another --to FILE.\n`],
    );
    assert.equal(fs.readFileSync(aFile, 'utf8'), 'not a folder\n');
    assert.deepEqual(fs.readdirSync(dir).sort(), ['a-file', 'perch.sqlite'], 'nothing else was written');
  });
});

describe('perch restore', () => {
  test('is refused while a hub serves the data dir, and nothing changes', async () => {
    const dir = tempDataDir();
    const hub = await startServe(dir, { args: ['--backups', '0'] });
    try {
      const a = await addAgent(dir, 'resident');
      const conv = await newGroup(hub.mcpUrl, a, 'kept');
      await send(hub.mcpUrl, a, conv, 'still here');
      const b = await cliAsync(['backup', '--data-dir', dir, '--to', path.join(dir, 'copy.sqlite'), '--json']);
      assert.equal(b.code, 0, b.stderr);
      await send(hub.mcpUrl, a, conv, 'written after the copy');
      const r = await cliAsync(['restore', path.join(dir, 'copy.sqlite'), '--data-dir', dir], { timeoutMs: 30_000 });
      assert.equal(r.code, 1);
      assert.match(r.stderr, new RegExp(`pid ${hub.proc.pid}\\) is serving`));
      assert.match(r.stderr, /nothing was changed\. Stop it first/);
      assert.deepEqual(backupsIn(dir, /pre-restore/), [], 'no pre-restore copy was made');
      assert.deepEqual(
        await historyTexts(hub.mcpUrl, a, conv),
        ['still here', 'written after the copy'],
        'the hub still serves its own data',
      );
    } finally {
      await hub.stop();
    }
  });

  test('a corrupt, foreign, empty or newer file is refused and the current database is untouched', async () => {
    const dir = tempDataDir();
    await addAgent(dir, 'keeper');
    const good = path.join(dir, 'good.sqlite');
    assert.equal(cli(['backup', '--data-dir', dir, '--to', good]).code, 0);
    const dbFile = path.join(dir, 'perch.sqlite');
    const before = sha(dbFile);

    const candidates: Record<string, string> = {};
    candidates.text = path.join(dir, 'notes.sqlite');
    fs.writeFileSync(candidates.text, 'this is not a database at all\n'.repeat(200));
    candidates.empty = path.join(dir, 'empty.sqlite');
    fs.writeFileSync(candidates.empty, '');
    candidates.foreign = path.join(dir, 'foreign.sqlite');
    const f = new Database(candidates.foreign);
    f.exec("CREATE TABLE recipes (name TEXT); INSERT INTO recipes VALUES ('soup')");
    f.close();
    candidates.newer = path.join(dir, 'newer.sqlite');
    fs.copyFileSync(good, candidates.newer);
    const n = new Database(candidates.newer);
    n.pragma('user_version = 999');
    n.close();
    // A Perch backup with damaged pages: overwrite part of every page past the first few.
    candidates.corrupt = path.join(dir, 'corrupt.sqlite');
    fs.copyFileSync(good, candidates.corrupt);
    const buf = fs.readFileSync(candidates.corrupt);
    for (let off = 4096 * 2 + 8; off + 64 < buf.length; off += 4096) buf.fill(0xa5, off, off + 64);
    fs.writeFileSync(candidates.corrupt, buf);

    for (const [what, file] of Object.entries(candidates)) {
      const sourceBefore = sha(file);
      const r = cli(['restore', file, '--data-dir', dir]);
      assert.equal(r.code, 1, `${what}: ${r.stdout}`);
      if (what === 'newer') assert.match(r.stderr, /newer Perch \(schema version 999/, what);
      else assert.match(r.stderr, /is not a Perch database that can be restored/, what);
      assert.match(r.stderr, /nothing was changed/, what);
      assert.equal(r.stdout, '', what);
      assert.equal(sha(dbFile), before, `${what}: the current database is untouched`);
      assert.equal(sha(file), sourceBefore, `${what}: the file itself is untouched`);
      assert.deepEqual(backupsIn(dir, /pre-restore/), [], `${what}: no pre-restore copy`);
      assert.deepEqual(
        fs.readdirSync(dir).filter((x) => x.startsWith('.restore')),
        [],
        `${what}: no staging file is left`,
      );
    }
    assert.deepEqual(inspect(dbFile).agents, ['keeper']);
    const missing = cli(['restore', path.join(dir, 'no-such.sqlite'), '--data-dir', dir]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /is not a file; nothing was changed/);
  });

  test('when stopped, restore puts the backup in place (keeping the current database) and the hub serves the restored messages', async () => {
    const dir = tempDataDir();
    let hub = await startServe(dir, { args: ['--backups', '0'] });
    const a = await addAgent(dir, 'historian');
    let conv: string;
    const copy = path.join(dir, 'monday.sqlite');
    try {
      conv = await newGroup(hub.mcpUrl, a, 'history');
      await send(hub.mcpUrl, a, conv, 'monday: in the backup');
      const b = await cliAsync(['backup', '--data-dir', dir, '--to', copy]);
      assert.equal(b.code, 0, b.stderr);
      await send(hub.mcpUrl, a, conv, 'tuesday: after the backup');
      const s = (await rawCall(hub.mcpUrl, a.key, 'search', { query: 'tuesday' })).structuredContent!;
      assert.ok(JSON.stringify(s).includes('tuesday: after the backup'), 'search finds the newer message before the restore');
    } finally {
      assert.equal(await hub.stop(), 0);
    }
    const r = cli(['restore', copy, '--data-dir', dir, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { previous: string; schema_version: number };
    assert.equal(out.schema_version, LATEST_VERSION);
    assert.match(path.basename(out.previous), /^perch-pre-restore-.*\.sqlite$/);
    const previous = inspect(out.previous);
    assert.equal(previous.integrity, 'ok');
    assert.ok(previous.texts.has('tuesday: after the backup'), 'the replaced database is kept as a backup');
    for (const f of ['perch.sqlite-wal', 'perch.sqlite-shm', 'perch-search.sqlite'])
      assert.ok(!fs.existsSync(path.join(dir, f)), `${f} is gone`);
    assert.ok(fs.existsSync(copy), 'the backup file itself stays');

    hub = await startServe(dir, { args: ['--backups', '0'] });
    try {
      assert.deepEqual(await historyTexts(hub.mcpUrl, a, conv), ['monday: in the backup']);
      const s = (await rawCall(hub.mcpUrl, a.key, 'search', { query: 'tuesday' })).structuredContent!;
      assert.ok(
        !JSON.stringify(s).includes('tuesday: after the backup'),
        'the rebuilt search index holds nothing of the replaced database',
      );
      await send(hub.mcpUrl, a, conv, 'wednesday: after the restore');
      assert.deepEqual(await historyTexts(hub.mcpUrl, a, conv), ['monday: in the backup', 'wednesday: after the restore']);
    } finally {
      await hub.stop();
    }
  });
});

describe('daily backups of a running hub', () => {
  test('one is taken at start when the newest is older than a day, and only the newest N (--backups N) are kept', async () => {
    const dir = tempDataDir();
    await addAgent(dir, 'daily');
    const backups = path.join(dir, 'backups');
    fs.mkdirSync(backups);
    const now = Date.now();
    const old = [3.5, 2.5, 1.5].map((days) => `perch-daily-${backupStamp(new Date(now - days * DAY))}.sqlite`);
    for (const n of old) fs.writeFileSync(path.join(backups, n), 'an old daily backup');
    // Manual and pre-migration copies are never pruned.
    const manual = `perch-${backupStamp(new Date(now - 9 * DAY))}.sqlite`;
    const preMigration = `perch-pre-migration-v1-${backupStamp(new Date(now - 9 * DAY))}.sqlite`;
    fs.writeFileSync(path.join(backups, manual), 'manual');
    fs.writeFileSync(path.join(backups, preMigration), 'pre-migration');

    const hub = await startServe(dir, { args: ['--backups', '2'] });
    try {
      await eventually(
        () => backupsIn(dir, /^perch-daily-/).length === 2 && !backupsIn(dir, /^perch-daily-/).includes(old[1]!),
        30_000,
        'the daily backup and the pruning',
      );
      const daily = backupsIn(dir, /^perch-daily-/);
      assert.equal(daily[0], old[2], 'the newest old one is kept');
      assert.ok(daily[1]! > old[2]!, 'the other is the new one');
      const fresh = inspect(path.join(backups, daily[1]!));
      assert.equal(fresh.integrity, 'ok');
      assert.deepEqual(fresh.agents, ['daily']);
      assert.ok(
        fs.existsSync(path.join(backups, manual)) && fs.existsSync(path.join(backups, preMigration)),
        'other backups are left alone',
      );
    } finally {
      assert.equal(await hub.stop(), 0);
    }
    const log = fs.readFileSync(path.join(dir, 'logs', 'hub.log'), 'utf8');
    assert.match(log, /"door":"backup","event":"backup".*"pruned":2/);
  });

  test('--backups must be a whole number 0..1000', () => {
    const dir = tempDataDir();
    for (const v of ['-1', 'seven', '2.5']) {
      const r = cli(['serve', '--data-dir', dir, `--backups=${v}`]);
      assert.equal(r.code, 2, v);
      assert.match(r.stderr, /--backups must be a whole number/, v);
    }
  });
});

describe('the backup before a migration', () => {
  test('opening a database with an older schema version first copies it as it was to backups/perch-pre-migration-v<N>-<time>.sqlite', () => {
    const dir = tempDataDir();
    assert.equal(cli(['agent', 'add', 'new-timer', '--data-dir', dir]).code, 0);
    assert.deepEqual(backupsIn(dir, /./), [], 'a new database is not backed up');
    const dbFile = path.join(dir, 'perch.sqlite');
    // Replace it with a version-1 database (migration 1 only, whatever later migrations add) holding one agent.
    for (const f of fs.readdirSync(dir).filter((n) => n.startsWith('perch.sqlite'))) fs.rmSync(path.join(dir, f));
    const db = new Database(dbFile);
    db.exec(MIGRATIONS[0]!.sql);
    db.prepare("INSERT INTO users (id, kind, name, created_at) VALUES ('u_old', 'agent', 'old-timer', 1000)").run();
    db.pragma('user_version = 1');
    db.close();

    const r = cli(['agent', 'list', '--data-dir', dir, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const pre = backupsIn(dir, /^perch-pre-migration-/);
    assert.equal(pre.length, 1);
    assert.match(pre[0]!, /^perch-pre-migration-v1-\d{4}-\d{2}-\d{2}T[\d-]+Z\.sqlite$/);
    const copy = inspect(path.join(dir, 'backups', pre[0]!));
    assert.equal(copy.integrity, 'ok');
    assert.equal(copy.version, 1, 'the copy is the database before the migration');
    assert.deepEqual(copy.agents, ['old-timer']);
    const c = new Database(path.join(dir, 'backups', pre[0]!), { readonly: true });
    assert.equal(c.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'messages_by_conv_time'").pluck().get(), 0);
    c.close();
    assert.equal(inspect(dbFile).version, LATEST_VERSION, 'the database itself was migrated');

    assert.equal(cli(['agent', 'list', '--data-dir', dir]).code, 0);
    assert.equal(backupsIn(dir, /^perch-pre-migration-/).length, 1, 'an up-to-date database is not copied again');
  });
});
