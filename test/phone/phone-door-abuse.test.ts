// Strangers at the device door of a real `perch serve` (through the HTTPS front's headers): they cannot wipe the
// device audit with junk (refusals of callers without a device credential are tallied, one row per window and kind,
// apart from the devices' entries), cannot lock the owner out of pairing (limits per caller and per code or
// pairing, not one bucket for everyone), and a paired phone cannot make the hub POST to any https URL (push
// endpoints only on the known Web Push services).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DB_FILE_NAME, openDatabase } from '../../src/main/store/db/db';
import { createHub } from '../../src/main/hub-services';
import { mintActionToken, mintReadToken } from '../../src/main/hub/phone/action-tokens';
import { withHub } from '../support/helpers';
import { auditDevice, AUDIT_TALLY_WINDOW_MS, createDevice, listAudit } from '../../src/main/hub/phone/devices';
import { AUDIT_KEEP, AUDIT_TALLY_KEEP } from '../../src/main/store/tables/phone/devices';
import {
  DEVICE_ACTION_PATH,
  DEVICE_NOTICE_PATH,
  DEVICE_PAIR_CLAIM_PATH,
  DEVICE_PAIR_WAIT_PATH,
  DEVICE_PUSH_SUBSCRIBE_PATH,
  DEVICE_PUSH_UNSUBSCRIBE_PATH,
} from '../../src/shared/features/devices';
import { addAgent, connect, eventually, startServe, tempDataDir, type Served } from '../support/serve-harness';
import { bearer, front, frontClient, PHONE_ADDR, PUBLIC, PUBLIC_HOST, type FrontClient } from '../support/phone-front';
import { makeSubscriptionKeys, PUSH_CERT_FILE, startPushEndpoint } from '../support/push-endpoint';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type R = any;

const STRANGER = '100.64.0.66';

/** n POSTs of JSON bodies through the front from one address, over a few kept-alive connections; answers the statuses. */
async function flood(
  served: Served,
  pathname: string,
  n: number,
  body: (i: number) => unknown,
  addr = STRANGER,
): Promise<Map<number, number>> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const data = JSON.stringify(body(i));
      const status = await new Promise<number>((resolve, reject) => {
        const rq = http.request(
          {
            host: '127.0.0.1',
            port: served.port,
            method: 'POST',
            path: pathname,
            agent,
            headers: {
              Host: PUBLIC_HOST,
              'X-Forwarded-For': addr,
              'Content-Type': 'application/json',
              'Content-Length': Buffer.byteLength(data),
            },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        rq.on('error', reject);
        rq.end(data);
      });
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  agent.destroy();
  return statuses;
}

const wrongCode = () => crypto.randomBytes(16).toString('base64url');

describe('the device door of a real perch serve, against strangers', () => {
  let served: Served;
  let phone: FrontClient;

  before(async () => {
    // No PERCH_TEST_LOOPBACK_PUSH: this hub takes only the known push services (the loopback endpoint's certificate is
    // trusted, so a push to it would go out if the hub tried).
    served = await startServe(tempDataDir(), { args: ['--public-url', PUBLIC], env: { NODE_EXTRA_CA_CERTS: PUSH_CERT_FILE } });
    phone = frontClient(served);
  });
  after(async () => {
    await served?.stop();
  });

  test("10,100 junk pairing claims and 300 malformed button calls are tallied in a few audit rows; a paired phone's earlier entries all stay", async () => {
    const dev = await phone.pair('Audited phone');
    for (let i = 0; i < 5; i++) assert.equal((await phone.deviceCall(dev.token, 'requests.list', {})).status, 200);
    const before = (await phone.ownerOk('devices.audit', { device_id: dev.device.id, limit: 500 })).entries as R[];
    assert.equal(before.filter((e) => e.action === 'requests.list').length, 5);

    const claims = await flood(served, DEVICE_PAIR_CLAIM_PATH, 10_100, () => ({ code: wrongCode(), device_name: 'x' }));
    assert.equal((claims.get(404) ?? 0) + (claims.get(429) ?? 0), 10_100, `only refusals: ${[...claims].join(' ')}`);
    assert.ok((claims.get(429) ?? 0) >= 10_000, 'the stranger is rate-limited');
    const actions = await flood(served, DEVICE_ACTION_PATH, 300, (i) => (i % 2 ? { token: `junk.${'x'.repeat(43)}` } : { nope: 1 }));
    assert.equal(
      [...actions.keys()].every((s) => s === 400 || s === 401 || s === 429),
      true,
      `only refusals: ${[...actions].join(' ')}`,
    );

    const after = (await phone.ownerOk('devices.audit', { device_id: dev.device.id, limit: 500 })).entries as R[];
    assert.deepEqual(
      after.map((e) => e.id),
      before.map((e) => e.id),
      'every entry of the device is still there',
    );
    const all = (await phone.ownerOk('devices.audit', { limit: 500 })).entries as R[];
    const tallies = all.filter((e) => e.count !== null);
    assert.ok(tallies.length <= 10, `the junk is a few tally rows, not one row each: ${tallies.length}`);
    assert.ok(tallies.every((e) => e.device_id === null && e.target === null && /^refused:/.test(e.outcome)));
    const counted = (action: string) => tallies.filter((e) => e.action === action).reduce((n, e) => n + e.count, 0);
    assert.equal(counted('pair.claim'), 10_100, 'every refused claim is counted');
    assert.equal(counted('action'), 300, 'every refused button call is counted');
    assert.ok(
      all.filter((e) => e.count === null && e.device_id === null).length <= 2,
      "no single rows of junk (only the pairing's own claim and delivery)",
    );
  });

  test("a stranger hammering wrong codes (and junk pairing waits) is cut off, and the owner's phone still claims the right code and collects its credential", async () => {
    let limited = 0;
    for (let i = 0; i < 30; i++) {
      const r = await phone.raw('POST', DEVICE_PAIR_CLAIM_PATH, front(STRANGER), { code: wrongCode() });
      if (r.status === 429) limited++;
      else assert.equal(r.status, 404);
    }
    assert.ok(limited >= 15, `the stranger's claims are limited (${limited} of 30 refused 429)`);
    const waits = await flood(served, DEVICE_PAIR_WAIT_PATH, 120, (i) => ({
      pairing_id: `pair_${i}`,
      claim_secret: 'guess',
      wait_secs: 0,
    }));
    assert.ok((waits.get(429) ?? 0) >= 40, `the stranger's waits are limited: ${[...waits].join(' ')}`);

    // The owner pairs the phone meanwhile: its claim and its wait are its own allowance.
    const { token, device } = await phone.pair('Owner phone after the stranger', 'approvals', PHONE_ADDR);
    assert.match(token, /^pd_/);
    assert.equal(device.name, 'Owner phone after the stranger');
  });

  test('one code hammered from many addresses is limited per code; another code still works', async () => {
    const code = wrongCode();
    const statuses: Array<number | null> = [];
    for (let i = 0; i < 15; i++) statuses.push((await phone.raw('POST', DEVICE_PAIR_CLAIM_PATH, front(`100.64.1.${i}`), { code })).status);
    assert.deepEqual(statuses.slice(0, 10), Array(10).fill(404), 'each address has its own allowance');
    assert.ok(
      statuses.slice(10).every((s) => s === 429),
      `the code's own limit: ${statuses.join(',')}`,
    );
    const { token } = await phone.pair('Another code', 'approvals', '100.64.1.20');
    assert.match(token, /^pd_/);
  });

  test("junk notification tokens are limited per caller: a stranger's flood is 429 for him only; another caller's bad token gets the usual 401, and valid tokens from anyone still decide", async () => {
    const flooder = '100.64.2.66';
    const other = '100.64.2.77';
    const { device } = await phone.pair('Phone with buttons', 'approvals', '100.64.2.10');
    const worker = await addAgent(served.dataDir, 'token-asker');
    const c = await connect('v1', served.mcpUrl, worker);
    try {
      const owner = (await phone.ownerOk('hub.info')).owner.name as string;
      const conv = (await c.ok('open_direct', { user: owner })).conversation.conv_id as string;
      const first = await c.ok('request_human', { conv_id: conv, kind: 'approve', title: 'First button' });
      const second = await c.ok('request_human', { conv_id: conv, kind: 'approve', title: 'Second button' });
      const firstRead = await c.ok('request_human', { conv_id: conv, kind: 'approve', title: 'Read me' });
      // The tokens a push would carry, minted with this hub's own secret (its file).
      const db = openDatabase(path.join(served.dataDir, DB_FILE_NAME));
      const hub = createHub({ db });
      let approveFirst: string, approveSecond: string, read: string;
      try {
        const until = Date.now() + 3_600_000;
        approveFirst = mintActionToken(hub, first.request_id, 'approve', device.id, until);
        approveSecond = mintActionToken(hub, second.request_id, 'reject', device.id, until);
        read = mintReadToken(hub, firstRead.request_id, device.id, until);
      } finally {
        hub.close();
        db.close();
      }
      const junk = () => ({ token: `${crypto.randomBytes(12).toString('base64url')}.${crypto.randomBytes(32).toString('base64url')}` });
      for (const route of [DEVICE_ACTION_PATH, DEVICE_NOTICE_PATH]) {
        const flood1 = await flood(served, route, 60, junk, flooder);
        assert.ok((flood1.get(429) ?? 0) >= 30, `${route}: the flooder is limited: ${[...flood1].join(' ')}`);
        // Another caller's mangled token: the normal refusal, not the flooder's 429.
        const theirs = await phone.raw('POST', route, front(other), junk());
        assert.equal(theirs.status, 401, `${route}: ${JSON.stringify(theirs.body)}`);
        assert.equal(theirs.body.error.code, 'unauthorized');
      }
      // A valid token decides, from the flooder's own address too (the failure limit never weighs on valid tokens).
      const fromFlooder = await phone.raw('POST', DEVICE_ACTION_PATH, front(flooder), { token: approveFirst });
      assert.equal(fromFlooder.status, 200, JSON.stringify(fromFlooder.body));
      assert.equal(fromFlooder.body.value.request.state, 'approved');
      const fromOther = await phone.raw('POST', DEVICE_ACTION_PATH, front(other), { token: approveSecond });
      assert.equal(fromOther.status, 200, JSON.stringify(fromOther.body));
      assert.equal(fromOther.body.value.request.state, 'rejected');
      const readByFlooder = await phone.raw('POST', DEVICE_NOTICE_PATH, front(flooder), { token: read });
      assert.equal(readByFlooder.status, 200, JSON.stringify(readByFlooder.body));
    } finally {
      await c.close();
    }
  });

  test('a push endpoint must be a known Web Push service: a LAN, loopback or look-alike host is refused 400 at subscribe and nothing is stored', async () => {
    const dev = await phone.pair('Push phone');
    const keys = makeSubscriptionKeys();
    const sub = (endpoint: string) =>
      phone.raw('POST', DEVICE_PUSH_SUBSCRIBE_PATH, front(PHONE_ADDR, [bearer(dev.token)]), {
        endpoint,
        keys: { p256dh: keys.p256dh, auth: keys.auth },
      });
    for (const endpoint of [
      'https://192.168.1.20/admin',
      'https://127.0.0.1:8443/push/x',
      'https://localhost/push',
      'https://[::1]/x',
      'https://router.lan/x',
      'https://fcm.googleapis.com.evil.example/x',
      'https://evilfcm.googleapis.com/x',
      'https://fcm.googleapis.com:8443/fcm/send/x',
      'https://push.services.mozilla.com.example.net/x',
      'https://push.apple.com/x',
      'https://notify.windows.com/x',
    ]) {
      const r = await sub(endpoint);
      assert.equal(r.status, 400, `${endpoint}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, 'invalid_argument');
      assert.match(r.body.error.message, /is not a Web Push service Perch sends to/);
    }
    assert.equal((await phone.ownerOk('devices.list')).devices.find((d: R) => d.id === dev.device.id).push, false, 'nothing was stored');
    for (const endpoint of [
      'https://fcm.googleapis.com/fcm/send/abc:def',
      'https://updates.push.services.mozilla.com/wpush/v2/gAAA',
      'https://web.push.apple.com/QGx',
      'https://wns2-par02p.notify.windows.com/w/?token=x',
    ]) {
      const r = await sub(endpoint);
      assert.equal(r.status, 200, `${endpoint}: ${JSON.stringify(r.body)}`);
    }
    assert.equal((await phone.raw('POST', DEVICE_PUSH_UNSUBSCRIBE_PATH, front(PHONE_ADDR, [bearer(dev.token)]), {})).status, 200); // sends nowhere real
  });

  test('a subscription saved before endpoints were checked (any host) is dropped at the next notice, never sent to', async () => {
    const endpoint = await startPushEndpoint();
    try {
      const dev = await phone.pair('Old subscription phone');
      const keys = makeSubscriptionKeys();
      const db = new Database(path.join(served.dataDir, DB_FILE_NAME));
      try {
        db.prepare('INSERT INTO push_subscriptions (device_id, endpoint, p256dh, auth, created_at) VALUES (?, ?, ?, ?, ?)').run(
          dev.device.id,
          endpoint.endpointUrl(dev.device.id),
          keys.p256dh,
          keys.auth,
          Date.now(),
        );
      } finally {
        db.close();
      }
      assert.equal((await phone.ownerOk('devices.list')).devices.find((d: R) => d.id === dev.device.id).push, true);
      const a = await addAgent(served.dataDir, 'asker');
      const c = await connect('v1', served.mcpUrl, a);
      try {
        const info = await phone.ownerOk('hub.info');
        const dm = (await c.ok('open_direct', { user: info.owner.name })).conversation.conv_id;
        await c.ok('request_human', { conv_id: dm, kind: 'approve', title: 'Push me?' });
      } finally {
        await c.close();
      }
      await eventually(
        async () => !(await phone.ownerOk('devices.list')).devices.find((d: R) => d.id === dev.device.id).push,
        10_000,
        'the old subscription dropped',
      );
      assert.equal(endpoint.received.length, 0, 'nothing was sent to it');
    } finally {
      await endpoint.close();
    }
  });
});

describe('the device audit keeps its two parts apart (in process, a real SQLite file)', () => {
  test("entries are pruned to the newest 10,000 and tallies to the newest 1,000, each never at the other's expense", async () => {
    let now = Date.UTC(2026, 0, 1);
    await withHub({ now: () => now }, ({ hub }) => {
      const { db } = hub;
      const dev = createDevice(hub, { name: 'Kept phone' }).device;
      const first = () => listAudit(hub, { device_id: dev.id, limit: 500 });
      auditDevice(hub, { device_id: dev.id, device_name: dev.name, action: 'requests.list', target: null, outcome: 'ok' });
      const firstId = first()[0]!.id;
      // 1,200 windows of junk: at most 1,000 tally rows stay, and the device's entry is untouched.
      for (let w = 0; w < 1200; w++) {
        now += AUDIT_TALLY_WINDOW_MS;
        for (let k = 0; k < 3; k++)
          auditDevice(hub, {
            device_id: null,
            device_name: '(not paired)',
            action: 'pair.claim',
            target: 'junk',
            outcome: 'refused:rate_limited',
          });
      }
      const rows = db
        .prepare('SELECT COUNT(*) AS n, SUM(count) AS c, MIN(count) AS lo FROM device_audit WHERE count IS NOT NULL')
        .get() as { n: number; c: number; lo: number };
      assert.equal(rows.n, AUDIT_TALLY_KEEP, 'tallies are bounded');
      assert.equal(rows.lo, 3, 'each window counted its three refusals in one row');
      assert.deepEqual(
        first().map((e) => e.id),
        [firstId],
        "the device's entry outlived the junk",
      );
      // 10,050 more device entries: the oldest entries go, the tallies stay.
      for (let i = 0; i < 10_050; i++)
        auditDevice(hub, { device_id: dev.id, device_name: dev.name, action: 'requests.decide', target: null, outcome: 'ok' });
      const entries = (db.prepare('SELECT COUNT(*) AS n FROM device_audit WHERE count IS NULL').get() as { n: number }).n;
      assert.ok(entries >= AUDIT_KEEP && entries < AUDIT_KEEP + 100, `entries are bounded (${entries})`);
      assert.ok(!first().some((e) => e.id === firstId), 'the oldest entry was pruned by newer entries');
      assert.equal(
        (db.prepare('SELECT COUNT(*) AS n FROM device_audit WHERE count IS NOT NULL').get() as { n: number }).n,
        AUDIT_TALLY_KEEP,
        'the tallies were not touched',
      );
    });
  });
});
