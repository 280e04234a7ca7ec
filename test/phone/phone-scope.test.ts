// What a phone paired with the approvals scope may see and do, beyond phone-remote.test.ts: answering
// cards (only those addressed to the owner), the live event stream (only requests, the owner's handoffs and
// owner-addressed cards) and the handoffs list (only handoffs to the owner). A real hub (real SQLite file, real
// HTTP on 127.0.0.1), raw HTTP through the front's headers, agents through the official MCP client.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startHub, type RunningHub } from '../../src/main/app';
import { addAgent } from '../../src/main/hub/control/agents';
import { listCardResponses } from '../../src/main/hub/features/cards/cards';
import { insertUser } from '../../src/main/store/tables/agents/users';
import { insertMember } from '../../src/main/store/tables/talk/conversations';
import { buildRequest, rawExchange } from '../support/raw-http';
import { connect, type AgentClient } from '../support/serve-harness';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type R = any;

const PUBLIC = 'https://laptop.tail1234.ts.net';
const PUBLIC_HOST = 'laptop.tail1234.ts.net';
const CARD = {
  title: 'Release',
  blocks: [
    { type: 'text', text: 'Ship 2.1?' },
    {
      type: 'buttons',
      id: 'go',
      options: [
        { id: 'yes', label: 'Yes' },
        { id: 'no', label: 'No' },
      ],
    },
  ],
};

let running: RunningHub;
let dir: string;
let ownerToken: string;
let agent: AgentClient;
let helperName: string;
let dm: string; // the agent's direct conversation with the owner
let group: string; // a group of the agent, another agent and the owner

interface Answer {
  status: number | null;
  body: R;
}

async function raw(method: string, target: string, headers: Array<[string, string]>, body?: unknown): Promise<Answer> {
  const text = body === undefined ? '' : JSON.stringify(body);
  const h: Array<[string, string]> = [...headers, ['Connection', 'close']];
  if (body !== undefined) h.push(['Content-Type', 'application/json']);
  const a = await rawExchange(running.port, buildRequest(method, target, h, text), { timeoutMs: 40_000 });
  let parsed: R;
  try {
    parsed = JSON.parse(a.body.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  return { status: a.status, body: parsed };
}

const front = (extra: Array<[string, string]> = []): Array<[string, string]> => [
  ['Host', PUBLIC_HOST],
  ['X-Forwarded-For', '100.101.102.103'],
  ['X-Forwarded-Proto', 'https'],
  ['Tailscale-User-Login', 'me@example.com'],
  ...extra,
];
const bearer = (t: string): [string, string] => ['Authorization', `Bearer ${t}`];

async function ownerOk(action: string, input: unknown = {}): Promise<R> {
  const a = await raw('POST', `/api/owner/${action}`, [['Host', `127.0.0.1:${running.port}`], bearer(ownerToken)], input);
  assert.equal(a.status, 200, `${action}: ${JSON.stringify(a.body)}`);
  return a.body.value;
}

/** Pairs a phone through the front (start and confirm on the laptop, claim and wait on the phone). */
async function pair(name: string, scope: 'approvals' | 'full' = 'approvals'): Promise<string> {
  const start = await ownerOk('devices.pair_start', { name, scope });
  const claim = await raw('POST', '/api/device/pair/claim', front(), { code: start.url.split('#')[1], device_name: 'Android phone' });
  assert.equal(claim.status, 200, JSON.stringify(claim.body));
  const waiting = raw('POST', '/api/device/pair/wait', front(), {
    pairing_id: claim.body.value.pairing_id,
    claim_secret: claim.body.value.claim_secret,
    wait_secs: 20,
  });
  await ownerOk('devices.pair_confirm', { pairing_id: claim.body.value.pairing_id, phrase: claim.body.value.phrase });
  const got = await waiting;
  assert.equal(got.status, 200, JSON.stringify(got.body));
  return got.body.value.device_token;
}

/** An owner action called by a device through the front. */
const deviceCall = (token: string, action: string, input: unknown = {}) =>
  raw('POST', `/api/owner/${action}`, front([bearer(token)]), input);

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-phone-scope-'));
  running = await startHub({ dataDir: dir, port: 0, dailyBackups: 0, deviceLimits: { claimsPerMinute: 100, failuresPerMinute: 30 } });
  ownerToken = JSON.parse(fs.readFileSync(path.join(dir, 'runtime.json'), 'utf8')).owner_token;
  await ownerOk('phone.set', { public_url: PUBLIC });
  const a = addAgent(running.hub, { name: 'carder' });
  helperName = addAgent(running.hub, { name: 'helper' }).agent.name;
  agent = await connect('v1', running.mcpUrl, { id: a.agent.id, name: a.agent.name, key: a.key });
  dm = (await agent.ok('open_direct', { user: running.hub.owner.name })).conversation.conv_id;
  group = (await agent.ok('create_group', { members: [helperName], title: 'Release room' })).conversation.conv_id;
});

after(async () => {
  await agent?.close();
  await running?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('cards.answer with an approvals-scope device', () => {
  test("a card the agent sends in its direct conversation with the owner is answered from the phone; the response is the owner's", async () => {
    const token = await pair('Card phone');
    const card = await agent.ok('send_card', { conv_id: dm, text: 'Ship release 2.1?', card: CARD });
    const r = await deviceCall(token, 'cards.answer', { msg_id: card.msg_id, block_id: 'go', value: 'yes' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.value.value, 'yes');
    const responses = listCardResponses(running.hub, card.msg_id);
    assert.equal(responses.length, 1);
    assert.equal(responses[0]!.value, 'yes');
    assert.equal(responses[0]!.by.id, running.hub.ownerId, 'the device answers as the owner');
    // The agent hears it (card.response in its updates).
    const ups = await agent.ok('get_updates', { wait_secs: 5 });
    assert.ok(JSON.stringify(ups).includes(card.msg_id), 'the agent sees the response to its card');
  });

  test('a card in a group (not addressed to the owner) is refused 403 and nothing changes; the laptop may still answer it', async () => {
    const token = await pair('Group card phone');
    const card = await agent.ok('send_card', { conv_id: group, text: 'Which region?', card: CARD });
    const r = await deviceCall(token, 'cards.answer', { msg_id: card.msg_id, block_id: 'go', value: 'no' });
    assert.equal(r.status, 403, JSON.stringify(r.body));
    assert.equal(r.body.error.code, 'forbidden');
    assert.match(r.body.error.message, /only cards addressed to you/);
    assert.deepEqual(listCardResponses(running.hub, card.msg_id), [], 'no response was stored');
    const hist = await ownerOk('conversations.history', { conv_id: group });
    const ev = (hist.events as R[]).find((e) => e.message?.msg_id === card.msg_id);
    assert.ok(ev, 'the card is in the group history');
    assert.deepEqual(ev.message.payload.responses, [], 'the card still shows no response');
    // A non-card message id and an unknown id are refused the same way (nothing to learn from the answer).
    const plain = await agent.ok('send_message', { conv_id: dm, text: 'not a card' });
    assert.equal((await deviceCall(token, 'cards.answer', { msg_id: plain.msg_id, block_id: 'go', value: 'yes' })).status, 403);
    assert.equal((await deviceCall(token, 'cards.answer', { msg_id: 'm_0123456789abcdef', block_id: 'go', value: 'yes' })).status, 403);
    // Control: the same call from the laptop works (the refusal is the scope's, not the card's).
    await ownerOk('cards.answer', { msg_id: card.msg_id, block_id: 'go', value: 'no' });
    assert.equal(listCardResponses(running.hub, card.msg_id).length, 1);
  });
});

describe('the live event stream of an approvals device', () => {
  test('it gets requests, handoffs to the owner and owner-addressed cards; not plain messages, group cards or handoffs to someone else', async () => {
    const token = await pair('Stream phone');
    const bob = addPerson('bob');
    const bobRoom = (await agent.ok('create_group', { members: [helperName], title: 'Bob room' })).conversation.conv_id;
    insertMember(running.hub.db, { conv_id: bobRoom, user_id: bob, role: 'member', from_seq: 0, joined_at: Date.now() });

    const chunks: string[] = [];
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
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
    try {
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /text\/event-stream/);
      res.setEncoding('utf8').on('data', (c: string) => chunks.push(c));

      // What must NOT reach the phone.
      await agent.ok('send_message', { conv_id: dm, text: 'PLAIN-DM-LINE' });
      await agent.ok('send_message', { conv_id: group, text: 'PLAIN-GROUP-LINE' });
      const groupCard = await agent.ok('send_card', { conv_id: group, text: 'GROUP-CARD-TEXT', card: CARD });
      await ownerOk('cards.answer', { msg_id: groupCard.msg_id, block_id: 'go', value: 'yes' }); // its card.response
      await agent.ok('handoff', { conv_id: bobRoom, note: 'HANDOFF-TO-BOB', to: 'bob' });
      // What must reach it.
      const dmCard = await agent.ok('send_card', { conv_id: dm, text: 'DM-CARD-TEXT', card: CARD });
      const req = await agent.ok('request_human', { conv_id: group, kind: 'approve', title: 'REQUEST-TITLE' });
      await agent.ok('handoff', { conv_id: group, note: 'HANDOFF-TO-OWNER' });
      // A last request: the stream is ordered, so once it arrived everything before it has too.
      const sentinel = await agent.ok('request_human', { conv_id: dm, kind: 'approve', title: 'SENTINEL' });

      const end = Date.now() + 10_000;
      while (!chunks.join('').includes(sentinel.request_id) && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
      const text = chunks.join('');
      assert.ok(text.includes(sentinel.request_id), 'the stream delivered (sentinel request arrived)');
      const items = text
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => JSON.parse(l.slice(6)) as R);
      assert.ok(
        items.some((i) => i.kind === 'hub'),
        'hub status items arrive',
      );
      assert.ok(
        items.every((i) => i.kind === 'hub' || i.kind === 'event'),
        `only hub and event items: ${[...new Set(items.map((i) => i.kind))].join(', ')}`,
      );
      // Arrived.
      assert.ok(text.includes(req.request_id), 'the request');
      assert.ok(text.includes('REQUEST-TITLE'));
      assert.ok(text.includes('HANDOFF-TO-OWNER'), 'the handoff to the owner');
      assert.ok(text.includes(dmCard.msg_id) && text.includes('DM-CARD-TEXT'), "the card in the owner's direct conversation");
      // Did not arrive.
      assert.ok(!text.includes('PLAIN-DM-LINE'), 'a plain message in the direct conversation');
      assert.ok(!text.includes('PLAIN-GROUP-LINE'), 'a plain message in a group');
      assert.ok(!text.includes(groupCard.msg_id) && !text.includes('GROUP-CARD-TEXT'), 'a group card and its response');
      assert.ok(!text.includes('HANDOFF-TO-BOB'), 'a handoff to someone else');
      assert.ok(!text.includes(bobRoom), 'nothing of a conversation only someone else was handed');

      // The live fleet (agents, usage) is not the approvals inbox: the hub publishes it, the phone does not get it.
      let published = false;
      const unsubscribe = running.hub.bus.subscribe((item) => {
        if (item.kind === 'hub' && 'fleet' in item.value) published = true;
      });
      try {
        await agent.ok('progress', { conv_id: dm, kind: 'step', text: 'counted', data: { usage: { cost_usd: 0.01 } } });
        const until = Date.now() + 10_000;
        while (!published && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
        assert.ok(published, "the hub published the fleet while the phone's stream was open");
      } finally {
        unsubscribe();
      }
      const after = await agent.ok('request_human', { conv_id: dm, kind: 'approve', title: 'AFTER-FLEET' }); // ordered: the fleet came first
      const end2 = Date.now() + 10_000;
      while (!chunks.join('').includes(after.request_id) && Date.now() < end2) await new Promise((r) => setTimeout(r, 25));
      assert.ok(chunks.join('').includes(after.request_id));
      assert.ok(!chunks.join('').includes('"fleet"'), 'no fleet item reached the approvals device');
    } finally {
      res.destroy();
    }
  });
});

/** A second person in the hub, written straight into the store: no door makes one today (the owner is the only person). */
function addPerson(name: string): string {
  const id = `u_${'b0b'.padEnd(16, '0')}`;
  insertUser(running.hub.db, {
    id,
    kind: 'human',
    name,
    description: 'Another person',
    created_at: Date.now(),
    key_hash: null,
    key_hint: null,
    config: '{}',
    config_version: 1,
    inbox_id: null,
  });
  return id;
}

describe('handoffs.list and hand_back with an approvals device', () => {
  test('it lists and hands back only handoffs to the owner; a handoff to someone else is hidden and refused (403), nothing changes', async () => {
    const token = await pair('Handoff phone');
    // The stream test made bob and handed Bob room to him, and handed the group to the owner.
    const laptop = (await ownerOk('handoffs.list')).handoffs as R[];
    const toBob = laptop.find((h) => h.note === 'HANDOFF-TO-BOB');
    const toOwner = laptop.find((h) => h.note === 'HANDOFF-TO-OWNER');
    assert.ok(toBob && toOwner, 'the laptop lists both (control)');
    assert.equal(toBob.to.name, 'bob');
    const phone = await deviceCall(token, 'handoffs.list');
    assert.equal(phone.status, 200);
    const seen = phone.body.value.handoffs as R[];
    assert.ok(
      seen.some((h) => h.conv_id === toOwner.conv_id),
      "the owner's handoff is listed",
    );
    assert.ok(!seen.some((h) => h.conv_id === toBob.conv_id), 'a handoff to bob is not');
    assert.ok(seen.every((h) => h.to.id === running.hub.ownerId));
    const refused = await deviceCall(token, 'handoffs.hand_back', { conv_id: toBob.conv_id, note: 'from the phone' });
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, 'forbidden');
    assert.ok(
      ((await ownerOk('handoffs.list')).handoffs as R[]).some((h) => h.conv_id === toBob.conv_id),
      "bob's handoff is still active",
    );
    // A full-scope device sees everything, like the laptop.
    const full = await pair('Full handoff phone', 'full');
    const fullList = await deviceCall(full, 'handoffs.list');
    assert.ok((fullList.body.value.handoffs as R[]).some((h) => h.conv_id === toBob.conv_id));
    // The owner's own handoff is handed back from the approvals phone.
    const back = await deviceCall(token, 'handoffs.hand_back', { conv_id: toOwner.conv_id, note: 'go ahead' });
    assert.equal(back.status, 200, JSON.stringify(back.body));
    assert.ok(!((await ownerOk('handoffs.list')).handoffs as R[]).some((h) => h.conv_id === toOwner.conv_id));
  });
});
