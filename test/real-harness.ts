// The real Claude Code binary for tests, pinned, installed once on demand into a cache dir under os.tmpdir()
// (like scripts/conformance.ts does with its suite): it is ~400 MB, so it is never one of the project's
// dependencies. npm here may skip install scripts, so the binary of the platform package
// (@anthropic-ai/claude-code-<platform>-<arch>/claude, an optional dependency of @anthropic-ai/claude-code)
// is run directly. When it cannot be installed (offline, another platform), the tests that need it skip with
// the reason; PERCH_REAL_HARNESS=0 skips them without trying.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CLAUDE_CODE_VERSION = '2.1.332';
const INSTALL_TIMEOUT_MS = 300_000;

export type Installed = { bin: string; skip?: undefined } | { bin?: undefined; skip: string };

function npmInstall(dir: string, spec: string): string | undefined {
  const npmCli = process.env.npm_execpath;
  const args = ['install', '--no-audit', '--no-fund', '--no-save', '--no-package-lock', '--loglevel=error', spec];
  const r = npmCli && /\.c?js$/.test(npmCli)
    ? spawnSync(process.execPath, [npmCli, ...args], { cwd: dir, encoding: 'utf8', timeout: INSTALL_TIMEOUT_MS })
    : spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { cwd: dir, encoding: 'utf8', timeout: INSTALL_TIMEOUT_MS, shell: process.platform === 'win32' });
  if (r.error || r.status !== 0) return `npm install ${spec} failed (${r.error?.message ?? `exit ${r.status}`}): ${(r.stderr || r.stdout || '').trim().split('\n').slice(-3).join(' ')}`;
  return undefined;
}

let cached: Installed | undefined;

/** The real `claude` binary (installed once into os.tmpdir()/perch-claude-code-<version>), or why not. */
export function claudeCode(): Installed {
  if (cached) return cached;
  cached = installClaudeCode();
  if (cached.skip) console.log(`# real Claude Code tests skipped: ${cached.skip}`);
  return cached;
}

function installClaudeCode(): Installed {
  if (process.env.PERCH_REAL_HARNESS === '0') return { skip: 'PERCH_REAL_HARNESS=0' };
  const platform = `${process.platform}-${process.arch}`;
  if (!['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64'].includes(platform)) return { skip: `no Claude Code platform package is used here for ${platform}` };
  const dir = path.join(os.tmpdir(), `perch-claude-code-${CLAUDE_CODE_VERSION}`);
  const bin = path.join(dir, 'node_modules', '@anthropic-ai', `claude-code-${platform}`, 'claude');
  if (!fs.existsSync(bin)) {
    console.log(`# installing @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION} into ${dir} (once) …`);
    // Install beside the final dir, then rename: a concurrent or interrupted run never sees half an install.
    const staging = fs.mkdtempSync(`${dir}.tmp-`);
    try {
      fs.writeFileSync(path.join(staging, 'package.json'), JSON.stringify({ name: 'perch-claude-code-cache', private: true }));
      const failed = npmInstall(staging, `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`);
      if (failed) return { skip: failed };
      if (!fs.existsSync(path.join(staging, path.relative(dir, bin)))) return { skip: `the install has no ${path.relative(dir, bin)} (optional dependency not installed)` };
      fs.rmSync(dir, { recursive: true, force: true });
      fs.renameSync(staging, dir);
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
  }
  const v = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (v.status !== 0 || !v.stdout.includes(CLAUDE_CODE_VERSION)) return { skip: `${bin} --version gave ${JSON.stringify((v.stdout || v.stderr || v.error?.message || '').trim())}; remove ${dir} to reinstall` };
  return { bin };
}

export interface ClaudeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const p of running) p.kill('SIGKILL');
});

/**
 * `claude ARGS` in cwd with only the given environment (plus PATH and the switches that keep it offline and
 * quiet), bounded in time. ANTHROPIC_BASE_URL in env points it at a stand-in model.
 */
export function runClaude(bin: string, args: string[], opts: { cwd: string; home: string; env?: Record<string, string>; timeoutMs?: number }): Promise<ClaudeRun> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: opts.home,
    ANTHROPIC_API_KEY: 'dummy',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ...opts.env,
  };
  const timeoutMs = opts.timeoutMs ?? 120_000;
  return new Promise((resolve, reject) => {
    const p = spawn(bin, args, { cwd: opts.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(p);
    let stdout = '';
    let stderr = '';
    p.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    p.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error(`claude ${args.join(' ')} did not finish within ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    p.on('error', reject);
    p.on('close', (code) => {
      clearTimeout(timer);
      running.delete(p);
      resolve({ code, stdout, stderr });
    });
  });
}
