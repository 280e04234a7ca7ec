// The owner's door over a real `perch serve`: who may open it (the bearer token of runtime.json, or the
// session token the one-time login link is exchanged for; never a cookie, never an agent key, never an Origin
// other than the hub's own, not even another loopback port), the live event stream (SSE), input validation,
// and the `perch owner` command.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { OWNER_ACTIONS } from '../../src/shared/api/owner-api';
import { cliAsync, owner, ownerOk, runtimeInfo, tempDataDir, uniqueName, useSharedServe, type AgentClient } from '../support/serve-harness';

const served = useSharedServe();

function agent(base: string): Promise<AgentClient> {
  return served.agent(base);
}

/** A fresh one-time login link (POST /api/owner/login-link with the owner's bearer token). */
async function newLoginLink(): Promise<string> {
  const r = await owner(served, 'login-link');
  assert.equal(r.status, 200, r.text);
  return r.value.url as string;
}

/** The one-time token of a login link (it rides in the fragment: /login#token=…). */
function linkToken(link: string): string {
  const token = new URLSearchParams(new URL(link).hash.slice(1)).get('token');
  assert.ok(token, `the login link ${link} carries its token in the fragment`);
  return token!;
}

/** POST /api/owner/session {token}: what the UI page does with the link's token. */
async function exchange(token: string, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  const res = await fetch(`${runtimeInfo(served).base_url}/api/owner/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ token }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, json: await res.json() };
}

/** Spends a fresh login link and returns the session token. */
async function login(): Promise<string> {
  const r = await exchange(linkToken(await newLoginLink()));
  assert.equal(r.status, 200, JSON.stringify(r.json));
  assert.equal(typeof r.json.value.session, 'string');
  return r.json.value.session as string;
}

/** The owner action as the browser session (Authorization: Bearer <session>), no CLI token. */
const asSession = (session: string, action: string, headers: Record<string, string> = {}) =>
  owner(served, action, {}, { bearer: '', headers: { Authorization: `Bearer ${session}`, ...headers } });

/** GET /api/owner/events with the given headers; the status (the body is dropped). */
async function eventsStatus(headers: Record<string, string>): Promise<number> {
  const res = await fetch(`${runtimeInfo(served).base_url}/api/owner/events`, { headers, signal: AbortSignal.timeout(5000) });
  await res.body?.cancel();
  return res.status;
}

/** POST /api/owner/logout with the given headers. */
async function logout(headers: Record<string, string>): Promise<{ status: number; json: any }> {
  const res = await fetch(`${runtimeInfo(served).base_url}/api/owner/logout`, {
    method: 'POST',
    headers,
    signal: AbortSignal.timeout(5000),
  });
  return { status: res.status, json: await res.json() };
}

/** The hub's port, and another port of the same computer (another local web server's origin). */
function ports(): { hub: number; other: number } {
  const hub = Number(new URL(runtimeInfo(served).base_url).port);
  return { hub, other: hub === 65535 ? hub - 1 : hub + 1 };
}

describe('owner door security', () => {
  test('runtime.json (base_url and owner_token) is readable only by the user', () => {
    const file = path.join(served.dataDir, 'runtime.json');
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

  test("an agent's key as the bearer opens no owner action (401), not even reading", async () => {
    const a = await agent('intruder');
    for (const action of ['hub.info', 'agents.list', 'requests.list', 'agents.add']) {
      const r = await owner(served, action, action === 'agents.add' ? { name: 'sneaky' } : {}, { bearer: a.agent.key });
      assert.equal(r.status, 401, `${action} with an agent key`);
      assert.equal(r.error?.code, 'unauthorized');
    }
    const events = await fetch(`${runtimeInfo(served).base_url}/api/owner/events`, {
      headers: { Authorization: `Bearer ${a.agent.key}` },
      signal: AbortSignal.timeout(5000),
    });
    assert.equal(events.status, 401, 'nor the event stream');
    await events.body?.cancel();
    const list = await ownerOk(served, 'agents.list');
    assert.ok(!list.agents.some((x: { name: string }) => x.name === 'sneaky'), 'nothing was added');
  });

  test('the login link carries its one-time token in the fragment; GET /login serves the UI and sets no cookie', async () => {
    const link = served.loginUrl;
    assert.match(link, /\/login#token=[A-Za-z0-9_-]+$/);
    const page = await fetch(link, { redirect: 'manual', signal: AbortSignal.timeout(10_000) });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    assert.equal(page.headers.get('set-cookie'), null, 'no cookie credential');
    await page.text();
  });

  test('the login exchange answers a session token once; a used or forged token is 401', async () => {
    const token = linkToken(await newLoginLink());
    const first = await exchange(token);
    assert.equal(first.status, 200);
    assert.ok(first.json.value.session.length >= 40, 'a long random session token');
    assert.ok(first.json.value.expires_at > Date.now() + 29 * 24 * 3600_000, 'valid for 30 days');
    assert.ok(first.json.value.expires_at <= Date.now() + 30 * 24 * 3600_000 + 60_000, 'and no longer');
    const second = await exchange(token);
    assert.equal(second.status, 401, 'the link works only once');
    assert.equal(second.json.error.code, 'unauthorized');
    assert.match(second.json.error.next_step, /login-link/);
    const forged = await exchange('forged');
    assert.equal(forged.status, 401);
    const ok = await asSession(first.json.value.session, 'hub.info');
    assert.equal(ok.status, 200, "the first exchange's session works");
  });

  test('the session token as bearer opens the owner API (no other header needed); a forged one is 401', async () => {
    const session = await login();
    const r = await asSession(session, 'hub.info');
    assert.equal(r.status, 200);
    assert.equal(r.value.mcp_url, served.mcpUrl);
    const own = await asSession(session, 'hub.info', { Origin: runtimeInfo(served).base_url });
    assert.equal(own.status, 200, "from the hub's own origin");
    const localhost = await asSession(session, 'hub.info', { Origin: `http://localhost:${ports().hub}` });
    assert.equal(localhost.status, 200, "the hub's own port under the name localhost");
    assert.equal(await eventsStatus({ Authorization: `Bearer ${session}` }), 200, 'the event stream too');
    const forged = await asSession('forged-session-token', 'hub.info');
    assert.equal(forged.status, 401);
    assert.equal(forged.error?.code, 'unauthorized');
  });

  test('a cookie is no longer a credential: the session token as the old perch_owner cookie is 401', async () => {
    const session = await login();
    for (const extra of [{}, { 'x-perch-owner': '1' }] as Array<Record<string, string>>) {
      const r = await owner(served, 'hub.info', {}, { bearer: '', headers: { Cookie: `perch_owner=${session}`, ...extra } });
      assert.equal(r.status, 401);
      assert.equal(r.error?.code, 'unauthorized');
    }
    assert.equal(await eventsStatus({ Cookie: `perch_owner=${session}` }), 401, 'nor for the event stream');
  });

  test("another loopback port's origin is 403 for actions, the event stream, logout and the login exchange", async () => {
    const session = await login();
    const { hub, other } = ports();
    const foreign = [
      `http://127.0.0.1:${other}`,
      `http://localhost:${other}`,
      `https://127.0.0.1:${hub}`,
      `http://[::1]:${hub}`,
      'http://127.0.0.1',
    ];
    for (const origin of foreign) {
      const viaSession = await asSession(session, 'hub.info', { Origin: origin });
      assert.equal(viaSession.status, 403, `action with the session, Origin ${origin}`);
      assert.equal(viaSession.error?.code, 'forbidden');
      const viaCli = await owner(served, 'hub.info', {}, { headers: { Origin: origin } });
      assert.equal(viaCli.status, 403, `action with the CLI token, Origin ${origin}`);
      const added = await owner(
        served,
        'agents.add',
        { name: uniqueName('from-other-port') },
        { bearer: '', headers: { Origin: origin, Authorization: `Bearer ${session}` } },
      );
      assert.equal(added.status, 403, `a write, Origin ${origin}`);
      assert.equal(await eventsStatus({ Origin: origin, Authorization: `Bearer ${session}` }), 403, `events, Origin ${origin}`);
      const out = await logout({ Origin: origin, Authorization: `Bearer ${session}` });
      assert.equal(out.status, 403, `logout, Origin ${origin}`);
    }
    assert.equal((await asSession(session, 'hub.info')).status, 200, 'the refused logouts ended nothing');
    const token = linkToken(await newLoginLink());
    const refused = await exchange(token, { Origin: `http://127.0.0.1:${other}` });
    assert.equal(refused.status, 403, 'the login exchange from another port');
    assert.equal((await exchange(token)).status, 200, 'and the refused exchange did not spend the link');
    const list = await ownerOk(served, 'agents.list');
    assert.ok(!list.agents.some((x: { name: string }) => x.name.startsWith('from-other-port')), 'nothing was added');
  });

  test('a foreign Origin is 403, even with valid owner credentials', async () => {
    const session = await login();
    for (const origin of ['http://evil.example', 'https://127.0.0.1.evil.example', 'null']) {
      const bearer = await owner(served, 'hub.info', {}, { headers: { Origin: origin } });
      assert.equal(bearer.status, 403, `Origin ${origin} with the bearer token`);
      assert.equal(bearer.error?.code, 'forbidden');
      const viaSession = await asSession(session, 'hub.info', { Origin: origin });
      assert.equal(viaSession.status, 403, `Origin ${origin} with the session token`);
    }
    const local = await owner(served, 'hub.info', {}, { headers: { Origin: runtimeInfo(served).base_url } });
    assert.equal(local.status, 200, "the hub's own origin is fine");
  });

  test('logout ends the session on the hub: the token is then 401 for actions and events', async () => {
    const session = await login();
    const other = await login();
    const out = await logout({ Authorization: `Bearer ${session}`, Origin: runtimeInfo(served).base_url });
    assert.equal(out.status, 200);
    assert.equal(out.json.value.ended, true);
    const after = await asSession(session, 'hub.info');
    assert.equal(after.status, 401);
    assert.equal(after.error?.code, 'unauthorized');
    assert.equal(await eventsStatus({ Authorization: `Bearer ${session}` }), 401);
    assert.equal((await logout({ Authorization: `Bearer ${session}` })).json.value.ended, false, 'a second logout ends nothing');
    assert.equal((await asSession(other, 'hub.info')).status, 200, 'another session is untouched');
  });

  test('an expired session is refused (401) for actions and events', async () => {
    const session = await login();
    assert.equal((await asSession(session, 'hub.info')).status, 200);
    // Expire every session in the hub's own SQLite file (the hub reads it on each request).
    const db = new Database(path.join(served.dataDir, 'perch.sqlite'), { fileMustExist: true, timeout: 10_000 });
    try {
      const changed = db.prepare("UPDATE owner_sessions SET expires_at = ? WHERE kind = 'session'").run(Date.now() - 1000).changes;
      assert.ok(changed >= 1);
    } finally {
      db.close();
    }
    const r = await asSession(session, 'hub.info');
    assert.equal(r.status, 401);
    assert.equal(r.error?.code, 'unauthorized');
    assert.match(r.error!.next_step, /login link/);
    assert.equal(await eventsStatus({ Authorization: `Bearer ${session}` }), 401);
    assert.equal((await asSession(await login(), 'hub.info')).status, 200, 'a new login link signs in again');
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
  test("GET /api/owner/events receives message.created within a second of an agent's send_message", async () => {
    const [a, b] = await Promise.all([agent('sender'), agent('peer')]);
    const g = await a.ok('create_group', { title: 'watched', members: [b.agent.name] });
    const conv = g.conversation.conv_id as string;

    const rt = runtimeInfo(served);
    const ac = new AbortController();
    const guard = setTimeout(() => ac.abort(), 15_000);
    try {
      const res = await fetch(`${rt.base_url}/api/owner/events`, {
        headers: { Authorization: `Bearer ${rt.owner_token}` },
        signal: ac.signal,
      });
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
            const data = chunk
              .split('\n')
              .filter((l) => l.startsWith('data: '))
              .map((l) => l.slice(6))
              .join('\n');
            if (!data) continue;
            const item = JSON.parse(data);
            if (pred(item)) return item;
          }
          const left = deadline - performance.now();
          if (left <= 0) throw new Error('timed out waiting for an SSE event');
          let timer: NodeJS.Timeout | undefined;
          const r = await Promise.race([
            reader.read(),
            new Promise<never>((_, rej) => {
              timer = setTimeout(() => rej(new Error('timed out waiting for an SSE event')), left);
            }),
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
      const item = await next(
        (x) => x.kind === 'event' && x.value?.event?.type === 'message.created' && x.value.event.message?.text === text,
        sendAt + 1000,
      );
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
  test("`perch owner hub.info --data-dir D` prints the hub's info as JSON", async () => {
    const r = await cliAsync(['owner', 'hub.info', '--data-dir', served.dataDir]);
    assert.equal(r.code, 0, r.stderr);
    const info = JSON.parse(r.stdout);
    assert.equal(info.mcp_url, served.mcpUrl);
    assert.equal(typeof info.owner.name, 'string');
    assert.equal(typeof info.tool_schema_version, 'string');
  });

  test("`perch owner ACTION '{json}'` runs an action with input (agents.add, then agents.list)", async () => {
    const name = uniqueName('cli-made');
    const r = await cliAsync(['owner', 'agents.add', JSON.stringify({ name }), '--data-dir', served.dataDir]);
    assert.equal(r.code, 0, r.stderr);
    const added = JSON.parse(r.stdout);
    assert.equal(added.agent.name, name);
    assert.match(added.key, /^perch_/);
    const list = JSON.parse((await cliAsync(['owner', 'agents.list', '--data-dir', served.dataDir])).stdout);
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
    const r = await cliAsync(['owner', 'nosuch.action', '--data-dir', served.dataDir]);
    assert.notEqual(r.code, 0);
    const out = r.stdout + r.stderr;
    assert.match(out, /No owner action/);
    assert.match(out, /nosuch\.action/);
  });

  test('`perch owner` with invalid input exits non-zero naming the field', async () => {
    const r = await cliAsync(['owner', 'requests.decide', '{"request_id":"r_x","decision":"maybe"}', '--data-dir', served.dataDir]);
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
