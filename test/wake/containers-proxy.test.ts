// Agents in containers behind a container runtime's user-space proxy (Docker Desktop, Podman machine, rootless
// Podman): the container asks for host.docker.internal:PORT and the runtime connects to this computer's 127.0.0.1:PORT,
// so the request arrives on the loopback listener with Host host.docker.internal. No Docker here: a fetch that resolves
// host.docker.internal to 127.0.0.1 (and raw HTTP with that Host) stands in for the proxy. With containers on (`perch
// serve --containers`, or the Settings switch), such a request with no Origin is from the place `containers`; nothing
// else changes on the loopback.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ERAS, cli, connect, ownerOk, removeDataDir, startServe, tempDataDir, type AgentKey, type Served } from '../support/serve-harness';
import { fetchResolving } from '../support/name-fetch';
import { fileUrlsFromBoxAndLoopback } from '../support/container-file-url';
import { buildRequest, rawExchange } from '../support/raw-http';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type R = any;

/** What Docker Desktop's proxy does: the name stays in the URL (and Host), the connection goes to the loopback. */
const throughProxy = fetchResolving({ 'host.docker.internal': '127.0.0.1', 'host.containers.internal': '127.0.0.1' });

function addWith(dir: string, name: string, from?: string): AgentKey {
  const r = cli(['agent', 'add', name, '--data-dir', dir, '--json', ...(from ? ['--from', from] : [])]);
  assert.equal(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout) as R;
  return { id: j.id, name: j.name, key: j.key };
}

/** A raw request to the loopback listener of `s` with the headers given. */
async function raw(
  s: Served,
  pathName: string,
  headers: Array<[string, string]>,
  method = 'POST',
  body: unknown = { jsonrpc: '2.0', id: 1, method: 'ping' },
): Promise<{ status: number | null; body: R }> {
  const text = method === 'GET' ? '' : JSON.stringify(body);
  const h: Array<[string, string]> = [
    ...headers,
    ['Connection', 'close'],
    ...(method === 'GET' ? [] : [['Content-Type', 'application/json'] as [string, string]]),
  ];
  const a = await rawExchange(s.port, buildRequest(method, pathName, h, text), { timeoutMs: 20_000 });
  let parsed: R;
  try {
    parsed = JSON.parse(a.body.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  return { status: a.status, body: parsed };
}

describe("containers on (perch serve --containers): host.docker.internal through the runtime's proxy onto the loopback", () => {
  let dir: string;
  let served: Served;
  let boxed: AgentKey;
  let local: AgentKey;
  before(async () => {
    dir = tempDataDir();
    boxed = addWith(dir, 'boxed', 'containers');
    local = addWith(dir, 'homebody');
    served = await startServe(dir, { args: ['--containers'] });
  });
  after(async () => {
    await served?.stop();
    removeDataDir(dir);
  });
  const dockerHost = (): [string, string] => ['Host', `host.docker.internal:${served.port}`];

  for (const era of ERAS) {
    test(`a containers key works with the official client at http://host.docker.internal:PORT/mcp (${era}); whoami says containers, through the proxy`, async () => {
      const c = await connect(era, `http://host.docker.internal:${served.port}/mcp`, boxed, { fetch: throughProxy });
      try {
        const me = (await c.ok('whoami')) as R;
        assert.equal(me.agent.name, 'boxed');
        assert.equal(me.connected_from.place, 'containers');
        assert.match(me.connected_from.via, /container runtime proxy on loopback \(Host host\.docker\.internal\)/);
      } finally {
        await c.close();
      }
    });
  }

  test('host.containers.internal, gateway.docker.internal and no port are accepted; another port, another name or any Origin are refused', async () => {
    const key: [string, string] = ['Authorization', `Bearer ${boxed.key}`];
    for (const host of [
      `host.containers.internal:${served.port}`,
      `gateway.docker.internal:${served.port}`,
      'host.docker.internal',
      `HOST.DOCKER.INTERNAL:${served.port}`,
    ]) {
      assert.equal((await raw(served, '/mcp', [['Host', host], key])).status, 200, `Host ${host}`);
    }
    for (const host of [
      `host.docker.internal:${served.port + 1}`,
      `evil.host.docker.internal:${served.port}`,
      `host.docker.internal.evil.example:${served.port}`,
      'docker.internal',
    ]) {
      assert.equal((await raw(served, '/mcp', [['Host', host], key])).status, 403, `Host ${host}`);
    }
    for (const origin of ['http://evil.example', `http://host.docker.internal:${served.port}`, 'null', `http://127.0.0.1:${served.port}`]) {
      const a = await raw(served, '/mcp', [dockerHost(), ['Origin', origin], key]);
      assert.equal(a.status, 403, `Origin ${origin}`);
      assert.match(a.body.error.message, /with an Origin/);
    }
  });

  test('a local key is refused with the 403 that names its places and how to change them; a wrong key is 401', async () => {
    const a = await raw(served, '/mcp', [dockerHost(), ['Authorization', `Bearer ${local.key}`]]);
    assert.equal(a.status, 403);
    assert.match(a.body.error.message, /may connect from local only; this request came from containers/);
    assert.match(a.body.error.message, /perch agent key from homebody local,containers/);
    assert.deepEqual(a.body.error.data.allowed_from, ['local']);
    await assert.rejects(connect('v1', `http://host.docker.internal:${served.port}/mcp`, local, { fetch: throughProxy }));
    assert.equal((await raw(served, '/mcp', [dockerHost(), ['Authorization', 'Bearer perch_nope']])).status, 401);
    assert.equal((await raw(served, '/mcp', [dockerHost()])).status, 401);
  });

  test("an address range does not let a key in through the proxy (the caller's address is the proxy's loopback)", async () => {
    const r = cli(['agent', 'key', 'add', 'homebody', '--name', 'ranged', '--from', '127.0.0.0/8', '--data-dir', dir, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const { secret } = JSON.parse(r.stdout);
    const a = await raw(served, '/mcp', [dockerHost(), ['Authorization', `Bearer ${secret}`]]);
    assert.equal(a.status, 403);
    assert.match(a.body.error.message, /may connect from 127\.0\.0\.0\/8 only/);
  });

  test('a loopback Host still counts as local: the local key works there, the containers-only key is refused there', async () => {
    assert.equal(
      (
        await raw(served, '/mcp', [
          ['Host', `127.0.0.1:${served.port}`],
          ['Authorization', `Bearer ${local.key}`],
        ])
      ).status,
      200,
    );
    const back = await raw(served, '/mcp', [
      ['Host', `localhost:${served.port}`],
      ['Authorization', `Bearer ${boxed.key}`],
    ]);
    assert.equal(back.status, 403);
    assert.match(back.body.error.message, /may connect from containers only; this request came from local/);
  });

  test("the owner API, login, UI and the owner's file links stay refused with that Host; the hook doors are served there like /mcp (containers key in, local key 403)", async () => {
    const token = JSON.parse(fs.readFileSync(path.join(dir, 'runtime.json'), 'utf8')).owner_token as string;
    const asks: Array<[string, string, Array<[string, string]>]> = [
      ['POST', '/api/owner/hub.info', [['Authorization', `Bearer ${token}`]]],
      ['POST', '/api/owner/login-link', [['Authorization', `Bearer ${token}`]]],
      ['GET', '/api/owner/events', [['Authorization', `Bearer ${token}`]]],
      ['GET', '/login', []],
      ['GET', '/', []],
      ['GET', '/index.html', []],
      ['GET', '/pair', []],
      ['GET', '/files/f_0123456789abcdef?t=x', []],
    ];
    for (const [method, p, headers] of asks) {
      for (const host of [
        `host.docker.internal:${served.port}`,
        `host.containers.internal:${served.port}`,
        `gateway.docker.internal:${served.port}`,
      ]) {
        const a = await raw(served, p, [['Host', host], ...headers], method, {});
        assert.ok(a.status === 403 || a.status === 404, `${method} ${p} with Host ${host}: ${a.status}`);
      }
    }
    const report = { event: 'stop', harness: 'claude-code' };
    const boxedHook = await raw(served, '/hook', [dockerHost(), ['Authorization', `Bearer ${boxed.key}`]], 'POST', report);
    assert.equal(boxedHook.status, 200, JSON.stringify(boxedHook.body));
    const localHook = await raw(served, '/hook', [dockerHost(), ['Authorization', `Bearer ${local.key}`]], 'POST', report);
    assert.equal(localHook.status, 403);
    assert.match(localHook.body.error.message, /may connect from local only/);
    // the same owner call with a loopback Host works (the token is right)
    assert.equal(
      (
        await raw(
          served,
          '/api/owner/hub.info',
          [
            ['Host', `127.0.0.1:${served.port}`],
            ['Authorization', `Bearer ${token}`],
          ],
          'POST',
          {},
        )
      ).status,
      200,
    );
  });

  test("file_url through the proxy answers a host.docker.internal link served there; the owner's form of the link is not", async () => {
    const { url, localUrl } = await fileUrlsFromBoxAndLoopback(served, boxed, local, throughProxy);
    assert.ok(url.startsWith(`http://host.docker.internal:${served.port}/files/`), url);
    const got = await throughProxy(url);
    assert.equal(got.status, 200);
    assert.equal(await got.text(), 'from the box');
    const pathOf = (u: string) => new URL(u).pathname;
    assert.equal((await raw(served, pathOf(localUrl), [dockerHost()], 'GET')).status, 403, "the owner's link with a container Host");
    assert.equal((await raw(served, pathOf(url), [dockerHost(), ['Origin', 'http://evil.example']], 'GET')).status, 403, 'with an Origin');
    assert.equal(
      (await raw(served, pathOf(url), [['Host', `127.0.0.1:${served.port}`]], 'GET')).status,
      404,
      'the container form on a loopback Host',
    );
  });
});

describe('containers off: host.docker.internal on the loopback is refused as before, until the Settings switch turns them on', () => {
  let dir: string;
  let served: Served;
  let boxed: AgentKey;
  before(async () => {
    dir = tempDataDir();
    boxed = addWith(dir, 'boxed', 'containers');
    served = await startServe(dir);
  });
  after(async () => {
    await served?.stop();
    removeDataDir(dir);
  });

  test('refused while off; containers.set on lets the containers key in; off refuses again', async () => {
    const ask = () =>
      raw(served, '/mcp', [
        ['Host', `host.docker.internal:${served.port}`],
        ['Authorization', `Bearer ${boxed.key}`],
      ]);
    const off = await ask();
    assert.equal(off.status, 403);
    assert.match(off.body.error.message, /agents in containers are turned off/);
    await assert.rejects(connect('v1', `http://host.docker.internal:${served.port}/mcp`, boxed, { fetch: throughProxy }));
    await ownerOk(served, 'containers.set', { on: true });
    assert.equal((await ask()).status, 200);
    const c = await connect('v2', `http://host.docker.internal:${served.port}/mcp`, boxed, { fetch: throughProxy });
    assert.equal(((await c.ok('whoami')) as R).connected_from.place, 'containers');
    await c.close();
    await ownerOk(served, 'containers.set', { on: false });
    assert.equal((await ask()).status, 403);
  });
});
