// Agents in containers: a real `perch serve --listen 127.0.0.2` (the second loopback address stands in for the
// docker0 bridge: no container runtime here), reached the way a container reaches it — the URL names
// host.docker.internal (or host.containers.internal), resolved to the bridge address as `--add-host
// host.docker.internal:host-gateway` does — by the official MCP clients. Keys say where they may connect from
// (perch agent add --from, perch agent key from, agents.set_from); the extra listener serves /mcp and the hook doors only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ERAS,
  cli,
  cliAsync,
  connect,
  eventually,
  ownerFail,
  ownerOk,
  removeDataDir,
  startServe,
  tempDataDir,
  type AgentKey,
  type Served,
} from '../support/serve-harness';
import { fetchResolving } from '../support/name-fetch';
import { fileUrlsFromBoxAndLoopback } from '../support/container-file-url';
import { buildRequest, rawExchange } from '../support/raw-http';
import { containerBridges } from '../../src/main/listeners';
import { claudeCodeHttpHook, postHttpHook, runHook } from '../support/hook-runner';
import { keyEnvVar } from '../../src/shared/agents/snippets';
import { claudeCodeBash } from '../fixtures/permission-request';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type R = any;

const BRIDGE = '127.0.0.2';
const inContainer = fetchResolving({ 'host.docker.internal': BRIDGE, 'host.containers.internal': BRIDGE });

let served: Served;
let dir: string;

function addWith(name: string, from?: string): AgentKey {
  const r = cli(['agent', 'add', name, '--data-dir', dir, '--json', ...(from ? ['--from', from] : [])]);
  assert.equal(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout) as R;
  return { id: j.id, name: j.name, key: j.key };
}

/** A raw POST to the bridge listener (any Host), answering status and parsed body. */
async function rawAt(
  address: string,
  pathName: string,
  headers: Array<[string, string]>,
  body: unknown = { jsonrpc: '2.0', id: 1, method: 'ping' },
  method = 'POST',
): Promise<{ status: number | null; body: R }> {
  const text = method === 'GET' ? '' : JSON.stringify(body);
  const h: Array<[string, string]> = [
    ...headers,
    ['Connection', 'close'],
    ...(method === 'GET' ? [] : [['Content-Type', 'application/json'] as [string, string]]),
  ];
  const a = await rawExchange(served.port, buildRequest(method, pathName, h, text), { timeoutMs: 20_000, host: address });
  let parsed: R;
  try {
    parsed = JSON.parse(a.body.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  return { status: a.status, body: parsed };
}

let boxed: AgentKey;
let local: AgentKey;
/** Temporary HOMEs that `perch connect --write` wrote into (removed after). */
const homes: string[] = [];

before(async () => {
  dir = tempDataDir();
  boxed = addWith('boxed', 'containers');
  local = addWith('homebody');
  served = await startServe(dir, { args: ['--listen', BRIDGE] });
});

after(async () => {
  await served?.stop();
  removeDataDir(dir);
  for (const h of homes) fs.rmSync(h, { recursive: true, force: true });
});

describe('the container listener (--listen 127.0.0.2 standing in for docker0)', () => {
  test('the --json ready line lists every listener and what it serves, and the URL a container uses', () => {
    const ready = served.ready as R;
    assert.deepEqual(
      ready.listeners.map((l: R) => [l.url, l.serves, l.place]),
      [
        [`http://127.0.0.1:${served.port}`, ['mcp', 'owner', 'ui'], 'local'],
        [`http://${BRIDGE}:${served.port}`, ['mcp'], 'containers'],
      ],
    );
    assert.equal(ready.container_mcp_url, `http://host.docker.internal:${served.port}/mcp`);
  });

  for (const era of ERAS) {
    test(`a containers key works through host.docker.internal with the official client (${era}); whoami says it came from the container listener`, async () => {
      const c = await connect(era, `http://host.docker.internal:${served.port}/mcp`, boxed, { fetch: inContainer });
      try {
        const me = (await c.ok('whoami')) as R;
        assert.equal(me.agent.name, 'boxed');
        assert.equal(me.connected_from.place, 'containers');
        assert.match(me.connected_from.via, /127\.0\.0\.2/);
      } finally {
        await c.close();
      }
    });
  }

  test('host.containers.internal (Podman) and the bridge address itself are accepted as Host; another name is not', async () => {
    const c = await connect('v1', `http://host.containers.internal:${served.port}/mcp`, boxed, { fetch: inContainer });
    await c.ok('whoami');
    await c.close();
    const byAddress = await rawAt(BRIDGE, '/mcp', [
      ['Host', `${BRIDGE}:${served.port}`],
      ['Authorization', `Bearer ${boxed.key}`],
    ]);
    assert.equal(byAddress.status, 200, JSON.stringify(byAddress.body));
    for (const host of ['evil.example', `127.0.0.1:${served.port}`, 'localhost']) {
      const a = await rawAt(BRIDGE, '/mcp', [
        ['Host', host],
        ['Authorization', `Bearer ${boxed.key}`],
      ]);
      assert.equal(a.status, 403, `Host ${host}`);
    }
    const withOrigin = await rawAt(BRIDGE, '/mcp', [
      ['Host', 'host.docker.internal'],
      ['Origin', 'http://host.docker.internal'],
      ['Authorization', `Bearer ${boxed.key}`],
    ]);
    assert.equal(withOrigin.status, 403);
  });

  test('a local key is refused there with a 403 that names its places and how to change them; the MCP client fails', async () => {
    const a = await rawAt(BRIDGE, '/mcp', [
      ['Host', 'host.docker.internal'],
      ['Authorization', `Bearer ${local.key}`],
    ]);
    assert.equal(a.status, 403);
    assert.match(a.body.error.message, /may connect from local only/);
    assert.match(a.body.error.message, /perch agent key from homebody local,containers/);
    assert.deepEqual(a.body.error.data.allowed_from, ['local']);
    await assert.rejects(connect('v1', `http://host.docker.internal:${served.port}/mcp`, local, { fetch: inContainer }));
    // and a containers-only key is refused on the loopback the same way
    const back = await rawAt('127.0.0.1', '/mcp', [
      ['Host', `127.0.0.1:${served.port}`],
      ['Authorization', `Bearer ${boxed.key}`],
    ]);
    assert.equal(back.status, 403);
    assert.match(back.body.error.message, /may connect from containers only; this request came from local/);
    // a wrong key is still 401
    assert.equal(
      (
        await rawAt(BRIDGE, '/mcp', [
          ['Host', 'host.docker.internal'],
          ['Authorization', 'Bearer perch_nope'],
        ])
      ).status,
      401,
    );
  });

  test('POST /hook applies places as /mcp does: a containers-only key is refused from the loopback /hook with the same 403 and nothing is noted; on the bridge listener the containers key is let in and the local key refused', async () => {
    const report = { event: 'notification', harness: 'claude-code', session_id: 'box-1', message: 'from the wrong place' };
    const loop = await rawAt(
      '127.0.0.1',
      '/hook',
      [
        ['Host', `127.0.0.1:${served.port}`],
        ['Authorization', `Bearer ${boxed.key}`],
      ],
      report,
    );
    assert.equal(loop.status, 403, JSON.stringify(loop.body));
    assert.equal(loop.body.error.code, 'forbidden');
    assert.match(loop.body.error.message, /may connect from containers only; this request came from local/);
    assert.match(loop.body.error.message, /perch agent key from boxed containers,local/);
    const mcp = await rawAt('127.0.0.1', '/mcp', [
      ['Host', `127.0.0.1:${served.port}`],
      ['Authorization', `Bearer ${boxed.key}`],
    ]);
    assert.equal(loop.body.error.message, mcp.body.error.message, 'the same words as /mcp');
    const listed = (await ownerOk(served, 'agents.list')).agents.find((a: R) => a.name === 'boxed');
    assert.equal(listed.harness, null, 'the refused report changed nothing');
    // the real `perch hook notification` with that key steps aside (exit 0, nothing on stdout) and says why
    const hook = await runHook(
      ['notification'],
      { session_id: 'box-1', cwd: '/w', hook_event_name: 'Notification', message: 'hi', notification_type: 'idle_prompt' },
      { PERCH_KEY: boxed.key, PERCH_URL: served.mcpUrl },
    );
    assert.equal(hook.code, 0);
    assert.equal(hook.stdout, '');
    assert.match(hook.stderr, /HTTP 403: Forbidden: this key \(boxed, key main\) may connect from containers only/);
    // the bridge listener serves /hook like /mcp: the local key is refused there, the containers key let in
    const bridgeLocal = await rawAt(
      BRIDGE,
      '/hook',
      [
        ['Host', 'host.docker.internal'],
        ['Authorization', `Bearer ${local.key}`],
      ],
      report,
    );
    assert.equal(bridgeLocal.status, 403);
    assert.match(bridgeLocal.body.error.message, /may connect from local only/);
    assert.equal(
      (
        await rawAt(
          BRIDGE,
          '/hook',
          [
            ['Host', 'host.docker.internal'],
            ['Authorization', `Bearer ${boxed.key}`],
          ],
          report,
        )
      ).status,
      200,
    );
    // the local key on the loopback /hook still works
    assert.equal(
      (
        await rawAt(
          '127.0.0.1',
          '/hook',
          [
            ['Host', `127.0.0.1:${served.port}`],
            ['Authorization', `Bearer ${local.key}`],
          ],
          { event: 'stop', harness: 'codex' },
        )
      ).status,
      200,
    );
  });

  test("the HTTP hook `perch connect claude-code NAME --url http://127.0.0.2:PORT/mcp --write` writes, posted from the bridge as Claude Code posts it: a containers key's PermissionRequest reaches the Approvals inbox and approve answers allow; a local key's is refused there (403 wrong_place) and files nothing", async () => {
    const url = `http://${BRIDGE}:${served.port}/mcp`;
    /** The PermissionRequest HTTP hook connect wrote into a fresh HOME for this agent. */
    const writtenHook = async (agent: AgentKey) => {
      const home = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-bridge-home-'));
      homes.push(home);
      const r = await cliAsync(['connect', 'claude-code', agent.name, '--url', url, '--write', '--data-dir', dir], { env: { HOME: home } });
      assert.equal(r.code, 0, r.stderr);
      const hook = claudeCodeHttpHook(
        JSON.parse(fs.readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8')),
        'PermissionRequest',
      );
      assert.equal(hook.url, `http://${BRIDGE}:${served.port}/hook/claude-code/permission-request?agent=${agent.name}`);
      return hook;
    };
    const env = (agent: AgentKey) => ({ [keyEnvVar(agent.name)]: agent.key });
    const refused = await postHttpHook(await writtenHook(local), claudeCodeBash, env(local));
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json.error.details.code, 'wrong_place');
    assert.match(refused.json.error.message, /perch agent key from homebody local,containers/);
    const waiting = postHttpHook(await writtenHook(boxed), claudeCodeBash, env(boxed));
    let req: R;
    await eventually(
      async () => {
        const { requests } = await ownerOk(served, 'requests.list', { state: 'pending' });
        req = requests.find((r: R) => r.requester?.name === 'boxed');
        return !!req;
      },
      15_000,
      "the containers agent's prompt in the Approvals inbox",
    );
    assert.equal(req.title, 'Allow Bash: rm -rf node_modules?');
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
    const answered = await waiting;
    assert.equal(answered.status, 200, answered.text);
    assert.deepEqual(answered.json, { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
    const { requests } = await ownerOk(served, 'requests.list', {});
    assert.equal(requests.filter((r: R) => r.requester?.name === 'homebody').length, 0, 'the refused hook filed nothing');
  });

  test("narrowing a key's places ends its waiting calls from the place it lost with 403 wrong_place (agents.set_from, and perch agent key from in another process); a wait from a place still allowed goes on", async () => {
    const roamer = addWith('roamer', 'local,containers');
    let id = 100;
    const call = (at: string, name: string, args: R = {}) =>
      rawAt(
        at,
        '/mcp',
        [
          ['Host', at === BRIDGE ? 'host.docker.internal' : `127.0.0.1:${served.port}`],
          ['Authorization', `Bearer ${roamer.key}`],
          ['MCP-Protocol-Version', '2025-11-25'],
        ],
        { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } },
      );
    const ok = async (at: string, name: string, args: R = {}) => {
      const r = await call(at, name, args);
      assert.equal(r.status, 200, `${name}: ${JSON.stringify(r.body)}`);
      assert.ok(!r.body.result.isError, `${name}: ${JSON.stringify(r.body.result)}`);
      return r.body.result.structuredContent as R;
    };
    const waitingNow = () =>
      eventually(
        async () => (await ownerOk(served, 'agents.list')).agents.some((a: R) => a.id === roamer.id && a.waiting),
        10_000,
        'roamer to wait',
      );
    const ownerName = (await ok(BRIDGE, 'whoami')).owner.name as string;
    const convId = (await ok(BRIDGE, 'open_direct', { user: ownerName })).conversation.conv_id as string;
    for (let i = 0; i < 20 && (await ok(BRIDGE, 'get_updates')).events.length; i++) {
      /* caught up */
    }
    const kept = (await ok('127.0.0.1', 'request_human', { conv_id: convId, kind: 'approve', title: 'kept from the loopback' }))
      .request_id as string;

    // agents.set_from: the bridge's get_updates ends at once; the loopback's get_request goes on
    const fromBridge = call(BRIDGE, 'get_updates', { wait_secs: 15 });
    const fromLoopback = call('127.0.0.1', 'get_request', { request_id: kept, wait_secs: 15 });
    await waitingNow();
    await ownerOk(served, 'agents.set_from', { agent: 'roamer', from: ['local'] });
    await ownerOk(served, 'messages.send', { conv_id: convId, text: 'not for the box', to: [roamer.id] });
    const ended = await fromBridge;
    assert.equal(ended.status, 403, `the bridge wait: ${JSON.stringify(ended.body).slice(0, 300)}`);
    assert.equal(ended.body.error.data.code, 'wrong_place');
    assert.match(ended.body.error.message, /may connect from local only; this request came from containers/);
    assert.ok(!JSON.stringify(ended.body).includes('not for the box'), 'the message after it is not returned');
    await ownerOk(served, 'requests.decide', { request_id: kept, decision: 'approve' });
    const loopback = await fromLoopback;
    assert.equal(loopback.status, 200);
    assert.equal(loopback.body.result.structuredContent.state, 'approved', 'the loopback wait went on to the decision');

    // perch agent key from (another process writing the file): the bridge's get_request ends too
    await ownerOk(served, 'agents.set_from', { agent: 'roamer', from: ['local', 'containers'] });
    const asked = (await ok(BRIDGE, 'request_human', { conv_id: convId, kind: 'approve', title: 'asked from the box' }))
      .request_id as string;
    const bridgeWait = call(BRIDGE, 'get_request', { request_id: asked, wait_secs: 15 });
    await waitingNow();
    const r = cli(['agent', 'key', 'from', 'roamer', 'local', '--data-dir', dir]);
    assert.equal(r.code, 0, r.stderr);
    const cut = await bridgeWait;
    assert.equal(cut.status, 403, `the bridge get_request: ${JSON.stringify(cut.body).slice(0, 300)}`);
    assert.equal(cut.body.error.data.code, 'wrong_place');
  });

  test('the owner API, login, files, pairing, the device door and the UI are not served on the container listener', async () => {
    const token = JSON.parse(fs.readFileSync(path.join(dir, 'runtime.json'), 'utf8')).owner_token as string;
    const host: [string, string] = ['Host', 'host.docker.internal'];
    const asks: Array<[string, string, Array<[string, string]>]> = [
      ['POST', '/api/owner/hub.info', [host, ['Authorization', `Bearer ${token}`]]],
      ['POST', '/api/owner/login-link', [host, ['Authorization', `Bearer ${token}`]]],
      ['GET', '/api/owner/events', [host, ['Authorization', `Bearer ${token}`]]],
      ['GET', '/login', [host]],
      ['GET', '/files/f_0123456789abcdef?t=x', [host]],
      ['GET', '/', [host]],
      ['GET', '/pair', [host]],
      ['GET', '/index.html', [host]],
      ['POST', '/api/device/pair/claim', [host]],
      ['GET', '/mcpx', [host]],
    ];
    for (const [method, p, headers] of asks) {
      const a = await rawAt(BRIDGE, p, headers, {}, method);
      assert.equal(a.status, 404, `${method} ${p} on the container listener: ${a.status}`);
    }
    // the same owner call on the loopback works (the token is right)
    const ok = await rawAt(
      '127.0.0.1',
      '/api/owner/hub.info',
      [
        ['Host', `127.0.0.1:${served.port}`],
        ['Authorization', `Bearer ${token}`],
      ],
      {},
    );
    assert.equal(ok.status, 200);
  });

  test('file_url called on the container listener answers a link on it that works there; owner links and forged ones stay 404 there', async () => {
    const { url, localUrl } = await fileUrlsFromBoxAndLoopback(served, boxed, local, inContainer);
    assert.ok(url.startsWith(`http://host.docker.internal:${served.port}/files/`), url);
    assert.ok(localUrl.startsWith(`http://127.0.0.1:${served.port}/files/`), localUrl);
    const got = await inContainer(url);
    assert.equal(got.status, 200);
    assert.equal(await got.text(), 'from the box');
    // the owner's (loopback) form of a link to the same file is not served on the container listener
    const path = (u: string) => new URL(u).pathname;
    assert.equal((await rawAt(BRIDGE, path(localUrl), [['Host', 'host.docker.internal']], {}, 'GET')).status, 404);
    // a forged link of the container form is not served either; nor with a foreign Host or an Origin
    assert.equal(
      (
        await rawAt(
          BRIDGE,
          path(url).replace(/\.c\.[A-Za-z0-9_-]{22}$/, `.c.${'A'.repeat(22)}`),
          [['Host', 'host.docker.internal']],
          {},
          'GET',
        )
      ).status,
      404,
    );
    assert.equal((await rawAt(BRIDGE, path(url), [['Host', 'evil.example']], {}, 'GET')).status, 403);
    assert.equal(
      (
        await rawAt(
          BRIDGE,
          path(url),
          [
            ['Host', 'host.docker.internal'],
            ['Origin', 'http://evil.example'],
          ],
          {},
          'GET',
        )
      ).status,
      403,
    );
    // and the container's link is not an owner link on the loopback
    assert.equal((await rawAt('127.0.0.1', path(url), [['Host', `127.0.0.1:${served.port}`]], {}, 'GET')).status, 404);
  });

  test('perch agent key from NAME containers lets the local key in at once (the running hub sees it); a bad place changes nothing', async () => {
    const bad = cli(['agent', 'key', 'from', 'homebody', 'containerz', '--data-dir', dir]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /containerz.*not valid/);
    const failed = await ownerFail(served, 'agents.set_from', { agent: 'homebody', from: ['local', '10.0.0.0/33'] }, 400);
    assert.match(failed.message, /10\.0\.0\.0\/33/);
    assert.equal(
      (
        await rawAt(BRIDGE, '/mcp', [
          ['Host', 'host.docker.internal'],
          ['Authorization', `Bearer ${local.key}`],
        ])
      ).status,
      403,
      'still refused: nothing changed',
    );
    const r = cli(['agent', 'key', 'from', 'homebody', 'local,containers', '--data-dir', dir, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).from, ['local', 'containers']);
    assert.equal(
      (
        await rawAt(BRIDGE, '/mcp', [
          ['Host', 'host.docker.internal'],
          ['Authorization', `Bearer ${local.key}`],
        ])
      ).status,
      200,
    );
    // back to local through the owner action
    const set = await ownerOk(served, 'agents.set_from', { agent: 'homebody', from: ['local'] });
    assert.deepEqual(set.from, ['local']);
    assert.equal(
      (
        await rawAt(BRIDGE, '/mcp', [
          ['Host', 'host.docker.internal'],
          ['Authorization', `Bearer ${local.key}`],
        ])
      ).status,
      403,
    );
    const listed = (await ownerOk(served, 'agents.list')).agents.find((a: R) => a.name === 'homebody');
    assert.deepEqual(listed.from, ['local']);
  });

  test("a scoped key has its own places: a containers key of a local agent works in the container, the agent's own key does not; an address range allows its callers", async () => {
    const r = cli(['agent', 'key', 'add', 'homebody', '--name', 'in-box', '--from', 'containers', '--data-dir', dir, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const { key, secret } = JSON.parse(r.stdout);
    assert.deepEqual(key.from, ['containers']);
    const c = await connect(
      'v2',
      `http://host.docker.internal:${served.port}/mcp`,
      { id: local.id, name: local.name, key: secret },
      { fetch: inContainer },
    );
    assert.equal(((await c.ok('whoami')) as R).key.name, 'in-box');
    await c.close();
    // a range: 127.0.0.0/8 holds the caller (127.0.0.1 connecting to the bridge address), 10.0.0.0/8 does not
    await ownerOk(served, 'agents.set_from', { agent: 'homebody', key_id: key.id, from: ['10.0.0.0/8'] });
    assert.equal(
      (
        await rawAt(BRIDGE, '/mcp', [
          ['Host', 'host.docker.internal'],
          ['Authorization', `Bearer ${secret}`],
        ])
      ).status,
      403,
    );
    await ownerOk(served, 'agents.set_from', { agent: 'homebody', key_id: key.id, from: ['127.0.0.0/8'] });
    assert.equal(
      (
        await rawAt(BRIDGE, '/mcp', [
          ['Host', 'host.docker.internal'],
          ['Authorization', `Bearer ${secret}`],
        ])
      ).status,
      200,
    );
    // a range never opens the loopback listener
    assert.equal(
      (
        await rawAt('127.0.0.1', '/mcp', [
          ['Host', `127.0.0.1:${served.port}`],
          ['Authorization', `Bearer ${secret}`],
        ])
      ).status,
      403,
    );
  });

  test("perch agent add --from containers prints snippets (the hooks of Claude Code, Codex and Cursor to the container listener's hook door too) that keep the key in the environment (never in docker argv or a file)", () => {
    const r = cli(['agent', 'add', 'snippy', '--from', 'containers', '--data-dir', dir, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const { key, snippets } = JSON.parse(r.stdout) as R;
    const run = (snippets.docker_run as string).split('\n').find((l) => l.startsWith('docker run'))!;
    assert.match(run, /--add-host=host\.docker\.internal:host-gateway/);
    assert.match(run, / -e PERCH_KEY_SNIPPY /);
    assert.match(run, new RegExp(`PERCH_URL=http://host\\.docker\\.internal:${served.port}/mcp`));
    assert.ok(!run.includes(key), 'the key is not on the docker command line');
    for (const file of ['devcontainer', 'mcp_json_container']) assert.ok(!(snippets[file] as string).includes(key), `${file} holds no key`);
    assert.match(snippets.devcontainer, /\$\{localEnv:PERCH_KEY_SNIPPY\}/);
    assert.match(snippets.mcp_json_container, /Bearer \$\{PERCH_KEY_SNIPPY\}/);
    // The hooks perch connect would write inside the container: to the hook door of the container listener.
    const claudeHook = JSON.parse(snippets.claude_code_hooks_container).hooks.PermissionRequest[0].hooks[0];
    assert.equal(claudeHook.url, `http://host.docker.internal:${served.port}/hook/claude-code/permission-request?agent=snippy`);
    assert.deepEqual(claudeHook.headers, { Authorization: 'Bearer $PERCH_KEY_SNIPPY' });
    assert.match(
      snippets.codex_hooks_container,
      new RegExp(`'http://host\\.docker\\.internal:${served.port}/hook/codex/permission-request\\?agent=snippy'`),
    );
    assert.match(snippets.cursor_hooks_container, /\/hook\/cursor\/permission-request\?agent=snippy/);
    for (const file of ['claude_code_hooks_container', 'codex_hooks_container', 'cursor_hooks_container'])
      assert.ok(!(snippets[file] as string).includes(key), `${file} holds no key`);
    const text = cli(['agent', 'add', 'snippy2', '--from', 'containers', '--data-dir', dir]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^Claude Code inside the container: the hooks of \.claude\/settings\.json \(merge into yours\):$/m);
  });

  test('every refusal by place is in the hub log', async () => {
    const log = fs.readFileSync(path.join(dir, 'logs', 'hub.log'), 'utf8');
    assert.match(log, /"status":403[^\n]*may connect from local only/);
  });
});

test('perch serve --containers on a computer without a container bridge says so and serves on loopback', async (t) => {
  if (containerBridges().length > 0) return t.skip('this computer has a container bridge');
  const d = tempDataDir();
  const s = await startServe(d, { args: ['--containers'] });
  try {
    const ready = s.ready as R;
    assert.equal(ready.listeners.length, 1);
    assert.match(ready.notes.join(' '), /No container bridge found/);
    assert.equal(ready.container_mcp_url, null);
  } finally {
    await s.stop();
    removeDataDir(d);
  }
});

test('an address given twice to --listen (in either spelling) is one listener, not a "port taken" failure', async () => {
  const d = tempDataDir();
  const s = await startServe(d, { args: ['--listen', '127.0.0.4', '--listen', '[127.0.0.4]'] });
  try {
    const extra = (s.ready as R).listeners.filter((l: R) => l.place === 'containers');
    assert.deepEqual(
      extra.map((l: R) => l.url),
      [`http://127.0.0.4:${s.port}`],
    );
  } finally {
    await s.stop();
    removeDataDir(d);
  }
});

test('bad --listen addresses exit 2 before anything starts (every address and the main one in any spelling too)', () => {
  for (const bad of [
    '0.0.0.0',
    'docker0',
    '127.0.0.1',
    'host.docker.internal',
    '0:0:0:0:0:0:0:0',
    '[::0]',
    '::ffff:0.0.0.0',
    '::ffff:127.0.0.1',
  ]) {
    const r = cli(['serve', '--data-dir', '/nonexistent/perch-never', '--listen', bad, '--json']);
    assert.equal(r.code, 2, `${bad}: ${r.stderr}`);
    assert.match(r.stderr, /--listen/);
  }
});
