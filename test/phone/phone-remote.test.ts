// Remote access through the HTTPS front, paired devices, pairing, scopes and the device audit.
// A real hub (startHub: real SQLite file, real HTTP on 127.0.0.1) whose clock the test can move forward; raw
// HTTP (test/support/raw-http.ts) so Host, Origin and the front's headers can be forged; an agent through the official
// MCP client.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startHub, type RunningHub } from '../../src/main/app';
import { addAgent } from '../../src/main/hub/control/agents';
import { PHONE_ADDR, PUBLIC, PUBLIC_HOST, bearer, front, frontClient, type Answer, type FrontClient } from '../support/phone-front';
import { connect, type AgentClient } from '../support/serve-harness';
import { PAIRING_TTL_MS } from '../../src/shared/features/devices';
import { getSetting } from '../../src/main/store/tables/talk/settings';
import { sql } from '../../src/main/store/db/db';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type R = any;

let running: RunningHub;
let dir: string;
let skew = 0; // the hub's clock: Date.now() + skew
let ownerToken: string;

/** One raw request to the hub (test/support/phone-front.ts): headers as given, nothing added but Content-Length. */
const raw: FrontClient['raw'] = (method, target, headers, body) =>
  frontClient({ port: running.port, dataDir: dir }).raw(method, target, headers, body);

const local = (): Array<[string, string]> => [['Host', `127.0.0.1:${running.port}`]];

async function ownerCall(action: string, input: unknown = {}): Promise<Answer> {
  return raw('POST', `/api/owner/${action}`, [...local(), bearer(ownerToken)], input);
}
async function ownerOk(action: string, input: unknown = {}): Promise<R> {
  const a = await ownerCall(action, input);
  assert.equal(a.status, 200, `${action}: ${JSON.stringify(a.body)}`);
  return a.body.value;
}

/** Pairs a phone through the front: start (laptop), claim and wait (phone), confirm (laptop). */
async function pair(name: string, scope: 'approvals' | 'full' = 'approvals'): Promise<{ token: string; device: R }> {
  const start = await ownerOk('devices.pair_start', { name, scope });
  const code = start.url.split('#')[1];
  const claim = await raw('POST', '/api/device/pair/claim', front(), { code, device_name: 'Android phone' });
  assert.equal(claim.status, 200, JSON.stringify(claim.body));
  const waiting = raw('POST', '/api/device/pair/wait', front(), {
    pairing_id: claim.body.value.pairing_id,
    claim_secret: claim.body.value.claim_secret,
    wait_secs: 20,
  });
  await ownerOk('devices.pair_confirm', { pairing_id: claim.body.value.pairing_id, phrase: claim.body.value.phrase });
  const got = await waiting;
  assert.equal(got.status, 200, JSON.stringify(got.body));
  return { token: got.body.value.device_token, device: got.body.value.device };
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-phone-'));
  running = await startHub({
    dataDir: dir,
    port: 0,
    now: () => Date.now() + skew,
    dailyBackups: 0,
    deviceLimits: { claimsPerMinute: 100, failuresPerMinute: 30 },
  });
  ownerToken = JSON.parse(fs.readFileSync(path.join(dir, 'runtime.json'), 'utf8')).owner_token;
  await ownerOk('phone.set', { public_url: `${PUBLIC}/` });
});

after(async () => {
  await running?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the HTTPS front: Host, Origin, front headers, Funnel', () => {
  test('phone.set normalizes the public URL to its origin; phone.get shows it and a VAPID key', async () => {
    const phone = (await ownerOk('phone.get')).phone;
    assert.equal(phone.public_url, PUBLIC);
    assert.match(phone.vapid_public_key, /^[A-Za-z0-9_-]{80,}$/);
  });

  test('a forged Host (neither loopback nor the public URL) gets 403', async () => {
    const a = await raw('GET', '/', [['Host', 'evil.example.com']]);
    assert.equal(a.status, 403);
    assert.equal(a.body.error.code, 'forbidden');
    const b = await raw('POST', '/api/device/pair/claim', [['Host', 'laptop.tail1234.ts.net.evil.com']], { code: 'x'.repeat(22) });
    assert.equal(b.status, 403);
  });

  test('a forged Origin gets 403, through the front and on loopback', async () => {
    const a = await raw('POST', '/api/owner/hub.info', front(PHONE_ADDR, [['Origin', 'https://evil.example.com']]), {});
    assert.equal(a.status, 403);
    const b = await raw(
      'POST',
      '/api/owner/hub.info',
      [...local(), bearer(ownerToken), ['Origin', 'https://laptop.tail1234.ts.net.evil.com']],
      {},
    );
    assert.equal(b.status, 403);
  });

  test("the front's headers without a device credential get 401 (with the pairing step); the owner's token does not help", async () => {
    const a = await raw('POST', '/api/owner/requests.list', front(), {});
    assert.equal(a.status, 401);
    assert.match(a.body.error.next_step, /Settings → Phone/);
    // Loopback Host, but forwarded: still remote; the CLI's owner token is refused.
    const b = await raw('POST', '/api/owner/requests.list', [...local(), ['X-Forwarded-For', '100.64.0.1'], bearer(ownerToken)], {});
    assert.equal(b.status, 401);
    const c = await raw('POST', '/api/owner/requests.list', [['Host', PUBLIC_HOST], bearer(ownerToken)], {});
    assert.equal(c.status, 401, 'the public Host alone makes it remote');
    const d = await raw('GET', '/api/owner/events', front(PHONE_ADDR, [bearer(ownerToken)]));
    assert.equal(d.status, 401);
    // The same token on loopback works (control).
    assert.equal((await ownerCall('requests.list')).status, 200);
  });

  test('a Funnel request is refused (403), even with loopback Host and a good credential', async () => {
    const a = await raw('POST', '/api/owner/hub.info', [...local(), bearer(ownerToken), ['Tailscale-Funnel-Request', '?1']], {});
    assert.equal(a.status, 403);
    assert.match(a.body.error.message, /Funnel/);
    assert.equal((await raw('GET', '/', front(PHONE_ADDR, [['Tailscale-Funnel-Request', '?1']]))).status, 403);
  });

  test('through the front: /mcp, the login page and exchange, login links and /files are refused; the UI and /pair are served', async () => {
    assert.equal((await raw('POST', '/mcp', front(), { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status, 403);
    assert.equal((await raw('GET', '/login', front())).status, 403);
    assert.equal((await raw('POST', '/api/owner/session', front(), { token: 'x' })).status, 403);
    assert.equal((await raw('POST', '/api/owner/login-link', front(PHONE_ADDR, [bearer(ownerToken)]), {})).status, 403);
    assert.equal((await raw('GET', '/files/f_0123456789abcdef?t=x', front())).status, 403);
    for (const p of ['/', '/pair']) {
      const a = await raw('GET', p, front());
      assert.ok(a.status === 200 || a.status === 503, `${p}: the UI (or its not-built notice), not a refusal: ${a.status}`);
    }
  });

  test('the listening socket is 127.0.0.1 only', async () => {
    // RunningHub has no server handle; the port answers on loopback and nowhere else.
    const addrs = Object.values(os.networkInterfaces())
      .flat()
      .filter((i) => i && i.family === 'IPv4' && !i.internal)
      .map((i) => i!.address);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(running.port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    assert.ok(ok, 'loopback connects');
    for (const addr of addrs) {
      const refused = await new Promise<string>((resolve) => {
        const s = net.connect(running.port, addr, () => {
          s.destroy();
          resolve('connected');
        });
        s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
        s.setTimeout(3000, () => {
          s.destroy();
          resolve('timeout');
        });
      });
      assert.notEqual(refused, 'connected', `${addr}:${running.port} must not accept connections`);
    }
    assert.ok(running.baseUrl.startsWith('http://127.0.0.1:'));
  });
});

describe('pairing', () => {
  test('a code works once: the second claim is 410; the credential is delivered once (second wait 410)', async () => {
    const start = await ownerOk('devices.pair_start', { name: 'Once phone' });
    assert.match(start.url, /^https:\/\/laptop\.tail1234\.ts\.net\/pair#[A-Za-z0-9_-]{22}$/);
    assert.match(start.qr_svg, /^<svg/);
    const code = start.url.split('#')[1];
    const c1 = await raw('POST', '/api/device/pair/claim', front(), { code, device_name: 'Pixel' });
    assert.equal(c1.status, 200);
    assert.match(c1.body.value.phrase, /^[a-z]+ [a-z]+ [a-z]+ \d\d$/);
    const c2 = await raw('POST', '/api/device/pair/claim', front(), { code, device_name: 'Other' });
    assert.equal(c2.status, 410);
    assert.equal(c2.body.error.code, 'expired');
    const status = await ownerOk('devices.pair_status', { pairing_id: c1.body.value.pairing_id });
    assert.equal(status.pairing.state, 'claimed');
    assert.equal(status.pairing.phrase, c1.body.value.phrase, 'both screens show the same phrase');
    const w = { pairing_id: c1.body.value.pairing_id, claim_secret: c1.body.value.claim_secret };
    const before = await raw('POST', '/api/device/pair/wait', front(), w);
    assert.equal(before.body.value.state, 'claimed');
    assert.equal(before.body.value.device_token, undefined, 'no credential before the owner confirms');
    const wrong = await raw('POST', '/api/device/pair/wait', front(), { ...w, claim_secret: 'A'.repeat(43) });
    assert.equal(wrong.status, 404);
    await ownerOk('devices.pair_confirm', { pairing_id: w.pairing_id });
    const got = await raw('POST', '/api/device/pair/wait', front(), w);
    assert.equal(got.status, 200);
    assert.match(got.body.value.device_token, /^pd_[A-Za-z0-9_-]{43}$/);
    assert.equal(got.body.value.device.name, 'Once phone', "the owner's name wins");
    const again = await raw('POST', '/api/device/pair/wait', front(), w);
    assert.equal(again.status, 410, 'the credential is handed out once');
    const me = await raw('GET', '/api/device/me', front(PHONE_ADDR, [bearer(got.body.value.device_token)]));
    assert.equal(me.status, 200);
    assert.equal(me.body.value.device.scope, 'approvals');
    assert.deepEqual(me.body.value.allowed_actions, [
      'hub.info',
      'hub.storage',
      'requests.list',
      'requests.decide',
      'cards.answer',
      'handoffs.list',
      'handoffs.hand_back',
    ]);
  });

  test('an unknown code is 404; a code expires after 5 minutes (410), and so does a claimed pairing not confirmed in time', async () => {
    assert.equal((await raw('POST', '/api/device/pair/claim', front(), { code: 'A'.repeat(22) })).status, 404);
    const s1 = await ownerOk('devices.pair_start', {});
    const s2 = await ownerOk('devices.pair_start', {});
    const c2 = await raw('POST', '/api/device/pair/claim', front(), { code: s2.url.split('#')[1] });
    assert.equal(c2.status, 200);
    skew += PAIRING_TTL_MS + 1000;
    try {
      const c1 = await raw('POST', '/api/device/pair/claim', front(), { code: s1.url.split('#')[1] });
      assert.equal(c1.status, 410);
      assert.equal((await ownerOk('devices.pair_status', { pairing_id: s1.pairing.pairing_id })).pairing.state, 'expired');
      const conf = await ownerCall('devices.pair_confirm', { pairing_id: c2.body.value.pairing_id });
      assert.notEqual(conf.status, 200, 'an expired pairing cannot be confirmed');
      const w = await raw('POST', '/api/device/pair/wait', front(), {
        pairing_id: c2.body.value.pairing_id,
        claim_secret: c2.body.value.claim_secret,
      });
      assert.equal(w.status, 410);
    } finally {
      skew -= PAIRING_TTL_MS + 1000;
    }
  });

  test('at most 8 waits on one pairing: another is refused with 429 rate_limited; the cancel answers the waiting ones', async () => {
    const s = await ownerOk('devices.pair_start', {});
    const c = await raw('POST', '/api/device/pair/claim', front(), { code: s.url.split('#')[1] });
    assert.equal(c.status, 200);
    const id = c.body.value.pairing_id;
    const waits = Array.from({ length: 8 }, () => ownerCall('devices.pair_status', { pairing_id: id, state: 'claimed', wait_secs: 30 }));
    let refused: Answer | undefined;
    for (let i = 0; i < 100 && !refused; i++) {
      // the 8 waits arrive in their own time: probe until they all wait
      const probe = await ownerCall('devices.pair_status', { pairing_id: id, state: 'claimed', wait_secs: 1 });
      if (probe.status !== 200) refused = probe;
    }
    assert.ok(refused, 'a ninth wait on the pairing is refused');
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.code, 'rate_limited');
    await ownerOk('devices.pair_cancel', { pairing_id: id });
    for (const w of await Promise.all(waits)) {
      assert.equal(w.status, 200);
      assert.equal(w.body.value.pairing.state, 'cancelled', 'each wait answers with the new state');
    }
    assert.equal(
      (await ownerOk('devices.pair_status', { pairing_id: id, state: 'claimed', wait_secs: 1 })).pairing.state,
      'cancelled',
      'the waits are gone: a new call is answered',
    );
  });

  test("a cancelled pairing's code is 410; pair_start needs the public URL", async () => {
    const s = await ownerOk('devices.pair_start', {});
    await ownerOk('devices.pair_cancel', { pairing_id: s.pairing.pairing_id });
    assert.equal((await raw('POST', '/api/device/pair/claim', front(), { code: s.url.split('#')[1] })).status, 410);
    await ownerOk('phone.set', { public_url: null });
    try {
      const r = await ownerCall('devices.pair_start', {});
      assert.equal(r.status, 409);
      assert.match(r.body.error.next_step, /tailscale serve/);
    } finally {
      await ownerOk('phone.set', { public_url: PUBLIC });
    }
  });
});

describe('scopes, revocation and the audit list', () => {
  let agent: AgentClient;
  let conv: string;
  before(async () => {
    const a = addAgent(running.hub, { name: 'deployer' });
    agent = await connect('v1', running.mcpUrl, { id: a.agent.id, name: a.agent.name, key: a.key });
    conv = (await agent.ok('open_direct', { user: running.hub.owner.name })).conversation.conv_id;
  });
  after(async () => agent?.close());

  test("an approvals-only device cannot read conversations, send, open files or manage agents (403), but decides a real agent's request and hands back", async () => {
    const { token, device } = await pair('Approvals phone');
    const call = (action: string, input: unknown = {}) => raw('POST', `/api/owner/${action}`, front(PHONE_ADDR, [bearer(token)]), input);
    for (const [action, input] of [
      ['conversations.list', {}],
      ['conversations.history', { conv_id: conv }],
      ['messages.send', { conv_id: conv, text: 'hi' }],
      ['files.url', { file_id: 'f_0123456789abcdef' }],
      ['agents.list', {}],
      ['agents.add', { name: 'x' }],
      ['phone.set', { public_url: null }],
      ['devices.list', {}],
      ['devices.pair_start', {}],
    ] as const) {
      const r = await call(action, input);
      assert.equal(r.status, 403, `${action} is refused for an approvals device: ${JSON.stringify(r.body)}`);
    }
    assert.equal(getSetting(running.hub.db, 'phone.public_url'), PUBLIC, 'nothing changed');
    // A real agent asks; the device lists and approves; the agent's waiting get_request returns it.
    const req = await agent.ok('request_human', { conv_id: conv, kind: 'approve', title: 'Deploy to prod?' });
    const list = await call('requests.list', { state: 'pending' });
    assert.equal(list.status, 200);
    assert.ok(list.body.value.requests.some((r: R) => r.request_id === req.request_id));
    const waiting = agent.ok('get_request', { request_id: req.request_id, wait_secs: 10 });
    const decided = await call('requests.decide', { request_id: req.request_id, decision: 'approve', comment: 'from the phone' });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    const r = await waiting;
    assert.equal(r.state, 'approved');
    assert.equal(r.outcome.comment, 'from the phone');
    // A handoff to the owner: listed and handed back from the phone.
    await agent.ok('handoff', { conv_id: conv, note: 'Need your call on pricing.' });
    const hs = await call('handoffs.list');
    assert.equal(hs.status, 200);
    assert.ok(hs.body.value.handoffs.some((h: R) => h.conv_id === conv));
    assert.equal((await call('handoffs.hand_back', { conv_id: conv, note: 'Go with plan B.' })).status, 200);
    // The audit lists allowed and refused calls of this device.
    const audit = (await ownerOk('devices.audit', { device_id: device.id })).entries as R[];
    assert.ok(audit.some((e) => e.action === 'requests.decide' && e.outcome === 'ok' && e.target === req.request_id));
    assert.ok(audit.some((e) => e.action === 'conversations.list' && e.outcome === 'refused:forbidden'));
    assert.ok(audit.some((e) => e.action === 'messages.send' && e.outcome === 'refused:forbidden'));
    assert.ok(audit.every((e) => e.device_id === device.id && e.device_name === 'Approvals phone'));
  });

  test('the approvals event stream carries request events and not other messages', async () => {
    const { token } = await pair('Stream phone');
    const http = await import('node:http');
    const got: string[] = [];
    const res = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      const rq = http.request(
        {
          host: '127.0.0.1',
          port: running.port,
          path: '/api/owner/events',
          headers: { Host: PUBLIC_HOST, 'X-Forwarded-For': '100.64.0.2', Authorization: `Bearer ${token}` },
        },
        resolve,
      );
      rq.on('error', reject);
      rq.end();
    });
    assert.equal(res.statusCode, 200);
    res.setEncoding('utf8').on('data', (c: string) => got.push(c));
    await agent.ok('send_message', { conv_id: conv, text: 'a plain chat line nobody must see on the phone' });
    const req = await agent.ok('request_human', { conv_id: conv, kind: 'approve', title: 'Stream me' });
    const end = Date.now() + 5000;
    while (!got.join('').includes(req.request_id) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    res.destroy();
    const text = got.join('');
    assert.ok(text.includes(req.request_id), "the request reached the phone's stream");
    assert.ok(!text.includes('a plain chat line'), 'a plain message did not');
  });

  test('revoking a device kills its credential (401 after) and deletes its push subscription row', async () => {
    const { token, device } = await pair('Revoked phone');
    assert.equal((await raw('POST', '/api/owner/requests.list', front(PHONE_ADDR, [bearer(token)]), {})).status, 200);
    sql(running.hub.db, 'INSERT INTO push_subscriptions (device_id, endpoint, p256dh, auth, created_at) VALUES (?, ?, ?, ?, ?)').run(
      device.id,
      'https://push.example.com/x',
      'p',
      'a',
      Date.now(),
    );
    assert.equal((await ownerOk('devices.list')).devices.find((d: R) => d.id === device.id).push, true);
    const rev = await ownerOk('devices.revoke', { device_id: device.id });
    assert.equal(rev.device.revoked, true);
    assert.equal(rev.device.push, false);
    assert.equal(
      sql<{ n: number }>(running.hub.db, 'SELECT COUNT(*) AS n FROM push_subscriptions WHERE device_id = ?').get(device.id)!.n,
      0,
    );
    assert.equal((await raw('POST', '/api/owner/requests.list', front(PHONE_ADDR, [bearer(token)]), {})).status, 401);
    assert.equal((await raw('GET', '/api/device/me', front(PHONE_ADDR, [bearer(token)]))).status, 401);
  });

  test('a full-scope device reads conversations but may not manage devices or phone settings; a device credential also works on loopback', async () => {
    const { token } = await pair('Full phone', 'full');
    assert.equal((await raw('POST', '/api/owner/conversations.list', front(PHONE_ADDR, [bearer(token)]), {})).status, 200);
    assert.equal((await raw('POST', '/api/owner/conversations.list', [...local(), bearer(token)], {})).status, 200);
    assert.equal((await raw('POST', '/api/owner/devices.list', front(PHONE_ADDR, [bearer(token)]), {})).status, 403);
    assert.equal((await raw('POST', '/api/owner/phone.set', front(PHONE_ADDR, [bearer(token)]), { public_url: null })).status, 403);
    assert.equal(getSetting(running.hub.db, 'phone.public_url'), PUBLIC);
  });
});

describe('bad input: a clear 400 that changes nothing', () => {
  test('phone.set refuses a bad public URL or ntfy setting and keeps the old one', async () => {
    for (const bad of [
      'ftp://x.example',
      'https://x.example/path',
      'https://x.example/?q=1',
      'https://x.example/#f',
      'not a url',
      'https://user:pw@x.example',
    ]) {
      const r = await ownerCall('phone.set', { public_url: bad });
      assert.equal(r.status, 400, bad);
      assert.equal(r.body.error.code, 'invalid_argument');
      assert.ok(r.body.error.next_step);
    }
    assert.equal((await ownerCall('phone.set', { ntfy: { server: 'gopher://x', topic: 't' } })).status, 400);
    assert.equal((await ownerCall('phone.set', { ntfy: { server: 'https://ntfy.sh', topic: 'bad topic!' } })).status, 400);
    assert.equal((await ownerCall('phone.set', { push_content: 'everything' })).status, 400);
    const phone = (await ownerOk('phone.get')).phone;
    assert.equal(phone.public_url, PUBLIC);
    assert.equal(phone.ntfy, null);
    assert.equal(phone.push_content, 'summary');
  });

  test('the devices.* actions refuse bad input (400/404) and change nothing', async () => {
    const before = (await ownerOk('devices.list')).devices.length;
    assert.equal((await ownerCall('devices.pair_start', { scope: 'admin' })).status, 400);
    assert.equal((await ownerCall('devices.pair_start', { name: 'x'.repeat(61) })).status, 400);
    assert.equal((await ownerCall('devices.pair_status', { pairing_id: 'pair_nope', wait_secs: 31 })).status, 400);
    assert.equal((await ownerCall('devices.pair_status', { pairing_id: 'pair_nope' })).status, 404);
    assert.equal((await ownerCall('devices.pair_confirm', { pairing_id: 'pair_nope' })).status, 404);
    assert.equal((await ownerCall('devices.pair_cancel', { pairing_id: 'pair_nope' })).status, 404);
    assert.equal((await ownerCall('devices.revoke', { device_id: 'dev_nope' })).status, 404);
    assert.equal((await ownerCall('devices.audit', { limit: 0 })).status, 400);
    assert.equal((await ownerCall('devices.list', { extra: 1 })).status, 400);
    assert.equal((await ownerOk('devices.list')).devices.length, before);
  });

  test('the device door refuses bad input with 400 (or 405/404) and changes nothing', async () => {
    const pairingsBefore = sql<{ n: number }>(
      running.hub.db,
      'SELECT COUNT(*) AS n FROM device_pairings WHERE claimed_at IS NOT NULL',
    ).get()!.n;
    const cases: Array<[string, string, unknown, number]> = [
      ['POST', '/api/device/pair/claim', 'not json', 400],
      ['POST', '/api/device/pair/claim', [], 400],
      ['POST', '/api/device/pair/claim', { code: 5 }, 400],
      ['POST', '/api/device/pair/claim', { code: 'short' }, 400],
      ['POST', '/api/device/pair/claim', { code: 'A'.repeat(22), device_name: 7 }, 400],
      ['POST', '/api/device/pair/claim', { code: 'A'.repeat(22), extra: true }, 400],
      ['POST', '/api/device/pair/wait', { pairing_id: 1, claim_secret: 'x' }, 400],
      ['POST', '/api/device/pair/wait', { pairing_id: 'p', claim_secret: 'x', wait_secs: 99 }, 400],
      ['POST', '/api/device/pair/wait', { pairing_id: 'p', claim_secret: 'x', wait_secs: 1.5 }, 400],
      ['GET', '/api/device/pair/claim', undefined, 405],
      ['POST', '/api/device/me', {}, 405],
      ['GET', '/api/device/nothing', undefined, 404],
    ];
    for (const [method, p, body, status] of cases) {
      const r = await raw(method, p, front(), body);
      assert.equal(r.status, status, `${method} ${p} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
      assert.ok(r.body?.error?.code && r.body.error.message && r.body.error.next_step, `${p}: a clear error body`);
    }
    assert.equal((await raw('GET', '/api/device/me', front(PHONE_ADDR, [bearer('pd_not-a-real-one')]))).status, 401);
    const pairingsAfter = sql<{ n: number }>(
      running.hub.db,
      'SELECT COUNT(*) AS n FROM device_pairings WHERE claimed_at IS NOT NULL',
    ).get()!.n;
    assert.equal(pairingsAfter, pairingsBefore);
  });
});

describe('rate limits (last: they spend the hub-wide buckets)', () => {
  test('failed device credentials: over the limit the answer is 429 with Retry-After', async () => {
    let limited: Answer | undefined;
    for (let i = 0; i < 40 && !limited; i++) {
      const r = await raw('GET', '/api/device/me', front(PHONE_ADDR, [bearer(`pd_guess${i}`)]));
      if (r.status === 429) limited = r;
      else assert.equal(r.status, 401);
    }
    assert.ok(limited, 'a burst of bad credentials is rate-limited');
    assert.equal(limited!.body.error.code, 'rate_limited');
    assert.match(limited!.head, /\r\nretry-after: \d+/i);
  });
});
