// `npm run bench`: Perch against this machine's floor and against the MCP SDK's own server, side
// by side in one run (docs/design.md, "Performance budgets").
//
//   npm run bench                 prints a table
//   npm run bench -- --json       prints one JSON object with every figure (the table goes to stderr)
//   npm run bench -- --save       also writes bench/results/<date>.json
//   options: --quick (short runs, 100k-message store, for development), --smoke (every section, export too, at
//            the smallest sizes: checks the bench runs through, figures meaningless; npm test runs it), --messages N,
//            --duration S, --warmup S, --cpu-prof DIR (profile the hubs with node --cpu-prof),
//            --fleet N (agents waiting in the fleet section, default 500), --starts N (cold starts per store),
//            --only throughput,wake,owner,durability,fleet,store,coldstart,brakes,wakerun,wakelimits,channel,support,otlp,ledger,rules
//            (the default) or a subset, or send (send_message alone); wakerun: wake runs (Perch starts an agent's program) —
//            from the waking event's commit to the process running, and to the run's first tool call;
//            wakelimits: 50 agents woken at once under a limit of 4 runs (bench/wake-limits.ts): from a slot freeing
//            to the next process running, and the hub's CPU while 4 runs are sampled;
//            channel: `perch channel` on stdio, from a message's commit to its notifications/claude/channel line
//            support: what `perch hook` costs a harness, beside the hub's hook door (bench/support.ts)
//            otlp: harness telemetry records kept per second at /v1/logs, with send_message's p99 beside it
//            ledger: the flight recorder at size (1M recorded tool calls): the Ledger page's owner actions and its
//            first paint in Chromium (bench/sections/ledger-page.ts); --ledger-dir DIR takes a data dir
//            bench/seed-ledger.ts seeded before (copied) instead of seeding 1M calls again
//            rules: standing rules' parse + match per prompt, and a scripted week's share of prompts that needed the
//            owner (in-process, no hub: bench/sections/rules.ts)
//            export (not in the default): perch export of the 1M-message store while an agent sends: the
//            export's peak RSS and the sends' latency
//            --against DIR [--rounds N]: instead of the sections, send_message alone on this checkout's build and on
//            DIR's (another checkout, built: e.g. a git worktree of an older commit), one after the other in
//            alternating order (this, DIR; DIR, this; …), N rounds (default 4), each run on a fresh data dir
//            seeded by its own checkout: the per-run figures, their medians and the ratios this / DIR
// send_message's figures include the hub's CPU time per call (cpu_us_per_call: the hub process's user + system time
// over the load, /proc, divided by the calls it answered): it moves less than calls/s when other processes load the
// machine, but it does move (a starved hub answers fewer calls for its fixed work, and shares caches), so compare
// builds on a quiet machine, or by instructions counted (docs/design.md, "Performance budgets").
//
// Processes: this one (orchestrator and latency probes), a load generator (autocannon, bench/load.mjs),
// the raw node:http echo (bench/echo-raw.mjs), the SDK stateless echo (bench/echo-sdk.mjs), and real
// `perch serve` hubs: A (throughput, waking, owner stream, memory), F (send_message with
// --durability full, on its own data dir, right after A's), S (a fleet of 500 agents waiting in
// get_updates: memory, idle CPU, waking), E (empty store), M (a store seeded with 1,000,000 messages
// over 1,000 conversations by bench/seed.ts before the hub starts), and short-lived hubs for cold
// starts (spawn → ready line) on an empty data dir and on M's.
// Brakes (src/main/hub/control/brakes.ts): the loads of A, F, S, E and M repeat the same texts and trade turns
// between agents with no person, which the brakes stop by design; those hubs run with PERCH_BRAKES=off
// (a switch for benchmarks only). The brakes section measures what the brakes cost: send_message on two
// hubs seeded alike, brakes off and on, side by side (off, on, on, off), with a load that the brakes
// check on every send but never stop (one conversation per agent, every text different, the agents'
// budget set by the owner to the highest allowed).
// Every loop is bounded in count and time; every child is killed on exit.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { channelPhase } from './channel';
import { r3 } from './client';
import { exportPhase } from './export-phase';
import { type LoadResult } from './lib/load';
import { children, tmpRoot, startProcess, runProcess, stopProcess, seed, startHub, hubInfo, memoryOf } from './lib/processes';
import { targets, table } from './lib/report';
import {
  ROOT,
  DURATION,
  WARMUP,
  CONNECTIONS,
  BIG_MESSAGES,
  BIG_CONVERSATIONS,
  WAKES,
  WAITERS,
  OWNER_SAMPLES,
  QUERY_SAMPLES,
  FLEET,
  COLD_STARTS,
  HOOK_RUNS,
  WAKE_LIMIT_AGENTS,
  WAKE_LIMIT_WINDOW_MS,
  SMOKE,
  ONLY,
  CHANNEL_PUSHES,
  AGAINST,
  opt,
  started,
  progress,
  checkDeadline,
} from './lib/settings';
import { againstPhase } from './sections/against';
import { coldStarts, profiledStart } from './sections/cold-start';
import { brakesPhase } from './sections/brakes';
import { rulesPhase } from './sections/rules';
import { ownerPhase } from './sections/owner-control';
import { type QueryFigures, queryPhase } from './sections/store-queries';
import { throughputPhase } from './sections/throughput';
import { wakeRunPhase } from './sections/wake-run';
import { wakePhase } from './sections/wake';
import { otlpPhase } from './sections/otlp-ingest';
import { ledgerPagePhase } from './sections/ledger-page';
import { addBenchAgent, supportAgents, supportPhase } from './support';
import { wakeLimitsPhase } from './wake-limits';

// ---- main --------------------------------------------------------------------------------------

async function main() {
  const sqliteVersion = (() => {
    const db = new Database(':memory:');
    try {
      return (db.prepare('select sqlite_version() as v').get() as { v: string }).v;
    } finally {
      db.close();
    }
  })();
  const machine = {
    loadavg_at_start: os.loadavg().map(r3),
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model ?? '',
    node: process.version,
    sqlite: sqliteVersion,
    platform: `${os.platform()} ${os.release()}`,
    total_mem_mb: Math.round(os.totalmem() / 2 ** 20),
  };
  progress(
    `machine: ${machine.cpus} cpus (${machine.cpu_model}), node ${machine.node}, SQLite ${machine.sqlite}; runs of ${WARMUP}+${DURATION} s, ${CONNECTIONS} connections`,
  );

  const result: any = {
    date: new Date().toISOString(),
    machine,
    settings: {
      connections: CONNECTIONS,
      warmup_s: WARMUP,
      duration_s: DURATION,
      wakes: WAKES,
      waiters: WAITERS,
      owner_samples: OWNER_SAMPLES,
      query_samples: QUERY_SAMPLES,
      big_messages: BIG_MESSAGES,
      big_conversations: BIG_CONVERSATIONS,
      fleet: FLEET,
      cold_starts: COLD_STARTS,
      smoke: SMOKE,
      sections: [...ONLY],
    },
  };

  const pick = (r: LoadResult) => ({
    calls_per_s: Math.round(r.rps),
    p50_ms: r3(r.p50_ms),
    p90_ms: r3(r.p90_ms),
    p99_ms: r3(r.p99_ms),
    mean_ms: r3(r.mean_ms),
    non2xx: r.non2xx,
    errors: r.errors,
  });

  if (AGAINST) {
    result.against = await againstPhase(AGAINST);
    result.machine.loadavg_at_end = os.loadavg().map(r3);
    result.bench_s = r3((Date.now() - started) / 1000);
    return result;
  }

  // Hub A and both baselines run side by side.
  if (ONLY.has('throughput') || ONLY.has('send') || ONLY.has('wake') || ONLY.has('owner') || ONLY.has('durability')) {
    const dirA = path.join(tmpRoot, 'hub-a');
    const fixtureA = await seed(dirA, ['--agents', String(32 + 1 + WAITERS)], 60_000);
    const agents = fixtureA.agents;
    const [raw, sdk, hubA] = await Promise.all([
      startProcess('raw echo', ['bench/echo-raw.mjs']),
      startProcess('sdk echo', ['bench/echo-sdk.mjs']),
      startHub('A', dirA),
    ]);
    progress(`started: raw echo :${raw.ready.port}, SDK echo :${sdk.ready.port}, perch serve :${hubA.port} (pid ${hubA.child.pid})`);
    if (ONLY.has('throughput') || ONLY.has('send') || ONLY.has('durability')) {
      // `--only send` (or durability alone) runs the send_message load alone (e.g. to profile it with --cpu-prof).
      const t = await throughputPhase(
        hubA,
        agents,
        ONLY.has('throughput') ? { rawPort: raw.ready.port, sdkPort: sdk.ready.port } : undefined,
      );
      result.send_message = {
        ...pick(t.send),
        cpu_us_per_call: t.cpuUsPerCall,
        committed: t.committed,
        answered: t.acknowledged,
        durability: (await hubInfo(hubA)).durability.mode,
      };
      if (t.raw && t.sdk && t.upd) {
        result.raw_http = pick(t.raw);
        result.sdk_echo = pick(t.sdk);
        result.get_updates = pick(t.upd);
        result.send_vs_sdk_echo = r3(t.send.rps / t.sdk.rps);
        result.send_vs_raw_http = r3(t.send.rps / t.raw.rps);
        result.get_updates_vs_raw_http = r3(t.upd.rps / t.raw.rps);
      }
    }
    await Promise.all([stopProcess(raw.child), stopProcess(sdk.child)]);
    if (ONLY.has('durability')) {
      // F: the same send_message load right after A's, on a hub started the same way on its own
      // data dir (the same seeding), with --durability full: every commit is fsynced.
      checkDeadline('durability full');
      const dirF = path.join(tmpRoot, 'hub-full');
      const fixtureF = await seed(dirF, ['--agents', '16'], 60_000);
      const hubF = await startHub('F', dirF, ['--durability', 'full']);
      const info = await hubInfo(hubF);
      if (info.durability.mode !== 'full' || info.durability.synchronous !== 2)
        throw new Error(`hub F runs ${JSON.stringify(info.durability)}, not full`);
      const t = await throughputPhase(hubF, fixtureF.agents);
      await stopProcess(hubF.child);
      fs.rmSync(dirF, { recursive: true, force: true });
      result.send_message_full = {
        ...pick(t.send),
        cpu_us_per_call: t.cpuUsPerCall,
        committed: t.committed,
        answered: t.acknowledged,
        durability: 'full',
      };
      result.send_full_vs_normal = r3(t.send.rps / (result.send_message.calls_per_s || NaN));
    }
    if (ONLY.has('wake')) {
      const sender = agents[32]!;
      const waiters = agents.slice(33, 33 + WAITERS);
      const w = await wakePhase('wake', hubA, sender, waiters, WAKES);
      result.wake_p50_ms = w.wake.p50_ms;
      result.wake_p99_ms = w.wake.p99_ms;
      result.wake = { ...w.wake, not_woken: w.notWoken, lost: w.lost, sender_send_message: w.send };
      result.rss_mb_50_waiting = w.mem.rss_mb;
      result.peak_rss_mb = w.mem.peak_rss_mb;
      result.idle_cpu_pct_50_waiting = w.idleCpuPct;
    }
    if (ONLY.has('owner')) {
      const o = await ownerPhase(hubA, agents[32]!, agents[33]!);
      result.owner_p50_ms = o.owner.p50_ms;
      result.owner_p99_ms = o.owner.p99_ms;
      result.owner = { ...o.owner, lost: o.lost };
      result.control_shown_max_ms = Math.max(o.control.cli_pause.max_ms, o.control.usage.max_ms);
      result.control = o.control;
    }
    await stopProcess(hubA.child);
  }

  if (ONLY.has('brakes')) {
    const b = await brakesPhase(pick);
    result.brakes = b;
    result.brakes_on_vs_off = b.on_vs_off;
  }

  if (ONLY.has('rules')) result.rules = await rulesPhase();

  if (ONLY.has('fleet')) {
    // S: a fresh hub with FLEET agents, all waiting in get_updates; the same probes as for 50.
    checkDeadline('fleet');
    const dirS = path.join(tmpRoot, 'hub-fleet');
    const fixtureS = await seed(dirS, ['--agents', String(FLEET + 1), '--prefix', 'f'], 120_000);
    const hubS = await startHub('S', dirS);
    const startRss = memoryOf(hubS.child.pid!).rss_mb;
    const w = await wakePhase('fleet', hubS, fixtureS.agents[0]!, fixtureS.agents.slice(1), Math.max(WAKES, FLEET));
    await stopProcess(hubS.child);
    fs.rmSync(dirS, { recursive: true, force: true });
    result.fleet = {
      agents: FLEET,
      waiting_at_idle: w.waitingAtIdle,
      wake: { ...w.wake, not_woken: w.notWoken, lost: w.lost, sender_send_message: w.send },
      rss_mb: w.mem.rss_mb,
      peak_rss_mb: w.mem.peak_rss_mb,
      rss_mb_at_start: startRss,
      idle_cpu_pct: w.idleCpuPct,
    };
    result.fleet_wake_p50_ms = w.wake.p50_ms;
    result.fleet_wake_p99_ms = w.wake.p99_ms;
    result.rss_mb_fleet_waiting = w.mem.rss_mb;
    result.idle_cpu_pct_fleet_waiting = w.idleCpuPct;
  }

  // bin/perch.js keeps a V8 code cache of the bundle (written by the first start after a build): the starts below use
  // one of the bench's own, made by an uncounted start first; the "no code cache" figure is a start right after a build.
  // Each start is taken right after a start of node itself (bench/sections/cold-start.ts): the ratio is of the same run.
  const codeCache = { PERCH_CODE_CACHE_DIR: path.join(tmpRoot, 'code-cache') };
  if (ONLY.has('coldstart')) {
    checkDeadline('cold starts');
    const empty = await coldStarts('empty data dir', (i) => path.join(tmpRoot, `cold-empty-${i}`), codeCache);
    const noCache = await coldStarts(
      'empty data dir, no code cache',
      (i) => path.join(tmpRoot, `cold-empty-nc-${i}`),
      { PERCH_CODE_CACHE: '0' },
      false,
    );
    result.cold_start = {
      starts: COLD_STARTS,
      node_floor: empty.node_floor,
      empty: empty.perch,
      empty_vs_node: empty.vs_node,
      empty_first_answer: empty.first_answer,
      empty_no_code_cache: noCache.perch,
      profile_empty: await profiledStart('empty data dir', path.join(tmpRoot, 'cold-empty-prof'), codeCache),
    };
    result.cold_start_empty_p50_ms = empty.perch.p50_ms;
    result.cold_start_empty_vs_node = empty.vs_node;
  }

  if (ONLY.has('store') || ONLY.has('coldstart') || ONLY.has('export')) {
    let empty: QueryFigures | undefined;
    if (ONLY.has('store')) {
      // E: the same fixture (50 agents, 1,000 groups), no messages. M: the same plus 1M messages.
      const dirE = path.join(tmpRoot, 'hub-empty');
      const fixE = await seed(dirE, ['--agents', '50', '--conversations', String(BIG_CONVERSATIONS), '--messages', '0'], 120_000);
      const hubE = await startHub('empty', dirE);
      empty = await queryPhase('empty store', hubE, fixE);
      await stopProcess(hubE.child);
      fs.rmSync(dirE, { recursive: true, force: true });
    }

    checkDeadline('seeding');
    const dirM = path.join(tmpRoot, 'hub-1m');
    progress(`seeding ${BIG_MESSAGES} messages over ${BIG_CONVERSATIONS} conversations …`);
    const fixM = await seed(
      dirM,
      ['--agents', '50', '--conversations', String(BIG_CONVERSATIONS), '--messages', String(BIG_MESSAGES)],
      1_200_000, // about a minute on a quiet machine; far more beside other work
    );
    const dbBytes = fs.statSync(path.join(dirM, 'perch.sqlite')).size;
    progress(`seeded in ${(fixM.ms / 1000).toFixed(1)} s, ${Math.round(dbBytes / 2 ** 20)} MB`);
    if (ONLY.has('coldstart')) {
      // Before any hub ran on it: the store as the seeder (a stopped hub) left it.
      const big = await coldStarts(`${BIG_MESSAGES / 1e6}M-message data dir`, () => dirM, codeCache);
      result.cold_start = {
        ...result.cold_start,
        store_1m: big.perch,
        store_1m_node_floor: big.node_floor,
        store_1m_vs_node: big.vs_node,
        store_1m_first_answer: big.first_answer,
        store_messages: BIG_MESSAGES,
        store_db_mb: Math.round(dbBytes / 2 ** 20),
        profile_1m: await profiledStart(`${BIG_MESSAGES / 1e6}M-message data dir`, dirM, codeCache),
      };
      result.cold_start_1m_p50_ms = big.perch.p50_ms;
      result.cold_start_1m_vs_node = big.vs_node;
    }
    if (empty) {
      const hubM = await startHub('1m', dirM);
      const big = await queryPhase(`${BIG_MESSAGES / 1e6}M store`, hubM, fixM);
      await stopProcess(hubM.child);
      result.store_empty = empty;
      result.store_1m = { ...big, seed_s: r3(fixM.ms / 1000), db_mb: Math.round(dbBytes / 2 ** 20) };
      result.store_ratio_p99 = Object.fromEntries(
        (['get_updates', 'get_history', 'search_conv', 'search_all'] as const).map((k) => [k, r3(big[k].p99_ms / empty![k].p99_ms)]),
      );
    }
    if (ONLY.has('export')) {
      // perch export of the same store while its hub serves and an agent sends (bench/export-phase.ts).
      checkDeadline('export');
      const hubX = await startHub('export', dirM);
      progress(`exporting the ${BIG_MESSAGES / 1e6}M-message store while an agent sends …`);
      result.export_1m = await exportPhase({
        root: ROOT,
        dataDir: dirM,
        port: hubX.port,
        key: fixM.agents[1]!.key,
        convId: fixM.hot ?? fixM.conversations[0]!,
        out: path.join(tmpRoot, 'export.tar.gz'),
        timeoutMs: 300_000,
        progress,
      });
      await stopProcess(hubX.child);
      result.export_rss_peak_mb = result.export_1m.rss_peak_mb;
      result.export_send_p99_ms = result.export_1m.sends_during.p99_ms;
    }
  }

  if (ONLY.has('wakerun')) {
    checkDeadline('wake runs');
    const w = await wakeRunPhase();
    result.wake_run = w;
    result.wake_run_to_running_p50_ms = w.to_running.p50_ms;
  }

  if (ONLY.has('wakelimits')) {
    checkDeadline('wake limits');
    const w = await wakeLimitsPhase({
      tmpRoot,
      startHub,
      stopProcess,
      progress,
      checkDeadline,
      agents: WAKE_LIMIT_AGENTS,
      windowMs: WAKE_LIMIT_WINDOW_MS,
    });
    result.wake_limits = w;
    result.wake_slot_to_start_p50_ms = w.slot_to_start.p50_ms;
  }

  if (ONLY.has('channel')) {
    checkDeadline('the channel');
    const c = await channelPhase({
      root: ROOT,
      tmpRoot,
      samples: CHANNEL_PUSHES,
      startHub,
      runProcess,
      stopProcess,
      progress,
      checkDeadline,
      track: (child) => void children.add(child),
    });
    result.channel = c;
    result.channel_push_p50_ms = c.from_commit.p50_ms;
  }

  if (ONLY.has('support')) {
    checkDeadline('harness hooks');
    const dir = path.join(tmpRoot, 'hub-support');
    const runs = HOOK_RUNS;
    const agents = Array.from({ length: supportAgents(runs) }, (_, i) => addBenchAgent(dir, `harness-${i}`));
    const hub = await startHub('support', dir);
    try {
      result.support = await supportPhase(
        hub.port,
        agents.map((a) => a.key),
        hub.ownerToken,
        runs,
        progress,
      );
      result.pre_tool_use_hook_p50_ms = result.support.pre_tool_use.p50_ms;
      result.permission_request_hook_p50_ms = result.support.permission_request_visible.p50_ms;
      result.hook_door_prompt_p50_ms = result.support.door_permission_request_visible.p50_ms;
      result.hook_door_pre_tool_use_p50_ms = result.support.door_pre_tool_use.p50_ms;
    } finally {
      await stopProcess(hub.child);
    }
  }

  if (ONLY.has('otlp')) {
    // The flight recorder's OTLP receiver: records kept per second, with send_message's p99 beside it (bench/sections/otlp-ingest.ts).
    const o = await otlpPhase();
    result.otlp = o;
    result.otlp_records_per_s = o.records_per_s;
    result.otlp_send_p99_ms = (o.paced as { send_p99_ms: number }).send_p99_ms;
  }

  if (ONLY.has('ledger')) {
    // The flight recorder at size: the Ledger page's owner actions and its first paint over 1M recorded tool calls.
    const l = await ledgerPagePhase();
    result.ledger = l;
    result.ledger_first_paint_p50_ms = (l.first_paint as { p50_ms: number }).p50_ms;
  }

  result.machine.loadavg_at_end = os.loadavg().map(r3);
  result.targets = targets(result);
  result.bench_s = r3((Date.now() - started) / 1000);
  return result;
}

main().then(
  (r) => {
    const t = table(r);
    if (opt.json) {
      process.stderr.write(`${t}\n`);
      process.stdout.write(`${JSON.stringify(r)}\n`);
    } else {
      process.stdout.write(
        `\n${t}\n\nbench took ${r.bench_s} s (node ${r.machine.node}, SQLite ${r.machine.sqlite}, ${r.machine.cpus} cpus)\n`,
      );
    }
    if (opt.save) {
      const dir = path.join(ROOT, 'bench', 'results');
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, `${r.date.slice(0, 19).replace(/:/g, '-')}.json`);
      fs.writeFileSync(file, `${JSON.stringify(r, null, 2)}\n`);
      progress(`saved ${path.relative(ROOT, file)}`);
    }
    process.exit(0);
  },
  (err) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
