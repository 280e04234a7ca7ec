// A harness's permission prompt across faults: a full disk while its hook goes away (a real small tmpfs), and the hub
// stopping between the owner's decision and the hook's answer. The hub runs in this process (startHub: the real HTTP
// door, the real SQLite file); the hook is a raw HTTP request to the Claude Code door, as Claude Code's HTTP hook makes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { startHub, type RunningHub } from '../../src/main/app';
import { addAgent } from '../../src/main/hub/control/agents';
import { decideRequest, getRequestForOwner, listRequests } from '../../src/main/hub/features/requests/owner-decisions';
import { HubError } from '../../src/shared/errors';
import { harnessOf } from '../../src/main/hub/control/harness';
import { claudeCodeBash, ALLOW_OUTPUT } from '../fixtures/permission-request';
import { eventually, removeDataDir, tempDataDir } from '../support/serve-harness';
import { fillDisk, smallDisk, unmount } from '../support/small-disk';

/** A hook waiting at the door: its answer when it comes, and a way to go away (the harness killed it). */
function waitingHook(base: string, key: string): { answer: Promise<string>; goAway(): void } {
  const body = JSON.stringify(claudeCodeBash);
  let req!: http.ClientRequest;
  const answer = new Promise<string>((resolve, reject) => {
    req = http.request(
      `${base}/hook/claude-code/permission-request`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}`, 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => resolve(text));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  answer.catch(() => undefined);
  return { answer, goAway: () => req.destroy() };
}

async function pendingPrompt(running: RunningHub, agentId: string) {
  let id: string | undefined;
  await eventually(
    () => {
      id = listRequests(running.hub, { state: 'pending' }).find((r) => r.requester.id === agentId)?.request_id;
      return id !== undefined;
    },
    20_000,
    'the hook prompt in the inbox',
  );
  return id!;
}

// ---- a real full disk: a small tmpfs (as test/stress/storage-full.test.ts) ------------------------------------------

const probe = smallDisk('8m');
if (probe.dir) unmount(probe.dir);

test(
  "a hook prompt whose withdrawal a full disk refused (a real tmpfs) is withdrawn once there is room, and the owner's approve is refused meanwhile: nobody waits for it",
  { skip: probe.why, timeout: 120_000 },
  async () => {
    const disk = smallDisk('8m').dir!;
    let running: RunningHub | undefined;
    try {
      const data = path.join(disk, 'data');
      fs.mkdirSync(data);
      running = await startHub({ dataDir: data, port: 0, ratePerSecond: 0, dailyBackups: 0 });
      const hub = running.hub;
      const { agent, key } = addAgent(hub, { name: 'kit' });
      const hook = waitingHook(running.baseUrl, key);
      const id = await pendingPrompt(running, agent.id);

      hub.db.pragma('wal_checkpoint(TRUNCATE)'); // every write from now on must grow the WAL
      const filler = fillDisk(disk);
      hook.goAway(); // the harness stopped waiting: its prompt is withdrawn, but the disk has no room for that
      await eventually(() => hub.storage.state === 'full', 20_000, 'the withdrawal refused by the full disk');
      assert.equal(getRequestForOwner(hub, id).state, 'pending', 'the withdrawal could not be written');

      fs.rmSync(filler); // room again
      assert.throws(
        () => decideRequest(hub, hub.ownerId, { request_id: id, decision: 'approve' }),
        (e: unknown) => e instanceof HubError && e.code === 'conflict' && /withdrawn: the harness stopped waiting/.test(e.message),
        'an approve with nobody waiting is refused',
      );
      await eventually(() => getRequestForOwner(hub, id).state === 'cancelled', 20_000, 'the withdrawal written once there is room');
      assert.match(getRequestForOwner(hub, id).withdrawn ?? '', /^the harness stopped waiting/);
    } finally {
      await running?.close();
      unmount(disk);
    }
  },
);

test("the hub stopped between the owner's approve and the hook's answer: at the next start the card says the decision never reached the harness; a delivered one says delivered", async () => {
  const dir = tempDataDir();
  const crashed = tempDataDir();
  let running: RunningHub | undefined;
  let restarted: RunningHub | undefined;
  try {
    running = await startHub({ dataDir: dir, port: 0, ratePerSecond: 0, dailyBackups: 0 });
    const hub = running.hub;
    const { agent, key } = addAgent(hub, { name: 'kit' });
    const hook = waitingHook(running.baseUrl, key);
    const id = await pendingPrompt(running, agent.id);
    decideRequest(hub, hub.ownerId, { request_id: id, decision: 'approve' });
    // What a kill -9 right now would leave: the committed file, before the door could answer the hook.
    fs.rmSync(crashed, { recursive: true, force: true });
    fs.mkdirSync(crashed);
    hub.db.exec(`VACUUM INTO '${path.join(crashed, 'perch.sqlite').replace(/'/g, "''")}'`);

    assert.equal(await hook.answer, ALLOW_OUTPUT, 'this hub answered the hook');
    await eventually(() => getRequestForOwner(hub, id).delivery === 'delivered', 10_000, 'the answer recorded as delivered');
    assert.equal(getRequestForOwner(hub, id).outcome?.decision, 'approve');
    assert.equal(
      (getRequestForOwner(hub, id).outcome as unknown as Record<string, unknown>).delivery,
      undefined,
      'the outcome is the decision only',
    );

    restarted = await startHub({ dataDir: crashed, port: 0, ratePerSecond: 0, dailyBackups: 0 });
    const after = getRequestForOwner(restarted.hub, id);
    assert.equal(after.state, 'approved', 'the decision stays recorded');
    assert.equal(after.delivery, 'undelivered', 'and the card says it never reached the harness');
  } finally {
    await running?.close();
    await restarted?.close();
    removeDataDir(dir);
    removeDataDir(crashed);
  }
});

test('after a kill, an agent whose harness was waiting on a Perch card shows as waiting in its session (its own dialog asks now), not offline', async () => {
  const dir = tempDataDir();
  const crashed = tempDataDir();
  let running: RunningHub | undefined;
  let restarted: RunningHub | undefined;
  try {
    running = await startHub({ dataDir: dir, port: 0, ratePerSecond: 0, dailyBackups: 0 });
    const { agent, key } = addAgent(running.hub, { name: 'kit' });
    const hook = waitingHook(running.baseUrl, key);
    await pendingPrompt(running, agent.id);
    fs.rmSync(crashed, { recursive: true, force: true });
    fs.mkdirSync(crashed);
    running.hub.db.exec(`VACUUM INTO '${path.join(crashed, 'perch.sqlite').replace(/'/g, "''")}'`); // what a kill -9 now leaves
    hook.goAway();

    restarted = await startHub({ dataDir: crashed, port: 0, ratePerSecond: 0, dailyBackups: 0 });
    const status = harnessOf(restarted.hub, agent.id);
    assert.equal(status?.state, 'waiting', 'its session waits for its user');
    assert.equal(status?.harness, 'claude-code');
    assert.equal(status?.session_id, 'abc123');
    assert.equal(status?.message, 'its own dialog asks: Allow Bash: rm -rf node_modules?');
  } finally {
    await running?.close();
    await restarted?.close();
    removeDataDir(dir);
    removeDataDir(crashed);
  }
});
