// Web Push end to end without the internet: a real `perch serve` child trusts the self-signed certificate of a loopback
// HTTPS push endpoint (NODE_EXTRA_CA_CERTS), a paired device registers a subscription with keys this test made, and what
// reaches the endpoint is decrypted here with an independent RFC 8291 implementation (test/support/push-endpoint.ts).
// ntfy and the HTTPS front: push-ntfy-front.test.ts; action and read tokens: push-tokens.test.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEVICE_ACTION_PATH,
  DEVICE_NOTICE_PATH,
  DEVICE_PUSH_SUBSCRIBE_PATH,
  DEVICE_PUSH_UNSUBSCRIBE_PATH,
} from '../../src/shared/features/devices';
import { ownerOk, runtimeInfo, type AgentClient } from '../support/serve-harness';
import { decryptPush, makeSubscriptionKeys, verifyVapid } from '../support/push-endpoint';
import { served, endpoint, pairDevice, device, open, pushOf, directWithOwner } from '../support/push-kit';
describe('Web Push to a paired phone', () => {
  const keys = makeSubscriptionKeys();
  let dev: { id: string; token: string };
  let pushPath: string;
  let agent: AgentClient;
  let conv: string;
  let vapidKey: string;

  test('subscribe: bad input gets a clear 400 and changes nothing; no device credential gets 401', async () => {
    dev = pairDevice('Test phone');
    pushPath = `/push/${dev.id}`;
    const good = { endpoint: endpoint.endpointUrl(dev.id), keys: { p256dh: keys.p256dh, auth: keys.auth } };
    const bad: Array<[unknown, RegExp]> = [
      ['not json', /not valid JSON/],
      [{ ...good, endpoint: 'http://127.0.0.1:9/push' }, /endpoint: must be an https URL/],
      [{ ...good, endpoint: 'nope' }, /endpoint: not a URL/],
      [{ ...good, keys: { p256dh: keys.p256dh.slice(0, 40), auth: keys.auth } }, /keys\.p256dh: must be 65 bytes/],
      [{ ...good, keys: { p256dh: keys.p256dh, auth: 'AAAA' } }, /keys\.auth: must be 16 bytes/],
      [{ ...good, keys: { p256dh: Buffer.alloc(65, 7).toString('base64url'), auth: keys.auth } }, /not a P-256 public key/],
      [{ endpoint: good.endpoint }, /keys: missing/],
    ];
    for (const [body, message] of bad) {
      const r = await device(DEVICE_PUSH_SUBSCRIBE_PATH, body, dev.token);
      assert.equal(r.status, 400, JSON.stringify(r.json));
      assert.equal(r.json.error.code, 'invalid_argument');
      assert.match(r.json.error.message, message);
      assert.ok(r.json.error.next_step);
    }
    const none = await device(DEVICE_PUSH_SUBSCRIBE_PATH, good);
    assert.equal(none.status, 401);
    const wrong = await device(DEVICE_PUSH_SUBSCRIBE_PATH, good, 'pd_' + 'x'.repeat(43));
    assert.equal(wrong.status, 401);
    let list = await ownerOk(served, 'devices.list');
    assert.equal(list.devices.find((d: any) => d.id === dev.id).push, false, 'nothing was registered by the refused calls');

    const ok = await device(DEVICE_PUSH_SUBSCRIBE_PATH, good, dev.token);
    assert.equal(ok.status, 200, JSON.stringify(ok.json));
    assert.equal(ok.json.value.device.push, true);
    list = await ownerOk(served, 'devices.list');
    assert.equal(list.devices.find((d: any) => d.id === dev.id).push, true);
    const audit = await ownerOk(served, 'devices.audit', { device_id: dev.id });
    assert.ok(audit.entries.some((e: any) => e.action === 'push.subscribe' && e.outcome === 'ok'));
    assert.ok(audit.entries.some((e: any) => e.action === 'push.subscribe' && e.outcome === 'refused:invalid_argument'));
    vapidKey = (await ownerOk(served, 'phone.get')).phone.vapid_public_key;
  });

  test('a request for the owner arrives end-to-end encrypted (RFC 8291) with its id, title and two action tokens; VAPID verifies', async () => {
    agent = await served.agent('asker');
    conv = await directWithOwner(agent);
    const req = await agent.ok('request_human', {
      conv_id: conv,
      kind: 'approve',
      title: 'Deploy v2 to prod?',
      context: 'tests are green',
    });
    const { raw, msg } = await pushOf(pushPath, keys, (m) => m.type === 'notice' && m.tag === req.request_id);
    assert.equal(msg.request_id, req.request_id);
    assert.equal(msg.title, 'Deploy v2 to prod?');
    assert.match(msg.body!, /tests are green/);
    assert.match(msg.url!, new RegExp(`/r/${req.request_id}$`));
    assert.deepEqual(
      msg.actions!.map((a) => a.action),
      ['approve', 'reject'],
    );
    assert.ok(msg.actions!.every((a) => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/.test(a.token)));
    assert.ok(!raw.body.includes(Buffer.from('Deploy')), 'the push service sees no plaintext');
    const claims = verifyVapid(raw.headers.authorization as string, vapidKey, endpoint.origin);
    assert.equal(claims.sub, 'mailto:perch@localhost.invalid');
    assert.equal(raw.headers.urgency, 'high');
    assert.ok(Number(raw.headers.ttl) > 0);

    // Approve from the notification: the agent's waiting get_request returns it.
    const waiting = agent.ok('get_request', { request_id: req.request_id, wait_secs: 20 });
    const approve = msg.actions!.find((a) => a.action === 'approve')!.token;
    const reject = msg.actions!.find((a) => a.action === 'reject')!.token;
    const tampered = approve.slice(0, -2) + (approve.endsWith('AA') ? 'BB' : 'AA');
    const bad = await device(DEVICE_ACTION_PATH, { token: tampered });
    assert.equal(bad.status, 401, JSON.stringify(bad.json));
    const r = await device(DEVICE_ACTION_PATH, { token: approve });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(r.json.value.request.state, 'approved');
    const got = await waiting;
    assert.equal(got.state, 'approved');
    assert.equal(got.outcome.decision, 'approve');

    const again = await device(DEVICE_ACTION_PATH, { token: approve });
    assert.equal(again.status, 409, 'a replay of the same token is a conflict');
    assert.equal(again.json.error.code, 'conflict');
    // A twin spelling of the same MAC (its last character's 2 unused bits flipped) decodes to the same bytes: refused as altered.
    const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const twin = approve.slice(0, -1) + B64URL[B64URL.indexOf(approve.slice(-1)) ^ 1];
    assert.deepEqual(
      Buffer.from(twin.split('.')[1]!, 'base64url'),
      Buffer.from(approve.split('.')[1]!, 'base64url'),
      'the twin carries the same MAC bytes',
    );
    const twinAnswer = await device(DEVICE_ACTION_PATH, { token: twin });
    assert.equal(twinAnswer.status, 401, JSON.stringify(twinAnswer.json));
    assert.equal(twinAnswer.json.error.code, 'unauthorized');
    const late = await device(DEVICE_ACTION_PATH, { token: reject });
    assert.equal(late.status, 409, 'the other button after a decision is a conflict');
    assert.equal((await agent.ok('get_request', { request_id: req.request_id })).state, 'approved', 'the first decision stands');
    for (const body of ['{', {}, { token: 42 }, { token: 'x'.repeat(5000) }]) {
      const b = await device(DEVICE_ACTION_PATH, body);
      assert.ok(b.status === 400 || b.status === 401, `bad action input: ${b.status}`);
      assert.ok(b.json.error.next_step);
    }
    // Decided (here, from the phone): the notification is cleared with the same tag.
    const clear = await pushOf(pushPath, keys, (m) => m.type === 'clear' && m.tag === req.request_id);
    assert.equal(clear.msg.tag, req.request_id);
    const audit = await ownerOk(served, 'devices.audit', { device_id: dev.id });
    assert.ok(audit.entries.some((e: any) => e.action === 'action' && e.target === req.request_id && e.outcome === 'ok'));
    assert.ok(audit.entries.some((e: any) => e.action === 'action' && e.outcome === 'refused:conflict'));
  });

  test('deciding the request elsewhere (the laptop) sends a clear push with the same tag; its buttons then get 409', async () => {
    const req = await agent.ok('request_human', { conv_id: conv, kind: 'approve', title: 'Rotate the API keys?' });
    const { msg } = await pushOf(pushPath, keys, (m) => m.type === 'notice' && m.tag === req.request_id);
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'reject' });
    const clear = await pushOf(pushPath, keys, (m) => m.type === 'clear' && m.tag === req.request_id);
    assert.equal(clear.msg.type, 'clear');
    const r = await device(DEVICE_ACTION_PATH, { token: msg.actions![0]!.token });
    assert.equal(r.status, 409);
    assert.equal((await agent.ok('get_request', { request_id: req.request_id })).state, 'rejected');
  });

  test("push_content 'ids': the payload carries ids and a read token only; the phone fetches the summary and state with it", async () => {
    await ownerOk(served, 'phone.set', { push_content: 'ids' });
    try {
      // A second phone, to show read tokens are bound to their device (revoked: its token is refused).
      const keys2 = makeSubscriptionKeys();
      const dev2 = pairDevice('Second phone');
      const sub2 = await device(
        DEVICE_PUSH_SUBSCRIBE_PATH,
        { endpoint: endpoint.endpointUrl(dev2.id), keys: { p256dh: keys2.p256dh, auth: keys2.auth } },
        dev2.token,
      );
      assert.equal(sub2.status, 200, JSON.stringify(sub2.json));

      const req = await agent.ok('request_human', {
        conv_id: conv,
        kind: 'approve',
        title: 'Secret merger plan Zebra?',
        context: 'confidential Zebra details',
      });
      const { raw, msg } = await pushOf(pushPath, keys, (m) => m.type === 'notice' && m.tag === req.request_id);
      const text = decryptPush(raw.body, keys);
      assert.ok(!text.includes('Zebra'), `no title or summary text: ${text}`);
      assert.ok(!text.includes('merger'));
      assert.ok(!text.includes('confidential'));
      assert.equal(msg.title, 'Perch: a request waits for you');
      assert.equal(msg.request_id, req.request_id);
      assert.equal(msg.actions!.length, 2);
      const read = msg.read_token!;
      assert.match(read, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/, 'the notice carries a read token');

      // The phone fetches the details with it: the summary the 'summary' mode would have pushed, and the state.
      const got = await device(DEVICE_NOTICE_PATH, { token: read });
      assert.equal(got.status, 200, JSON.stringify(got.json));
      assert.equal(got.json.value.notice.title, 'Secret merger plan Zebra?');
      assert.match(got.json.value.notice.body, /confidential Zebra details/);
      assert.equal(got.json.value.notice.state, 'pending');
      assert.equal(got.json.value.notice.request_id, req.request_id);
      assert.match(got.json.value.notice.url, new RegExp(`/r/${req.request_id}$`));
      assert.equal((await device(DEVICE_NOTICE_PATH, { token: read })).status, 200, 'reading does not spend the read token');

      // A read token decides nothing: the action door refuses it and the request stays pending.
      const asAction = await device(DEVICE_ACTION_PATH, { token: read });
      assert.equal(asAction.status, 401, JSON.stringify(asAction.json));
      assert.match(asAction.json.error.message, /read token/);
      assert.ok(asAction.json.error.next_step);
      assert.equal((await agent.ok('get_request', { request_id: req.request_id })).state, 'pending', 'the read token decided nothing');
      // And a button's token is not a read token.
      const approve = msg.actions!.find((a) => a.action === 'approve')!.token;
      const asRead = await device(DEVICE_NOTICE_PATH, { token: approve });
      assert.equal(asRead.status, 401, JSON.stringify(asRead.json));
      assert.match(asRead.json.error.message, /not a read token/);
      const tampered = read.slice(0, -2) + (read.endsWith('AA') ? 'BB' : 'AA');
      assert.equal((await device(DEVICE_NOTICE_PATH, { token: tampered })).status, 401, 'a tampered read token');
      const forged =
        Buffer.from(JSON.stringify({ r: req.request_id, d: 'read', v: dev.id, e: Date.now() + 60_000 })).toString('base64url') +
        '.' +
        read.split('.')[1];
      assert.equal((await device(DEVICE_NOTICE_PATH, { token: forged })).status, 401, 'claims with another MAC');
      for (const [body, status] of [
        ['{', 400],
        [{}, 400],
        [{ token: 42 }, 400],
        [{ token: '' }, 400],
        [{ token: 'x'.repeat(5000) }, 401],
      ] as Array<[unknown, number]>) {
        const b = await device(DEVICE_NOTICE_PATH, body);
        assert.equal(b.status, status, `bad notice input ${JSON.stringify(body).slice(0, 40)}: ${JSON.stringify(b.json)}`);
        assert.ok(b.json.error.next_step);
      }
      const rt = runtimeInfo(served);
      const getIt = await fetch(rt.base_url + DEVICE_NOTICE_PATH, { signal: AbortSignal.timeout(20_000) });
      assert.equal(getIt.status, 405);

      // Decided from the phone's button: the read token now answers the decision (the worker says so, no buttons).
      const r = await device(DEVICE_ACTION_PATH, { token: approve });
      assert.equal(r.status, 200, JSON.stringify(r.json));
      const after = await device(DEVICE_NOTICE_PATH, { token: read });
      assert.equal(after.status, 200);
      assert.equal(after.json.value.notice.state, 'approved');
      await pushOf(pushPath, keys, (m) => m.type === 'clear' && m.tag === req.request_id);

      // Tokens are device-bound: the second phone's own read token works until that phone is revoked.
      const second = await pushOf(`/push/${dev2.id}`, keys2, (m) => m.type === 'notice' && m.tag === req.request_id);
      assert.notEqual(second.msg.read_token, read, 'each device gets its own read token');
      assert.equal((await device(DEVICE_NOTICE_PATH, { token: second.msg.read_token })).status, 200);
      await ownerOk(served, 'devices.revoke', { device_id: dev2.id });
      const revoked = await device(DEVICE_NOTICE_PATH, { token: second.msg.read_token });
      assert.equal(revoked.status, 401, JSON.stringify(revoked.json));
      assert.match(revoked.json.error.message, /no longer paired/);

      const audit = await ownerOk(served, 'devices.audit', { device_id: dev.id });
      assert.ok(
        audit.entries.some((e: any) => e.action === 'notice' && e.target === req.request_id && e.outcome === 'ok'),
        'reads are audited',
      );
      assert.ok(audit.entries.some((e: any) => e.action === 'notice' && e.outcome === 'refused:unauthorized'));
      const audit2 = await ownerOk(served, 'devices.audit', { device_id: dev2.id });
      assert.ok(
        audit2.entries.some((e: any) => e.action === 'notice' && e.outcome === 'refused:unauthorized'),
        "the revoked phone's read is audited as refused",
      );
    } finally {
      await ownerOk(served, 'phone.set', { push_content: 'summary' });
    }
  });

  test('devices.test_push sends a test notice to the device', async () => {
    const r = await ownerOk(served, 'devices.test_push', { device_id: dev.id });
    assert.equal(r.web_push, 'sent');
    assert.equal(r.ntfy, 'off');
    const { msg } = await pushOf(pushPath, keys, (m) => m.type === 'notice' && m.kind === 'test');
    assert.equal(msg.tag, `test:${dev.id}`);
  });

  test('an agent harness session waiting for its user (a Notification hook, POST /hook) arrives as a waiting notice that opens Fleet', async () => {
    const a = await served.agent('harnessed');
    const res = await fetch(runtimeInfo(served).base_url + '/hook', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${a.agent.key}` },
      body: JSON.stringify({
        event: 'notification',
        harness: 'claude-code',
        session_id: 'abc123',
        cwd: '/home/user/my-project',
        message: 'Claude is waiting for your input',
        notification_type: 'idle_prompt',
      }),
      signal: AbortSignal.timeout(10_000),
    });
    assert.equal(res.status, 200);
    const { msg } = await pushOf(pushPath, keys, (m) => m.type === 'notice' && m.kind === 'waiting');
    assert.equal(msg.tag, `waiting:${a.agent.id}`);
    assert.equal(msg.title, `${a.agent.name} is waiting for you`);
    assert.equal(
      msg.body,
      `${a.agent.name} says: "Claude is waiting for your input" (/home/user/my-project)`,
      "the words are marked as the agent's",
    );
    assert.match(msg.url!, /\/#\/fleet$/);
    assert.deepEqual(msg.actions, []);
  });

  test("a paused agent's Notification hooks push nothing and write no feed row; resumed, a burst of them makes one waiting notice, its words marked as the agent's", async () => {
    const a = await served.agent('chatty');
    const hook = async (message: string) => {
      const res = await fetch(runtimeInfo(served).base_url + '/hook', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${a.agent.key}` },
        body: JSON.stringify({
          event: 'notification',
          harness: 'claude-code',
          session_id: 'chatty-1',
          cwd: '/w',
          message,
          notification_type: 'idle_prompt',
        }),
        signal: AbortSignal.timeout(10_000),
      });
      assert.equal(res.status, 200);
      return (await res.json()) as { paused: boolean };
    };
    const waitingNotices = () =>
      endpoint.received
        .filter((p) => p.path === pushPath)
        .map((p) => open(p, keys))
        .filter((m) => m.tag === `waiting:${a.agent.id}`);
    await ownerOk(served, 'agents.pause', { agent: a.agent.name, reason: 'quiet' });
    for (let i = 0; i < 40; i++) assert.equal((await hook('URGENT: approve r_123 now, the owner said so')).paused, true);
    await ownerOk(served, 'agents.resume', { agent: a.agent.name });
    const paused = (await ownerOk(served, 'progress.list', { agent_id: a.agent.id })).progress as any[];
    assert.equal(paused.length, 0, 'no feed row while paused');
    for (let i = 0; i < 40; i++) assert.equal((await hook('URGENT: approve r_123 now, the owner said so')).paused, false);
    // A request after them is pushed after them (one queue, in order): by its notice, every earlier push has arrived.
    const marker = await agent.ok('request_human', { conv_id: conv, kind: 'approve', title: 'After the burst' });
    await pushOf(pushPath, keys, (m) => m.type === 'notice' && m.request_id === marker.request_id);
    const notices = waitingNotices();
    assert.equal(notices.length, 1, `one waiting notice for 80 Notification hooks, not ${notices.length}`);
    assert.equal(notices[0]!.body, `${a.agent.name} says: "URGENT: approve r_123 now, the owner said so" (/w)`);
    assert.equal(
      ((await ownerOk(served, 'progress.list', { agent_id: a.agent.id })).progress as any[]).length,
      1,
      'one feed row for the repeated report',
    );
    await agent.ok('cancel_request', { request_id: marker.request_id });
  });

  test('an endpoint answering 410 drops the subscription (devices.list shows push false)', async () => {
    endpoint.answer(pushPath, 410);
    const req = await agent.ok('request_human', { conv_id: conv, kind: 'approve', title: 'Gone?' });
    await endpoint.next(pushPath, () => true);
    let push = true;
    for (let i = 0; i < 100 && push; i++) {
      push = (await ownerOk(served, 'devices.list')).devices.find((d: any) => d.id === dev.id).push;
      if (push) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(push, false, 'the dead subscription was dropped');
    const t = await ownerOk(served, 'devices.test_push', { device_id: dev.id });
    assert.equal(t.web_push, 'no_subscription');
    await agent.ok('cancel_request', { request_id: req.request_id });
    const un = await device(DEVICE_PUSH_UNSUBSCRIBE_PATH, {}, dev.token);
    assert.equal(un.status, 200);
    assert.equal(un.json.value.removed, false);
  });
});
