// Retention: the owner's rules are checked (bad input changes nothing), the dry run counts what would go, and the job
// deletes old history in small steps, keeping pinned messages, requests and summaries, removing files' bytes and
// search index entries, giving the space back (incremental vacuum), and archiving idle conversations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import os from 'node:os';
import Database from 'better-sqlite3';
import { withHub, callTool as call, type TestHub } from '../support/helpers';
import { runOwnerAction } from '../../src/main/owner/actions';
import { startBackgroundStore } from '../../src/main/store/worker/background';
import { SEARCH_FILE_NAME } from '../../src/main/store/worker/search-index';
import { isHubError } from '../../src/shared/errors';
import { Retention } from '../../src/main/hub/features/retention/retention-job';
import { cli, eventually, ownerOk, removeDataDir, startServe } from '../support/serve-harness';
import { dataDirWithOldHistory } from '../support/retention-seed';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type R = any;
const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.UTC(2026, 5, 1);

const owner = (t: TestHub, action: string, input: unknown = {}) => runOwnerAction(t.hub, action, input) as Promise<R>;

async function refused(p: Promise<unknown>, code: string, pattern: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => isHubError(e) && e.code === code && pattern.test(e.message), `refused with ${code} ${pattern}`);
}

/** A conversation with old history (100 days back): plain messages, a pinned one, a request, a file, a summary; and new ones. */
async function oldHistory(t: TestHub, clock: { now: number }) {
  const a = t.agent('worker');
  clock.now = T0 - 100 * DAY;
  const conv = (await call(t.hub, a.id, 'open_direct', { user: t.hub.owner.name })).conversation.conv_id as string;
  const plain: string[] = [];
  for (let i = 0; i < 5; i++)
    plain.push((await call(t.hub, a.id, 'send_message', { conv_id: conv, text: `old zebrafinch note ${i}` })).msg_id);
  const pinned = (await call(t.hub, a.id, 'send_message', { conv_id: conv, text: 'old but pinned' })).msg_id as string;
  await owner(t, 'messages.pin', { conv_id: conv, msg_id: pinned, on: true });
  const req = await call(t.hub, a.id, 'request_human', { conv_id: conv, kind: 'approve', title: 'old request' });
  await owner(t, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
  const bytes = crypto.randomBytes(40_000);
  const file = await call(t.hub, a.id, 'send_file', {
    conv_id: conv,
    data: bytes.toString('base64'),
    name: 'old.bin',
    caption: 'old file',
  });
  await call(t.hub, a.id, 'put_summary', { conv_id: conv, from_seq: 1, to_seq: 3, text: 'what happened so far' });
  clock.now = T0 - 2 * DAY;
  const recent = (await call(t.hub, a.id, 'send_message', { conv_id: conv, text: 'recent zebrafinch note' })).msg_id as string;
  clock.now = T0;
  return { a, conv, plain, pinned, req, file, bytes, recent };
}

test('bad retention rules are refused with a clear error and change nothing', async () => {
  const clock = { now: T0 };
  await withHub({ now: () => clock.now }, async (t) => {
    await owner(t, 'retention.set', { keep_days: 30 });
    const before = await owner(t, 'retention.get');
    await refused(owner(t, 'retention.set', { keep_days: 0 }), 'invalid_argument', /keep_days/);
    await refused(owner(t, 'retention.set', { keep_days: 1.5 }), 'invalid_argument', /keep_days/);
    await refused(owner(t, 'retention.set', { keep_days: 'forever' }), 'invalid_argument', /keep_days/);
    await refused(owner(t, 'retention.set', { archive_idle_days: 99999999 }), 'invalid_argument', /archive_idle_days/);
    await refused(owner(t, 'retention.set', { keep_pinned: 'yes' }), 'invalid_argument', /keep_pinned/);
    await refused(owner(t, 'retention.set', { conv_id: 'c_nope', keep_days: 3 }), 'not_found', /c_nope/);
    await refused(owner(t, 'retention.set', {}), 'invalid_argument', /Nothing to set/);
    await refused(owner(t, 'retention.set', { remove: true, keep_days: 3 }), 'invalid_argument', /remove takes no other/);
    await refused(owner(t, 'retention.set', { keep_days: 3, surprise: 1 }), 'invalid_argument', /surprise/);
    assert.deepEqual(await owner(t, 'retention.get'), before, 'the rules are as they were');
    assert.equal(before.rules.length, 1);
    assert.equal(before.rules[0].keep_days, 30);
    assert.equal(before.rules[0].keep_pinned, true, 'a new rule keeps pinned messages by default');
    assert.equal(before.vacuum, 'incremental', 'a new database file gives space back incrementally');
  });
});

test('the dry run counts what would go and changes nothing; the job then removes exactly that, keeping pinned, requests and summaries', async () => {
  const clock = { now: T0 };
  await withHub({ now: () => clock.now }, async (t) => {
    const h = await oldHistory(t, clock);
    await owner(t, 'retention.set', { keep_days: 30 });
    const plan = await owner(t, 'retention.dry_run');
    const item = plan.conversations.find((c: R) => c.conv_id === h.conv);
    assert.ok(item, 'the conversation is in the plan');
    assert.equal(item.messages, 6, 'five old notes and the file message would go (the pinned one and the request stay)');
    assert.equal(item.files, 1);
    assert.ok(item.file_bytes >= h.bytes.length, "the file's bytes are counted");
    assert.equal(item.summaries, 0, 'summaries are kept by default');
    assert.ok(item.events >= 7, 'their events and the old conversation events would go');
    assert.equal(item.archive, false);
    const history = () => owner(t, 'conversations.history', { conv_id: h.conv, limit: 200 });
    const before = (await history()).events.length;
    assert.equal((await owner(t, 'retention.dry_run')).totals.messages, 6, 'the dry run changed nothing');

    const tally = await t.hub.services.retention.runNow();
    assert.equal(tally.messages, 6);
    assert.equal(tally.files, 1);
    assert.equal(tally.events, item.events, 'the job removed as many events as the dry run said');
    const after = (await history()).events;
    assert.equal(after.length, before - item.events);
    const texts = after.filter((e: R) => e.message).map((e: R) => e.message.text);
    assert.ok(texts.includes('old but pinned'), 'the pinned message stays');
    assert.ok(texts.includes('recent zebrafinch note'), 'recent messages stay');
    assert.ok(!texts.some((x: string) => /^old zebrafinch/.test(x)), 'old messages are gone');
    assert.ok(
      after.some((e: R) => e.type === 'request.decided'),
      'the request and its decision stay',
    );
    assert.equal((await owner(t, 'requests.list', {})).requests.filter((r: R) => r.request_id === h.req.request_id).length, 1);
    await refused(owner(t, 'files.url', { file_id: h.file.file_id }), 'not_found', /./);
    const ctx = await call(t.hub, h.a.id, 'get_context', { conv_id: h.conv });
    assert.equal(ctx.summary?.text, 'what happened so far', "the agent's summary (its checkpoint of the conversation) stays");
    const search = await owner(t, 'conversations.search', { query: 'zebrafinch' });
    assert.deepEqual(
      search.messages.map((m: R) => m.text),
      ['recent zebrafinch note'],
      'search finds only what is left',
    );
    assert.equal((await owner(t, 'retention.dry_run')).totals.messages, 0, 'nothing more to remove');

    // Without keep_pinned / keep_requests / keep_checkpoints, those go too.
    await owner(t, 'retention.set', { keep_pinned: false, keep_requests: false, keep_checkpoints: false });
    const tally2 = await t.hub.services.retention.runNow();
    assert.equal(tally2.messages, 2, 'the pinned message and the request message go');
    assert.equal(tally2.summaries, 1);
    const left = (await history()).events.filter((e: R) => e.message).map((e: R) => e.message.text);
    assert.deepEqual(left, ['recent zebrafinch note']);
  });
});

test("a conversation's own rule overrides the hub's, and an idle rule archives", async () => {
  const clock = { now: T0 };
  await withHub({ now: () => clock.now }, async (t) => {
    const h = await oldHistory(t, clock);
    clock.now = T0 - 50 * DAY;
    const b = t.agent('other');
    const quiet = (await call(t.hub, b.id, 'create_group', { title: 'quiet', members: [h.a.name] })).conversation.conv_id as string;
    await call(t.hub, b.id, 'send_message', { conv_id: quiet, text: 'anyone?' });
    clock.now = T0;
    await owner(t, 'retention.set', { archive_idle_days: 40 });
    await owner(t, 'retention.set', { conv_id: h.conv, keep_days: 365 });
    const plan = await owner(t, 'retention.dry_run');
    assert.equal(plan.totals.archive, 1, 'the quiet group would be archived; the direct conversation follows its own rule');
    assert.equal(plan.totals.messages, 0, 'nothing is a year old');
    const tally = await t.hub.services.retention.runNow();
    assert.equal(tally.archived, 1);
    const list = await call(t.hub, h.a.id, 'list_conversations', {});
    assert.ok(!list.conversations.some((c: R) => c.conv_id === quiet), "the archived group left the agent's list");
    const view = await owner(t, 'conversations.get', { conv_id: quiet });
    assert.deepEqual(view.conversation.archived, { at: T0, by: 'retention' });
    assert.equal((await t.hub.services.retention.runNow()).archived, 0, 'an archived conversation is not archived again');
  });
});

test("deletion removes search index entries and the files' bytes, and the file gives the space back", async () => {
  const clock = { now: T0 };
  await withHub({ now: () => clock.now }, async (t) => {
    const h = await oldHistory(t, clock);
    const bg = startBackgroundStore(t.hub.db);
    assert.ok(bg, "the store's worker runs");
    try {
      const searchFile = path.join(path.dirname(t.file), SEARCH_FILE_NAME);
      const hits = () => {
        const s = new Database(searchFile, { readonly: true });
        try {
          return s.prepare('SELECT count(*) FROM fts WHERE fts MATCH ?').pluck().get('"zebrafinch"') as number;
        } finally {
          s.close();
        }
      };
      const until = async (what: string, ok: () => boolean) => {
        for (let i = 0; i < 200 && !ok(); i++) {
          await owner(t, 'conversations.mark_read', { conv_id: h.conv, seq: 1 }); // a commit wakes the worker
          await new Promise((r) => setTimeout(r, 25));
        }
        assert.ok(ok(), what);
      };
      await until('the index holds the six notes', () => {
        try {
          return hits() === 6;
        } catch {
          return false;
        }
      });
      const sizeBefore = fs.statSync(t.file).size + fs.statSync(`${t.file}-wal`).size;
      await owner(t, 'retention.set', { keep_days: 30 });
      await t.hub.services.retention.runNow();
      await until('the index forgot the five deleted notes', () => hits() === 1);
      await t.hub.services.retention.runNow(); // drops the forgotten rows of search_forget
      assert.equal(
        t.hub.db.prepare('SELECT count(*) FROM search_forget').pluck().get(),
        0,
        'the forget list is emptied once the index forgot them',
      );
      assert.equal(t.hub.db.prepare('SELECT count(*) FROM files').pluck().get(), 0, 'the file row is gone');
      assert.equal((await owner(t, 'retention.get')).free_bytes, 0, 'the free pages went back to the disk');
      bg!.close(); // its connection's snapshot would keep the checkpoint from copying every page back
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(t.hub.db.pragma('wal_checkpoint(TRUNCATE)'), [{ busy: 0, log: 0, checkpointed: 0 }]);
      const raw = fs.readFileSync(t.file);
      assert.equal(raw.indexOf(h.bytes.subarray(1000, 1064)), -1, "the file's bytes are no longer in the database file");
      assert.ok(fs.statSync(t.file).size < sizeBefore, 'the database file shrank');
    } finally {
      bg!.close();
    }
  });
});

test('the job works in bounded steps: a step touches at most its batch of rows', async () => {
  const clock = { now: T0 - 100 * DAY };
  await withHub({ now: () => clock.now }, async (t) => {
    const a = t.agent('chatty');
    const conv = (await call(t.hub, a.id, 'open_direct', { user: t.hub.owner.name })).conversation.conv_id as string;
    for (let i = 0; i < 450; i++) await owner(t, 'messages.send', { conv_id: conv, text: `line ${i}` });
    clock.now = T0;
    await owner(t, 'retention.set', { keep_days: 30 });
    const count = () => t.hub.db.prepare('SELECT count(*) FROM messages').pluck().get() as number;
    let steps = 0;
    let last = count();
    const job = t.hub.services.retention;
    while (job.step()) {
      steps++;
      const now = count();
      assert.ok(last - now <= 100, `one step deleted ${last - now} messages, at most its batch`);
      last = now;
      assert.ok(steps < 100, 'the pass ends');
    }
    assert.equal(count(), 0);
    assert.ok(steps >= 3, `${steps} steps for 450 messages`);
  });
});

test("with keep_checkpoints off, one pass deletes every old summary, even more of them than a step's batch", async () => {
  const clock = { now: T0 - 100 * DAY };
  await withHub({ now: () => clock.now }, async (t) => {
    const a = t.agent('summarizer');
    const conv = (await call(t.hub, a.id, 'open_direct', { user: t.hub.owner.name })).conversation.conv_id as string;
    for (let i = 0; i < 6; i++) await call(t.hub, a.id, 'send_message', { conv_id: conv, text: `note ${i}` });
    for (let i = 1; i <= 5; i++)
      await call(t.hub, a.id, 'put_summary', { conv_id: conv, from_seq: 1, to_seq: i + 1, text: `summary ${i}` });
    const summaries = () => t.hub.db.prepare('SELECT count(*) FROM summaries WHERE conv_id = ?').pluck().get(conv) as number;
    assert.equal(summaries(), 5);
    clock.now = T0;
    await owner(t, 'retention.set', { keep_days: 30, keep_checkpoints: false });
    const tally = await new Retention(t.hub, { batch: 3 }).runNow();
    assert.equal(summaries(), 0, 'no old summary is left for a later pass');
    assert.equal(tally.summaries, 5);
  });
});

test('started, the job applies a new rule on its own, in steps on timers', async () => {
  const clock = { now: T0 };
  await withHub({ now: () => clock.now }, async (t) => {
    const h = await oldHistory(t, clock);
    const job = new Retention(t.hub, { batch: 3, gapMs: 1, intervalMs: 60_000 });
    job.start();
    await owner(t, 'retention.set', { keep_days: 30 });
    job.rulesChanged(); // the hub's own job is not started in a test hub; this one is
    const left = () => t.hub.db.prepare('SELECT count(*) FROM messages WHERE conv_id = ?').pluck().get(h.conv) as number;
    for (let i = 0; i < 200 && left() > 3; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(left(), 3, 'the pinned message, the request and the recent one are left');
  });
});

test('perch retention on a stopped hub: set, --dry-run, and bad input (exit 2, nothing changed)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-ret-'));
  try {
    const run = (...args: string[]) => cli([...args, '--data-dir', dir]);
    assert.equal(run('retention').stdout.trim().split('\n')[0], 'No retention rules: all history is kept.');
    const set = run('retention', 'set', '--keep-days', '90', '--keep-pinned', 'no', '--archive-idle-days', '30');
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, /keeps 90 days \(and requests, summaries however old\); archives after 30 idle days/);
    for (const bad of [
      ['--keep-days', 'soon'],
      ['--keep-days', '0'],
      ['--keep-pinned', 'maybe'],
      ['--archive-idle-days', '-3'],
      ['--conv', '', '--keep-days', '1'],
    ]) {
      const r = run('retention', 'set', ...bad);
      assert.equal(r.code, 2, `${bad.join(' ')} is refused as bad input`);
      assert.match(r.stderr, /keep-days|keep_days|keep-pinned|archive-idle-days|archive_idle_days|--conv needs a conversation ID/);
    }
    const compact = run('retention', 'compact', '--conv', 'c_any');
    assert.deepEqual([compact.code, compact.stdout], [2, ''], 'compact takes no --conv');
    const shown = JSON.parse(run('retention', '--json').stdout);
    assert.deepEqual(
      shown.rules.map((r: R) => [r.keep_days, r.keep_pinned, r.archive_idle_days]),
      [[90, false, 30]],
      'the bad input changed nothing',
    );
    const plan = run('retention', '--dry-run');
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, /Nothing would be removed or archived now/);
    assert.equal(run('retention', 'remove').code, 0);
    assert.equal(JSON.parse(run('retention', '--json').stdout).rules.length, 0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test(
  'a running perch serve applies a rule set through the owner API by itself (the job is one of its background jobs)',
  { timeout: 60_000 },
  async () => {
    const { dir, conv } = await dataDirWithOldHistory();
    const served = await startServe(dir);
    try {
      const texts = async () =>
        (await ownerOk(served, 'conversations.history', { conv_id: conv, limit: 100 })).events
          .filter((e: R) => e.message)
          .map((e: R) => e.message.text);
      assert.equal((await texts()).length, 5);
      await ownerOk(served, 'retention.set', { keep_days: 30 });
      await eventually(async () => (await texts()).length === 0, 15_000, 'the old messages to go');
    } finally {
      await served.stop();
      removeDataDir(dir);
    }
  },
);
