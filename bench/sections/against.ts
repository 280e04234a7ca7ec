// --against DIR: send_message on this checkout's build and another's, in alternating rounds.
import fs from 'node:fs';
import path from 'node:path';
import { r3 } from '../client';
import { tmpRoot, stopProcess, seed, BRAKES_OFF, startHub } from '../lib/processes';
import { ROOT, ROUNDS, checkDeadline } from '../lib/settings';
import { throughputPhase } from './throughput';

/**
 * --against DIR: send_message alone (the throughput section's load, brakes off) on this checkout's build and DIR's,
 * alternating which goes first each round, each run on a fresh data dir seeded by its own checkout. Each round is a
 * same-run pair: the ratio this / DIR of its calls/s and of its hub CPU per call; the medians of both sides and of
 * the rounds' ratios are the answer.
 */
export async function againstPhase(other: string) {
  const sides = { this: ROOT, other } as const;
  type Side = keyof typeof sides;
  const runs: Record<Side, Array<{ calls_per_s: number; cpu_us_per_call: number }>> = { this: [], other: [] };
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return r3(s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2);
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of (round % 2 ? ['other', 'this'] : ['this', 'other']) as Side[]) {
      checkDeadline(`round ${round + 1} (${side})`);
      const dir = path.join(tmpRoot, `against-${round}-${side}`);
      const fixture = await seed(dir, ['--agents', '16'], 60_000, sides[side]);
      const hub = await startHub(`${side} #${round + 1}`, dir, [], BRAKES_OFF, sides[side]);
      const t = await throughputPhase(hub, fixture.agents);
      await stopProcess(hub.child);
      fs.rmSync(dir, { recursive: true, force: true });
      runs[side].push({ calls_per_s: Math.round(t.send.rps), cpu_us_per_call: t.cpuUsPerCall });
    }
  }
  const ratios = runs.this.map((r, i) => ({
    calls_per_s: r3(r.calls_per_s / runs.other[i]!.calls_per_s),
    cpu_us_per_call: r3(r.cpu_us_per_call / runs.other[i]!.cpu_us_per_call),
  }));
  const side = (s: Side) => ({
    runs: runs[s],
    median_calls_per_s: median(runs[s].map((r) => r.calls_per_s)),
    median_cpu_us_per_call: median(runs[s].map((r) => r.cpu_us_per_call)),
  });
  return {
    this: { dir: ROOT, ...side('this') },
    other: { dir: other, ...side('other') },
    rounds: ROUNDS,
    round_ratios: ratios,
    median_ratio_calls_per_s: median(ratios.map((r) => r.calls_per_s)),
    median_ratio_cpu_us_per_call: median(ratios.map((r) => r.cpu_us_per_call)),
  };
}
