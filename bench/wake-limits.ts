// The wake-limits section of `npm run bench` (bench/run.ts, --only wakelimits): a hub whose 50 agents each have a
// wake command (sleep 0.3 s), a limit of 4 runs at once, and one owner message naming all 50. Figures:
// - from a slot freeing to the next process started: the hub's own records (ended_at of a run, running_at of the next
//   queued one, the same clock); the i-th run end after the queue formed frees the slot of the i-th queued start;
// - the most runs alive at once (must be 4);
// - the hub's CPU (user + system, /proc) while 4 runs live and are sampled every 2 s (the default), over 8 s, beside
//   the same hub idle over 8 s.
import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { ownerCaller, r3, sleep, summarize } from './client';

export interface WakeLimitsBenchDeps {
  tmpRoot: string;
  startHub: (
    name: string,
    dataDir: string,
    extraArgs?: string[],
    env?: Record<string, string>,
  ) => Promise<{ port: number; child: ChildProcess; ownerToken: string }>;
  stopProcess: (child: ChildProcess) => Promise<void>;
  progress: (line: string) => void;
  checkDeadline: (what: string) => void;
  /** Agents woken at once (default 50), and each CPU reading's window (default 8 s); --smoke takes fewer. */
  agents?: number;
  windowMs?: number;
}

const AT_ONCE = 4;

function cpuSecsOf(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export async function wakeLimitsPhase(d: WakeLimitsBenchDeps) {
  const AGENTS = d.agents ?? 50;
  const dir = path.join(d.tmpRoot, 'hub-wakelimits');
  // No re-runs during the bench: the runs never confirm what woke them (they only sleep).
  const hub = await d.startHub('WL', dir, [], { PERCH_BRAKES: 'off', PERCH_WAKE_BACKOFF_MS: '600000' });
  const owner = ownerCaller(hub);
  try {
    const ids: string[] = [];
    for (let i = 0; i < AGENTS; i++) {
      const a = await owner('agents.add', { name: `sleeper-${i}` });
      ids.push(a.agent?.id ?? a.id);
      await owner('wake.set', { agent: `sleeper-${i}`, argv: ['sleep', '0.3'], max_runs_per_hour: 600 });
    }
    await owner('wake.limits.set', { at_once: AT_ONCE });
    const conv = (await owner('conversations.create_group', { title: 'wake limits bench', members: ids })).conversation.conv_id;
    await owner('messages.send', { conv_id: conv, text: 'everyone, please', to: ids });
    let maxAlive = 0;
    let runs: any[] = [];
    const deadline = Date.now() + 120_000;
    for (;;) {
      d.checkDeadline('wake limits: 50 runs');
      const l = (await owner('wake.limits.get', {})).limits;
      maxAlive = Math.max(maxAlive, l.running.length);
      runs = (await owner('wake.runs', { limit: 500 })).runs;
      if (runs.length >= AGENTS && runs.every((r) => r.status !== 'running') && l.queued.length === 0) break;
      if (Date.now() > deadline) throw new Error(`only ${runs.length} of ${AGENTS} wake runs ended within 120 s`);
      await sleep(50);
    }
    const byStart = [...runs].sort((a, b) => a.started_at - b.started_at);
    const queued = byStart.slice(AT_ONCE); // each started when a slot freed
    const ends = runs.map((r) => r.ended_at as number).sort((a, b) => a - b);
    const gaps = queued.map((r, i) => r.running_at - ends[i]!).filter((g) => Number.isFinite(g));
    const slotToStart = summarize(gaps);
    d.progress(
      `wake limits: ${runs.length} runs, at most ${maxAlive} alive; slot freed → next process running p50 ${slotToStart.p50_ms} ms, p99 ${slotToStart.p99_ms} ms`,
    );

    // The hub's CPU: idle, then with 4 runs alive and sampled.
    const pid = hub.child.pid!;
    const window = d.windowMs ?? 8_000;
    let c0 = cpuSecsOf(pid);
    await sleep(window);
    const idlePct = ((cpuSecsOf(pid) - c0) / (window / 1000)) * 100;
    for (let i = 0; i < AT_ONCE; i++) {
      await owner('wake.stop', { agent: `sleeper-${i}` }); // drops the re-run planned (the runs never confirmed)
      await owner('wake.set', { agent: `sleeper-${i}`, argv: ['sleep', '30'], max_runs_per_hour: 600 });
    }
    await owner('messages.send', { conv_id: conv, text: 'the first four, again', to: ids.slice(0, AT_ONCE) });
    const until = Date.now() + 20_000;
    while ((await owner('wake.limits.get', {})).limits.running.length < AT_ONCE) {
      if (Date.now() > until) throw new Error('4 runs did not start');
      await sleep(50);
    }
    c0 = cpuSecsOf(pid);
    await sleep(window);
    const sampledPct = ((cpuSecsOf(pid) - c0) / (window / 1000)) * 100;
    for (let i = 0; i < AT_ONCE; i++) await owner('wake.stop', { agent: `sleeper-${i}` });
    d.progress(`wake limits: hub CPU idle ${r3(idlePct)}%, with ${AT_ONCE} runs sampled ${r3(sampledPct)}%`);
    return {
      agents: AGENTS,
      at_once: AT_ONCE,
      runs: runs.length,
      max_alive: maxAlive,
      slot_to_start: slotToStart,
      hub_cpu_pct_idle: r3(idlePct),
      hub_cpu_pct_4_sampled: r3(sampledPct),
    };
  } finally {
    await d.stopProcess(hub.child);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
