// What wake runs keep across a restart (the queue in settings `wake_queue`, where each run lives in
// `wake_place:<run>`) read back in odd states by a real `perch serve`: a corrupt queue, a queue naming an agent that
// does not exist, and a run's place naming a cgroup that is not the run's (a restored backup, an edited file). The
// hub starts and serves, takes up what reads as a queue, and never kills a cgroup a record names unless the cgroup is
// named after that run (checked from the OS: a process the test put in such a cgroup is still alive).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { addAgent, eventually, ownerOk, removeDataDir, sleep, startServe, tempDataDir, uniqueName } from '../support/serve-harness';
import { perchWakeParents } from '../support/wake-cgroups';

function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function withDb(dir: string, f: (db: Database.Database) => void): void {
  const db = new Database(path.join(dir, 'perch.sqlite'));
  try {
    f(db);
  } finally {
    db.close();
  }
}

const setSetting = (db: Database.Database, key: string, value: string) =>
  db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);

function runningRow(db: Database.Database, runId: string, agentId: string): void {
  db.prepare(
    `INSERT INTO wake_runs (id, agent_id, kind, status, woken_at, started_at, why) VALUES (?, ?, 'command', 'running', ?, ?, '{"count":1,"reasons":[]}')`,
  ).run(runId, agentId, Date.now(), Date.now());
}

for (const [what, queue] of [
  ['a corrupt stored queue', '[{"agentId": not json'],
  ['a stored queue that is not a list', '{"agentId":"x"}'],
  ['a stored queue naming an agent that does not exist, and entries of the wrong shape', ''],
] as const) {
  test(`a hub starts and serves with ${what}; the stored queue is rewritten from what reads as one`, async () => {
    const dir = tempDataDir();
    const a = await addAgent(dir, uniqueName('stored-odd'));
    const text =
      queue ||
      JSON.stringify([{ agentId: 'a_nobody', since: 1, wokenAt: 1, byOwner: true }, null, 7, { agentId: a.id, since: 2, wokenAt: 2 }]);
    withDb(dir, (db) => setSetting(db, 'wake_queue', text));
    const served = await startServe(dir);
    try {
      const l = (await ownerOk(served, 'wake.limits.get')).limits;
      assert.equal(l.running.length, 0);
      // The unknown agent's entry is taken up and dropped at its turn (it has no wake action): nothing runs, nothing is left.
      assert.deepEqual(l.queued, [], JSON.stringify(l.queued));
      withDb(dir, (db) =>
        assert.equal(
          db.prepare("SELECT value FROM settings WHERE key = 'wake_queue'").get(),
          undefined,
          'the stored queue is rewritten (empty)',
        ),
      );
    } finally {
      assert.equal(await served.stop(), 0, served.stderr());
      removeDataDir(dir);
    }
  });
}

const cgroupsHere = process.platform === 'linux' && process.getuid?.() === 0 && perchWakeParents().length > 0;

test(
  "a run whose stored place names a cgroup that is not the run's: the next hub does not kill it (its process is alive, from the OS)",
  { skip: cgroupsHere ? false : 'needs cgroups Perch may make (Linux as root)' },
  async () => {
    const dir = tempDataDir();
    const a = await addAgent(dir, uniqueName('stored-place'));
    // A cgroup of someone else's beside Perch's, with a process in it.
    const unified = perchWakeParents().find((p) => p.includes('unified') || !p.includes('memory'))!;
    const other = path.join(path.dirname(unified), `not-perch-${crypto.randomUUID()}`);
    fs.mkdirSync(other);
    const victim = spawn('/bin/sh', ['-c', 'echo $$ > "$1/cgroup.procs" && exec sleep 300', 'victim', other], { stdio: 'ignore' });
    let served: Awaited<ReturnType<typeof startServe>> | undefined;
    try {
      await eventually(() => fs.readFileSync(path.join(other, 'cgroup.procs'), 'utf8').trim() !== '', 5000, 'the victim in its cgroup');
      const runId = `run_${crypto.randomUUID().replace(/-/g, '')}`;
      withDb(dir, (db) => {
        runningRow(db, runId, a.id);
        // No pid that could be anyone's (start null): only the named cgroup could be acted on.
        setSetting(db, `wake_place:${runId}`, JSON.stringify({ pid: 999_999_999, start: null, cgroup: { dir: other, memory: null } }));
      });
      served = await startServe(dir);
      const [run] = (await ownerOk(served, 'wake.runs', { agent: a.name })).runs as any[];
      assert.equal(run.status, 'interrupted', 'the leftover run is recorded interrupted');
      // Its place is dropped once the leftover was dealt with.
      await eventually(
        () => {
          let left: unknown;
          withDb(dir, (db) => (left = db.prepare('SELECT value FROM settings WHERE key = ?').get(`wake_place:${runId}`)));
          return left === undefined;
        },
        15_000,
        'the place row to be deleted',
      );
      await sleep(300);
      assert.ok(alive(victim.pid!), 'the process in the cgroup the record named is alive');
      assert.ok(fs.existsSync(other), 'that cgroup is left alone');
    } finally {
      if (served) assert.equal(await served.stop(), 0, served.stderr());
      try {
        fs.writeFileSync(path.join(other, 'cgroup.kill'), '1');
      } catch {
        /* gone */
      }
      await eventually(() => !alive(victim.pid!), 5000, 'the victim to end');
      try {
        fs.rmdirSync(other);
      } catch {
        /* already gone */
      }
      removeDataDir(dir);
    }
  },
);
