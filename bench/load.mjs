// The load generator, run as its own process: autocannon 9 with a warm-up, fixed duration and N
// connections. Every connection cycles through the prebuilt requests (one per agent and shape), so
// the generator does no per-request work. Latency of every 2xx answer of the measured run (the
// warm-up is excluded) is taken at sub-millisecond resolution from autocannon's 'response' events.
//   node bench/load.mjs CONFIG.json   → prints one JSON line with the result
// CONFIG: { url, connections, duration, warmup, requests: [{ body, headers }], unique? }
// unique: each request's body gets a fresh number in place of %N% (every text different; the brakes section).
// rate: requests per second over all connections (autocannon's overallRate); as fast as answered when absent.
import fs from 'node:fs';
import autocannon from 'autocannon';

const cfg = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const MAX_SAMPLES = 2_000_000;
const lat = new Float64Array(MAX_SAMPLES);
let n = 0;
let counter = 0;

const instance = autocannon({
  url: cfg.url,
  method: 'POST',
  connections: cfg.connections,
  duration: cfg.duration,
  warmup: { connections: cfg.connections, duration: cfg.warmup },
  timeout: 10,
  ...(cfg.rate ? { overallRate: cfg.rate } : {}),
  requests: cfg.requests.map((r) =>
    cfg.unique
      ? { method: 'POST', headers: r.headers, setupRequest: (req) => ({ ...req, body: r.body.replace('%N%', String(++counter)) }) }
      : { method: 'POST', body: r.body, headers: r.headers },
  ),
});
instance.on('response', (_client, statusCode, _bytes, responseTime) => {
  if (statusCode >= 200 && statusCode < 300 && n < MAX_SAMPLES) lat[n++] = responseTime;
});
const hardStop = setTimeout(
  () => {
    process.stderr.write('load: autocannon did not finish in time\n');
    process.exit(3);
  },
  (cfg.duration + cfg.warmup + 30) * 1000,
);

instance.then(
  (result) => {
    clearTimeout(hardStop);
    const sorted = lat.subarray(0, n).sort();
    const pct = (p) => (n ? sorted[Math.min(n - 1, Math.floor((p / 100) * n))] : null);
    let sum = 0;
    for (let i = 0; i < n; i++) sum += sorted[i];
    const ok = result.requests.total - result.non2xx;
    process.stdout.write(
      `${JSON.stringify({
        rps: ok / result.duration,
        rps_avg_per_second: result.requests.average,
        total_2xx: ok,
        warmup_2xx: result.warmup ? result.warmup.requests.total - result.warmup.non2xx : 0,
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        duration_s: result.duration,
        samples: n,
        p50_ms: pct(50),
        p90_ms: pct(90),
        p99_ms: pct(99),
        max_ms: n ? sorted[n - 1] : null,
        mean_ms: n ? sum / n : null,
      })}\n`,
    );
    process.exit(0);
  },
  (err) => {
    process.stderr.write(`load: ${err && err.stack ? err.stack : err}\n`);
    process.exit(2);
  },
);
