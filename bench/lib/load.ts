// A load: autocannon in its own process (bench/load.mjs) against one port.
import fs from 'node:fs';
import path from 'node:path';
import { tmpRoot, runProcess } from './processes';
import { DURATION, WARMUP, CONNECTIONS, progress, checkDeadline } from './settings';

export interface LoadResult {
  rps: number;
  total_2xx: number;
  warmup_2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  mean_ms: number;
}

export async function load(
  name: string,
  port: number,
  requests: Array<{ body: string; headers: Record<string, string> }>,
  unique = false,
): Promise<LoadResult> {
  checkDeadline(name);
  const cfgFile = path.join(tmpRoot, `load-${name.replace(/\W+/g, '_')}.json`);
  // unique: load.mjs puts a counter in place of %N% in each body (every text different, for the brakes section).
  fs.writeFileSync(
    cfgFile,
    JSON.stringify({ url: `http://127.0.0.1:${port}/mcp`, connections: CONNECTIONS, duration: DURATION, warmup: WARMUP, requests, unique }),
  );
  progress(`${name}: ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s …`);
  const out = await runProcess(`load ${name}`, ['bench/load.mjs', cfgFile], (DURATION + WARMUP + 60) * 1000);
  const r = JSON.parse(out.trim().split('\n').pop()!);
  progress(
    `${name}: ${Math.round(r.rps)} calls/s, p50 ${r.p50_ms.toFixed(2)} ms, p99 ${r.p99_ms.toFixed(2)} ms${r.non2xx || r.errors ? `, ${r.non2xx} non-2xx, ${r.errors} errors` : ''}`,
  );
  return r;
}
