// The benchmark in smoke mode (`bench/run.ts --smoke`): every section runs through on the built hub and prints its
// figures, so `npm run bench` cannot rot unnoticed (its support section once stopped on the hook door's prompt limit and
// nobody saw). Nothing here is timed: the smoke sizes make the figures meaningless, only their presence is checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ensureBuilt } from '../support/serve-harness';

const ROOT = path.resolve(__dirname, '..', '..');

/** Runs the bench with these arguments to its end (bounded): exit code, stdout, stderr. */
function bench(args: string[], timeoutMs: number): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

/** A figure of the bench's JSON: a path of keys whose value must be a finite number. */
const FIGURES: Record<string, string[]> = {
  throughput: [
    'send_message.calls_per_s',
    'send_message.cpu_us_per_call',
    'raw_http.calls_per_s',
    'sdk_echo.calls_per_s',
    'get_updates.p50_ms',
  ],
  durability: ['send_message_full.calls_per_s'],
  wake: ['wake.p50_ms', 'rss_mb_50_waiting', 'idle_cpu_pct_50_waiting'],
  owner: ['owner.p50_ms', 'control.cli_pause.max_ms', 'control.usage.max_ms'],
  brakes: ['brakes.off.calls_per_s', 'brakes.on.calls_per_s', 'brakes_on_vs_off'],
  fleet: ['fleet.wake.p50_ms', 'fleet.rss_mb', 'fleet.idle_cpu_pct'],
  coldstart: [
    'cold_start.node_floor.p50_ms',
    'cold_start.empty.p50_ms',
    'cold_start.empty_no_code_cache.p50_ms',
    'cold_start.store_1m.p50_ms',
    'cold_start.empty_first_answer.p50_ms',
    'cold_start.store_1m_first_answer.p50_ms',
  ],
  store: ['store_empty.get_updates.p99_ms', 'store_1m.search_all.p99_ms', 'store_ratio_p99.get_history'],
  export: ['export_1m.rss_peak_mb', 'export_1m.sends_during.p99_ms'],
  wakerun: ['wake_run.to_running.p50_ms', 'wake_run.to_first_call.p50_ms'],
  wakelimits: ['wake_limits.slot_to_start.p50_ms', 'wake_limits.max_alive'],
  channel: ['channel.from_commit.p50_ms'],
  support: [
    'support.pre_tool_use.p50_ms',
    'support.permission_request_visible.p50_ms',
    'support.door_permission_request_visible.p50_ms',
    'support.door_pre_tool_use.p50_ms',
  ],
  otlp: ['otlp.records_per_s', 'otlp.send_p99_ms_during_ingest', 'otlp.send_p99_ms_quiet', 'otlp.paced.send_p99_ms'],
  ledger: [
    'ledger.costs.p50_ms',
    'ledger.calls.p50_ms',
    'ledger.calls_search.p50_ms',
    'ledger.calls_failed_only.p50_ms',
    'ledger.first_paint.p50_ms',
  ],
  rules: ['rules.per_prompt.p50_ms', 'rules.week.needed_owner_share', 'rules.week.unsafe_allows'],
};

test("the benchmark runs every section through in smoke mode and prints each one's figures", { timeout: 10 * 60_000 }, async () => {
  ensureBuilt();
  const r = await bench(['--smoke', '--json'], 9 * 60_000);
  assert.equal(r.code, 0, `bench --smoke exited with ${r.code}:\n${r.err.slice(-4000)}`);
  const figures = JSON.parse(r.out.trim().split('\n').pop()!);
  assert.equal(figures.settings.smoke, true);
  // Every section the smoke run ran has its figures checked here: a section added to the bench is added above.
  assert.deepEqual([...figures.settings.sections].sort(), Object.keys(FIGURES).sort(), 'the sections run are the sections checked');
  const missing: string[] = [];
  for (const [section, paths] of Object.entries(FIGURES))
    for (const p of paths) {
      const v = p.split('.').reduce<any>((o, k) => o?.[k], figures);
      if (typeof v !== 'number' || !Number.isFinite(v)) missing.push(`${section}: ${p} = ${JSON.stringify(v)}`);
    }
  assert.deepEqual(missing, [], 'figures missing from the JSON');
  // The table (stderr with --json) has a row for the hook door's prompts, the section that last stopped the bench.
  assert.match(r.err, /hook door: PermissionRequest POST → request on the owner's stream/);
});
