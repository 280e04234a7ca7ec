// The flight recorder under retention (hub/features/retention/ledger-retention.ts), on a real hub file with a set
// clock: the hub's keep_days removes whole days of ledger records, a day from its newest record back, so
// `verifyLedger` holds after every step and after the pass; the removal is itself a record in today's chain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withHub, type TestHub } from '../support/helpers';
import { runOwnerAction } from '../../src/main/owner/actions';
import { Retention } from '../../src/main/hub/features/retention/retention-job';
import { verifyLedger } from '../../src/main/hub/features/ledger/recorder';
import { listPerchEvents } from '../../src/main/hub/features/ledger/calls';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type R = any;
const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.parse('2026-06-15T12:00:00');
const owner = (t: TestHub, action: string, input: unknown = {}) => runOwnerAction(t.hub, action, input) as Promise<R>;
const count = (t: TestHub) => t.hub.db.prepare('SELECT count(*) FROM ledger_records').pluck().get() as number;

test("the hub's keep_days removes whole old days of the ledger; verify holds after each step and after the pass, and the removal is on the record", async () => {
  const clock = { now: T0 };
  await withHub({ now: () => clock.now }, async (t) => {
    const a = t.agent('worker');
    clock.now = T0 - 100 * DAY;
    await owner(t, 'agents.pause', { agent: a.name, reason: 'old' });
    await owner(t, 'agents.resume', { agent: a.name });
    clock.now = T0 - 99 * DAY;
    const { rule } = await owner(t, 'rules.add', { agent: a.name, tool: 'Bash', command_prefix: 'npm test', behavior: 'allow' });
    await owner(t, 'rules.remove', { rule_id: rule.rule_id });
    await owner(t, 'agents.pause', { agent: a.name, reason: 'old too' });
    clock.now = T0 - 2 * DAY;
    await owner(t, 'agents.resume', { agent: a.name });
    await owner(t, 'agents.pause', { agent: a.name, reason: 'recent' });
    clock.now = T0;
    assert.deepEqual(verifyLedger(t.hub.db), { ok: true, records: 7, days: 3 });

    await owner(t, 'retention.set', { keep_days: 30 });
    const job = new Retention(t.hub, { batch: 2 });
    // Step by step (the conversations first): the first ledger step removes the newest two records of the old days
    // (the end of day -99); what is left still verifies.
    // (Today's record says first what goes: 5 records.)
    for (let i = 0; i < 100 && count(t) === 7; i++) assert.equal(job.step(), true);
    assert.equal(count(t), 6);
    assert.deepEqual(verifyLedger(t.hub.db), { ok: true, records: 6, days: 4 }, 'between steps, every day left is a whole chain');
    // A new pass (runNow starts one) finishes it.
    const tally = await job.runNow();
    assert.equal(tally.ledger_records, 3, 'the rest of the old days, whole');
    // Left: the two records of day -2, and today's two records of the removal (one per pass).
    assert.deepEqual(verifyLedger(t.hub.db), { ok: true, records: 4, days: 2 });
    const events = listPerchEvents(t.hub, { since: '2000-01-01' });
    const removed = events.filter((e) => e.event === 'ledger_removed');
    assert.deepEqual(
      removed.map((e) => e.records),
      [3, 5],
      JSON.stringify(events),
    );
    assert.equal(removed[0]!.agent.id, t.hub.ownerId);
    assert.match(removed[0]!.reason!, /keep_days 30/);
    assert.deepEqual(
      events.filter((e) => e.agent.id === a.id).map((e) => [e.event, e.reason]),
      [
        ['paused', 'recent'],
        ['resumed', undefined],
      ],
    );
    // A pass with nothing old left removes nothing and says nothing.
    assert.equal((await job.runNow()).ledger_records, 0);
    assert.equal(count(t), 4);
  });
});

test("the retention dry run counts the ledger records a pass would remove (the hub's keep_days, whole days), and the pass removes that many", async () => {
  const clock = { now: T0 };
  await withHub({ now: () => clock.now }, async (t) => {
    const a = t.agent('dry');
    clock.now = T0 - 50 * DAY;
    await owner(t, 'agents.pause', { agent: a.name, reason: 'old' });
    await owner(t, 'agents.resume', { agent: a.name });
    clock.now = T0 - 40 * DAY;
    await owner(t, 'agents.pause', { agent: a.name, reason: 'old too' });
    clock.now = T0 - 1 * DAY;
    await owner(t, 'agents.resume', { agent: a.name });
    clock.now = T0;
    const g = await owner(t, 'conversations.create_group', { title: 'dry', members: [a.id] });
    assert.equal((await owner(t, 'retention.dry_run')).ledger, null, 'no rule: nothing goes');

    await owner(t, 'retention.set', { keep_days: 30 });
    const plan = await owner(t, 'retention.dry_run');
    assert.deepEqual(plan.ledger, { before_day: '2026-05-16', records: 3 });
    assert.equal(
      (await owner(t, 'retention.dry_run', { conv_id: g.conversation.conv_id })).ledger,
      null,
      "a conversation's own plan has no ledger",
    );
    assert.equal(count(t), 4, 'a dry run removes nothing');

    const tally = await new Retention(t.hub, { batch: 2 }).runNow();
    assert.equal(tally.ledger_records, plan.ledger.records);
    assert.deepEqual((await owner(t, 'retention.dry_run')).ledger, { before_day: '2026-05-16', records: 0 });
  });
});
