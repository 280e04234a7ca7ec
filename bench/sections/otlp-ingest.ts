// The OTLP section: how many harness telemetry records a hub keeps per second (POST /v1/logs, the flight recorder:
// src/main/mcp/otlp-door.ts), and what that costs an agent's send_message beside it (p99 with the ingest running, and
// without, on the same hub). Target (docs/design.md): 2,000 records/s with send_message p99 < 10 ms.
// 8 agents, each with its telemetry token, post batches of 100 Claude Code log records (45 tool calls, a decision
// and a result each, and 10 API requests) over 4 connections; each batch differs (a counter in its resource), so
// none is taken for a resend. One more agent sends messages one after the other all along.
import path from 'node:path';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { call, r3, sleep, summarize } from '../client';
import { runProcess, seed, startHub, stopProcess, tmpRoot } from '../lib/processes';
import { DURATION, WARMUP, checkDeadline, progress } from '../lib/settings';

const AGENTS = 8;
const CONNECTIONS = 4;
const CALLS_PER_BATCH = 45;
const API_PER_BATCH = 10;
const RECORDS_PER_BATCH = CALLS_PER_BATCH * 2 + API_PER_BATCH;
/** The target's ingest rate (docs/design.md): send_message's p99 is measured beside an ingest at this rate. */
const TARGET_RECORDS_PER_S = 2000;

function attr(key: string, v: string | number): Record<string, unknown> {
  return { key, value: typeof v === 'string' ? { stringValue: v } : { intValue: String(v) } };
}

/** One batch as Claude Code sends it; %N% (the load's counter) makes each request's records new. */
function batch(agent: number): string {
  const t = `${Date.now()}000000`;
  const recs: unknown[] = [];
  for (let i = 0; i < CALLS_PER_BATCH; i++) {
    const id = `toolu_${agent}_${i}`;
    const common = [attr('session.id', `bench-session-${agent}`), attr('tool_name', 'Bash'), attr('tool_use_id', id)];
    recs.push({
      timeUnixNano: t,
      body: { stringValue: 'claude_code.tool_decision' },
      attributes: [...common, attr('decision', 'accept'), attr('source', 'config')],
    });
    recs.push({
      timeUnixNano: t,
      body: { stringValue: 'claude_code.tool_result' },
      attributes: [...common, attr('success', 'true'), attr('duration_ms', 120), attr('tool_parameters', '{"bash_command":"npm test"}')],
    });
  }
  for (let i = 0; i < API_PER_BATCH; i++)
    recs.push({
      timeUnixNano: t,
      body: { stringValue: 'claude_code.api_request' },
      attributes: [
        attr('session.id', `bench-session-${agent}`),
        attr('event.sequence', i),
        attr('model', 'claude-sonnet-4-5'),
        attr('cost_usd', '0.0001'),
        attr('input_tokens', 1000),
        attr('output_tokens', 100),
      ],
    });
  return JSON.stringify({
    resourceLogs: [
      {
        resource: { attributes: [attr('service.name', 'claude-code'), attr('service.instance.id', 'batch-%N%')] },
        scopeLogs: [{ logRecords: recs }],
      },
    ],
  });
}

function recordCount(dataDir: string): number {
  const db = new Database(path.join(dataDir, 'perch.sqlite'), { readonly: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM ledger_records').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

export async function otlpPhase(): Promise<Record<string, unknown>> {
  checkDeadline('otlp');
  const dir = path.join(tmpRoot, 'hub-otlp');
  const fixture = await seed(dir, ['--agents', String(AGENTS + 1), '--prefix', 'o'], 60_000);
  const senders = fixture.agents.slice(1);
  const tokens: string[] = [];
  for (const a of senders) {
    const out = await runProcess(`token ${a.name}`, ['bin/perch.js', 'ledger', 'token', a.name, '--data-dir', dir, '--json'], 30_000);
    tokens.push(JSON.parse(out).token as string);
  }
  const hub = await startHub('otlp', dir);
  const talker = fixture.agents[0]!;
  const conv = (await call(hub.port, talker.key, 'create_group', { title: 'otlp-probe', members: [] })).value.conversation
    .conv_id as string;
  let n = 0;
  const probe = async (until: () => boolean, max: number) => {
    const ms: number[] = [];
    for (let i = 0; i < max && !until(); i++) {
      ms.push((await call(hub.port, talker.key, 'send_message', { conv_id: conv, text: `probe ${++n}` })).ms);
      await sleep(2);
    }
    return ms;
  };
  // send_message alone first, then with the ingest running.
  const quietUntil = performance.now() + DURATION * 1000;
  const quiet = await probe(() => performance.now() > quietUntil, 20_000);

  /** The ingest for DURATION s (after WARMUP), as fast as answered or at `rate` batches a second, sends probed beside. */
  const ingest = async (label: string, rate?: number) => {
    const cfgFile = path.join(tmpRoot, `load-otlp-${label}.json`);
    fs.writeFileSync(
      cfgFile,
      JSON.stringify({
        url: `http://127.0.0.1:${hub.port}/v1/logs`,
        connections: CONNECTIONS,
        duration: DURATION,
        warmup: WARMUP,
        unique: true,
        ...(rate ? { rate } : {}),
        requests: senders.map((_a, i) => ({
          body: batch(i),
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${tokens[i]}` },
        })),
      }),
    );
    progress(
      `otlp (${label}): ${AGENTS} agents' telemetry, ${CONNECTIONS} connections, batches of ${RECORDS_PER_BATCH} records${rate ? ` at ${rate} a second` : ''}, ${WARMUP} s warm-up + ${DURATION} s …`,
    );
    const before = recordCount(dir);
    const t0 = performance.now();
    let done = false;
    const loaded = runProcess(`load otlp ${label}`, ['bench/load.mjs', cfgFile], (DURATION + WARMUP + 60) * 1000).finally(
      () => (done = true),
    );
    const busy = await probe(() => done, 200_000);
    const r = JSON.parse((await loaded).trim().split('\n').pop()!);
    const secs = (performance.now() - t0) / 1000;
    // A batch is written in steps (src/main/mcp/otlp-door.ts recordInSteps): batches the hub took before the load
    // stopped may still be in their last steps. Their records are counted once the count holds still (bounded).
    let count = recordCount(dir);
    for (let i = 0; i < 100; i++) {
      await sleep(100);
      const next = recordCount(dir);
      if (next === count) break;
      count = next;
    }
    const stored = count - before;
    const answered = r.total_2xx + r.warmup_2xx;
    // autocannon's count of answers can miss the last ones in flight: the records the hub kept are the figure.
    if (r.non2xx || r.errors || stored === 0 || stored % RECORDS_PER_BATCH !== 0)
      throw new Error(
        `otlp: ${stored} records stored for ${answered} batches answered (${RECORDS_PER_BATCH} each), ${r.non2xx} non-2xx, ${r.errors} errors`,
      );
    return { r, secs, stored, answered, busy };
  };
  // As fast as the hub takes them (its ceiling), then at the target's rate (what an agent's sends feel beside it).
  const max = await ingest('max');
  const paced = await ingest('paced', Math.round(TARGET_RECORDS_PER_S / RECORDS_PER_BATCH));
  await stopProcess(hub.child);
  fs.rmSync(dir, { recursive: true, force: true });
  const { r, secs, stored, answered, busy } = max;
  const q = summarize(quiet);
  const b = summarize(busy);
  const out = {
    records_per_s: Math.round(stored / secs),
    batches_per_s: Math.round(r.rps),
    batch_p99_ms: r3(r.p99_ms),
    records_per_batch: RECORDS_PER_BATCH,
    batches_answered: answered,
    records_stored: stored,
    send_p99_ms_quiet: q.p99_ms,
    send_p99_ms_during_ingest: b.p99_ms,
    send_samples: busy.length,
    paced: {
      records_per_s: Math.round(paced.stored / paced.secs),
      batch_p99_ms: r3(paced.r.p99_ms),
      send_p99_ms: summarize(paced.busy).p99_ms,
      send_samples: paced.busy.length,
    },
  };
  progress(
    `otlp: ${out.records_per_s} records/s at most (send_message p99 ${out.send_p99_ms_during_ingest} ms beside it); at ${out.paced.records_per_s} records/s send_message p99 ${out.paced.send_p99_ms} ms; ${out.send_p99_ms_quiet} ms without the ingest`,
  );
  return out;
}
