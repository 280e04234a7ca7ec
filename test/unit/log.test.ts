// The hub log (src/main/log.ts): it rotates at a size cap, keeps a bounded number of files, and a
// failing write (ENOSPC on /dev/full, a path that cannot be opened) never throws: lines are dropped,
// counted, and writing resumes (saying how many were dropped) once it works again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogWriter, type LogWriter } from '../../src/main/log';

const turn = () => new Promise<void>((r) => setImmediate(r));

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'perch-log-'));
}

/** Writes n lines, one per event-loop turn, then waits (bounded) until every one was written or dropped. */
async function writeLines(log: LogWriter, n: number, from = 0): Promise<void> {
  const before = log.stats();
  for (let i = from; i < from + n; i++) {
    log.write({ i, pad: 'x'.repeat(80) });
    await turn();
  }
  const deadline = Date.now() + 10_000;
  for (;;) {
    const s = log.stats();
    if (s.written + s.dropped >= before.written + before.dropped + n) return;
    assert.ok(Date.now() < deadline, `the log did not finish writing: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('the log rotates at its size cap and keeps only `keep` old files, the newest lines in hub.log', async () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, 'logs', 'hub.log');
    const log = createLogWriter({ file, maxBytes: 1000, keep: 3 });
    await writeLines(log, 200);
    await log.close();
    const names = fs.readdirSync(path.dirname(file)).sort();
    assert.deepEqual(names, ['hub.log', 'hub.log.1', 'hub.log.2', 'hub.log.3'], 'hub.log and at most 3 rotated files');
    for (const n of names) {
      assert.ok(fs.statSync(path.join(dir, 'logs', n)).size <= 1000, `${n} is within the cap`);
    }
    const stats = log.stats();
    assert.equal(stats.written, 200);
    assert.equal(stats.dropped, 0);
    assert.ok(stats.rotations > 3, `it rotated (${stats.rotations} times)`);
    const last = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { i: number });
    assert.equal(last[last.length - 1]!.i, 199, 'the newest line is in hub.log');
    const older = fs
      .readFileSync(`${file}.1`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { i: number });
    assert.equal(older[older.length - 1]!.i + 1, last[0]!.i, 'hub.log.1 ends where hub.log begins');
    assert.equal((fs.statSync(file).mode & 0o777).toString(8), '600', 'the log is private');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('keep 0: the log starts over instead of growing past the cap', async () => {
  const dir = tempDir();
  try {
    const file = path.join(dir, 'hub.log');
    const log = createLogWriter({ file, maxBytes: 500, keep: 0 });
    await writeLines(log, 50);
    await log.close();
    assert.deepEqual(fs.readdirSync(dir), ['hub.log']);
    assert.ok(fs.statSync(file).size <= 500);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test(
  'a log on a full disk (/dev/full: ENOSPC) drops and counts lines without throwing, then resumes and says how many it dropped',
  { skip: !fs.existsSync('/dev/full') && 'no /dev/full here' },
  async () => {
    const dir = tempDir();
    try {
      const file = path.join(dir, 'hub.log');
      fs.symlinkSync('/dev/full', file);
      const troubles: string[] = [];
      const log = createLogWriter({ file, retryMs: 0, onTrouble: (m) => troubles.push(m) });
      await writeLines(log, 20);
      let stats = log.stats();
      assert.equal(stats.failing, true);
      assert.equal(stats.lastError, 'ENOSPC');
      assert.equal(stats.dropped, 20, 'every line was dropped and counted');
      assert.equal(stats.written, 0);
      assert.equal(troubles.length, 1, 'the trouble is told once, not once per line');
      assert.match(troubles[0]!, /ENOSPC/);

      // Space returns: the path is a writable file again.
      fs.rmSync(file);
      await writeLines(log, 3, 100);
      stats = log.stats();
      assert.equal(stats.failing, false);
      assert.equal(stats.written, 3);
      assert.equal(troubles.length, 2, 'recovery is told too');
      await log.close();
      const lines = fs
        .readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.deepEqual(
        lines[0],
        { ...lines[0], door: 'log', dropped: 20, error: 'ENOSPC' },
        'the first line written says how many were dropped',
      );
      assert.deepEqual(
        lines.slice(1).map((l) => l.i),
        [100, 101, 102],
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('a log whose folder cannot be made (a file is in the way) drops lines without throwing, and close() still resolves', async () => {
  const dir = tempDir();
  try {
    fs.writeFileSync(path.join(dir, 'logs'), 'not a folder');
    const log = createLogWriter({ file: path.join(dir, 'logs', 'hub.log'), retryMs: 60_000 });
    await writeLines(log, 5);
    const stats = log.stats();
    assert.equal(stats.failing, true);
    assert.equal(stats.dropped, 5);
    assert.ok(stats.lastError === 'ENOTDIR' || stats.lastError === 'EEXIST', `error ${stats.lastError}`);
    await log.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
