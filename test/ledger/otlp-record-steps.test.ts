// A logs request's records are written a step at a time (src/main/mcp/otlp-door.ts recordInSteps), the event loop free
// between steps, so an agent's send arriving during a big telemetry batch waits for one step, not the whole batch
// (bench `--only otlp`: send_message's p99 beside an ingest of 2,000 records/s). Proven by what the event loop runs
// meanwhile, not by time: work queued while a 100-record batch is recorded runs between two of its steps (a whole
// number of steps in); the batch is recorded whole and once, the day's chain holds, and a resent batch adds nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withHub } from '../support/helpers';
import { logRecord, logsBody } from '../support/otlp-bodies';
import { RECORD_STEP, logFacts, recordInSteps } from '../../src/main/mcp/otlp-door';
import { verifyLedger } from '../../src/main/hub/features/ledger/recorder';

/** 50 Claude Code tool calls, a decision and a result each: 100 records. */
function batch(t0: number): string {
  const recs = [];
  for (let i = 0; i < 50; i++) {
    const a = { 'session.id': 's1', tool_name: 'Bash', tool_use_id: `toolu_${i}` };
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
