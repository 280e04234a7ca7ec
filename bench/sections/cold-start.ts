// The coldstart section: spawn → ready line of `perch serve --json`, each start beside a start of node itself (the
// floor: `node -e` printing one line), on an empty data dir and on the big store's; and where a start's milliseconds go:
// one more start under `node --cpu-prof`, its samples up to the ready line put in a few buckets.
import fs from 'node:fs';
import path from 'node:path';
import { r3, summarize } from '../client';
import { coldStart, startProcess, stopProcess, tmpRoot } from '../lib/processes';
import { COLD_STARTS, progress } from '../lib/settings';

/** One start of node itself printing a line, as perch serve --json does when ready: ms from spawn to that line. */
async function nodeStart(): Promise<number> {
  const t0 = performance.now();
  const { child } = await startProcess('node floor', ['-e', 'console.log("{}"); setTimeout(() => {}, 60000)']);
  const ms = performance.now() - t0;
  await stopProcess(child);
  return ms;
}

export interface ColdStarts {
  node_floor: ReturnType<typeof summarize>;
  perch: ReturnType<typeof summarize>;
  /** perch's p50 / node's p50, the starts taken in turns (node, perch, node, perch, …). */
  vs_node: number;
  /** Spawn → the answer to a request sent the moment the ready line came (it waits for the hub if it is still loading). */
  first_answer: ReturnType<typeof summarize>;
}

/**
 * COLD_STARTS starts of perch serve (makeDir(i): the data dir of start i), each right after a start of node itself;
 * with the bench's own code cache (written by one uncounted start first) unless env says otherwise.
 */
export async function coldStarts(
  label: string,
  makeDir: (i: number) => string,
  env: Record<string, string>,
  warm = true,
): Promise<ColdStarts> {
  if (warm)
    await coldStart(`cold start ${label} (writes the code cache)`, path.join(tmpRoot, `cold-warm-${label.replace(/\W+/g, '-')}`), env);
  const floor: number[] = [];
  const ms: number[] = [];
  const answered: number[] = [];
  for (let i = 0; i < COLD_STARTS; i++) {
    floor.push(await nodeStart());
    const start = await coldStart(`cold start ${label} #${i}`, makeDir(i), env);
    ms.push(start.readyMs);
    answered.push(start.answeredMs);
  }
  const node = summarize(floor);
  const perch = summarize(ms);
  const firstAnswer = summarize(answered);
  const vsNode = r3(perch.p50_ms / node.p50_ms);
  progress(
    `cold start, ${label}: p50 ${perch.p50_ms} ms (${ms.map((x) => x.toFixed(1)).join(', ')} ms); node itself p50 ${node.p50_ms} ms (${floor.map((x) => x.toFixed(1)).join(', ')} ms): ${vsNode}×; a request sent at the ready line answered after p50 ${firstAnswer.p50_ms} ms from the spawn`,
  );
  return { node_floor: node, perch, vs_node: vsNode, first_answer: firstAnswer };
}

/** Where a start's time goes, in ms of CPU samples of the main thread up to the ready line. */
export type StartProfile = Record<string, number> & { total_ms: number; before_profiler_ms: number };

/** The bucket of one sample, from its stack (innermost frame first). */
function bucketOfStack(frames: Array<{ functionName: string; url: string }>): string {
  const has = (re: RegExp, url?: RegExp) => frames.some((f) => re.test(f.functionName) && (!url || url.test(f.url)));
  // perch serve's bundle up to the ready line: dist/serve.js (cli/serve-main.ts; the hub, dist/serve-hub.js, loads after it).
  const bundle = /dist\/serve\.js/;
  const inBundle = frames.some((f) => bundle.test(f.url));
  const top = frames[0]?.functionName ?? '';
  if (top === '(idle)') return 'idle (waiting: I/O, the other thread)';
  if (top === '(garbage collector)') return 'garbage collection';
  if (has(/^loadCli$/, /bin\/perch\.js/) && !inBundle) {
    if (has(/^(readFileSync|readFileUtf8)$/)) return 'bin/perch.js: read the bundle';
    if (has(/^(Script|createCachedData|runInThisContext)$/)) return 'bin/perch.js: compile the bundle (code cache)';
    return 'bin/perch.js: other (cache key, paths)';
  }
  if (inBundle) {
    if (has(/^dlopen$/)) return "load better-sqlite3's addon";
    if (has(/^openDatabase$/, bundle)) return 'open the database, its schema';
    if (has(/^holdPort$/, bundle)) return 'bind the port (node:net, its cluster check)';
    if (has(/^serveReadyFirst$/, bundle)) return 'the login token, runtime.json, the ready line';
    if (has(/^main$/, bundle)) return 'read the options';
    return 'evaluate the bundle (module top levels, node:util, node:os)';
  }
  return "node's own start (bootstrap, built-in modules)";
}

/** One start of perch serve on dataDir under node --cpu-prof, stopped at its ready line; its samples until then, bucketed. */
export async function profiledStart(label: string, dataDir: string, env: Record<string, string>): Promise<StartProfile> {
  const dir = path.join(tmpRoot, `cold-prof-${label.replace(/\W+/g, '-')}`);
  fs.mkdirSync(dir, { recursive: true });
  const wallStart = Date.now();
  const t0 = performance.now();
  const { child } = await startProcess(
    `cold start ${label} (profiled)`,
    [
      '--cpu-prof',
      `--cpu-prof-dir=${dir}`,
      'bin/perch.js',
      'serve',
      '--data-dir',
      dataDir,
      '--port',
      '0',
      '--json',
      '--rate',
      '0',
      '--backups',
      '0',
    ],
    60_000,
    env,
  );
  const readyAfterMs = performance.now() - t0;
  // The same clock as the profile's timestamps (V8's and libuv's monotonic clock, µs).
  const readyAt = process.hrtime.bigint() / 1000n;
  await stopProcess(child);
  // The main thread's profile (a worker thread writes its own, later in sequence).
  const file = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort()[0];
  if (!file) throw new Error(`cold start ${label}: no CPU profile written`);
  const prof = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  const byId = new Map<number, any>(prof.nodes.map((n: any) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const bucketOf = new Map<number, string>();
  const classify = (id: number): string => {
    let known = bucketOf.get(id);
    if (!known) {
      const frames: Array<{ functionName: string; url: string }> = [];
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const f = byId.get(at).callFrame;
        frames.push({ functionName: f.functionName, url: f.url ?? '' });
      }
      known = bucketOfStack(frames);
      bucketOf.set(id, known);
    }
    return known;
  };
  // Samples up to the ready line, by the profile's own timestamps: the profiler starts well after the spawn (node's
  // start before it is not sampled: the process's creation, loading node, V8's set-up), and the samples after the ready
  // line (the hub stopping) are not counted.
  const sums: Record<string, number> = {};
  let t = Number(prof.startTime);
  for (let i = 0; i < prof.samples.length; i++) {
    t += prof.timeDeltas[i] ?? 0;
    if (t > Number(readyAt)) break;
    const b = classify(prof.samples[i]);
    sums[b] = (sums[b] ?? 0) + (prof.timeDeltas[i] ?? 0) / 1000;
  }
  const profile = Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, r3(v)])) as StartProfile;
  profile.total_ms = r3(readyAfterMs);
  // From the spawn to the profiler's start: node's own start that no sample shows.
  profile.before_profiler_ms = r3(readyAfterMs - (Number(readyAt) - Number(prof.startTime)) / 1000);
  progress(
    `cold start, ${label}, profiled (${new Date(wallStart).toISOString().slice(11, 19)}): ready after ${profile.total_ms} ms (${profile.before_profiler_ms} ms before the profiler started): ${Object.entries(
      profile,
    )
      .filter(([k]) => k !== 'total_ms' && k !== 'before_profiler_ms')
      .sort(([, a], [, b]) => b - a)
      .map(([k, v]) => `${k} ${v.toFixed(1)}`)
      .join(', ')} ms`,
  );
  return profile;
}
