// A hub started on a copy of a data dir (a backup restored beside the original, a folder copied to try something)
// finds in it the runs the original hub has running: their rows say running and their places name real processes.
// It records them interrupted in its own file and leaves their processes alone: they are the original hub's, which
// still counts and ends them. Before, the copy's hub ended them (by their cgroup, group and environment) while the
// original hub was serving. A real `perch serve` on each data dir, a real wake run, /proc for what is alive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  addAgent,
  cliAsync,
  eventually,
  ownerOk,
  removeDataDir,
  startServe,
  tempDataDir,
  uniqueName,
  type Served,
} from '../support/serve-harness';
import { processesOfRun as processesOf } from '../support/wake-cgroups';

/**
 * A copy of a live data dir's database, as a backup of it is: one consistent snapshot (SQLite's online backup), and
 * its other files but runtime.json (with it, the copy's hub would refuse to start, naming the original's pid).
 */
async function copyDataDir(from: string, to: string): Promise<void> {
  for (const name of fs.readdirSync(from)) {
    if (/^perch\.sqlite(-wal|-shm)?$|^runtime\.json$/.test(name)) continue;
    fs.cpSync(path.join(from, name), path.join(to, name), { recursive: true });
  }
  const db = new Database(path.join(from, 'perch.sqlite'), { readonly: true });
  try {
    await db.backup(path.join(to, 'perch.sqlite'));
  } finally {
    db.close();
  }
}

test(
  "a hub started on a copy of the data dir records the original's running wake run interrupted and leaves its processes alone; the original still ends it",
  { skip: process.platform !== 'linux' && 'reads /proc' },
  async () => {
    const dir = tempDataDir();
    const copy = tempDataDir();
    let original: Served | undefined;
    let second: Served | undefined;
    let runId = '';
    try {
      original = await startServe(dir);
      const a = await addAgent(dir, uniqueName('copied'));
      const r = await cliAsync(['agent', 'wake', a.name, '--data-dir', dir, '--shell', 'sleep 300']);
      assert.equal(r.code, 0, r.stderr);
      const g = await ownerOk(original, 'conversations.create_group', { title: 'x', members: [a.id] });
      await ownerOk(original, 'messages.send', { conv_id: g.conversation.conv_id, text: 'please answer', to: [a.id] });
      await eventually(
        async () => {
          const [run] = (await ownerOk(original!, 'wake.runs', { agent: a.name })).runs as any[];
          runId = run?.status === 'running' && run.pid ? run.id : '';
          return runId !== '' && processesOf(runId).length >= 1;
        },
        20_000,
        'the run to be alive with its place recorded',
      );
      const alive = processesOf(runId);

      await copyDataDir(dir, copy);
      second = await startServe(copy);
      await eventually(
        async () =>
          ((await ownerOk(second!, 'wake.runs', { agent: a.name })).runs as any[]).find((x) => x.id === runId)?.status === 'interrupted',
        20_000,
        'the copy to record the run interrupted',
      ).catch(async (e) => {
        throw new Error(
          `${e.message}: ${JSON.stringify((await ownerOk(second!, 'wake.runs', { agent: a.name })).runs)} ${second!.stderr()}`,
        );
      });
      // The copy's hub is up and has taken the run (and, its wake not answered there, runs the agent again: its own
      // run, ended here). Had it ended the original's run, its processes would be gone by now (a leftover is ended
      // within a few seconds); they are the same processes, still alive.
      await ownerOk(second, 'wake.set', { agent: a.name, off: true });
      await ownerOk(second, 'wake.stop', { agent: a.name }).catch(() => undefined);
      await new Promise((res) => setTimeout(res, 1500));
      assert.deepEqual(processesOf(runId), alive, "the original hub's run is alive");
      const [still] = (await ownerOk(original, 'wake.runs', { agent: a.name })).runs as any[];
      assert.equal(still.status, 'running', 'the original hub still runs it');
      assert.match(second.stderr(), /was started by the hub of another data dir/);

      await ownerOk(original, 'wake.stop', { agent: a.name });
      await eventually(() => processesOf(runId).length === 0, 20_000, 'the original hub to end its run');
    } finally {
      await second?.stop();
      await original?.stop();
      for (const pid of runId ? processesOf(runId) : []) process.kill(pid, 'SIGKILL');
      removeDataDir(dir);
      removeDataDir(copy);
    }
  },
);
