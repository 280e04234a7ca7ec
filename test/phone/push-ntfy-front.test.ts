// Pushes through ntfy (a JSON publish with working Approve / Reject buttons) and a remote phone through the HTTPS front,
// end to end without the internet (test/support/push-kit.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { DEVICE_ACTION_PATH, DEVICE_PUSH_SUBSCRIBE_PATH } from '../../src/shared/features/devices';
import { eventually, owner, ownerOk, runtimeInfo, type AgentClient } from '../support/serve-harness';
import { makeSubscriptionKeys } from '../support/push-endpoint';
import { served, endpoint, pairDevice, device, pushOf, directWithOwner } from '../support/push-kit';
describe('ntfy channel', () => {
  test('the ntfy server gets a JSON publish with the topic and working Approve / Reject buttons; opaque hides the summary', async () => {
    const got: any[] = [];
    const waiters: Array<() => void> = [];
    const ntfy = http.createServer((req, res) => {
      let body = '';
      req
        .setEncoding('utf8')
        .on('data', (c: string) => (body += c))
        .on('end', () => {
          got.push({ path: req.url, body: JSON.parse(body) });
          res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
          for (const w of waiters.splice(0)) w();
        });
    });
    await new Promise<void>((r) => ntfy.listen(0, '127.0.0.1', r));
    const server = `http://127.0.0.1:${(ntfy.address() as { port: number }).port}`;
    const next = async (pred: (m: any) => boolean) => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const i = got.findIndex((g) => pred(g.body));
        if (i >= 0) return got.splice(i, 1)[0];
        if (Date.now() > deadline) throw new Error('no ntfy publish');
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 500);
        });
      }
    };
    try {
      const agent = await served.agent('ntfy-asker');
      const conv = await directWithOwner(agent);
      await ownerOk(served, 'phone.set', { ntfy: { server, topic: 'perch-test-topic', opaque: false } });
      const req = await agent.ok('request_human', {
        conv_id: conv,
        kind: 'approve',
        title: 'Ship the ntfy build?',
        context: 'all checks pass',
      });
      const pub = await next((b) => b.topic === 'perch-test-topic' && b.title === 'Ship the ntfy build?');
      assert.equal(pub.path, '/');
      assert.match(pub.body.message, /all checks pass/);
      assert.deepEqual(
        pub.body.actions.map((a: any) => [a.action, a.label, a.method]),
        [
          ['http', 'Approve', 'POST'],
          ['http', 'Reject', 'POST'],
        ],
      );
      const rt = runtimeInfo(served);
      assert.equal(pub.body.actions[0].url, rt.base_url + DEVICE_ACTION_PATH, 'buttons point at the hub (the public URL when set)');
      const waiting = agent.ok('get_request', { request_id: req.request_id, wait_secs: 20 });
      const token = JSON.parse(pub.body.actions[1].body).token;
      const r = await device(DEVICE_ACTION_PATH, { token });
      assert.equal(r.status, 200, JSON.stringify(r.json));
      assert.equal((await waiting).state, 'rejected');
      assert.equal((await device(DEVICE_ACTION_PATH, { token })).status, 409);

      // Opaque: a fixed line and no buttons at all, so no token is minted or left on the ntfy server.
      await ownerOk(served, 'phone.set', { ntfy: { server, topic: 'perch-test-topic', opaque: true } });
      const req2 = await agent.ok('request_human', {
        conv_id: conv,
        kind: 'approve',
        title: 'Opaque Walrus question?',
        context: 'walrus context',
      });
      const pub2 = await next((b) => b.topic === 'perch-test-topic' && b.title === 'Perch');
      const text = JSON.stringify(pub2.body);
      assert.ok(!/walrus/i.test(text), `opaque: no summary text: ${text}`);
      assert.equal(pub2.body.actions, undefined, `opaque: no Approve / Reject buttons: ${text}`);
      assert.ok(!/token|[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{43}/.test(text), `opaque: no action token anywhere: ${text}`);
      assert.ok(!text.includes(req2.request_id), `opaque: not even the request id: ${text}`);
      await agent.ok('cancel_request', { request_id: req2.request_id });
    } finally {
      await owner(served, 'phone.set', { ntfy: null });
      await new Promise<void>((r) => ntfy.close(() => r()));
    }
  });

  test('ntfy buttons are bound to the ntfy setting they were sent for: turning ntfy off and on again, or changing it, ends them; the same setting saved again keeps them', async () => {
    const got: any[] = [];
    const ntfy = http.createServer((req, res) => {
      let body = '';
      req
        .setEncoding('utf8')
        .on('data', (c: string) => (body += c))
        .on('end', () => {
          got.push(JSON.parse(body));
          res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
        });
    });
    await new Promise<void>((r) => ntfy.listen(0, '127.0.0.1', r));
    const server = `http://127.0.0.1:${(ntfy.address() as { port: number }).port}`;
    const setting = { server, topic: 'perch-bound-topic', opaque: false };
    /** A request and the token of its ntfy Approve button. */
    const ask = async (agent: AgentClient, conv: string, title: string): Promise<{ request_id: string; token: string }> => {
      const req = await agent.ok('request_human', { conv_id: conv, kind: 'approve', title });
      await eventually(() => got.some((b) => b.title === title), 10_000, `the ntfy publish of ${title}`);
      const pub = got.find((b) => b.title === title);
      return { request_id: req.request_id, token: JSON.parse(pub.actions[0].body).token };
    };
    try {
      const agent = await served.agent('ntfy-bound');
      const conv = await directWithOwner(agent);
      await ownerOk(served, 'phone.set', { ntfy: setting });
      const a = await ask(agent, conv, 'Before off and on?');
      await ownerOk(served, 'phone.set', { ntfy: null });
      await ownerOk(served, 'phone.set', { ntfy: setting }); // the very same setting, turned on again
      const revived = await device(DEVICE_ACTION_PATH, { token: a.token });
      assert.equal(revived.status, 401, `a token of an earlier ntfy setting is refused: ${JSON.stringify(revived.json)}`);
      assert.equal(
        (await ownerOk(served, 'requests.list', {})).requests.find((r: any) => r.request_id === a.request_id).state,
        'pending',
        'nothing was decided',
      );

      const b = await ask(agent, conv, 'Before a topic change?');
      await ownerOk(served, 'phone.set', { ntfy: { ...setting, topic: 'perch-other-topic' } });
      assert.equal((await device(DEVICE_ACTION_PATH, { token: b.token })).status, 401, 'a changed topic ends the earlier buttons');
      await ownerOk(served, 'phone.set', { ntfy: setting }); // back to the first topic: still a new setting
      assert.equal((await device(DEVICE_ACTION_PATH, { token: b.token })).status, 401, 'changing it back does not revive them');

      const c = await ask(agent, conv, 'Kept when saved unchanged?');
      await ownerOk(served, 'phone.set', { ntfy: setting, push_content: 'summary' }); // saved again, unchanged
      const kept = await device(DEVICE_ACTION_PATH, { token: c.token });
      assert.equal(kept.status, 200, `the same setting saved again keeps its buttons: ${JSON.stringify(kept.json)}`);
      assert.equal(kept.json.value.request.state, 'approved');
      for (const r of [a, b]) await agent.ok('cancel_request', { request_id: r.request_id });
    } finally {
      await owner(served, 'phone.set', { ntfy: null });
      await new Promise<void>((r) => ntfy.close(() => r()));
    }
  });
});

describe('through the HTTPS front', () => {
  test('a remote phone subscribes with its credential and a button spends its token through the front (no bearer)', async () => {
    const rt = runtimeInfo(served);
    await ownerOk(served, 'phone.set', { public_url: 'https://laptop.tail1234.ts.net' });
    const remote = (pathname: string, body: unknown, bearer?: string) =>
      new Promise<{ status: number; json: any }>((resolve, reject) => {
        const data = JSON.stringify(body);
        const req = http.request(
          `${rt.base_url}${pathname}`,
          {
            method: 'POST',
            headers: {
              Host: 'laptop.tail1234.ts.net',
              'X-Forwarded-For': '100.64.0.7',
              'Tailscale-User-Login': 'owner@example.com',
              Origin: 'https://laptop.tail1234.ts.net',
              'Content-Type': 'application/json',
              'Content-Length': Buffer.byteLength(data),
              ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}),
            },
          },
          (res) => {
            let text = '';
            res
              .setEncoding('utf8')
              .on('data', (c: string) => (text += c))
              .on('end', () => resolve({ status: res.statusCode!, json: text ? JSON.parse(text) : undefined }));
          },
        );
        req.on('error', reject);
        req.end(data);
      });
    try {
      const keys = makeSubscriptionKeys();
      const dev = pairDevice('Remote phone');
      const good = { endpoint: endpoint.endpointUrl(dev.id), keys: { p256dh: keys.p256dh, auth: keys.auth } };
      assert.equal((await remote(DEVICE_PUSH_SUBSCRIBE_PATH, good)).status, 401, 'no credential through the front');
      const sub = await remote(DEVICE_PUSH_SUBSCRIBE_PATH, good, dev.token);
      assert.equal(sub.status, 200, JSON.stringify(sub.json));
      const agent = await served.agent('remote-asker');
      const conv = await directWithOwner(agent);
      const req = await agent.ok('request_human', { conv_id: conv, kind: 'approve', title: 'Remote approve?' });
      const { msg } = await pushOf(`/push/${dev.id}`, keys, (m) => m.type === 'notice' && m.tag === req.request_id);
      assert.equal(msg.url, `https://laptop.tail1234.ts.net/r/${req.request_id}`, 'links point at the front');
      const waiting = agent.ok('get_request', { request_id: req.request_id, wait_secs: 20 });
      const r = await remote(DEVICE_ACTION_PATH, { token: msg.actions![0]!.token });
      assert.equal(r.status, 200, JSON.stringify(r.json));
      assert.equal((await waiting).state, 'approved');
      assert.equal((await remote(DEVICE_ACTION_PATH, { token: msg.actions![0]!.token })).status, 409);
    } finally {
      await ownerOk(served, 'phone.set', { public_url: null });
    }
  });
});
