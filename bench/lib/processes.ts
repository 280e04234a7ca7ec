// The bench's processes: every child it starts (killed on exit), hubs, seeding, cold starts, /proc readings.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { post, r3 } from '../client';
import { ROOT, opt, progress } from './settings';

export const children = new Set<ChildProcess>();
export const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-bench-'));
export function cleanup() {
  for (const c of children) {
    try {
      c.kill('SIGKILL');
    } catch {
      /* gone */
    }
  }
  try {
    fs.rmSync(tmpRoot, { recursive: true, force: true });
  } catch {
    /* best effort */
  }
}
process.on('exit', cleanup);
process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => process.exit(143));

/** Spawns a process that prints one JSON line when ready; resolves with that line and the child. */
export function startProcess(
  name: string,
  args: string[],
  timeoutMs = 60_000,
  env?: Record<string, string>,
  cwd = ROOT,
): Promise<{ child: ChildProcess; ready: any }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(env ? { env: { ...process.env, ...env } } : {}),
    });
    children.add(child);
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name}: not ready after ${timeoutMs} ms\n${err}`));
    }, timeoutMs);
    child.stdout!.setEncoding('utf8');
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (d: string) => {
      err += d;
      if (err.length > 20_000) err = err.slice(-10_000);
    });
    const onData = (d: string) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.stdout!.resume();
      try {
        resolve({ child, ready: JSON.parse(out.slice(0, nl)) });
      } catch {
        reject(new Error(`${name}: unexpected first line ${out.slice(0, 200)}`));
      }
    };
    child.stdout!.on('data', onData);
    child.on('exit', (code) => {
      children.delete(child);
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}\n${err}`));
    });
  });
}

/** Runs a process to its end; resolves with its stdout. */
export function runProcess(
  name: string,
  args: string[],
  timeoutMs: number,
  onStderr?: (line: string) => void,
  cwd = ROOT,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name}: did not finish in ${timeoutMs} ms`));
    }, timeoutMs);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      if (onStderr) for (const l of d.split('\n')) if (l.trim()) onStderr(l);
    });
    child.on('exit', (code) => {
      children.delete(child);
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${name} exited with ${code}\n${err.slice(-4000)}`));
    });
  });
}

export async function stopProcess(child: ChildProcess, timeoutMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export interface Seeded {
  agents: Array<{ id: string; name: string; key: string }>;
  conversations: string[];
  hot: string | null;
  messages: number;
  ms: number;
}

/** Seeds dataDir with bench/seed.ts of the checkout at root (this one, or --against's: its own schema and code). */
export async function seed(dataDir: string, args: string[], timeoutMs: number, root = ROOT): Promise<Seeded> {
  const out = await runProcess(
    'seed',
    ['--import', 'tsx', 'bench/seed.ts', '--data-dir', dataDir, ...args],
    timeoutMs,
    (l) => progress(`  ${l}`),
    root,
  );
  return JSON.parse(out.trim().split('\n').pop()!);
}

export interface RunningHub {
  name: string;
  child: ChildProcess;
  port: number;
  dataDir: string;
  ownerToken: string;
  /** Its one-time login link (the ready line's login_url), for a browser. */
  loginUrl: string;
}

/** The hubs whose loads would trip the brakes run without them (see the top); the brakes section says which. */
export const BRAKES_OFF = { PERCH_BRAKES: 'off' };

export async function startHub(
  name: string,
  dataDir: string,
  extraArgs: string[] = [],
  env: Record<string, string> = BRAKES_OFF,
  root = ROOT,
): Promise<RunningHub> {
  const flags: string[] = [];
  if (opt['cpu-prof']) {
    // One directory per hub: the main thread and the checkpoint worker each write a profile.
    const dir = path.resolve(opt['cpu-prof'], `hub-${name}`);
    fs.mkdirSync(dir, { recursive: true });
    flags.push('--cpu-prof', `--cpu-prof-dir=${dir}`);
  }
  // --backups 0: the daily backup a hub takes at start (once a day) would copy the seeded
  // database while the requests are measured.
  const { child, ready } = await startProcess(
    `hub ${name}`,
    [...flags, 'bin/perch.js', 'serve', '--data-dir', dataDir, '--port', '0', '--json', '--rate', '0', '--backups', '0', ...extraArgs],
    60_000,
    env,
    root,
  );
  const runtime = JSON.parse(fs.readFileSync(path.join(dataDir, 'runtime.json'), 'utf8'));
  return { name, child, port: ready.port, dataDir, ownerToken: runtime.owner_token, loginUrl: ready.login_url };
}

/** The owner's hub.info of a running hub (waiting agents, durability of its connection, …). */
export async function hubInfo(hub: RunningHub): Promise<any> {
  const r = await post(hub.port, '/api/owner/hub.info', '{}', { Authorization: `Bearer ${hub.ownerToken}` });
  const j = JSON.parse(r.text);
  if (!j.ok) throw new Error(`hub.info: HTTP ${r.status} ${r.text.slice(0, 200)}`);
  return j.value;
}

/** Starts `perch serve --json` on dataDir and stops it again: ms from spawn to its ready line. */
/**
 * One cold start of perch serve: ms from the spawn to its ready line, and to the answer of a request sent the moment
 * the ready line came (the owner's hub.info, with runtime.json's token): what the ready line promises is served.
 */
export async function coldStart(
  name: string,
  dataDir: string,
  env?: Record<string, string>,
): Promise<{ readyMs: number; answeredMs: number }> {
  const t0 = performance.now();
  const { child, ready } = await startProcess(
    name,
    ['bin/perch.js', 'serve', '--data-dir', dataDir, '--port', '0', '--json', '--rate', '0', '--backups', '0'],
    60_000,
    env,
  );
  const readyMs = performance.now() - t0;
  const token = JSON.parse(fs.readFileSync(path.join(dataDir, 'runtime.json'), 'utf8')).owner_token;
  const r = await post(ready.port, '/api/owner/hub.info', '{}', { Authorization: `Bearer ${token}` });
  const answeredMs = performance.now() - t0;
  if (r.status !== 200) throw new Error(`${name}: hub.info right after the ready line answered HTTP ${r.status} ${r.text.slice(0, 200)}`);
  await stopProcess(child);
  return { readyMs, answeredMs };
}

export function memoryOf(pid: number): { rss_mb: number; peak_rss_mb: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss_mb: r3(kb('VmRSS') / 1024), peak_rss_mb: r3(kb('VmHWM') / 1024) };
}

export function cpuTicksOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime (fields 14 and 15)
}
