// Wake runs the laptop can afford, against a real `perch serve` with real processes: the limit of runs alive at once
// across the fleet and its queue (Start now, Cancel), the memory and CPU sampled from each run's process tree, a
// run stopped over its memory ceiling, and bad limits refused. The hub has its own data dir: the limit is hub-wide.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ROOT,
  addAgent,
  cliAsync,
  eventually,
  ownerFail,
  ownerOk,
  rawCall,
  sleep,
  uniqueName,
  useSharedServe,
} from '../support/serve-harness';

const AGENT_SCRIPT = path.join(ROOT, 'test', 'fixtures', 'wake-agent.mjs');
const MEMORY_SCRIPT = path.join(ROOT, 'test', 'fixtures', 'wake-memory.mjs');
const MiB = 1024 * 1024;

const served = useSharedServe({
  env: { PERCH_WAKE_BACKOFF_MS: '300', PERCH_WAKE_KILL_GRACE_MS: '300', PERCH_WAKE_SAMPLE_MS: '200', PERCH_WAKE_CEILING_GRACE_MS: '600' },
});

async function wakeable(base: string, wakeArgs: string[]): Promise<{ id: string; name: string; conv: string }> {
  const a = await addAgent(served.dataDir, uniqueName(base));
  const r = await cliAsync(['agent', 'wake', a.name, '--data-dir', served.dataDir, '--json', ...wakeArgs]);
  assert.equal(r.code, 0, `perch agent wake failed: ${r.stderr}`);
  const g = await ownerOk(served, 'conversations.create_group', { title: `with ${a.name}`, members: [a.id] });
  return { id: a.id, name: a.name, conv: g.conversation.conv_id };
}

const mention = (a: { id: string; conv: string }, text = 'please have a look') =>
  ownerOk(served, 'messages.send', { conv_id: a.conv, text, to: [a.id] });
const limits = async () => (await ownerOk(served, 'wake.limits.get')).limits;
const runsOf = async (agent: string) => (await ownerOk(served, 'wake.runs', { agent })).runs as any[];

async function off(...agents: Array<{ name: string }>): Promise<void> {
  for (const a of agents) {
    await ownerOk(served, 'wake.stop', { agent: a.name });
    await ownerOk(served, 'wake.set', { agent: a.name, off: true });
  }
  await eventually(async () => (await limits()).running.length === 0, 15_000, 'every run to end');
}

const SLEEPER = ['--shell', 'sleep 60'];

/** A limit of 1 run at once, taken by a new agent's run (it sleeps until stopped). */
async function oneSlotTaken(base: string): Promise<{ id: string; name: string; conv: string }> {
  await ownerOk(served, 'wake.limits.set', { at_once: 1 });
  const a = await wakeable(base, SLEEPER);
  await mention(a);
  await eventually(async () => (await limits()).running.some((r: any) => r.agent.id === a.id), 10_000, `${a.name}'s run`);
  return a;
}

/** The longest overlap of [start, end] intervals. */
function maxOverlap(marks: Array<{ kind: string; at: bigint }>): number {
  let alive = 0;
  let max = 0;
  for (const m of [...marks].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.kind === 'end' ? -1 : 1))) {
    alive += m.kind === 'start' ? 1 : -1;
    max = Math.max(max, alive);
  }
  return max;
}

describe('wake limits', () => {
  test('six agents woken together under a limit of 2: never more than two runs alive, the rest queued and listed, all six run', async () => {
    const marksFile = path.join(os.tmpdir(), `perch-marks-${crypto.randomUUID()}`);
    try {
      const set = (await ownerOk(served, 'wake.limits.set', { at_once: 2 })).limits;
      assert.equal(set.at_once, 2);
      assert.equal(set.at_once_default, false);
      // Each run marks its start and end (ns) around a real agent that reads, holds a moment, replies and confirms.
      const shell = `echo "start $PERCH_AGENT $(date +%s%N)" >> '${marksFile}'; '${process.execPath}' '${AGENT_SCRIPT}'; echo "end $PERCH_AGENT $(date +%s%N)" >> '${marksFile}'`;
      const six: Array<{ id: string; name: string; conv: string }> = [];
      for (let i = 0; i < 6; i++) six.push(await wakeable('six', ['--env', 'WAKE_AGENT_HOLD_MS=700', '--shell', shell]));
      await Promise.all(six.map((a) => mention(a)));

      let sawQueue: any[] = [];
      let maxRunning = 0;
      await eventually(
        async () => {
          const l = await limits();
          maxRunning = Math.max(maxRunning, l.running.length);
          if (l.queued.length > sawQueue.length) sawQueue = l.queued;
          const done = await Promise.all(six.map(async (a) => (await runsOf(a.name)).some((r) => r.status === 'succeeded')));
          return done.every(Boolean) && l.running.length === 0 && l.queued.length === 0;
        },
        90_000,
        'all six runs to succeed',
      );

      assert.ok(maxRunning <= 2, `the hub listed ${maxRunning} runs alive at once`);
      assert.ok(sawQueue.length >= 1, 'runs beyond the limit were listed as queued');
      assert.deepEqual(
        sawQueue.map((q) => q.position),
        sawQueue.map((_, i) => i + 1),
        'queued runs have positions 1, 2, …',
      );
      for (const q of sawQueue) {
        assert.ok(
          six.some((a) => a.id === q.agent.id),
          'a queued run names its agent',
        );
        assert.equal(typeof q.since, 'number');
        assert.equal(q.by_owner, true, 'the owner woke them');
      }
      const marks = fs
        .readFileSync(marksFile, 'utf8')
        .trim()
        .split('\n')
        .map((l) => {
          const [kind, agent, at] = l.split(' ');
          return { kind: kind!, agent: agent!, at: BigInt(at!) };
        });
      assert.equal(marks.filter((m) => m.kind === 'start').length, 6, `six runs started (and no more): ${marks.length} marks`);
      assert.deepEqual(new Set(marks.map((m) => m.agent)), new Set(six.map((a) => a.name)), 'each of the six agents ran');
      assert.ok(maxOverlap(marks) <= 2, `at most two run processes were alive at once (saw ${maxOverlap(marks)})`);
      for (const a of six) {
        const [run] = await runsOf(a.name);
        assert.equal(run.status, 'succeeded');
        assert.equal(run.why.reasons[0].type, 'message.created', 'a queued run keeps its wake reasons');
        assert.ok(run.woken_at <= run.started_at);
      }
      await off(...six);
    } finally {
      fs.rmSync(marksFile, { force: true });
    }
  });

  test('a queued run is listed once, Start now starts it over the limit, Cancel drops it', async () => {
    const a = await oneSlotTaken('busy');
    const b = await wakeable('waits', SLEEPER);
    const c = await wakeable('jumps', SLEEPER);
    await mention(b);
    await mention(c);
    await mention(b, 'again'); // coalesced: b is queued once
    await eventually(async () => (await limits()).queued.length === 2, 10_000, 'b and c to queue');
    let l = await limits();
    assert.deepEqual(
      l.queued.map((q: any) => [q.agent.name, q.position]),
      [
        [b.name, 1],
        [c.name, 2],
      ],
      'first come, first served',
    );
    assert.deepEqual(
      l.running.map((r: any) => r.agent.name),
      [a.name],
      'one run at once',
    );
    const bState = (await ownerOk(served, 'wake.get', { agent: b.name })).wake;
    assert.equal(bState.queued.position, 1);

    const started = await ownerOk(served, 'wake.start_now', { agent: c.name });
    assert.equal(started.started, true, 'Start now starts the queued run');
    l = await limits();
    assert.deepEqual(l.running.map((r: any) => r.agent.name).sort(), [a.name, c.name].sort(), 'over the limit, this once');
    assert.deepEqual(
      l.queued.map((q: any) => [q.agent.name, q.position]),
      [[b.name, 1]],
    );

    const cancelled = await ownerOk(served, 'wake.stop', { agent: b.name });
    assert.equal(cancelled.cancelled, true, 'Cancel drops the queued run');
    assert.equal((await limits()).queued.length, 0);
    const refused = await ownerFail(served, 'wake.start_now', { agent: b.name }, 409);
    assert.match(refused.message, /no wake run waiting/);

    await ownerOk(served, 'wake.stop', { agent: a.name });
    await ownerOk(served, 'wake.stop', { agent: c.name });
    await eventually(async () => (await limits()).running.length === 0, 10_000, 'a and c to stop');
    await sleep(500); // a slot is free now: a cancelled run must not start
    assert.equal((await runsOf(b.name)).length, 0, 'the cancelled run never started');
    await off(a, b, c);
  });

  test("the owner's own wakes queue before wakes by agents, which keep first come, first served", async () => {
    const busy = await oneSlotTaken('occupies');
    const byAgent1 = await wakeable('agentwoke1', SLEEPER);
    const byAgent2 = await wakeable('agentwoke2', SLEEPER);
    const byOwner = await wakeable('ownerwoke', SLEEPER);
    const caller = await addAgent(served.dataDir, uniqueName('caller'));
    const g = await ownerOk(served, 'conversations.create_group', { title: 'crew', members: [caller.id, byAgent1.id, byAgent2.id] });
    for (const target of [byAgent1, byAgent2]) {
      const r = await rawCall(served.mcpUrl, caller.key, 'send_message', {
        conv_id: g.conversation.conv_id,
        text: 'over to you',
        to: [target.id],
      });
      assert.ok(!r.isError, JSON.stringify(r.structuredContent));
    }
    await eventually(async () => (await limits()).queued.length === 2, 10_000, "the agents' wakes to queue");
    await mention(byOwner);
    await eventually(async () => (await limits()).queued.length === 3, 10_000, "the owner's wake to queue");
    const q = (await limits()).queued;
    assert.deepEqual(
      q.map((x: any) => [x.agent.name, x.position, x.by_owner]),
      [
        [byOwner.name, 1, true],
        [byAgent1.name, 2, false],
        [byAgent2.name, 3, false],
      ],
    );

    await ownerOk(served, 'wake.stop', { agent: busy.name }); // a slot frees: the owner's wake starts next
    await eventually(async () => (await limits()).running.some((r: any) => r.agent.id === byOwner.id), 10_000, "the owner's wake to start");
    assert.deepEqual(
      (await limits()).queued.map((x: any) => x.agent.name),
      [byAgent1.name, byAgent2.name],
    );
    await off(busy, byAgent1, byAgent2, byOwner);
  });

  test("a run's peak memory and CPU are sampled and recorded, within 25% of what it held", async () => {
    await ownerOk(served, 'wake.limits.set', { at_once: 4 });
    const report = path.join(os.tmpdir(), `perch-mem-${crypto.randomUUID()}.json`);
    try {
      const a = await wakeable('holder', [
        '--env',
        'WAKE_MEMORY_MB=160',
        '--env',
        'WAKE_MEMORY_HOLD_MS=2500',
        '--env',
        `WAKE_MEMORY_REPORT=${report}`,
        '--',
        process.execPath,
        MEMORY_SCRIPT,
      ]);
      await mention(a);
      let sawLive: any = null;
      await eventually(
        async () => {
          const l = await limits();
          sawLive ??= l.running.find((r: any) => r.agent.id === a.id && r.live && r.live.rss_bytes > 100 * MiB)?.live ?? null;
          return (await runsOf(a.name)).some((r) => r.status !== 'running');
        },
        20_000,
        'the run to end',
      );
      const [run] = await runsOf(a.name);
      await off(a);
      const held = JSON.parse(fs.readFileSync(report, 'utf8')) as { rss: number };
      assert.ok(sawLive, 'its memory was shown live while it ran');
      assert.equal(typeof run.peak_rss_bytes, 'number', `peak recorded: ${JSON.stringify(run)}`);
      const ratio = run.peak_rss_bytes / held.rss;
      assert.ok(
        ratio > 0.75 && ratio < 1.25,
        `recorded peak ${Math.round(run.peak_rss_bytes / MiB)} MB vs held ${Math.round(held.rss / MiB)} MB`,
      );
      assert.ok(run.cpu_secs > 0, 'CPU seconds recorded');
    } finally {
      fs.rmSync(report, { force: true });
    }
  });

  test('a run that grows past its memory ceiling is stopped and recorded over_memory; the owner is told', async () => {
    const report = path.join(os.tmpdir(), `perch-mem-${crypto.randomUUID()}.json`);
    try {
      const a = await wakeable('grower', [
        '--memory-mb',
        '128',
        '--env',
        'WAKE_MEMORY_MODE=grow',
        '--env',
        'WAKE_MEMORY_MB=400',
        '--env',
        `WAKE_MEMORY_REPORT=${report}`,
        '--',
        process.execPath,
        MEMORY_SCRIPT,
      ]);
      assert.equal((await ownerOk(served, 'wake.get', { agent: a.name })).wake.action.memory_ceiling_mb, 128);
      await mention(a);
      await eventually(async () => (await runsOf(a.name)).some((r) => r.status !== 'running'), 20_000, 'the run to be stopped');
      const [run] = (await runsOf(a.name)).reverse();
      await off(a);
      assert.equal(run.status, 'over_memory', `run: ${JSON.stringify(run)}`);
      assert.match(run.error, /memory ceiling of 128 MB/);
      const { containment } = (await ownerOk(served, 'wake.limits.get')).limits;
      if (containment.memory === 'kernel') {
        // Its cgroup holds it to the ceiling: the kernel stops it there (SIGKILL), before any sample could see it over.
        assert.equal(run.signal, 'SIGKILL', 'the kernel stopped it at its ceiling');
        assert.match(run.error, /the kernel stopped it/);
        assert.ok(run.peak_rss_bytes > 32 * MiB, 'its peak is recorded');
      } else {
        assert.equal(run.signal, 'SIGTERM', 'stopped like a timeout: SIGTERM first');
        assert.ok(run.peak_rss_bytes > 128 * MiB, 'its peak is recorded');
      }
      const held = JSON.parse(fs.readFileSync(report, 'utf8')) as { held_mb: number; pid: number };
      assert.ok(held.held_mb < 400, `it did not get to grow to 400 MB (held ${held.held_mb})`);
      assert.match(served.stderr(), new RegExp(`stopped ${a.name}'s wake run`), 'the owner is told');
    } finally {
      fs.rmSync(report, { force: true });
    }
  });

  test('bad limits are refused with a clear error and change nothing', async () => {
    await ownerOk(served, 'wake.limits.set', { at_once: 3, min_free_mb: 0 });
    for (const input of [{ at_once: 0 }, { at_once: 1000 }, { at_once: 1.5 }, { min_free_mb: -1 }, { min_free_mb: 1e9 }, {}]) {
      const e = await ownerFail(served, 'wake.limits.set', input, 400);
      assert.equal(e.code, 'invalid_argument', JSON.stringify(input));
      assert.ok(!e.message.includes('\n'), 'one line');
    }
    const l = await limits();
    assert.equal(l.at_once, 3, 'the limit is unchanged');
    assert.equal(l.min_free_mb, 0);
    const a = await addAgent(served.dataDir, uniqueName('tiny'));
    const e = await ownerFail(served, 'wake.set', { agent: a.name, argv: ['true'], memory_ceiling_mb: 10 }, 400);
    assert.match(e.message, /memory_ceiling_mb must be a whole number of MB from 64/);
    assert.equal((await ownerOk(served, 'wake.get', { agent: a.name })).wake.action, null, 'no wake action was set');

    const bad = await cliAsync(['wake', 'limits', '--at-once', '0', '--data-dir', served.dataDir]);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /at_once must be a whole number of runs from 1 to 64/);
    const ok = await cliAsync(['wake', 'limits', '--at-once', '2', '--data-dir', served.dataDir, '--json']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(JSON.parse(ok.stdout).limits.at_once, 2);
    assert.equal((await limits()).at_once, 2, 'the CLI set it on the running hub');
  });

  test('the machine floor: below it no new run starts, they queue and the reason is given', async () => {
    const machine = (await limits()).machine;
    await ownerOk(served, 'wake.limits.set', { at_once: 4, min_free_mb: machine.total_mb - 1 });
    const a = await wakeable('floored', ['--shell', 'sleep 30']);
    await mention(a);
    await eventually(async () => (await limits()).queued.length === 1, 10_000, 'the run to queue');
    const l = await limits();
    assert.equal(l.running.length, 0, 'nothing started');
    assert.match(l.blocked, /below the floor of/);
    await ownerOk(served, 'wake.limits.set', { min_free_mb: 0 });
    await eventually(
      async () => (await limits()).running.some((r: any) => r.agent.id === a.id),
      5_000,
      'the run to start once the floor is lowered',
    );
    await off(a);
  });
});
