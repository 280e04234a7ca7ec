// Agents on the owner's other machines: /mcp through the HTTPS front of a real `perch serve --public-url`, the front
// being e2e/front.ts (a reverse proxy that forwards as `tailscale serve` does: the tailnet Host kept, X-Forwarded-* and
// Tailscale-User-* added). The official MCP clients reach it under the tailnet name. Only keys allowed `tailnet`
// get in; local keys get the explanatory 403; Funnel is refused whatever the key.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ERAS, cli, connect, removeDataDir, startServe, tempDataDir, type AgentKey, type Served } from './serve-harness';
import { fetchResolving } from './name-fetch';
import { FRONT_HOST, startFront, type Front } from '../e2e/front';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type R = any;

let served: Served;
let dir: string;
let front: Front;
let funnel: Front;
const viaTailnet = fetchResolving({ [FRONT_HOST]: '127.0.0.1' });

function addWith(name: string, from?: string): AgentKey {
  const r = cli(['agent', 'add', name, '--data-dir', dir, '--json', ...(from ? ['--from', from] : [])]);
  assert.equal(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout) as R;
  return { id: j.id, name: j.name, key: j.key };
}

let remote: AgentKey;
let local: AgentKey;

before(async () => {
  dir = tempDataDir();
  front = await startFront();
  funnel = await startFront({ funnel: true });
  remote = addWith('far', 'tailnet');
  local = addWith('near');
  served = await startServe(dir, { args: ['--public-url', front.url] });
  front.setTarget(served.port);
  funnel.setTarget(served.port);
});

after(async () => {
  await served?.stop();
  await front?.close();
  await funnel?.close();
  removeDataDir(dir);
});

async function post(base: string, key: string | undefined): Promise<{ status: number; body: R }> {
  const res = await viaTailnet(`${base}/mcp`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...(key ? { Authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  const text = await res.text();
  let body: R;
  try { body = JSON.parse(text); } catch { body = text; }
  return { status: res.status, body };
}

for (const era of ERAS) {
  test(`a tailnet key works through the front with the official client (${era}); whoami says tailnet`, async () => {
    const before = front.seen.length;
    const c = await connect(era, `${front.url}/mcp`, remote, { fetch: viaTailnet });
    try {
      const me = await c.ok('whoami') as R;
      assert.equal(me.agent.name, 'far');
      assert.equal(me.connected_from.place, 'tailnet');
      assert.match(me.connected_from.via, /100\.101\.102\.103/);
    } finally {
      await c.close();
    }
    assert.ok(front.seen.length > before, 'the calls went through the front');
  });
}

test('a local key through the front gets the explanatory 403; no key gets 403 as before; a tailnet key is refused on nothing else', async () => {
  const a = await post(front.url, local.key);
  assert.equal(a.status, 403);
  assert.match(a.body.error.message, /may connect from local only; this request came from tailnet/);
  assert.match(a.body.error.message, /perch agent key from near local,tailnet/);
  assert.equal((await post(front.url, undefined)).status, 403);
  assert.equal((await post(front.url, 'perch_wrong')).status, 401);
  await assert.rejects(connect('v1', `${front.url}/mcp`, local, { fetch: viaTailnet }));
  // the tailnet-only key is refused on the loopback
  const direct = await fetch(served.mcpUrl, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${remote.key}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) });
  assert.equal(direct.status, 403);
});

test('Funnel (the public internet) is refused even for a tailnet key', async () => {
  const a = await post(funnel.url, remote.key);
  assert.equal(a.status, 403);
  assert.match(JSON.stringify(a.body), /Funnel/);
});

test('a foreign Origin through the front is refused like on the phone front', async () => {
  const res = await viaTailnet(`${front.url}/mcp`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: 'https://evil.example', Authorization: `Bearer ${remote.key}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  assert.equal(res.status, 403);
});
