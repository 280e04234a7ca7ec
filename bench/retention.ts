// Retention while agents work: what the retention job (src/main/hub/features/retention/retention-job.ts) costs an agent's send.
//   node --import tsx bench/retention.ts [--messages N] [--duration S] [--json]
// Seeds a data dir with N messages spread over the last 30 days (bench/seed.ts), starts a real `perch serve` on it,
// measures one agent's send_message latency alone for S seconds (baseline), then sets the hub's rule to keep 1 day
// (retention.set) and measures the same sends while the job deletes (nearly) everything, until it is done. Prints
// p50/p99/max of both, how many messages went and how long it took, and the file's size before and after.
// Every loop is bounded in count and time; the hub is killed on exit.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { call, post, summarize, sleep } from './client';

const ROOT = path.resolve(__dirname, '..');
const { values: opt } = parseArgs({
  options: { messages: { type: 'string' }, duration: { type: 'string' }, json: { type: 'boolean' } },
  strict: true,
});
const MESSAGES = Number(opt.messages ?? 100_000);
const DURATION_MS = Number(opt.duration ?? 5) * 1000;
const log = (s: string) => process.stderr.write(`retention bench: ${s}\n`);
const children: ChildProcess[] = [];
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

function run(args: string[], env: Record<string, string> = {}): ChildProcess {
  const p = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(p);
  return p;
}

function firstLine(p: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('no output in time')), timeoutMs);
    p.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(out.slice(0, nl));
      }
    });
    p.stderr!.setEncoding('utf8').on('data', (c: string) => {
      if (/seed:/.test(c)) log(c.trim());
    });
    p.on('exit', (code) => {
      if (!out.includes('\n')) reject(new Error(`exited ${code}`));
    });
  });
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-retention-bench-'));
  try {
    log(`seeding ${MESSAGES} messages`);
    const fixture = JSON.parse(
      await firstLine(
        run([
          '--import',
          'tsx',
          'bench/seed.ts',
          '--data-dir',
          dir,
          '--agents',
          '4',
          '--conversations',
          '100',
          '--messages',
          String(MESSAGES),
        ]),
        600_000,
      ),
    );
    const file = path.join(dir, 'perch.sqlite');
    const sizeBefore = fs.statSync(file).size;
    const hub = run(
      [path.join(ROOT, 'bin', 'perch.js'), 'serve', '--data-dir', dir, '--port', '0', '--json', '--rate', '0', '--backups', '0'],
      { PERCH_BRAKES: 'off' },
    );
    const info = JSON.parse(await firstLine(hub, 30_000)) as { port: number };
    const rt = JSON.parse(fs.readFileSync(path.join(dir, 'runtime.json'), 'utf8')) as { owner_token: string };
    const agent = fixture.agents[0] as { key: string };
    const conv = fixture.conversations[0] as string;
    let n = 0;
    const send = async () => (await call(info.port, agent.key, 'send_message', { conv_id: conv, text: `bench send ${n++}` })).ms;
    for (let i = 0; i < 50; i++) await send(); // warm up

    const baseline: number[] = [];
    const end = performance.now() + DURATION_MS;
    while (performance.now() < end) baseline.push(await send());

    const reader = new Database(file, { readonly: true });
    const old = Date.now() - 2 * 60 * 60 * 1000; // the seeded messages are all older than a day; this bench's sends are newer
    const count = () => reader.prepare('SELECT count(*) FROM messages WHERE created_at < ?').pluck().get(old) as number;
    const before = count();
    const r = await post(info.port, '/api/owner/retention.set', JSON.stringify({ keep_days: 1 }), {
      'Content-Type': 'application/json',
      Authorization: `Bearer ${rt.owner_token}`,
    });
    if (r.status !== 200) throw new Error(`retention.set: ${r.status} ${r.text}`);
    const started = performance.now();
    const during: number[] = [];
    let left = before;
    let checked = 0;
    const deadline = started + 20 * 60_000;
    while (performance.now() < deadline) {
      during.push(await send());
      if (performance.now() - checked > 250) {
        checked = performance.now();
        left = count();
        if (left === 0) break;
      }
    }
    const ms = performance.now() - started;
    reader.close();
    await sleep(2000); // the vacuum steps after the pass
    hub.kill('SIGTERM');
    await new Promise((res) => hub.on('exit', res));
    const result = {
      messages_seeded: MESSAGES,
      deleted: before - left,
      delete_seconds: Math.round(ms / 100) / 10,
      deleted_per_second: Math.round((before - left) / (ms / 1000)),
      send_alone: summarize(baseline),
      send_during_retention: summarize(during),
      file_bytes_before: sizeBefore,
      file_bytes_after: fs.statSync(file).size,
      cpus: os.cpus().length,
    };
    process.stdout.write(`${opt.json ? JSON.stringify(result) : JSON.stringify(result, null, 2)}\n`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`retention bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
