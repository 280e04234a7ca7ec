// The bench's options (bench/run.ts lists them), the sizes they set, and its progress lines and deadline.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

export const ROOT = path.resolve(__dirname, '..', '..');
export const { values: opt } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    save: { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    smoke: { type: 'boolean', default: false },
    messages: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    'cpu-prof': { type: 'string' },
    only: { type: 'string' },
    fleet: { type: 'string' },
    starts: { type: 'string' },
    against: { type: 'string' },
    rounds: { type: 'string' },
    'ledger-dir': { type: 'string' },
  },
  strict: true,
});

/**
 * --smoke: every section (export too) with the smallest sizes that still run each one through, to check the bench
 * completes and prints its figures (test/bench/smoke.test.ts, in npm test); its figures say nothing about speed.
 */
export const SMOKE = !!opt.smoke;
export const QUICK = !!opt.quick;
/** A size: the full run's, --quick's, --smoke's. */
export const sized = <T>(full: T, quick: T, smoke: T): T => (SMOKE ? smoke : QUICK ? quick : full);
export const DURATION = Number(opt.duration ?? sized(8, 3, 1));
export const WARMUP = Number(opt.warmup ?? sized(3, 1, 1));
export const CONNECTIONS = sized(16, 16, 4);
export const BIG_MESSAGES = Number(opt.messages ?? sized(1_000_000, 100_000, 2_000));
export const BIG_CONVERSATIONS = sized(1000, 1000, 50);
export const WAKES = sized(2000, 500, 20);
export const WAITERS = sized(50, 50, 5);
export const OWNER_SAMPLES = sized(1000, 300, 20);
export const QUERY_SAMPLES = sized(1500, 300, 20);
export const QUERY_WARMUP = sized(200, 50, 5);
export const HOT_FRESH = sized(200, 200, 10);
export const FLEET = Number(opt.fleet ?? sized(500, 500, 20));
export const COLD_STARTS = Number(opt.starts ?? sized(5, 3, 1));
/** `perch hook pre-tool-use` and `perch hook permission-request` runs timed (each) in the support section. */
export const HOOK_RUNS = sized(30, 10, 2);
/** CLI pauses and usage reports timed (each) in the owner section's control part. */
export const CONTROL_SAMPLES = sized(20, 6, 2);
/** How long an idle hub's CPU is read, and how long it settles first (wake and fleet sections). */
export const IDLE_MS = sized(4000, 4000, 500);
export const SETTLE_MS = sized(2000, 2000, 200);
/** The wakelimits section: agents woken at once, and each CPU reading's window (bench/wake-limits.ts). */
export const WAKE_LIMIT_AGENTS = sized(50, 50, 8);
export const WAKE_LIMIT_WINDOW_MS = sized(8000, 8000, 1000);
export const ONLY = new Set(
  (
    opt.only ??
    `throughput,wake,owner,durability,fleet,store,coldstart,brakes,wakerun,wakelimits,channel,support,otlp,ledger,rules${SMOKE ? ',export' : ''}`
  ).split(','),
);
export const CHANNEL_PUSHES = sized(200, 50, 5);
export const WAKE_RUNS = sized(20, 5, 2);
for (const k of ONLY)
  if (
    ![
      'throughput',
      'send',
      'wake',
      'owner',
      'durability',
      'fleet',
      'store',
      'coldstart',
      'brakes',
      'wakerun',
      'wakelimits',
      'channel',
      'rules',
      'support',
      'otlp',
      'ledger',
      'export',
    ].includes(k)
  )
    throw new Error(`--only: unknown section ${k}`);
if (!Number.isInteger(FLEET) || FLEET < 1 || FLEET > 5000) throw new Error('--fleet must be 1..5000');
if (!Number.isInteger(COLD_STARTS) || COLD_STARTS < 1 || COLD_STARTS > 50) throw new Error('--starts must be 1..50');
/** --against: the other checkout (its bin/perch.js serves, its bench/seed.ts seeds); this checkout when absent. */
export const AGAINST = opt.against ? path.resolve(opt.against) : undefined;
export const ROUNDS = Number(opt.rounds ?? 4);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1 || ROUNDS > 20) throw new Error('--rounds must be 1..20');
if (AGAINST && !fs.existsSync(path.join(AGAINST, 'dist', 'cli.js')))
  throw new Error(`--against ${AGAINST}: no built checkout there (dist/cli.js; run npm run build in it)`);
/** The whole run's bound: 45 minutes (a full run takes about 10 on a quiet 2-core machine; beside other work, seeding the 1M store alone took over 5). */
export const DEADLINE = Date.now() + Math.max(45 * 60_000, AGAINST ? ROUNDS * 2 * (WARMUP + DURATION + 45) * 1000 + 60_000 : 0);

export const started = Date.now();
export function progress(line: string) {
  process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s] ${line}\n`);
}
export function checkDeadline(what: string) {
  if (Date.now() > DEADLINE) throw new Error(`bench: out of time before ${what}`);
}
