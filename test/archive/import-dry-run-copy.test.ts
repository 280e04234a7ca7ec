// perch import --dry-run while the hub serves the data dir checks against a copy of the database in the temp folder
// (cli/data/export.ts): that copy, all of the owner's history, goes with the run however it ends — stopped by Ctrl+C
// or a TERM midway, refused for a damaged archive — and a temp folder with no room for it is one line, nothing left,
// nothing changed. Against the built `perch` and a real `perch serve`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { BIN, addAgent, cliAsync, exitOf, rawCall, removeDataDir, startServe, tempDataDir } from '../support/serve-harness';
import { exportEntries, rewrite } from '../support/export-entries';
import { fillDisk, smallDisk, unmount } from '../support/small-disk';

/** Every table's row count of the database in `dir` (read-only): equal before and after means nothing was written. */
function rowCounts(dir: string): string {
  const db = new Database(path.join(dir, 'perch.sqlite'), { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[];
    return JSON.stringify(tables.map((n) => [n, db.prepare(`SELECT count(*) FROM "${n}"`).pluck().get()]));
  } finally {
    db.close();
  }
}

/** What this run put in the temp folder `tmp` (Node's compile cache, which any perch keeps there, aside). */
const leftIn = (tmp: string) => fs.readdirSync(tmp).filter((f) => !f.startsWith('perch-code-cache'));

test("perch import --dry-run while the hub serves: its copy of the database is removed when the run is stopped midway by SIGINT or SIGTERM, when the archive is refused, and a temp folder with no room for the copy is one line; the hub's database is unchanged each time", async (t) => {
  const src = tempDataDir();
  const dest = tempDataDir();
  const tmp = fs.mkdtempSync(path.join(dest, 'tmp-'));
  const disk = smallDisk('2m');
  try {
    // An archive slow enough to stop midway: a 12 MiB file of random bytes (read, hashed and copied twice).
    const a = await startServe(src, { args: ['--backups', '0'] });
    const archive = path.join(src, 'history.tar.gz');
    try {
      const kit = await addAgent(src, 'kit');
      const conv = (await rawCall(a.mcpUrl, kit.key, 'create_group', { title: 'Blobs', members: [] })).structuredContent!.conversation
        .conv_id as string;
      const data = crypto.randomBytes(12 * 1024 * 1024).toString('base64');
      const sent = await rawCall(a.mcpUrl, kit.key, 'send_file', { conv_id: conv, name: 'blob.bin', data });
      assert.ok(!sent.isError, JSON.stringify(sent));
    } finally {
      await a.stop();
    }
    const exported = await cliAsync(['export', '--out', archive, '--data-dir', src], { timeoutMs: 60_000 });
    assert.equal(exported.code, 0, exported.stderr);

    const b = await startServe(dest, { args: ['--backups', '0'] });
    try {
      await addAgent(dest, 'rue');
      const before = rowCounts(dest);
      const env = { TMPDIR: tmp };
      const args = ['import', archive, '--dry-run', '--data-dir', dest];

      for (const sig of ['SIGINT', 'SIGTERM'] as const) {
        const p = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
        const done = exitOf(p, `perch ${args.join(' ')}`, 60_000);
        // Stopped as soon as its copy exists (bounded: 60 s).
        for (let i = 0; i < 6000 && !leftIn(tmp).length && p.exitCode === null; i++) await new Promise((r) => setTimeout(r, 10));
        assert.equal(leftIn(tmp).length, 1, `${sig}: the dry run made its copy in TMPDIR`);
        p.kill(sig);
        const r = await done;
        assert.equal(r.code, sig === 'SIGINT' ? 130 : 143, `${sig}: stopped midway (${r.stderr})`);
        assert.deepEqual(leftIn(tmp), [], `${sig}: the copy is removed`);
        assert.equal(rowCounts(dest), before, `${sig}: nothing written`);
      }

      // A damaged archive (one byte of the 12 MiB file changed): refused in one line, the copy removed.
      const damaged = path.join(src, 'damaged.tar.gz');
      const entries = await exportEntries(archive);
      const blob = [...entries.keys()].find((n) => n.startsWith('files/') && !n.endsWith('.thumb'))!;
      entries.get(blob)![0] ^= 0xff;
      await rewrite(entries, damaged, () => {});
      const refused = await cliAsync(['import', damaged, '--dry-run', '--data-dir', dest], { env, timeoutMs: 60_000 });
      assert.equal(refused.code, 1, refused.stderr);
      assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
      assert.match(refused.stderr, /cannot be imported: .*Nothing was written\./);
      assert.deepEqual(leftIn(tmp), [], 'refused: the copy is removed');

      if (disk.dir) {
        fillDisk(disk.dir);
        const full = await cliAsync(args, { env: { TMPDIR: disk.dir }, timeoutMs: 60_000 });
        assert.equal(full.code, 1, full.stderr);
        assert.equal(full.stderr.trim().split('\n').length, 1, full.stderr);
        assert.match(
          full.stderr,
          /a dry run while the hub serves checks against a copy of the database, and .* has no room for it \(about .* needed, .* free\); nothing was changed\. .*set TMPDIR/,
        );
        assert.deepEqual(leftIn(disk.dir), ['filler'], 'no copy left on the full disk');
      } else {
        t.diagnostic(`the full temp folder is not tried here: ${disk.why}`);
      }
      assert.equal(rowCounts(dest), before, 'nothing written');
    } finally {
      await b.stop();
    }
  } finally {
    if (disk.dir) unmount(disk.dir);
    removeDataDir(src);
    removeDataDir(dest);
  }
});
