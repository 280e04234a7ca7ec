// perch export never writes through a name someone could plant beside its output: the archive
// is written in a private staging folder (mkdtemp, 0700, files opened O_EXCL|O_NOFOLLOW) and renamed into place.
// And an export killed with SIGKILL leaves no staging copy that grows forever (finding 14): the next export into the
// same folder sweeps what a dead export left (only this user's real 0700 folders whose process is gone; a planted
// symlink is never followed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { openDatabase } from '../../src/main/store/db/db';
import { createHub } from '../../src/main/hub-services';
import { addAgent } from '../../src/main/hub/control/agents';
import { runOwnerAction } from '../../src/main/owner/actions';
import { walkExport } from '../../src/main/store/export/read';
import { BIN, cliAsync, ensureBuilt, exitOf, removeDataDir, tempDataDir } from '../support/serve-harness';

/** A data dir holding one group with `n` owner messages of `size` characters each. */
async function seeded(n: number, size: number): Promise<string> {
  const dir = tempDataDir();
  const db = openDatabase(path.join(dir, 'perch.sqlite'));
  const hub = createHub({ db });
  try {
    const { agent } = addAgent(hub, { name: 'scribe' });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const conv = ((await runOwnerAction(hub, 'conversations.create_group', { title: 'long', members: [agent.name] })) as any).conversation
      .conv_id as string;
    for (let i = 0; i < n; i++) await runOwnerAction(hub, 'messages.send', { conv_id: conv, text: `line ${i} ${'x'.repeat(size)}` });
  } finally {
    hub.close();
    db.close();
  }
  return dir;
}

const stagingLeft = (dir: string) => fs.readdirSync(dir).filter((n) => n.startsWith('.perch-export-'));

test('perch export does not write through a symlink planted at the old predictable partial name: the victim is unchanged, the archive is whole', async () => {
  const data = await seeded(5, 10);
  const shared = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-shared-'));
  try {
    const victim = path.join(shared, 'victim.txt');
    fs.writeFileSync(victim, 'precious\n');
    const out = path.join(shared, 'exp.tar.gz');
    fs.symlinkSync(victim, `${out}.partial`);
    const r = await cliAsync(['export', '--out', out, '--data-dir', data], { timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(fs.readFileSync(victim, 'utf8'), 'precious\n', 'the symlink target is unchanged');
    assert.equal(fs.readlinkSync(`${out}.partial`), victim, 'the planted link is left as it was (not followed, not used)');
    assert.ok(fs.lstatSync(out).isFile(), 'the archive is a file of its own');
    const texts: string[] = [];
    await walkExport(out, {
      row: (k, row) => {
        if (k.name === 'messages') texts.push(String(row.text));
      },
    });
    assert.equal(texts.length, 5, 'the archive is whole');
    assert.deepEqual(stagingLeft(shared), [], 'no staging folder is left');
  } finally {
    fs.rmSync(shared, { recursive: true, force: true });
    removeDataDir(data);
  }
});

test(
  'an export killed with SIGKILL mid-way leaves its staging folder; the next export removes it (and never follows a planted link of that name)',
  { timeout: 180_000 },
  async () => {
    const data = await seeded(2500, 2000);
    const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-killed-'));
    const decoyTarget = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-decoy-'));
    try {
      ensureBuilt();
      // Kill exports mid-way until one is caught with its staging folder written (bounded: a few tries).
      let left: string[] = [];
      for (let attempt = 0; attempt < 5 && left.length === 0; attempt++) {
        const p = spawn(process.execPath, [BIN, 'export', '--out', path.join(outDir, 'a.tar.gz'), '--force', '--data-dir', data], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const exited = exitOf(p, 'perch export', 60_000);
        const started = Date.now();
        let killed = false;
        while (!killed && p.exitCode === null && Date.now() - started < 30_000) {
          const staged = stagingLeft(outDir);
          if (staged.some((s) => fs.existsSync(path.join(outDir, s, 'messages.jsonl')))) {
            p.kill('SIGKILL');
            killed = true;
          } else {
            await new Promise((r) => setTimeout(r, 2));
          }
        }
        await exited;
        if (killed) assert.equal(p.signalCode, 'SIGKILL');
        left = stagingLeft(outDir);
      }
      assert.ok(left.length > 0, 'a killed export left its staging folder (the state the next run must clean)');
      assert.ok(fs.existsSync(path.join(outDir, left[0]!, 'messages.jsonl')), 'with the uncompressed history in it');
      // What the sweep must leave: a link planted with a dead export's name, pointing at another folder (never
      // followed); a live process's folder (an export running now); a folder of that name that is not private (0755).
      const dead = spawnSync(process.execPath, ['-e', '']).pid!;
      const link = `.perch-export-${dead}-abcdef`;
      const live = `.perch-export-${process.pid}-Live01`;
      const open = `.perch-export-${dead}-Open01`;
      fs.writeFileSync(path.join(decoyTarget, 'keep.txt'), 'keep');
      fs.symlinkSync(decoyTarget, path.join(outDir, link));
      fs.mkdirSync(path.join(outDir, live), { mode: 0o700 });
      fs.mkdirSync(path.join(outDir, open));
      fs.chmodSync(path.join(outDir, open), 0o755);

      const r = await cliAsync(['export', '--out', path.join(outDir, 'b.tar.gz'), '--data-dir', data], { timeoutMs: 120_000 });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(
        stagingLeft(outDir).sort(),
        [link, live, open].sort(),
        "no dead export's staging folder is left; the link, the live one and the open one are",
      );
      assert.ok(fs.lstatSync(path.join(outDir, link)).isSymbolicLink());
      assert.equal(fs.readFileSync(path.join(decoyTarget, 'keep.txt'), 'utf8'), 'keep', 'what the link points at is untouched');
      assert.ok(fs.statSync(path.join(outDir, 'b.tar.gz')).size > 0);
    } finally {
      fs.rmSync(outDir, { recursive: true, force: true });
      fs.rmSync(decoyTarget, { recursive: true, force: true });
      removeDataDir(data);
    }
  },
);
