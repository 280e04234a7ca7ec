// A hub killed with SIGKILL leaves its wake runs' folders (perch-run-<pid>-XXXXXX, with the run's MCP config) in the
// run-files dir; the next hub start removes those that belong to no live run, on real folders: this user's, 0700,
// older than the start, whose hub process is gone. A live hub's folders, a symlink (and what it points to), a folder of
// another mode, a fresh one and anything else in the dir are left alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ProcessLauncher } from '../../src/main/launcher/runner';
import { addAgent, alive, eventually, ownerOk, removeDataDir, startServe, tempDataDir, type Served } from '../support/serve-harness';

const posix = typeof process.getuid === 'function';

/** A pid that is no process now: a child that has exited (the kernel does not hand its pid out again at once). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '']);
  assert.ok(r.pid);
  return r.pid;
}

function folder(dir: string, name: string, opts: { mode?: number; ageMs?: number } = {}): string {
  const full = path.join(dir, name);
  fs.mkdirSync(full, { mode: 0o700 });
  fs.writeFileSync(path.join(full, 'run.mcp.json'), '{"secret":"perch_run_x"}', { mode: 0o600 });
  fs.chmodSync(full, opts.mode ?? 0o700);
  const at = new Date(Date.now() - (opts.ageMs ?? 60_000));
  fs.utimesSync(full, at, at);
  return full;
}

test(
  'a hub start removes the run folders of a hub that is gone, and leaves live, foreign, fresh and linked ones',
  { skip: !posix && 'owner and mode checks are POSIX' },
  async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-sweep-test-'));
    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      const runFiles = path.join(root, 'tmp');
      fs.mkdirSync(runFiles, { mode: 0o700 });
      const outside = path.join(root, 'outside');
      fs.mkdirSync(outside, { mode: 0o700 });
      fs.writeFileSync(path.join(outside, 'keep.txt'), "not the hub's");
      const dead = deadPid();

      const gone = folder(runFiles, `perch-run-${dead}-a1B2c3`); // a hub killed with SIGKILL
      const oldUnmarked = folder(runFiles, 'perch-run-Qw3rTy', { ageMs: 3 * 86_400_000 }); // an older hub's, days ago
      const liveHub = folder(runFiles, `perch-run-${live.pid}-d4E5f6`); // another hub, still running
      const fresh = folder(runFiles, `perch-run-${dead}-g7H8i9`, { ageMs: -60_000 }); // changed after this start
      const wide = folder(runFiles, `perch-run-${dead}-j1K2l3`, { mode: 0o755 }); // not a run folder's mode
      const recentUnmarked = folder(runFiles, 'perch-run-m4N5o6'); // an older hub's, may still run
      const mine = folder(runFiles, `perch-run-${process.pid}-p7Q8r9`, { ageMs: 5 }); // this process's own (made after it started)
      const reused = folder(runFiles, `perch-run-${process.pid}-v4W5x6`, { ageMs: process.uptime() * 1000 + 60_000 }); // this pid's, from before it started
      const other = folder(runFiles, 'something-else');
      const link = path.join(runFiles, `perch-run-${dead}-s1T2u3`);
      fs.symlinkSync(outside, link);

      new ProcessLauncher({ dir: path.join(root, 'wake'), runFilesDir: runFiles });

      assert.equal(fs.existsSync(gone), false, "the dead hub's folder is gone, with its config");
      assert.equal(fs.existsSync(oldUnmarked), false, 'an unmarked folder older than any run is gone');
      assert.equal(fs.existsSync(reused), false, "a folder of this pid from before this process started is another process's");
      for (const kept of [liveHub, fresh, wide, recentUnmarked, mine, other])
        assert.ok(fs.existsSync(kept), `${path.basename(kept)} is kept`);
      assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the symlink is left');
      assert.equal(fs.readFileSync(path.join(outside, 'keep.txt'), 'utf8'), "not the hub's", 'what it points to is untouched');
    } finally {
      live.kill('SIGKILL');
      fs.rmSync(root, { recursive: true, force: true });
    }
  },
);

test(
  "perch serve killed with SIGKILL during a wake run leaves the run's folder; the next start on the same machine removes it",
  { skip: !posix && 'owner and mode checks are POSIX', timeout: 60_000 },
  async () => {
    const dir = tempDataDir();
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-run-files-'));
    const env = { TMPDIR: tmp }; // the run-files dir is the system temp dir: here, a folder of this test's own
    let hub: Served | undefined = await startServe(dir, { env });
    let runPid: number | null = null;
    try {
      const agent = await addAgent(dir, 'sleeper');
      await ownerOk(hub, 'wake.set', { agent: agent.name, argv: [process.execPath, '-e', 'setTimeout(() => {}, 60000)'] });
      const conv = (await ownerOk(hub, 'conversations.create_group', { title: 'wake it', members: [agent.id] })).conversation.conv_id;
      await ownerOk(hub, 'messages.send', { conv_id: conv, text: 'please have a look', to: [agent.id] });
      await eventually(
        async () =>
          (await ownerOk(hub!, 'wake.runs', { agent: agent.name })).runs.some(
            (r: { status: string; pid: number | null }) => r.status === 'running' && (runPid = r.pid) !== null,
          ),
        15_000,
        'the run to start',
      );
      const prefix = `perch-run-${hub.proc.pid}-`;
      const folders = fs.readdirSync(tmp).filter((n) => n.startsWith(prefix));
      assert.equal(folders.length, 1, `the run's folder, named with its hub's pid: ${fs.readdirSync(tmp).join(', ')}`);
      const left = path.join(tmp, folders[0]!);

      await hub.kill();
      assert.ok(fs.existsSync(left), 'SIGKILL: the hub could not remove it');
      if (runPid) {
        try {
          process.kill(-runPid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      hub = await startServe(dir, { env });
      await eventually(() => !fs.existsSync(left), 10_000, 'the next start to remove the left folder');
    } finally {
      if (runPid && alive(runPid)) {
        try {
          process.kill(-runPid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      await hub?.stop();
      removeDataDir(dir);
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  },
);
