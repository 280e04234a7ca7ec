// What a user meets in the window of `perch serve` between its ready line and its hub (cli/serve-front.ts): a second
// `perch serve` on the same data dir, signals, a hub that fails to load, and what clients send meanwhile. The window
// is held open by a preload (test/support/serve-window.ts), never by timing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, ROOT, addAgent, cliAsync, ensureBuilt, exitOf, removeDataDir, startServe, tempDataDir } from '../support/serve-harness';
import { portOpen, rawConn, startHeldServe } from '../support/serve-window';

/** A second `perch serve --port PORT --json` on dir: its first stdout line (it started) or its exit (it refused). */
function secondServe(dir: string, port = 0): Promise<{ started: boolean; code: number | null; stdout: string; stderr: string }> {
  const proc = spawn(process.execPath, [BIN, 'serve', '--data-dir', dir, '--port', String(port), '--json'], {
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

test('a second perch serve on the same data dir and port in the window says the first serves it (not that a stranger holds the port)', async () => {
  ensureBuilt();
  const dir = tempDataDir();
  const first = await startHeldServe(dir);
  try {
    assert.ok(await first.heldBack());
    const second = await secondServe(dir, first.port);
    assert.equal(second.started, false, second.stdout);
    assert.equal(second.stderr.trim().split('\n').length, 1, second.stderr);
    assert.match(second.stderr, new RegExp(`already serving .* at ${first.mcpUrl.replace(/[.]/g, '\\.')}`));
  } finally {
    assert.equal(await first.cleanup(), 0, first.stderr());
    removeDataDir(dir);
  }
});

test('perch restore while perch serve is between its ready line and its hub refuses and changes nothing', async () => {
  ensureBuilt();
  const dir = tempDataDir();
  await addAgent(dir, 'kept');
  const copy = path.join(tempDataDir(), 'copy.sqlite');
  fs.copyFileSync(path.join(dir, 'perch.sqlite'), copy);
  const served = await startHeldServe(dir);
  try {
    assert.ok(await served.heldBack());
    const r = await cliAsync(['restore', copy, '--data-dir', dir], { timeoutMs: 30_000 });
    assert.equal(r.code, 1, `restore under a starting hub: ${r.stdout} ${r.stderr}`);
    assert.match(r.stderr, /is serving .*nothing was changed/);
    const backups = fs.existsSync(path.join(dir, 'backups')) ? fs.readdirSync(path.join(dir, 'backups')) : [];
    assert.deepEqual(
      backups.filter((f) => f.includes('pre-restore')),
      [],
      'the database was not replaced',
    );
  } finally {
    assert.equal(await served.cleanup(), 0, served.stderr());
    removeDataDir(dir);
  }
});

test('a hub that fails to load after the ready line: exit 1 with one message, runtime.json removed, the port released, the held connection closed, the database closed (no -wal)', async () => {
  ensureBuilt();
  const dir = tempDataDir();
  const served = await startHeldServe(dir, { hubFails: true });
  try {
    assert.ok(await served.heldBack());
    const held = rawConn(served.port, `POST /api/owner/hub.info HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}`);
    await held.written;
    served.release();
    const code = await new Promise<number | null>((resolve) => served.proc.once('exit', resolve));
    assert.equal(code, 1, served.stderr());
    assert.match(served.stderr(), /^perch: the hub did not start after its ready line: .*EIO/m);
    const ended = await held.ended;
    assert.notEqual(ended.how, 'hung', 'the held connection is closed, not left waiting');
    assert.ok(!fs.existsSync(path.join(dir, 'runtime.json')), 'runtime.json is removed');
    assert.equal(await portOpen(served.port), false, 'the port is released');
    assert.ok(!fs.existsSync(path.join(dir, 'perch.sqlite-wal')), 'the database was closed (no -wal left)');
  } finally {
    await served.cleanup();
    removeDataDir(dir);
  }
});

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  test(`${signal} between the ready line and the hub: exit 0, the held requests answered or closed, runtime.json removed, the database closed (no -wal)`, async () => {
    ensureBuilt();
    const dir = tempDataDir();
    const served = await startHeldServe(dir);
    try {
      assert.ok(await served.heldBack());
      const rt = JSON.parse(fs.readFileSync(path.join(dir, 'runtime.json'), 'utf8'));
      const whole = rawConn(
        served.port,
        `POST /api/owner/hub.info HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${rt.owner_token}\r\nContent-Length: 2\r\n\r\n{}`,
      );
      const half = rawConn(served.port, `POST /api/owner/hub.info HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n`);
      await Promise.all([whole.written, half.written]);
      served.proc.kill(signal);
      served.release();
      const code = await new Promise<number | null>((resolve) =>
        served.proc.once('exit', (c, s) => resolve(c ?? (s as unknown as number))),
      );
      assert.equal(code, 0, served.stderr());
      for (const c of [whole, half]) {
        const e = await c.ended;
        assert.notEqual(e.how, 'hung', 'a held connection is answered or closed');
      }
      assert.ok(!fs.existsSync(path.join(dir, 'runtime.json')), 'runtime.json is removed');
      assert.ok(!fs.existsSync(path.join(dir, 'perch.sqlite-wal')), 'the database was closed (no -wal left)');
      assert.equal(await portOpen(served.port), false, 'the port is released');
    } finally {
      await served.cleanup();
      removeDataDir(dir);
    }
  });
}

test('SIGHUP (its terminal closed) stops a hub that is up, whichever way it started: exit 0, runtime.json removed, no -wal', async () => {
  ensureBuilt();
  // Ready line first, and the whole way first (--public-url is checked and saved before the ready line).
  for (const args of [[], ['--public-url', 'https://laptop.tail1234.ts.net']]) {
    const dir = tempDataDir();
    const served = await startServe(dir, { args });
    try {
      const rt = JSON.parse(fs.readFileSync(path.join(dir, 'runtime.json'), 'utf8'));
      const res = await fetch(`${rt.base_url}/api/owner/hub.info`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${rt.owner_token}` },
        body: '{}',
      });
      assert.equal(res.status, 200, 'the hub is up');
      served.proc.kill('SIGHUP');
      assert.equal(await served.stop(), 0, `${args.join(' ') || 'ready line first'}: ${served.stderr()}`);
      assert.ok(!fs.existsSync(path.join(dir, 'runtime.json')), 'runtime.json is removed');
      assert.ok(!fs.existsSync(path.join(dir, 'perch.sqlite-wal')), 'the database was closed (no -wal left)');
    } finally {
      await served.stop();
      removeDataDir(dir);
    }
  }
});
