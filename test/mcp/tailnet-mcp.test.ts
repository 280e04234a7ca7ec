// Agents on the owner's other machines: /mcp through the HTTPS front of a real `perch serve --public-url`, the front
// being e2e/front.ts (a reverse proxy that forwards as `tailscale serve` does: the tailnet Host kept, X-Forwarded-* and
// Tailscale-User-* added). The official MCP clients reach it under the tailnet name. Only keys allowed `tailnet`
// get in; local keys get the explanatory 403; Funnel is refused whatever the key.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  ERAS,
  cli,
  connect,
  eventually,
  ownerOk,
  removeDataDir,
  startServe,
  tempDataDir,
  type AgentKey,
  type Served,
} from '../support/serve-harness';
import { fetchResolving } from '../support/name-fetch';
import { FRONT_HOST, startFront, type Front } from '../../e2e/front';
import { PUSH_TLS_DIR } from '../support/push-endpoint';
import { runHook } from '../support/hook-runner';

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
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...(key ? { Authorization: `Bearer ${key}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  const text = await res.text();
  let body: R;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body };
}

for (const era of ERAS) {
  test(`a tailnet key works through the front with the official client (${era}); whoami says tailnet`, async () => {
    const before = front.seen.length;
    const c = await connect(era, `${front.url}/mcp`, remote, { fetch: viaTailnet });
    try {
      const me = (await c.ok('whoami')) as R;
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
  const direct = await fetch(served.mcpUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${remote.key}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
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

test('file_url called through the front answers a link on the public URL; fetched through the front it works, and the owner form and forged links are refused there', async () => {
  const c = await connect('v1', `${front.url}/mcp`, remote, { fetch: viaTailnet });
  let url: string;
  let localUrl: string;
  try {
    const conv = (await c.ok('open_direct', { user: 'near' })) as R;
    const sent = (await c.ok('send_file', {
      conv_id: conv.conversation.conv_id,
      name: 'notes.txt',
      mime: 'text/plain',
      data: Buffer.from('far away notes').toString('base64'),
    })) as R;
    const link = (await c.ok('file_url', { conv_id: conv.conversation.conv_id, file_id: sent.file_id })) as R;
    url = link.url;
    // the same file's link for the local agent (who called on the loopback) stays on 127.0.0.1
    const l = await connect('v1', served.mcpUrl, local);
    try {
      localUrl = ((await l.ok('file_url', { conv_id: conv.conversation.conv_id, file_id: sent.file_id })) as R).url;
    } finally {
      await l.close();
    }
  } finally {
    await c.close();
  }
  assert.ok(url.startsWith(`${front.url}/files/`), url);
  assert.ok(localUrl.startsWith(`http://127.0.0.1:${served.port}/files/`), localUrl);
  // what the agent has (the link) works through the front
  const got = await viaTailnet(url);
  assert.equal(got.status, 200);
  assert.equal(await got.text(), 'far away notes');
  assert.match(got.headers.get('content-disposition') ?? '', /attachment/);
  // the owner's (loopback) form of a link to the same file stays refused through the front
  const ownerForm = await viaTailnet(`${front.url}${new URL(localUrl).pathname}`);
  assert.equal(ownerForm.status, 403);
  await ownerForm.arrayBuffer();
  // a forged link of the tailnet form is refused
  const forged = url.replace(/\.n\.[A-Za-z0-9_-]{22}$/, `.n.${'A'.repeat(22)}`);
  assert.notEqual(forged, url);
  const f = await viaTailnet(forged);
  assert.equal(f.status, 404);
  await f.arrayBuffer();
  // and the link made for the tailnet is not served through Funnel, nor on the loopback as an owner link
  const viaFunnel = await viaTailnet(`${funnel.url}${new URL(url).pathname}`);
  assert.equal(viaFunnel.status, 403);
  await viaFunnel.arrayBuffer();
  const onLoopback = await fetch(`http://127.0.0.1:${served.port}${new URL(url).pathname}`);
  assert.equal(onLoopback.status, 404);
  await onLoopback.arrayBuffer();
});

test("the harness hook door through the front: a tailnet key's PreToolUse is answered (a paused agent's tool blocked); a local key's hook is refused with the 403 that names its places", async () => {
  const hook = (key: string) =>
    viaTailnet(`${front.url}/hook/claude-code/pre-tool-use`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
      body: JSON.stringify({
        session_id: 's1',
        transcript_path: '/t.jsonl',
        cwd: '/w',
        permission_mode: 'default',
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
        tool_use_id: 'toolu_1',
      }),
    });
  const refused = await hook(local.key);
  assert.equal(refused.status, 403);
  assert.match(((await refused.json()) as R).error.message, /may connect from local only; this request came from tailnet/);
  const ok = await hook(remote.key);
  assert.equal(ok.status, 200);
  assert.equal(await ok.text(), '{}');
  const paused = cli(['agent', 'pause', 'far', '--data-dir', dir]);
  assert.equal(paused.code, 0, paused.stderr);
  await eventually(
    async () => ((await (await hook(remote.key)).json()) as R).hookSpecificOutput?.permissionDecision === 'deny',
    10_000,
    "the paused agent's tool blocked through the front",
  );
  assert.equal(cli(['agent', 'resume', 'far', '--data-dir', dir]).code, 0);
  const viaFunnel = await fetchResolving({ [FRONT_HOST]: '127.0.0.1' })(`${funnel.url}/hook/claude-code/pre-tool-use`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${remote.key}` },
    body: '{}',
  });
  assert.equal(viaFunnel.status, 403, 'Funnel is refused');
});

test("perch hook with an https PERCH_URL (the front): a paused tailnet agent's PreToolUse is blocked and its Notification noted, through TLS", async () => {
  const tls = await startFront({
    tls: { key: fs.readFileSync(path.join(PUSH_TLS_DIR, 'key.pem')), cert: fs.readFileSync(path.join(PUSH_TLS_DIR, 'cert.pem')) },
  });
  tls.setTarget(served.port);
  try {
    const env = { PERCH_URL: `${tls.url}/mcp`, PERCH_KEY: remote.key, NODE_EXTRA_CA_CERTS: path.join(PUSH_TLS_DIR, 'cert.pem') };
    const note = await runHook(
      ['notification'],
      {
        session_id: 'far-1',
        transcript_path: '/t.jsonl',
        cwd: '/w',
        hook_event_name: 'Notification',
        message: 'waiting on you',
        notification_type: 'idle_prompt',
      },
      env,
    );
    assert.deepEqual([note.code, note.stdout, note.stderr], [0, '', '']);
    await eventually(
      async () => (await ownerOk({ dataDir: dir }, 'agents.list')).agents.find((a: R) => a.name === 'far')?.harness?.state === 'waiting',
      10_000,
      'the notification noted',
    );
    assert.equal(cli(['agent', 'pause', 'far', '--data-dir', dir, '--reason', 'tls check']).code, 0);
    const pre = {
      session_id: 'far-1',
      transcript_path: '/t.jsonl',
      cwd: '/w',
      permission_mode: 'default',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: 'toolu_2',
    };
    await eventually(
      async () => JSON.parse((await runHook(['pre-tool-use'], pre, env)).stdout || '{}').hookSpecificOutput?.permissionDecision === 'deny',
      10_000,
      'the paused agent blocked through https',
    );
    assert.ok(
      tls.seen.some((s) => s.startsWith('POST /hook')),
      'the hook went through the https front',
    );
  } finally {
    cli(['agent', 'resume', 'far', '--data-dir', dir]);
    await tls.close();
  }
});
