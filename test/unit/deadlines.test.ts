// The one deadline timer behind request and floor expiry (src/main/hub/core/deadlines.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deadlineTimer } from '../../src/main/hub/core/deadlines';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A little due list like the requests table: next() is its soonest, fire() handles what is due. */
function dueList(items: Record<string, number>) {
  const pending = new Map(Object.entries(items));
  const fired: Array<{ name: string; at: number; stillPending: string[] }> = [];
  return {
    pending,
    fired,
    next: () => (pending.size ? Math.min(...pending.values()) : null),
    fire: () => {
      const now = Date.now();
      const due = [...pending].filter(([, t]) => t <= now).map(([n]) => n);
      for (const n of due) pending.delete(n);
      for (const n of due) fired.push({ name: n, at: now, stillPending: [...pending.keys()] });
    },
  };
}

async function until(cond: () => boolean, maxMs = 3000): Promise<void> {
  const end = Date.now() + maxMs;
  while (!cond() && Date.now() < end) await sleep(10);
}

test('fires at the soonest due time first, then re-arms for the next one by itself', async () => {
  const t0 = Date.now();
  const list = dueList({ late: t0 + 250, soon: t0 + 40 });
  const timer = deadlineTimer({ next: list.next, fire: list.fire, now: Date.now });
  try {
    timer.arm();
    assert.equal(timer.armedFor, t0 + 40, 'armed for the soonest item, not the first listed');
    await until(() => list.fired.length === 2);
    assert.deepEqual(
      list.fired.map((f) => f.name),
      ['soon', 'late'],
      'the soonest fires first, the later one after a re-arm',
    );
    assert.deepEqual(list.fired[0]!.stillPending, ['late'], 'the later item was not handled early');
    assert.ok(list.fired[0]!.at >= t0 + 40, 'not before its due time');
    assert.ok(list.fired[1]!.at >= t0 + 250, 'the re-armed timer fires at the later due time, not before');
    assert.equal(timer.armedFor, null, 'nothing left: no timer');
  } finally {
    timer.close();
  }
});

test('a sooner item added later re-arms the timer for it (armSoon after the write)', async () => {
  const t0 = Date.now();
  const list = dueList({ late: t0 + 5000 });
  const timer = deadlineTimer({ next: list.next, fire: list.fire, now: Date.now });
  try {
    timer.arm();
    assert.equal(timer.armedFor, t0 + 5000);
    list.pending.set('new', t0 + 30);
    timer.armSoon();
    assert.equal(timer.armedFor, t0 + 5000, 'armSoon waits for the current synchronous work to end');
    await Promise.resolve();
    assert.equal(timer.armedFor, t0 + 30, 're-armed for the sooner item');
    await until(() => list.fired.length === 1);
    assert.deepEqual(
      list.fired.map((f) => f.name),
      ['new'],
    );
    assert.equal(timer.armedFor, t0 + 5000, 'armed again for what is left');
  } finally {
    timer.close();
  }
});

test('a busy database (SQLITE_BUSY thrown by fire or next) is retried later instead of giving up', async () => {
  const t0 = Date.now();
  const list = dueList({ a: t0 + 20, b: t0 + 60 });
  let fireCalls = 0;
  let nextCalls = 0;
  const busy = () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
  const timer = deadlineTimer({
    next: () => {
      nextCalls++;
      if (nextCalls === 3) throw busy(); // the re-arm after the first successful fire fails once
      return list.next();
    },
    fire: () => {
      fireCalls++;
      if (fireCalls === 1) throw busy(); // the first attempt finds the database busy
      list.fire();
    },
    now: Date.now,
    retryMs: 30,
  });
  try {
    timer.arm();
    // On a loaded machine b may be due by the time the first retry fires, and one fire handles both: wait for
    // the state (both handled, the failed re-arm retried), not for a count that depends on timing.
    await until(() => list.pending.size === 0 && nextCalls >= 4);
    assert.deepEqual(list.fired.map((f) => f.name).sort(), ['a', 'b'], 'both items were handled despite two busy errors');
    assert.ok(fireCalls >= 2, `fire was retried after the busy error (${fireCalls} calls)`);
    assert.ok(nextCalls >= 4, `next was retried after the busy error (${nextCalls} calls)`);
  } finally {
    timer.close();
  }
});

test('close stops it: nothing fires afterwards, not even a pending retry or a queued re-arm', async () => {
  const t0 = Date.now();
  const list = dueList({ a: t0 + 30 });
  let fireCalls = 0;
  const timer = deadlineTimer({
    next: list.next,
    fire: () => {
      fireCalls++;
      list.fire();
    },
    now: Date.now,
  });
  timer.arm();
  assert.equal(timer.armedFor, t0 + 30);
  timer.armSoon();
  timer.close();
  assert.equal(timer.closed, true);
  assert.equal(timer.armedFor, null);
  await sleep(120);
  assert.equal(fireCalls, 0, 'a closed timer never fires');
  timer.arm();
  assert.equal(timer.armedFor, null, 'arm after close does nothing');

  // A timer waiting to retry after a busy error is stopped by close as well.
  let calls = 0;
  const retrying = deadlineTimer({
    next: () => {
      calls++;
      throw Object.assign(new Error('busy'), { code: 'SQLITE_BUSY' });
    },
    fire: () => {},
    now: Date.now,
    retryMs: 20,
  });
  retrying.arm();
  await sleep(70);
  const seen = calls;
  assert.ok(seen >= 2, 'it was retrying');
  retrying.close();
  await sleep(80);
  assert.equal(calls, seen, 'no retry after close');
});
