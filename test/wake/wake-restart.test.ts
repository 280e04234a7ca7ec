// Wake runs across a hub killed with SIGKILL, against a real `perch serve` and real processes: with a limit of 2 runs
// at once and six agents woken together, the hub is killed while two run and four wait, then started again on the same
// data dir. What runs is counted from the OS, not from the hub's list: every process whose environment names one of the
// six agents' runs (PERCH_AGENT, PERCH_RUN_ID in /proc/<pid>/environ), read every few milliseconds throughout. Never more
// than two runs alive, never two runs of one agent, and every queued wake runs after the restart (each agent's run
// reads, replies and confirms), and no cgroup folder of a run or of the first hub is left. Then the same after a clean
// stop (SIGTERM): the queue survives it too. And, held by the process group only, a run whose first process exits after
// the hub was killed: the next hub ends the 40 processes it left (in its group and out of it) before the agent runs again.
import { test } from 'node:test';
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
  ownerOk,
  removeDataDir,
  startServe,
  tempDataDir,
  uniqueName,
  type Served,
} from '../support/serve-harness';
import { hubFoldersOf, processesOfRun as processesOf, runFoldersOf } from '../support/wake-cgroups';

const AGENT_SCRIPT = path.join(ROOT, 'test', 'fixtures', 'wake-agent.mjs');
const TIMINGS = { PERCH_WAKE_BACKOFF_MS: '60000', PERCH_WAKE_KILL_GRACE_MS: '300', PERCH_WAKE_EXIT_GRACE_MS: '500' };

/** The runs of the given agents alive now, from /proc: run id → agent (zombies are not alive). */
function runsAlive(agents: Set<string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let env: string;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'latin1');
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') continue;
      env = fs.readFileSync(`/proc/${name}/environ`, 'latin1');
    } catch {
      continue; // ended meanwhile, or not ours to read
    }
    const vars = env.split('\0');
    const agent = vars.find((v) => v.startsWith('PERCH_AGENT='))?.slice(12);
    const run = vars.find((v) => v.startsWith('PERCH_RUN_ID='))?.slice(13);
    if (agent && run && agents.has(agent)) out.set(run, agent);
  }
  return out;
}

/** Watches the OS for the whole test: the most runs alive at once, and any agent seen with two runs alive at once. */
function watchOs(agents: Set<string>): { stop(): void; maxAlive: number; twice: string[]; seen: Set<string> } {
  const w = { maxAlive: 0, twice: [] as string[], seen: new Set<string>(), stop: () => clearInterval(timer) };
  const timer = setInterval(() => {
    const alive = runsAlive(agents);
    w.maxAlive = Math.max(w.maxAlive, alive.size);
    const per = new Map<string, number>();
    for (const [run, agent] of alive) {
      w.seen.add(run);
      per.set(agent, (per.get(agent) ?? 0) + 1);
    }
    for (const [agent, n] of per) if (n > 1) w.twice.push(agent);
  }, 15);
  return w;
}

async function sixQueuedBehindTwo(
  dir: string,
  served: Served,
  marks: string,
): Promise<{ six: Array<{ id: string; name: string; conv: string }> }> {
  await ownerOk(served, 'wake.limits.set', { at_once: 2 });
  // Each run marks its start, sleeps (the hub is stopped meanwhile), then reads, replies and confirms.
  const shell = `echo "start $PERCH_AGENT $PERCH_RUN_ID" >> '${marks}'; sleep 3; '${process.execPath}' '${AGENT_SCRIPT}' && echo "done $PERCH_AGENT $PERCH_RUN_ID" >> '${marks}'`;
  const six: Array<{ id: string; name: string; conv: string }> = [];
  for (let i = 0; i < 6; i++) {
    const a = await addAgent(dir, uniqueName('restart'));
    const r = await cliAsync(['agent', 'wake', a.name, '--data-dir', dir, '--json', '--shell', shell]);
    assert.equal(r.code, 0, r.stderr);
    const g = await ownerOk(served, 'conversations.create_group', { title: `with ${a.name}`, members: [a.id] });
    six.push({ id: a.id, name: a.name, conv: g.conversation.conv_id });
  }
  for (const a of six) await ownerOk(served, 'messages.send', { conv_id: a.conv, text: 'please answer', to: [a.id] });
  await eventually(
    async () => {
      const l = (await ownerOk(served, 'wake.limits.get')).limits;
      if (l.running.length !== 2 || l.queued.length !== 4) return false;
      // Both runs' processes are recorded (pid and where they live), as they are a moment after they start.
      const runs = await Promise.all(
        l.running.map(async (r: any) => (await ownerOk(served, 'wake.runs', { agent: r.agent.name })).runs[0]),
      );
      return runs.every((r: any) => r?.pid > 0);
    },
    20_000,
    'two runs alive and four queued',
  );
  return { six };
}

/** Every agent's wake answered: a run of it that read, replied and confirmed (its done mark). */
async function allAnswered(served: Served, six: Array<{ name: string }>, marks: string): Promise<void> {
  await eventually(
    () => {
      const done = new Set(
        fs
          .readFileSync(marks, 'utf8')
          .split('\n')
          .filter((l) => l.startsWith('done '))
          .map((l) => l.split(' ')[1]),
      );
      return six.every((a) => done.has(a.name));
    },
    120_000,
    'every one of the six wakes to be answered after the restart',
  );
  await eventually(async () => (await ownerOk(served, 'wake.limits.get')).limits.running.length === 0, 20_000, 'the runs to end');
}

const CASES = [
  { how: 'SIGKILL', env: TIMINGS, held: 'each run in its cgroup where the machine allows' },
  { how: 'SIGKILL', env: { ...TIMINGS, PERCH_WAKE_CGROUP: 'off' }, held: 'runs held by their process group only' },
  { how: 'SIGTERM', env: TIMINGS, held: 'each run in its cgroup where the machine allows' },
] as const;

for (const { how, env, held } of CASES) {
  test(`a hub stopped with ${how} while two runs live and four wait (${held}): after the restart never more than two runs alive (counted from the OS), one per agent, and every queued wake runs`, async () => {
    const dir = tempDataDir();
    const marks = path.join(os.tmpdir(), `perch-restart-marks-${crypto.randomUUID()}`);
    fs.writeFileSync(marks, '');
    let served = await startServe(dir, { env });
    let watch: ReturnType<typeof watchOs> | undefined;
    try {
      const { six } = await sixQueuedBehindTwo(dir, served, marks);
      watch = watchOs(new Set(six.map((a) => a.name)));
      const firstHub = served.proc.pid!;
      if (how === 'SIGKILL') await served.kill();
      else assert.equal(await served.stop(), 0);
      served = await startServe(dir, { env });
      await allAnswered(served, six, marks);
      watch.stop();
      assert.ok(watch.seen.size >= 6, `the OS showed the runs (${watch.seen.size} seen)`);
      assert.ok(watch.maxAlive <= 2, `at most two runs alive at once, from /proc: saw ${watch.maxAlive}`);
      assert.deepEqual([...new Set(watch.twice)], [], 'no agent had two runs alive at once');
      // From the OS too: no run's cgroup is left, nor the folders of the hub that was stopped or killed.
      await eventually(() => runFoldersOf([...watch!.seen]).length === 0, 10_000, "every run's cgroup to be removed");
      assert.deepEqual(hubFoldersOf(firstHub), [], "the first hub's cgroup folders are gone");
      for (const a of six) await ownerOk(served, 'wake.set', { agent: a.name, off: true });
    } finally {
      watch?.stop();
      await served.stop();
      fs.rmSync(marks, { force: true });
      removeDataDir(dir);
    }
  });
}

test(
  'runs held by their process group only: a run whose first process exits after the hub was killed with SIGKILL leaves 40 processes (in its group and out of it); the next hub ends every one and starts the agent again only then',
  { skip: process.platform !== 'linux' && 'reads /proc' },
  async () => {
    const dir = tempDataDir();
    const env = { ...TIMINGS, PERCH_WAKE_CGROUP: 'off' };
    const first = path.join(os.tmpdir(), `perch-restart-first-${crypto.randomUUID()}`);
    let served = await startServe(dir, { env });
    let watch: ReturnType<typeof watchOs> | undefined;
    let runId = '';
    try {
      const a = await addAgent(dir, uniqueName('group-left'));
      // The first run starts 30 processes in its group and 10 in sessions of their own, then its shell exits 3 s later
      // (the hub is killed by then); the runs after it answer at once.
      const shell = `[ -e '${first}' ] && exec '${process.execPath}' '${AGENT_SCRIPT}'; touch '${first}'; i=0; while [ $i -lt 10 ]; do sleep 300 & sleep 300 & sleep 300 & setsid sleep 300 & i=$((i+1)); done; sleep 3`;
      const r = await cliAsync(['agent', 'wake', a.name, '--data-dir', dir, '--shell', shell]);
      assert.equal(r.code, 0, r.stderr);
      const g = await ownerOk(served, 'conversations.create_group', { title: 'x', members: [a.id] });
      await ownerOk(served, 'messages.send', { conv_id: g.conversation.conv_id, text: 'please answer', to: [a.id] });
      await eventually(
        async () => {
          const [run] = (await ownerOk(served, 'wake.runs', { agent: a.name })).runs as any[];
          runId = run?.status === 'running' && run.pid ? run.id : '';
          return runId !== '' && processesOf(runId).length >= 41;
        },
        20_000,
        'the run and its 40 processes to be alive',
      );
      watch = watchOs(new Set([a.name]));
      await served.kill();
      await eventually(() => processesOf(runId).length === 40, 20_000, 'its first process to exit (the hub is gone)');
      served = await startServe(dir, { env });
      await eventually(() => processesOf(runId).length === 0, 20_000, `what the run left to be ended (${processesOf(runId).length} alive)`);
      await eventually(
        async () => {
          const runs = (await ownerOk(served, 'wake.runs', { agent: a.name })).runs as any[];
          return runs.length === 2 && runs[0].status === 'succeeded';
        },
        30_000,
        'the agent to run again and answer',
      );
      watch.stop();
      assert.deepEqual([...new Set(watch.twice)], [], 'the agent never had two runs alive at once');
      await ownerOk(served, 'wake.set', { agent: a.name, off: true });
    } finally {
      watch?.stop();
      await served.stop();
      for (const pid of runId ? processesOf(runId) : []) process.kill(pid, 'SIGKILL');
      fs.rmSync(first, { force: true });
      removeDataDir(dir);
    }
  },
);
