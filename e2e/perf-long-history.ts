// How the owner UI holds up with a very long conversation (not part of the test run):
//   npm run build:main && npx vite build --config vite.config.mts
//   node --import tsx e2e/perf-long-history.ts [messages=100000] [paging seconds=60]
// Seeds one direct conversation with the hub's own services, serves it with `perch serve`, opens it in
// Debian's Chromium, pages back through history (before_seq) and measures frame times while scrolling.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { DB_FILE_NAME, openDatabase } from '../src/main/store/db/db';
import { createHub } from '../src/main/hub-services';
import { addAgent } from '../src/main/hub/control/agents';
import { openDirect } from '../src/main/hub/talk/conversations';
import { sendMessage } from '../src/main/hub/talk/messages';
import { within } from './harness';

const N = Number(process.argv[2] ?? 100_000);
const PAGING_SECS = Number(process.argv[3] ?? 60);
const ROOT = path.resolve(__dirname, '..');

function seed(dir: string): void {
  const db = openDatabase(path.join(dir, DB_FILE_NAME));
  const hub = createHub({ db });
  const { agent } = addAgent(hub, { name: 'bulk' });
  const conv = openDirect(hub, agent.id, hub.ownerId);
  for (let i = 0; i < N; i += 5000) {
    hub.write(() => {
      for (let j = i; j < Math.min(N, i + 5000); j++) {
        const text =
          j % 7 === 0
            ? `Message ${j + 1}: a longer line with **Markdown** and \`code\` that may wrap onto a second line in a narrow window`
            : `Message ${j + 1}: short`;
        sendMessage(hub, agent.id, { conv_id: conv.conv_id, text });
      }
    });
  }
  hub.close();
  db.close();
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-perf-'));
  let t = Date.now();
  seed(dir);
  const result: Record<string, unknown> = { messages: N, seed_ms: Date.now() - t };
  const serve = spawn(process.execPath, [path.join(ROOT, 'bin', 'perch.js'), 'serve', '--data-dir', dir, '--port', '0', '--json'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const browser = await chromium.launch({
    executablePath: process.env.PERCH_E2E_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  try {
    const line = await within(20_000, 'perch serve', new Promise<string>((r) => serve.stdout!.once('data', (d) => r(String(d)))));
    const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    await page.goto(JSON.parse(line).login_url);
    t = Date.now();
    await page.getByRole('navigation', { name: 'Perch' }).getByRole('link', { name: /^bulk/ }).click();
    await page.getByText(`Message ${N}:`).waitFor({ timeout: 30_000 });
    result.open_ms = Date.now() - t;
    const log = page.getByRole('log', { name: 'Messages' });

    await page.evaluate(
      `(() => { window.__long = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(e.duration); }).observe({ type: 'longtask' }); })()`,
    );
    t = Date.now();
    let oldest = N;
    while (Date.now() - t < PAGING_SECS * 1000 && oldest > 1) {
      await log.evaluate((el) => (el.scrollTop = 0));
      await page.waitForTimeout(20);
      const m = /Message (\d+):/.exec((await log.evaluate((el) => el.querySelector('article')?.textContent)) ?? '');
      if (m) oldest = Number(m[1]);
    }
    result.paged_back_to = oldest;
    result.loaded_messages = N - oldest + 1;
    result.paging_ms = Date.now() - t;
    result.main_thread_per_page = await page.evaluate(
      `(() => { const d = window.__long.slice().sort((a, b) => a - b); return { long_tasks: d.length, median_ms: d[Math.floor(d.length / 2)] ?? 0, max_ms: d[d.length - 1] ?? 0 }; })()`,
    );

    result.smooth_scroll_frames_ms = await page.evaluate(`(async () => {
      const el = document.querySelector('[role=log]');
      el.scrollTop = el.scrollHeight / 2;
      const f = []; let last = performance.now();
      for (let i = 0; i < 240; i++) { el.scrollTop += 90; await new Promise((r) => requestAnimationFrame(r)); const now = performance.now(); f.push(now - last); last = now; }
      f.sort((a, b) => a - b);
      return { median: +f[120].toFixed(1), p95: +f[228].toFixed(1), max: +f[239].toFixed(1) };
    })()`);
    result.random_jump_frames_ms = await page.evaluate(`(async () => {
      const el = document.querySelector('[role=log]');
      const f = [];
      for (let i = 0; i < 60; i++) { const s = performance.now(); el.scrollTop = Math.random() * el.scrollHeight; await new Promise((r) => requestAnimationFrame(r)); f.push(performance.now() - s); }
      f.sort((a, b) => a - b);
      return { median: +f[30].toFixed(1), p95: +f[57].toFixed(1), max: +f[59].toFixed(1), rows_in_dom: el.querySelectorAll('article').length };
    })()`);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await browser.close();
    serve.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
