// The hub remembers whether pushes go anywhere (hub.services.pushTargets, hub/phone/devices.ts: asked for every message it
// publishes). These prove the memory never costs a notice: after the hub has published events while nothing was set
// up (it then knows "nobody"), a phone subscribing through the device door, or the owner turning ntfy on, gets the
// very next request, with no write by another process in between. A real `perch serve`, a loopback HTTPS push
// endpoint and a loopback ntfy server (as test/phone/push.test.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { DEVICE_PUSH_SUBSCRIBE_PATH, DEVICE_PUSH_UNSUBSCRIBE_PATH } from '../../src/shared/features/devices';
import { ownerOk, runtimeInfo, useSharedServe, type AgentClient } from '../support/serve-harness';
import {
  decryptPush,
  makeSubscriptionKeys,
  PUSH_TEST_ENV,
  startPushEndpoint,
  type PushEndpoint,
  pairDeviceOnFile,
} from '../support/push-endpoint';

const served = useSharedServe({ env: { ...PUSH_TEST_ENV } });

let endpoint: PushEndpoint;
before(async () => {
  endpoint = await startPushEndpoint();
});
after(async () => {
  await endpoint?.close();
});

/** Pairs a device on the hub's own file (another connection: done before the hub learns there are no targets). */
const pairDevice = (name: string) => pairDeviceOnFile(served.dataDir, name);

async function subscribe(dev: { id: string; token: string }, keys: { p256dh: string; auth: string }): Promise<void> {
  const res = await fetch(runtimeInfo(served).base_url + DEVICE_PUSH_SUBSCRIBE_PATH, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${dev.token}` },
    body: JSON.stringify({ endpoint: endpoint.endpointUrl(dev.id), keys }),
    signal: AbortSignal.timeout(20_000),
  });
  assert.equal(res.status, 200, await res.text());
}

/** The agent's direct conversation with the owner, with a few messages published in it (the hub asks for targets). */
async function chattyDirect(agent: AgentClient): Promise<string> {
  const info = await ownerOk(served, 'hub.info');
  const conv = (await agent.ok('open_direct', { user: info.owner.name })).conversation.conv_id as string;
  for (let i = 0; i < 3; i++) await agent.ok('send_message', { conv_id: conv, text: `nothing to push ${i}` });
  return conv;
}

describe('push targets set up while the hub runs are used at once', () => {
  let dev: { id: string; token: string };
  let agent: AgentClient;
  let conv: string;

  test('a phone that subscribes through the device door gets the very next request', async () => {
    dev = pairDevice('Late phone');
    agent = await served.agent('late-asker');
    conv = await chattyDirect(agent); // published with no subscription and no ntfy: the hub knows "nobody"
    const keys = makeSubscriptionKeys();
    await subscribe(dev, { p256dh: keys.p256dh, auth: keys.auth });
    const req = await agent.ok('request_human', { conv_id: conv, kind: 'approve', title: 'Push me at once?' });
    const raw = await endpoint.next(`/push/${dev.id}`, (p) => {
      try {
        return JSON.parse(decryptPush(p.body, keys)).tag === req.request_id;
      } catch {
        return false;
      }
    });
    assert.equal(JSON.parse(decryptPush(raw.body, keys)).title, 'Push me at once?');
  });

  test('ntfy turned on by the owner gets the very next request (after the phone unsubscribed: nobody again)', async () => {
    const unsub = await fetch(runtimeInfo(served).base_url + DEVICE_PUSH_UNSUBSCRIBE_PATH, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${dev.token}` },
      body: '{}',
      signal: AbortSignal.timeout(20_000),
    });
    assert.equal(unsub.status, 200, await unsub.text());
    assert.equal((await ownerOk(served, 'devices.list')).devices.find((d: { id: string }) => d.id === dev.id).push, false);
    for (let i = 0; i < 3; i++) await agent.ok('send_message', { conv_id: conv, text: `still nothing to push ${i}` });

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
    try {
      const server = `http://127.0.0.1:${(ntfy.address() as { port: number }).port}`;
      await ownerOk(served, 'phone.set', { ntfy: { server, topic: 'perch-late-topic', opaque: false } });
      await agent.ok('request_human', { conv_id: conv, kind: 'approve', title: 'Ntfy me at once?' });
      const deadline = Date.now() + 10_000;
      while (!got.some((b) => b.title === 'Ntfy me at once?') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.ok(
        got.some((b) => b.topic === 'perch-late-topic' && b.title === 'Ntfy me at once?'),
        `ntfy got: ${JSON.stringify(got)}`,
      );
    } finally {
      await ownerOk(served, 'phone.set', { ntfy: null });
      await new Promise<void>((r) => ntfy.close(() => r()));
    }
  });
});
