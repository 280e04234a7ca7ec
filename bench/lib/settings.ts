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
    messages: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    'cpu-prof': { type: 'string' },
    only: { type: 'string' },
    fleet: { type: 'string' },
    starts: { type: 'string' },
    against: { type: 'string' },
    rounds: { type: 'string' },
  },
  strict: true,
});

export const QUICK = !!opt.quick;
export const DURATION = Number(opt.duration ?? (QUICK ? 3 : 8));
export const WARMUP = Number(opt.warmup ?? (QUICK ? 1 : 3));
export const CONNECTIONS = 16;
export const BIG_MESSAGES = Number(opt.messages ?? (QUICK ? 100_000 : 1_000_000));
export const BIG_CONVERSATIONS = 1000;
export const WAKES = QUICK ? 500 : 2000;
export const WAITERS = 50;
export const OWNER_SAMPLES = QUICK ? 300 : 1000;
export const QUERY_SAMPLES = QUICK ? 300 : 1500;
export const QUERY_WARMUP = QUICK ? 50 : 200;
export const HOT_FRESH = 200;
export const FLEET = Number(opt.fleet ?? 500);
export const COLD_STARTS = Number(opt.starts ?? (QUICK ? 3 : 5));
/** `perch hook pre-tool-use` and `perch hook permission-request` runs timed (each) in the support section. */
export const HOOK_RUNS = 30;
export const ONLY = new Set(
  (opt.only ?? 'throughput,wake,owner,durability,fleet,store,coldstart,brakes,wakerun,wakelimits,channel,support').split(','),
);
export const CHANNEL_PUSHES = QUICK ? 50 : 200;
export const WAKE_RUNS = QUICK ? 5 : 20;
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
      'support',
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
export const DEADLINE = Date.now() + Math.max(9.5 * 60_000, AGAINST ? ROUNDS * 2 * (WARMUP + DURATION + 45) * 1000 + 60_000 : 0);

export const started = Date.now();
export function progress(line: string) {
  process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s] ${line}\n`);
}
export function checkDeadline(what: string) {
  if (Date.now() > DEADLINE) throw new Error(`bench: out of time before ${what}`);
}
