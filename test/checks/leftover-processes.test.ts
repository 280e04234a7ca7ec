// npm test's leftover check (scripts/test-run.ts): a process the run started that is still alive when the run ends is
// named and ended, and the run fails; the user's own processes (without the run's marker) are left alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { endProcesses, processesWithEnv } from '../../scripts/leftovers';

const ROOT = path.resolve(__dirname, '..', '..');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** `node -e CODE` under scripts/test-run.ts: its exit code and stderr. */
function testRun(code: string, graceMs = '1000'): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/test-run.ts', process.execPath, '-e', code], {
    cwd: ROOT,
    env: { ...process.env, PERCH_LEFTOVER_GRACE_MS: graceMs },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stderr: r.stderr };
}

/** Node code that starts a detached daemon (its own session, re-parented to PID 1 when its parent exits) writing its pid to FILE. */
function daemonCode(file: string, tag: string): string {
  return `const { spawn } = require('node:child_process');
const c = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)', ${JSON.stringify(tag)}], { detached: true, stdio: 'ignore' });
require('node:fs').writeFileSync(${JSON.stringify(file)}, String(c.pid));
c.unref();`;
}

test(
  'npm test fails naming a process its run started that outlived it (a detached daemon), and ends it',
  { skip: process.platform !== 'linux' && 'reads /proc' },
  () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-leftover-'));
    const file = path.join(dir, 'pid');
    const tag = `perch-leftover-daemon-${process.pid}`;
    let pid = 0;
    try {
      const r = testRun(daemonCode(file, tag));
      pid = Number(fs.readFileSync(file, 'utf8'));
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, new RegExp(`leftover process ${pid}: .*${tag}`));
      assert.equal(alive(pid), false, 'the leftover was ended');
    } finally {
      if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);

test(
  "npm test's leftover check passes the command's exit code through when nothing is left, and never touches a process without its marker",
  { skip: process.platform !== 'linux' && 'reads /proc' },
  async () => {
    // The user's own process: started outside the run (no marker of that run), alive across it.
    const own = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], { stdio: 'ignore' });
    try {
      assert.deepEqual(testRun('process.exit(0)'), { status: 0, stderr: '' });
      assert.equal(testRun('process.exit(3)').status, 3);
      for (const bad of ['abc', '-5', '1e9', '2.5']) {
        const r = testRun('process.exit(0)', bad);
        assert.equal(r.status, 2, `PERCH_LEFTOVER_GRACE_MS=${bad}`);
        assert.match(r.stderr, /^test-run: PERCH_LEFTOVER_GRACE_MS must be a whole number of ms, 0 to 600000 \(got "[^"]*"\)\n$/);
      }
      assert.ok(alive(own.pid!), "the user's own process is alive");
    } finally {
      own.kill('SIGKILL');
    }
  },
);

test(
  'processesWithEnv finds a process by a NAME=VALUE of its environment, exactly',
  { skip: process.platform !== 'linux' && 'reads /proc' },
  async () => {
    const value = `probe-${process.pid}-${Date.now()}`;
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], {
      stdio: 'ignore',
      env: { ...process.env, PERCH_LEFTOVER_PROBE: value },
    });
    try {
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(
        processesWithEnv('PERCH_LEFTOVER_PROBE', value).map((p) => p.pid),
        [child.pid],
      );
      assert.deepEqual(processesWithEnv('PERCH_LEFTOVER_PROBE', value.slice(0, -1)), [], 'a prefix of the value is not the value');
    } finally {
      child.kill('SIGKILL');
    }
  },
);

test(
  'ending leftovers signals only processes that still carry the marker (a pid given to another process since the scan is left alone)',
  { skip: process.platform !== 'linux' && 'reads /proc' },
  async () => {
    const value = `end-${process.pid}-${Date.now()}`;
    const sleeper = (env: NodeJS.ProcessEnv) =>
      spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], { stdio: 'ignore', env: { ...process.env, ...env } });
    const marked = sleeper({ PERCH_LEFTOVER_PROBE: value });
    // Stands for a pid that was a leftover at the scan, ended, and now belongs to a process of someone else's.
    const other = sleeper({ PERCH_LEFTOVER_PROBE: undefined });
    try {
      await new Promise((r) => setTimeout(r, 300));
      const scanned = [
        { pid: marked.pid!, cmd: 'marked' },
        { pid: other.pid!, cmd: 'reused pid' },
      ];
      await endProcesses(scanned, 'PERCH_LEFTOVER_PROBE', value, 1000);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(alive(marked.pid!), false, 'the marked process was ended');
      assert.equal(alive(other.pid!), true, 'the process without the marker was not signalled');
    } finally {
      marked.kill('SIGKILL');
      other.kill('SIGKILL');
    }
  },
);
