// The export section of the benchmark (bench/run.ts --only export): `perch export` of the seeded 1M-message store
// while its hub serves and an agent keeps sending. Figures: the export's time, the archive's size, the export
// process's peak resident memory (VmHWM from /proc, sampled while it runs) and the agent's send_message latency
// meanwhile. The hub and the store come from run.ts.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { call, r3, summarize } from './client';

export interface ExportFigures {
  export_s: number;
  archive_mb: number;
  db_mb: number;
  rss_peak_mb: number | null;
  sends_during: ReturnType<typeof summarize>;
}

function peakRssMb(pid: number): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export async function exportPhase(opts: {
  root: string;
  dataDir: string;
  port: number;
  key: string;
  convId: string;
  out: string;
  timeoutMs: number;
  progress: (line: string) => void;
}): Promise<ExportFigures> {
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    [path.join(opts.root, 'bin', 'perch.js'), 'export', '--out', opts.out, '--data-dir', opts.dataDir, '--json'],
    { cwd: opts.root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let peak: number | undefined;
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    for (const l of d.split('\n')) if (l.trim()) opts.progress(`  ${l}`);
  });
  child.stdout!.resume();
  const sampler = setInterval(() => {
    const v = child.pid ? peakRssMb(child.pid) : undefined;
    if (v !== undefined) peak = Math.max(peak ?? 0, v);
  }, 50);
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let running = true;
  void exited.then(() => {
    running = false;
  });
  // An agent keeps sending while the export runs (one at a time; bounded in count).
  const samples: number[] = [];
  for (let i = 0; running && i < 200_000; i++) {
    samples.push((await call(opts.port, opts.key, 'send_message', { conv_id: opts.convId, text: `during export ${i}` })).ms);
  }
  const code = await exited;
  clearInterval(sampler);
  clearTimeout(timer);
  if (code !== 0) throw new Error(`perch export exited with ${code}\n${stderr.slice(-2000)}`);
  const figures: ExportFigures = {
    export_s: r3((performance.now() - t0) / 1000),
    archive_mb: r3(fs.statSync(opts.out).size / 2 ** 20),
    db_mb: r3(fs.statSync(path.join(opts.dataDir, 'perch.sqlite')).size / 2 ** 20),
    rss_peak_mb: peak === undefined ? null : r3(peak),
    sends_during: summarize(samples),
  };
  fs.rmSync(opts.out, { force: true });
  return figures;
}
