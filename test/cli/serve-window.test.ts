// What a user meets in the window of `perch serve` between its ready line and its hub (cli/serve-front.ts): a second
// `perch serve` on the same data dir, signals, a hub that fails to load, and what clients send meanwhile. The window
// is held open by a preload (test/support/serve-window.ts), never by timing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, ROOT, ensureBuilt, exitOf, removeDataDir, tempDataDir } from '../support/serve-harness';
import { startHeldServe } from '../support/serve-window';

/** A second `perch serve --port 0 --json` on dir: its first stdout line (it started) or its exit (it refused). */
function secondServe(dir: string): Promise<{ started: boolean; code: number | null; stdout: string; stderr: string }> {
  const proc = spawn(process.execPath, [BIN, 'serve', '--data-dir', dir, '--port', '0', '--json'], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exit = exitOf(proc, 'the second perch serve', 30_000);
  let out = '';
  let started = false;
  proc.stdout!.on('data', (c: Buffer) => {
    out += c.toString('utf8');
    if (!started && out.includes('\n')) {
      started = true;
      proc.kill('SIGTERM');
    }
  });
  return exit.then((r) => ({ started, code: r.code, stdout: out, stderr: r.stderr }));
}

test('a second perch serve on the same data dir while the first is between its ready line and its hub refuses, naming the first', async () => {
  ensureBuilt();
  const dir = tempDataDir();
  const first = await startHeldServe(dir);
  try {
    assert.ok(await first.heldBack(), 'the first hub is held back after its ready line');
    const second = await secondServe(dir);
    assert.equal(second.started, false, `the second perch serve started beside the first: ${second.stdout}`);
    assert.notEqual(second.code, 0);
    assert.match(second.stderr, new RegExp(`already serving .* at ${first.mcpUrl.replace(/[.]/g, '\\.')}`));
    const rt = JSON.parse(fs.readFileSync(path.join(dir, 'runtime.json'), 'utf8'));
    assert.equal(rt.pid, first.proc.pid, "the first hub's runtime.json is kept");
  } finally {
    assert.equal(await first.cleanup(), 0, first.stderr());
    removeDataDir(dir);
  }
});
