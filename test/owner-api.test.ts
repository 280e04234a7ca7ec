// The owner's door over a real `perch serve`: who may open it (the bearer token of runtime.json, or the
// session cookie of the one-time login link with the CSRF header; never an agent key, never a foreign
// Origin), the live event stream (SSE), input validation, and the `perch owner` command.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { OWNER_ACTIONS, OWNER_COOKIE, OWNER_CSRF_HEADER } from '../src/shared/owner-api';
import {
  addAgent, cliAsync, connect, owner, ownerOk, runtimeInfo, startServe, tempDataDir, uniqueName, type AgentClient, type Served,
} from './serve-harness';

let served: Served;
let dataDir: string;
const clients: AgentClient[] = [];

before(async () => {
  dataDir = tempDataDir();
  served = await startServe(dataDir);
});

after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await served?.stop();
});

async function agent(base: string): Promise<AgentClient> {
  const c = await connect('v1', served.mcpUrl, await addAgent(dataDir, uniqueName(base)));
  clients.push(c);
  return c;
}

/** GET a login link without following the redirect. */
function openLink(url: string): Promise<Response> {
  return fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(10_000) });
}

/** A fresh one-time login link (POST /api/owner/login-link with the owner's bearer token). */
async function newLoginLink(): Promise<string> {
  const r = await owner(served, 'login-link');
  assert.equal(r.status, 200, r.text);
  return r.value.url as string;
}

/** Spends a login link and returns the session cookie value. */
async function login(): Promise<string> {
  const res = await openLink(await newLoginLink());
  assert.equal(res.status, 303);
  const m = new RegExp(`${OWNER_COOKIE}=([^;]+)`).exec(res.headers.get('set-cookie') ?? '');
  assert.ok(m, 'the login sets the session cookie');
  return m![1]!;
}

describe('owner door security', () => {
  test('runtime.json (base_url and owner_token) is readable only by the user', () => {
    const file = path.join(dataDir, 'runtime.json');
    if (process.platform !== 'win32') assert.equal(fs.statSync(file).mode & 0o077, 0, 'no group or other permissions');
    const rt = runtimeInfo(served);
    assert.match(rt.base_url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(rt.owner_token.length >= 20);
  });

  test('no credential: POST /api/owner/hub.info is 401 unauthorized', async () => {
    const r = await owner(served, 'hub.info', {}, { bearer: '' });
    assert.equal(r.status, 401);
    assert.equal(r.error?.code, 'unauthorized');
    const wrong = await owner(served, 'hub.info', {}, { bearer: 'not-the-token' });
    assert.equal(wrong.status, 401, 'a wrong bearer token is 401 too');
  });

  test('an agent\'s key as the bearer opens no owner action (401), not even reading', async () => {
    const a = await agent('intruder');
    for (const action of ['hub.info', 'agents.list', 'requests.list', 'agents.add']) {
      const r = await owner(served, action, action === 'agents.add' ? { name: 'sneaky' } : {}, { bearer: a.agent.key });
      assert.equal(r.status, 401, `${action} with an agent key`);
      assert.equal(r.error?.code, 'unauthorized');
    }
    const events = await fetch(`${runtimeInfo(served).base_url}/api/owner/events`, { headers: { Authorization: `Bearer ${a.agent.key}` }, signal: AbortSignal.timeout(5000) });
    assert.equal(events.status, 401, 'nor the event stream');
    await events.body?.cancel();
    const list = await ownerOk(served, 'agents.list');
    assert.ok(!list.agents.some((x: { name: string }) => x.name === 'sneaky'), 'nothing was added');
  });

  test('the one-time login link sets an HttpOnly SameSite=Strict cookie and works only once (second use 403)', async () => {
    const link = served.loginUrl;
    assert.match(link, /\/login\?token=/);
    const first = await openLink(link);
    assert.equal(first.status, 303);
    assert.equal(first.headers.get('location'), '/');
    const cookie = first.headers.get('set-cookie') ?? '';
    assert.match(cookie, new RegExp(`^${OWNER_COOKIE}=[^;]+`));
    assert.match(cookie, /;\s*HttpOnly/i);
    assert.match(cookie, /;\s*SameSite=Strict/i);
    assert.match(cookie, /;\s*Path=\//);
    const second = await openLink(link);
    assert.equal(second.status, 403, 'the link works only once');
    assert.equal(second.headers.get('set-cookie'), null);
    await second.text();
    const forged = await openLink(link.replace(/token=.*/, 'token=forged'));
    assert.equal(forged.status, 403);
    await forged.text();
  });

  test('a cookie POST without the x-perch-owner header is 403; with it, 200; a forged cookie is 401', async () => {
    const session = await login();
    const cookie = { Cookie: `${OWNER_COOKIE}=${session}` };
    const noHeader = await owner(served, 'hub.info', {}, { bearer: '', headers: cookie });
    assert.equal(noHeader.status, 403, 'a cross-site form could send the cookie but not the header');
    assert.equal(noHeader.error?.code, 'forbidden');
    assert.match(noHeader.error!.message, new RegExp(OWNER_CSRF_HEADER));
    const withHeader = await owner(served, 'hub.info', {}, { bearer: '', headers: { ...cookie, [OWNER_CSRF_HEADER]: '1' } });
    assert.equal(withHeader.status, 200);
    assert.equal(withHeader.value.mcp_url, served.mcpUrl);
    const forged = await owner(served, 'hub.info', {}, { bearer: '', headers: { Cookie: `${OWNER_COOKIE}=forged`, [OWNER_CSRF_HEADER]: '1' } });
    assert.equal(forged.status, 401);
  });

  test('a foreign Origin is 403, even with valid owner credentials', async () => {
    const session = await login();
    for (const origin of ['http://evil.example', 'https://127.0.0.1.evil.example', 'null']) {
      const bearer = await owner(served, 'hub.info', {}, { headers: { Origin: origin } });
      assert.equal(bearer.status, 403, `Origin ${origin} with the bearer token`);
      assert.equal(bearer.error?.code, 'forbidden');
      const cookie = await owner(served, 'hub.info', {}, { bearer: '', headers: { Origin: origin, Cookie: `${OWNER_COOKIE}=${session}`, [OWNER_CSRF_HEADER]: '1' } });
      assert.equal(cookie.status, 403, `Origin ${origin} with the session cookie`);
    }
    const local = await owner(served, 'hub.info', {}, { headers: { Origin: runtimeInfo(served).base_url } });
    assert.equal(local.status, 200, 'the hub\'s own origin is fine');
  });

  test('invalid input to an action is 400 invalid_argument naming the field; bad JSON is 400', async () => {
    const wrongEnum = await owner(served, 'requests.decide', { request_id: 'r_x', decision: 'maybe' });
    assert.equal(wrongEnum.status, 400);
    assert.equal(wrongEnum.error?.code, 'invalid_argument');
    assert.match(wrongEnum.error!.message, /decision/);
    const missing = await owner(served, 'messages.send', { conv_id: 'c_x' });
    assert.equal(missing.status, 400);
    assert.equal(missing.error?.code, 'invalid_argument');
    assert.match(missing.error!.message, /\btext\b/);
    const wrongType = await owner(served, 'floor.set', { conv_id: 'c_x', ttl_secs: 'long' });
    assert.equal(wrongType.status, 400);
    assert.match(wrongType.error!.message, /ttl_secs/);
    const unknownKey = await owner(served, 'hub.info', { surprise: 1 });
    assert.equal(unknownKey.status, 400);
    assert.match(unknownKey.error!.message, /surprise/);
    const badJson = await owner(served, 'hub.info', '{not json');
    assert.equal(badJson.status, 400);
    assert.equal(badJson.error?.code, 'invalid_argument');
    const nosuch = await owner(served, 'nosuch.action', {});
    assert.equal(nosuch.status, 404);
    assert.equal(nosuch.error?.code, 'not_found');
  });
});

describe('owner live events (SSE)', () => {
  test('GET /api/owner/events receives message.created within a second of an agent\'s send_message', async () => {
    const [a, b] = await Promise.all([agent('sender'), agent('peer')]);
    const g = await a.ok('create_group', { title: 'watched', members: [b.agent.name] });
    const conv = g.conversation.conv_id as string;

    const rt = runtimeInfo(served);
    const ac = new AbortController();
    const guard = setTimeout(() => ac.abort(), 15_000);
    try {
      const res = await fetch(`${rt.base_url}/api/owner/events`, { headers: { Authorization: `Bearer ${rt.owner_token}` }, signal: ac.signal });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let buf = '';
      /** The next `data:` payloads, parsed, until pred matches one (bounded by deadline). */
      const next = async (pred: (item: any) => boolean, deadline: number): Promise<any> => {
        for (;;) {
          let sep: number;
          while ((sep = buf.indexOf('\n\n')) >= 0) {
            const chunk = buf.slice(0, sep);
            buf = buf.slice(sep + 2);
            const data = chunk.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
            if (!data) continue;
            const item = JSON.parse(data);
            if (pred(item)) return item;
          }
          const left = deadline - performance.now();
          if (left <= 0) throw new Error('timed out waiting for an SSE event');
          let timer: NodeJS.Timeout | undefined;
          const r = await Promise.race([
            reader.read(),
            new Promise<never>((_, rej) => { timer = setTimeout(() => rej(new Error('timed out waiting for an SSE event')), left); }),
          ]).finally(() => clearTimeout(timer));
          if (r.done) throw new Error('the event stream ended');
          buf += decoder.decode(r.value, { stream: true });
        }
      };
      const hello = await next(() => true, performance.now() + 5000);
      assert.equal(hello.kind, 'hub', 'the stream opens with a hello');
      assert.equal(hello.value.connected, true);

      const text = `watch this ${Date.now()}`;
      const sendAt = performance.now();
      const sending = a.ok('send_message', { conv_id: conv, text, to: [b.agent.name] });
      const item = await next((x) => x.kind === 'event' && x.value?.event?.type === 'message.created' && x.value.event.message?.text === text, sendAt + 1000);
      const latency = performance.now() - sendAt;
      const sent = await sending;
      assert.ok(latency < 1000, `the owner's stream had the message ${latency.toFixed(1)} ms after send_message (expected < 1000 ms)`);
      assert.equal(item.value.event.message.msg_id, sent.msg_id);
      assert.equal(item.value.event.conv_id, conv);
      assert.equal(item.value.event.message.sender.name, a.agent.name);
      assert.deepEqual(item.value.woken, [b.agent.id], 'the event says whom it woke');
      await reader.cancel();
    } finally {
      clearTimeout(guard);
      ac.abort();
    }
  });

  test('GET /api/owner/events without a credential is 401', async () => {
    const res = await fetch(`${runtimeInfo(served).base_url}/api/owner/events`, { signal: AbortSignal.timeout(5000) });
    assert.equal(res.status, 401);
    await res.body?.cancel();
  });
});

describe('perch owner (CLI)', () => {
  test('`perch owner hub.info --data-dir D` prints the hub\'s info as JSON', async () => {
    const r = await cliAsync(['owner', 'hub.info', '--data-dir', dataDir]);
    assert.equal(r.code, 0, r.stderr);
    const info = JSON.parse(r.stdout);
    assert.equal(info.mcp_url, served.mcpUrl);
    assert.equal(typeof info.owner.name, 'string');
    assert.equal(typeof info.tool_schema_version, 'string');
  });

  test('`perch owner ACTION \'{json}\'` runs an action with input (agents.add, then agents.list)', async () => {
    const name = uniqueName('cli-made');
    const r = await cliAsync(['owner', 'agents.add', JSON.stringify({ name }), '--data-dir', dataDir]);
    assert.equal(r.code, 0, r.stderr);
    const added = JSON.parse(r.stdout);
    assert.equal(added.agent.name, name);
    assert.match(added.key, /^perch_/);
    const list = JSON.parse((await cliAsync(['owner', 'agents.list', '--data-dir', dataDir])).stdout);
    assert.ok(list.agents.some((x: { name: string }) => x.name === name));
  });

  test('`perch owner --help` lists every action of the contract', async () => {
    const r = await cliAsync(['owner', '--help']);
    assert.equal(r.code, 0, r.stderr);
    for (const action of [...Object.keys(OWNER_ACTIONS), 'login-link']) {
      assert.ok(r.stdout.includes(action), `--help lists ${action}`);
    }
  });

  test('`perch owner nosuch.action` exits non-zero with a clear message', async () => {
    const r = await cliAsync(['owner', 'nosuch.action', '--data-dir', dataDir]);
    assert.notEqual(r.code, 0);
    const out = r.stdout + r.stderr;
    assert.match(out, /No owner action/);
    assert.match(out, /nosuch\.action/);
  });

  test('`perch owner` with invalid input exits non-zero naming the field', async () => {
    const r = await cliAsync(['owner', 'requests.decide', '{"request_id":"r_x","decision":"maybe"}', '--data-dir', dataDir]);
    assert.notEqual(r.code, 0);
    assert.match(r.stdout + r.stderr, /invalid_argument/);
    assert.match(r.stdout + r.stderr, /decision/);
  });

  test('`perch owner hub.info` on a data dir with no running hub exits non-zero saying so', async () => {
    const empty = tempDataDir();
    const r = await cliAsync(['owner', 'hub.info', '--data-dir', empty]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /no running hub/);
  });
});
