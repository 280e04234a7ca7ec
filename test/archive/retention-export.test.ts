// Retention's export first: with export_dir set, a pass writes an archive of the conversations it will delete from
// before deleting, and deletes nothing when that export fails (the error is reported); bad folders are refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withHub, callTool as call, type TestHub } from '../support/helpers';
import { runOwnerAction } from '../../src/main/owner/actions';
import { walkExport } from '../../src/main/store/export/read';
import { isHubError } from '../../src/shared/errors';
import { cli, eventually, ownerOk, removeDataDir, startServe } from '../support/serve-harness';
import { dataDirWithOldHistory } from '../support/retention-seed';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type R = any;
const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.UTC(2026, 5, 1);
const owner = (t: TestHub, action: string, input: unknown = {}) => runOwnerAction(t.hub, action, input) as Promise<R>;

/** A conversation with five messages 100 days old and one 2 days old. */
async function history(t: TestHub, clock: { now: number }) {
  const a = t.agent('worker');
  clock.now = T0 - 100 * DAY;
  const conv = (await call(t.hub, a.id, 'open_direct', { user: t.hub.owner.name })).conversation.conv_id as string;
  const old: string[] = [];
  for (let i = 0; i < 5; i++) old.push((await call(t.hub, a.id, 'send_message', { conv_id: conv, text: `old heron note ${i}` })).msg_id);
  clock.now = T0 - 2 * DAY;
  const recent = (await call(t.hub, a.id, 'send_message', { conv_id: conv, text: 'recent heron note' })).msg_id as string;
  clock.now = T0;
  return { conv, old, recent };
}

const messageIds = (t: TestHub) => new Set(t.hub.db.prepare('SELECT id FROM messages').pluck().all() as string[]);
const tmpDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'perch-retexp-'));

/** Runs `fn` on a hub whose clock starts at T0, with a fresh export folder removed afterwards. */
async function withHubAndExportDir(fn: (c: { t: TestHub; clock: { now: number }; dir: string }) => Promise<void>): Promise<void> {
  const clock = { now: T0 };
  const dir = tmpDir();
  try {
    await withHub({ now: () => clock.now }, (t) => fn({ t, clock, dir }));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('with export first, a pass writes the archive of what it deletes before deleting it', async () => {
  await withHubAndExportDir(async ({ t, clock, dir }) => {
    const h = await history(t, clock);
    await owner(t, 'retention.set', { keep_days: 30, export_dir: dir });
    const plan = await owner(t, 'retention.dry_run');
    assert.equal(
      plan.export_to,
      path.join(dir, `perch-retention-${new Date(T0).toISOString().replace(/[:.]/g, '-')}.tar.gz`),
      'the dry run names the archive it would write',
    );
    assert.equal(fs.readdirSync(dir).length, 0, 'the dry run writes nothing');
    const tally = await t.hub.services.retention.runNow();
    assert.equal(tally.messages, 5, 'the five old messages are deleted');
    const ids = messageIds(t);
    for (const id of h.old) assert.ok(!ids.has(id), 'an old message is gone from the hub');
    assert.ok(ids.has(h.recent), 'the recent message stays');
    const files = fs.readdirSync(dir);
    assert.deepEqual(files, [path.basename(plan.export_to)], 'one archive, named as the dry run said');
    const archived: Array<Record<string, unknown>> = [];
    const manifest = await walkExport(path.join(dir, files[0]), {
      row: (k, row) => {
        if (k.name === 'messages') archived.push(row);
      },
    });
    assert.deepEqual(manifest.scope.conversations, [h.conv], 'the archive holds the conversation deleted from');
    const inArchive = new Set(archived.map((r) => r.id));
    for (const id of h.old) assert.ok(inArchive.has(id), 'every deleted message is in the archive');
    assert.ok(
      archived.some((r) => r.text === 'old heron note 3'),
      'with its text',
    );
    assert.ok(inArchive.has(h.recent), 'the conversation is exported whole');
    const status = await owner(t, 'retention.get');
    assert.equal(status.export_dir, dir);
    assert.equal(status.last_export.file, path.join(dir, files[0]));
    assert.equal(status.export_error, null);
    // Nothing left to delete: the next pass writes no archive.
    await t.hub.services.retention.runNow();
    assert.equal(fs.readdirSync(dir).length, 1, 'a pass that deletes nothing exports nothing');
  });
});

test("export first never writes through a symlink planted at its predictable names (the archive's .partial): the victim is unchanged", async () => {
  await withHubAndExportDir(async ({ t, clock, dir }) => {
    await history(t, clock);
    await owner(t, 'retention.set', { keep_days: 30, export_dir: dir });
    const plan = await owner(t, 'retention.dry_run');
    const victimDir = tmpDir();
    try {
      const victim = path.join(victimDir, 'victim.txt');
      fs.writeFileSync(victim, 'precious\n');
      fs.symlinkSync(victim, `${plan.export_to}.partial`);
      assert.equal((await t.hub.services.retention.runNow()).messages, 5, 'the pass exported and deleted');
      assert.equal(fs.readFileSync(victim, 'utf8'), 'precious\n', 'the symlink target is unchanged');
      assert.ok(fs.lstatSync(plan.export_to).isFile(), 'the archive is a file of its own');
      assert.deepEqual(
        fs.readdirSync(dir).sort(),
        [path.basename(plan.export_to), `${path.basename(plan.export_to)}.partial`].sort(),
        'no staging folder is left; the planted link is left as it was',
      );
    } finally {
      fs.rmSync(victimDir, { recursive: true, force: true });
    }
  });
});

test('when the export fails, the pass deletes nothing, reports the error and tries again next time', async () => {
  await withHubAndExportDir(async ({ t, clock, dir }) => {
    const h = await history(t, clock);
    await owner(t, 'retention.set', { keep_days: 30, export_dir: dir });
    fs.rmSync(dir, { recursive: true }); // the folder is gone by the time the pass runs
    fs.writeFileSync(dir, 'not a folder'); // and cannot be made again
    const before = messageIds(t);
    const tally = await t.hub.services.retention.runNow();
    assert.equal(tally.messages, 0, 'the pass deleted nothing');
    assert.deepEqual(messageIds(t), before, 'every message is still there');
    const status = await owner(t, 'retention.get');
    assert.match(
      status.export_error?.message ?? '',
      /could not export to .*nothing was deleted/,
      'retention.get reports the failed export',
    );
    // The folder is back: the next pass exports, then deletes.
    fs.rmSync(dir);
    fs.mkdirSync(dir);
    assert.equal((await t.hub.services.retention.runNow()).messages, 5, 'the next pass exports and deletes');
    for (const id of h.old) assert.ok(!messageIds(t).has(id));
    assert.equal(fs.readdirSync(dir).filter((f) => f.endsWith('.tar.gz')).length, 1);
    assert.equal((await owner(t, 'retention.get')).export_error, null, 'the error is cleared once an export works');
  });
});

test('a bad export folder is refused with a clear error and changes nothing; off clears it', async () => {
  await withHubAndExportDir(async ({ t, dir }) => {
    await owner(t, 'retention.set', { keep_days: 30 });
    const file = path.join(dir, 'a-file');
    fs.writeFileSync(file, 'x');
    const refused = (input: unknown, pattern: RegExp) =>
      assert.rejects(
        owner(t, 'retention.set', input),
        (e: unknown) => isHubError(e) && e.code === 'invalid_argument' && pattern.test(e.message),
        String(pattern),
      );
    const before = await owner(t, 'retention.get');
    await refused({ export_dir: 'relative/dir' }, /absolute path/);
    await refused({ export_dir: file }, /not a folder/);
    await refused({ export_dir: path.join(dir, 'missing') }, /does not exist/);
    await refused({ export_dir: dir, keep_days: 0 }, /keep_days/);
    const a = t.agent('worker');
    const conv = (await call(t.hub, a.id, 'open_direct', { user: t.hub.owner.name })).conversation.conv_id as string;
    await refused({ export_dir: dir, conv_id: conv }, /hub's setting/);
    assert.deepEqual(await owner(t, 'retention.get'), before, 'nothing changed');
    await owner(t, 'retention.set', { export_dir: dir });
    assert.equal((await owner(t, 'retention.get')).export_dir, dir);
    await owner(t, 'retention.set', { export_dir: null });
    assert.equal((await owner(t, 'retention.get')).export_dir, null, 'null turns export first off');
  });
});

test(
  'a running perch serve exports before deleting when set with perch retention set --export-first; bad folders are refused',
  { timeout: 60_000 },
  async () => {
    const { dir, conv } = await dataDirWithOldHistory();
    const out = tmpDir();
    const served = await startServe(dir);
    try {
      const run = (...args: string[]) => cli([...args, '--data-dir', dir]);
      const notDir = path.join(out, 'plain-file');
      fs.writeFileSync(notDir, 'x');
      for (const [bad, why] of [
        [notDir, /not a folder/],
        [path.join(out, 'missing'), /does not exist/],
      ] as const) {
        const r = run('retention', 'set', '--keep-days', '30', '--export-first', bad);
        assert.notEqual(r.code, 0, `${bad} is refused`);
        assert.match(r.stderr, why);
      }
      const shown = JSON.parse(run('retention', '--json').stdout);
      assert.deepEqual([shown.rules.length, shown.export_dir], [0, null], 'the refused settings changed nothing');
      const texts = async () =>
        (await ownerOk(served, 'conversations.history', { conv_id: conv, limit: 100 })).events
          .filter((e: R) => e.message)
          .map((e: R) => e.message.text);
      assert.equal((await texts()).length, 5);
      const set = run('retention', 'set', '--keep-days', '30', '--export-first', out);
      assert.equal(set.code, 0, set.stderr);
      assert.match(set.stdout, /Export first: each pass exports what it deletes into/);
      await eventually(async () => (await texts()).length === 0, 15_000, 'the old messages to go');
      const archives = fs.readdirSync(out).filter((f) => /^perch-retention-.*\.tar\.gz$/.test(f));
      assert.equal(archives.length, 1, 'one archive was written');
      const texted: string[] = [];
      await walkExport(path.join(out, archives[0]), {
        row: (k, row) => {
          if (k.name === 'messages') texted.push(String(row.text));
        },
      });
      assert.deepEqual(
        texted.sort(),
        [0, 1, 2, 3, 4].map((i) => `long ago ${i}`),
        'the archive holds the deleted messages',
      );
      assert.match(run('retention').stdout, /Export first: into .*\(last: .*perch-retention-/);
    } finally {
      await served.stop();
      removeDataDir(dir);
      fs.rmSync(out, { recursive: true, force: true });
    }
  },
);
