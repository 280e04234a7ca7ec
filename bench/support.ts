// The support section of the benchmark (`--only support`): what Perch costs a coding agent's harness that runs
// `perch hook …` from its hooks config. pre-tool-use runs before every tool call of the session, so its figure is
// the whole process: spawn → exit of `perch hook pre-tool-use` with Claude Code's documented PreToolUse input on
// stdin, against a running hub (one POST /hook each), beside node's own spawn → exit (`node -e ''`), the floor.
import { spawn, execFileSync } from 'node:child_process';
import path from 'node:path';
import { summarize } from './client';
import { claudeCodePreToolUseBash } from '../test/fixtures/status-hooks';

const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'perch.js');

/** `perch agent add NAME --json` on a data dir (before its hub starts): the agent's id and key. */
export function addBenchAgent(dataDir: string, name: string): { id: string; key: string } {
  const out = execFileSync(process.execPath, [BIN, 'agent', 'add', name, '--data-dir', dataDir, '--json'], { cwd: ROOT, timeout: 30_000, encoding: 'utf8' });
  return JSON.parse(out) as { id: string; key: string };
}

/** ms from spawn to exit of one process fed stdin; it must exit 0 with the expected stdout. */
function timedRun(args: string[], stdin: string, env: Record<string, string>, expectOut: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const p = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
    p.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error(`${args.join(' ')}: no exit within 10 s`));
    }, 10_000);
    p.on('error', reject);
    p.on('close', (code) => {
      const ms = performance.now() - t0;
      clearTimeout(timer);
      if (code !== 0 || out !== expectOut || err) return reject(new Error(`${args.join(' ')}: exit ${code}, stdout ${JSON.stringify(out)}, stderr ${JSON.stringify(err)}`));
      resolve(ms);
    });
    p.stdin!.end(stdin);
  });
}

export interface SupportFigures {
  runs: number;
  /** `node -e ''`: spawn → exit of node itself, the floor of any hook command. */
  node_floor: ReturnType<typeof summarize>;
  /** `perch hook pre-tool-use`, the agent running (decides nothing): spawn → exit. */
  pre_tool_use: ReturnType<typeof summarize>;
}

/** Runs the hooks against a running hub on this port with this agent key, `runs` times each (one uncounted first). */
export async function supportPhase(port: number, key: string, runs: number, progress: (line: string) => void): Promise<SupportFigures> {
  const env = { PERCH_URL: `http://127.0.0.1:${port}/mcp`, PERCH_KEY: key };
  const input = JSON.stringify(claudeCodePreToolUseBash);
  const floor: number[] = [];
  const pre: number[] = [];
  await timedRun([BIN, 'hook', 'pre-tool-use'], input, env, ''); // warms the OS file cache and bin/perch.js's code cache
  for (let i = 0; i < runs; i++) {
    floor.push(await timedRun(['-e', ''], '', {}, ''));
    pre.push(await timedRun([BIN, 'hook', 'pre-tool-use'], input, env, ''));
  }
  const figures = { runs, node_floor: summarize(floor), pre_tool_use: summarize(pre) };
  progress(`pre-tool-use hook: spawn → exit p50 ${figures.pre_tool_use.p50_ms} ms, p99 ${figures.pre_tool_use.p99_ms} ms (node itself p50 ${figures.node_floor.p50_ms} ms)`);
  return figures;
}
