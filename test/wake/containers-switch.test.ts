// The container listener as a switch in the app: the owner actions containers.get / containers.set on a real
// `perch serve` start and stop the listener on the running hub (no restart), save the setting (the next start opens
// it again), and are laptop-only. PERCH_TEST_CONTAINER_BRIDGE=127.0.0.3 stands in for a docker0 bridge (no container
// runtime here): the hub finds it as it would find docker0.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cli, ownerFail, ownerOk, removeDataDir, startServe, tempDataDir, type Served } from '../support/serve-harness';
import { fetchResolving } from '../support/name-fetch';
import { containerBridges } from '../../src/main/listeners';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type R = any;

const BRIDGE = '127.0.0.3';
const env = { PERCH_TEST_CONTAINER_BRIDGE: BRIDGE };
const inContainer = fetchResolving({ 'host.docker.internal': BRIDGE });
let dir: string;
let served: Served | undefined;
let key: string;

before(() => {
  dir = tempDataDir();
  const r = cli(['agent', 'add', 'boxed', '--data-dir', dir, '--json', '--from', 'containers']);
  assert.equal(r.code, 0, r.stderr);
  key = JSON.parse(r.stdout).key;
});

after(async () => {
  await served?.stop();
  removeDataDir(dir);
});

/** A ping from "inside a container": the status, or 'refused' when nothing listens there. */
async function pingFromContainer(port: number): Promise<number | 'refused'> {
  try {
    const res = await inContainer(`http://host.docker.internal:${port}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${key}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 'refused';
  }
}

test('containers.set turns the container listener on and off on the running hub, and the setting survives a restart', async () => {
  served = await startServe(dir, { env });
  const port = served.port;
  const first = (await ownerOk(served, 'containers.get')).containers as R;
  assert.equal(first.on, false);
  assert.deepEqual(first.listeners, []);
  assert.deepEqual(first.bridges, [{ name: 'test-bridge', address: BRIDGE }]);
  assert.equal(await pingFromContainer(port), 'refused');

  const on = (await ownerOk(served, 'containers.set', { on: true })).containers as R;
  assert.equal(on.on, true);
  assert.deepEqual(on.listeners, [{ url: `http://${BRIDGE}:${port}`, via: 'test-bridge' }]);
  assert.equal(on.container_mcp_url, `http://host.docker.internal:${port}/mcp`);
  assert.equal(await pingFromContainer(port), 200);

  const off = (await ownerOk(served, 'containers.set', { on: false })).containers as R;
  assert.equal(off.on, false);
  assert.deepEqual(off.listeners, []);
  assert.equal(off.container_mcp_url, null);
  assert.equal(await pingFromContainer(port), 'refused');

  // bad input changes nothing
  await ownerFail(served, 'containers.set', { on: 'yes' }, 400);
  await ownerFail(served, 'containers.set', {}, 400);
  assert.equal((await ownerOk(served, 'containers.get')).containers.on, false);

  // saved: on at the next start, listed in the ready line
  await ownerOk(served, 'containers.set', { on: true });
  await served.stop();
  served = await startServe(dir, { env });
  const ready = served.ready as R;
  assert.ok(
    ready.listeners.some((l: R) => l.url === `http://${BRIDGE}:${served!.port}` && l.place === 'containers'),
    JSON.stringify(ready.listeners),
  );
  assert.equal((await ownerOk(served, 'containers.get')).containers.on, true);
  assert.equal(await pingFromContainer(served.port), 200);
});

test('without a container bridge, turning it on says so and nothing listens', async (t) => {
  if (containerBridges().length > 0) return t.skip('this computer has a container bridge');
  const d = tempDataDir();
  const s = await startServe(d);
  try {
    const on = (await ownerOk(s, 'containers.set', { on: true })).containers as R;
    assert.equal(on.on, true);
    assert.deepEqual(on.listeners, []);
    assert.match(on.note, /No container bridge found on this computer/);
  } finally {
    await s.stop();
    removeDataDir(d);
  }
});
