// A logs request's records are written a step at a time (src/main/mcp/otlp-door.ts recordInSteps), the event loop free
// between steps, so an agent's send arriving during a big telemetry batch waits for one step, not the whole batch
// (bench `--only otlp`: send_message's p99 beside an ingest of 2,000 records/s). Proven by what the event loop runs
// meanwhile, not by time: work queued while a 100-record batch is recorded runs between two of its steps (a whole
// number of steps in); the batch is recorded whole and once, the day's chain holds, and a resent batch adds nothing.
// Several requests at once go through one lane per hub (src/main/mcp/step-lane.ts): one batch after the other, one step
// per turn of the event loop — never a step of every batch in flight in the same turn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withHub } from '../support/helpers';
import { logRecord, logsBody } from '../support/otlp-bodies';
import { RECORD_STEP, logFacts, recordInSteps, recordLogs } from '../../src/main/mcp/otlp-door';
import { StepLane } from '../../src/main/hub/core/step-lane';
import { verifyLedger } from '../../src/main/hub/features/ledger/recorder';

/** 50 Claude Code tool calls, a decision and a result each: 100 records. */
function batch(t0: number, session = 's1'): string {
  const recs = [];
  for (let i = 0; i < 50; i++) {
    const a = { 'session.id': session, tool_name: 'Bash', tool_use_id: `toolu_${i}` };
    recs.push(logRecord('claude_code.tool_decision', { ...a, decision: 'accept', source: 'config' }, t0 + i));
    recs.push(logRecord('claude_code.tool_result', { ...a, success: 'true', duration_ms: { int: 5 } }, t0 + i));
  }
  return logsBody('claude-code', recs);
}

test('a batch is written in steps with the event loop free between them, whole and once', () =>
  withHub(async (t) => {
    const kit = t.agent('kit');
    const count = () => (t.hub.db.prepare('SELECT COUNT(*) AS n FROM ledger_records').get() as { n: number }).n;
    const facts = logFacts(t.hub, batch(1_700_000_000_000));
    assert.ok(Array.isArray(facts) && facts.length === 100, 'the batch holds 100 facts');
    const seenMeanwhile: number[] = [];
    const recording = recordInSteps(t.hub, kit.id, facts as Exclude<typeof facts, string>);
    // Queued after the recording began: runs at the first step's end, while the batch is still being written.
    setImmediate(() => seenMeanwhile.push(count()));
    assert.equal(await recording, 100);
    assert.equal(seenMeanwhile.length, 1);
    const seen = seenMeanwhile[0]!;
    assert.ok(seen > 0 && seen < 100 && seen % RECORD_STEP === 0, `other work ran between two steps (${seen} records written then)`);
    assert.equal(count(), 100);
    assert.equal(await recordInSteps(t.hub, kit.id, logFacts(t.hub, batch(1_700_000_000_000)) as Exclude<typeof facts, string>), 0);
    assert.equal(count(), 100, 'a resent batch adds nothing');
    assert.deepEqual(verifyLedger(t.hub.db), { ok: true, records: 100, days: 1 });
  }));

function facts(hub: Parameters<typeof logFacts>[0], body: string) {
  const f = logFacts(hub, body);
  if (typeof f === 'string') throw new Error(f);
  return f;
}

test('batches sent at once are recorded one after the other, one step per turn of the event loop', () =>
  withHub(async (t) => {
    const kit = t.agent('kit');
    const rows = () => t.hub.db.prepare('SELECT session_id FROM ledger_records ORDER BY id').pluck().all() as string[];
    // What each turn of the event loop saw: a callback that queues itself again runs once per turn.
    const seen: number[] = [];
    let watching = true;
    const watch = () => {
      if (!watching) return;
      seen.push(rows().length);
      setImmediate(watch);
    };
    setImmediate(watch);
    const sessions = ['a', 'b', 'c', 'd'];
    const recorded = sessions.map((s, i) => recordInSteps(t.hub, kit.id, facts(t.hub, batch(1_700_000_000_000 + i * 1000, s))));
    // A refused body waits its turn too and changes nothing; the batches after it go on.
    const refused = recordLogs(t.hub, kit.id, '{"resourceLogs": 7}');
    const last = recordLogs(t.hub, kit.id, batch(1_700_000_100_000, 'e'));
    assert.deepEqual(await Promise.all(recorded), [100, 100, 100, 100]);
    assert.match(String(await refused), /resourceLogs/);
    assert.equal(await last, 100);
    watching = false;
    const order = rows();
    assert.equal(order.length, 500);
    // One batch after the other: each session's 100 records are one run of ids, in the order the requests came.
    assert.deepEqual(
      [0, 100, 200, 300, 400].map((i) => new Set(order.slice(i, i + 100))),
      ['a', 'b', 'c', 'd', 'e'].map((s) => new Set([s])),
    );
    // Never more than one step between two turns seen by the watcher.
    const grew = seen.slice(1).map((n, i) => n - seen[i]!);
    assert.ok(grew.length >= 20, `the watcher ran between the steps (${grew.length} turns)`);
    assert.ok(Math.max(...grew) <= RECORD_STEP, `at most one step a turn (grew by ${Math.max(...grew)} in one)`);
    assert.deepEqual(verifyLedger(t.hub.db), { ok: true, records: 500, days: 1 });
  }));

test('the lane: a step that throws ends only its job; the jobs after it run, in order', async () => {
  const lane = new StepLane();
  const ran: string[] = [];
  function* job(name: string, steps: number, failAt?: number): Generator<void, string> {
    for (let i = 0; i < steps; i++) {
      if (i > 0) yield;
      if (i === failAt) throw new Error(`${name} failed`);
      ran.push(`${name}${i}`);
    }
    return name;
  }
  const a = lane.run(job('a', 3));
  const b = lane.run(job('b', 3, 1));
  const c = lane.run(job('c', 2));
  assert.equal(lane.size, 3);
  assert.equal(await a, 'a');
  await assert.rejects(b, /b failed/);
  assert.equal(await c, 'c');
  assert.deepEqual(ran, ['a0', 'a1', 'a2', 'b0', 'c0', 'c1']);
  assert.equal(lane.size, 0);
});
