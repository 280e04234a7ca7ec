// The ledger section: the flight recorder at size. A data dir whose ledger holds LEDGER_CALLS recorded tool calls
// (bench/seed-ledger.ts: Claude Code telemetry through the hub's own OTLP path, over 30 days), a real `perch serve` on
// it, then
//   - the owner actions the Ledger page calls (ledger.costs; ledger.calls as it first loads, by agent, with a search
//     and failed only), p50 / p99 of LEDGER_SAMPLES each;
//   - the Ledger page's first paint in Debian's Chromium: from the page's load (a fresh tab at #/ledger, the owner
//     already logged in) to the spend, the 14-day chart and the first tool call drawn, LEDGER_PAINTS times (p50, max).
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { chromium } from 'playwright-core';
import { ownerCaller, r3, summarize } from '../client';
import { runProcess, startHub, stopProcess, tmpRoot } from '../lib/processes';
import { checkDeadline, opt, progress, sized } from '../lib/settings';

const LEDGER_CALLS = sized(1_000_000, 200_000, 2_000);
const LEDGER_SAMPLES = sized(30, 15, 2);
const LEDGER_PAINTS = sized(5, 3, 1);
const CHROMIUM = process.env.PERCH_E2E_CHROMIUM ?? '/usr/bin/chromium';

type Seeded = { agents: Array<{ name: string }>; calls: number; records: number; ms: number };

async function seedLedger(dir: string): Promise<Seeded> {
  progress(`ledger: seeding ${LEDGER_CALLS} tool calls through the OTLP path …`);
  const out = await runProcess(
    'seed-ledger',
    ['--import', 'tsx', 'bench/seed-ledger.ts', '--data-dir', dir, '--calls', String(LEDGER_CALLS)],
    40 * 60_000,
    (l) => progress(`  ${l}`),
  );
  return JSON.parse(out.trim().split('\n').pop()!) as Seeded;
}

/**
 * --ledger-dir DIR: a data dir bench/seed-ledger.ts seeded before (seeding 1M calls takes minutes), its database
 * copied here so the run leaves it as it was; what it holds is read from it.
 */
function reuse(from: string, dir: string): Seeded {
  const file = path.join(from, 'perch.sqlite');
  if (!fs.existsSync(file))
    throw new Error(`--ledger-dir ${from}: no perch.sqlite there (seed one: node --import tsx bench/seed-ledger.ts --data-dir ${from})`);
  progress(`ledger: copying the seeded ledger of ${from} …`);
  fs.copyFileSync(file, path.join(dir, 'perch.sqlite'));
  const db = new Database(path.join(dir, 'perch.sqlite'), { readonly: true });
  try {
    const n = (q: string) => (db.prepare(q).get() as { n: number }).n;
    return {
      agents: db.prepare("SELECT name FROM users WHERE kind = 'agent' ORDER BY name").all() as Array<{ name: string }>,
      calls: n("SELECT COUNT(*) AS n FROM ledger_records WHERE kind = 'tool_result'"),
      records: n('SELECT COUNT(*) AS n FROM ledger_records'),
      ms: 0,
    };
  } finally {
    db.close();
  }
}

export async function ledgerPagePhase(): Promise<Record<string, unknown>> {
  checkDeadline('ledger');
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`ledger: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set PERCH_E2E_CHROMIUM)`);
  const dir = path.join(tmpRoot, 'hub-ledger');
  fs.mkdirSync(dir, { recursive: true });
  const seeded = opt['ledger-dir'] ? reuse(path.resolve(opt['ledger-dir']), dir) : await seedLedger(dir);
  progress(`ledger: ${seeded.calls} calls in ${seeded.records} records seeded in ${seeded.ms} ms`);
  const out: Record<string, unknown> = {
    tool_calls: seeded.calls,
    records: seeded.records,
    seed_ms: seeded.ms,
    db_mb: r3(fs.statSync(path.join(dir, 'perch.sqlite')).size / 1e6),
  };
  const hub = await startHub('ledger', dir);
  try {
    const owner = ownerCaller(hub);
    const timed = async (name: string, action: string, input: unknown, check: (v: any) => void) => {
      const s: number[] = [];
      for (let i = 0; i < LEDGER_SAMPLES; i++) {
        const t = performance.now();
        const v = await owner(action, input);
        s.push(performance.now() - t);
        if (i === 0) check(v);
      }
      out[name] = summarize(s);
      progress(`ledger: ${name} p50 ${(out[name] as any).p50_ms} ms, p99 ${(out[name] as any).p99_ms} ms`);
    };
    const some = (what: string) => (v: { calls?: unknown[]; costs?: unknown[] }) => {
      if (!(v.calls ?? v.costs)?.length) throw new Error(`ledger: ${what} came back empty`);
    };
    await timed('costs', 'ledger.costs', {}, some('ledger.costs'));
    await timed('calls', 'ledger.calls', { limit: 200 }, some('ledger.calls'));
    await timed(
      'calls_of_agent',
      'ledger.calls',
      { agent: seeded.agents[3 % seeded.agents.length]!.name, limit: 200 },
      some("an agent's calls"),
    );
    await timed('calls_search', 'ledger.calls', { search: 'case-42', limit: 200 }, some('a search'));
    await timed('calls_failed_only', 'ledger.calls', { failed_only: true, limit: 200 }, some('the failed calls'));

    const runtime = JSON.parse(fs.readFileSync(path.join(dir, 'runtime.json'), 'utf8')) as { base_url: string };
    const login = hub.loginUrl;
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const first = await context.newPage();
      await first.goto(login);
      await first.getByRole('navigation', { name: 'Perch' }).waitFor({ timeout: 30_000 });
      const paints: number[] = [];
      for (let i = 0; i < LEDGER_PAINTS; i++) {
        const page = await context.newPage();
        const t = performance.now();
        await page.goto(`${runtime.base_url}/#/ledger`);
        const calls = page
          .getByRole('region', { name: 'Tool calls' })
          .getByRole('listitem', { name: /^Call / })
          .first();
        await calls.waitFor({ timeout: 60_000 });
        await page
          .getByRole('region', { name: 'Last 14 days' })
          .getByRole('img', { name: /Spend per day/ })
          .waitFor({ timeout: 60_000 });
        paints.push(performance.now() - t);
        await page.close();
      }
      out.first_paint = summarize(paints);
      progress(`ledger: the Ledger page's first paint over ${seeded.calls} calls: p50 ${(out.first_paint as any).p50_ms} ms`);
    } finally {
      await browser.close();
    }
  } finally {
    await stopProcess(hub.child);
  }
  return out;
}
