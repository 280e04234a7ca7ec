// The rest of the agent contract over a real `perch serve`, driven by the OFFICIAL MCP client
// (sdk v1 for the bulk; both protocol eras for tools/list), with the owner played through the owner API
// (POST /api/owner/<action> with the bearer token of runtime.json): asking the owner, cards, handoffs,
// tasks, claims, floor, checkpoints, context and files — and the bad input each of them refuses.
import { before, describe, test } from 'node:test';
import { gpsJpeg } from '../support/images';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { TOOLS, toolInputJsonSchema } from '../../src/shared/api/catalog';
import { LIMITS } from '../../src/shared/limits';
import { loadContract } from '../support/contract-fixture';
import { ERAS, ERA_NAME, eventually, owner, ownerFail, ownerOk, sleep, useSharedServe, type AgentClient } from '../support/serve-harness';

type R = Record<string, any>;

let ownerName: string;
const served = useSharedServe({}, async (s) => {
  ownerName = (await ownerOk(s, 'hub.info')).owner.name;
  assert.ok(ownerName, 'hub.info names the owner');
});

function agent(base: string, era: 'v1' | 'v2' = 'v1'): Promise<AgentClient> {
  return served.agent(base, era);
}

/** Reads get_updates until nothing is left (each answer confirmed by the next call). */
async function drain(c: AgentClient): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const r = await c.ok('get_updates', {});
    if (r.events.length === 0) return;
  }
  throw new Error('get_updates never ran dry');
}

/** The agent's direct conversation with the owner. */
async function directWithOwner(c: AgentClient): Promise<string> {
  const r = await c.ok('open_direct', { user: ownerName });
  return r.conversation.conv_id as string;
}

/** A creates a group with the others; everybody has read the creation. A is the group's admin. */
async function group(a: AgentClient, others: AgentClient[], title = 'crew'): Promise<string> {
  const g = await a.ok('create_group', { title, members: others.map((o) => o.agent.name) });
  await Promise.all([a, ...others].map(drain));
  return g.conversation.conv_id as string;
}

/** Waits (bounded) until the hub reports the agent as waiting in a get_updates / get_request call. */
async function untilWaiting(c: AgentClient): Promise<void> {
  await eventually(
    async () => {
      const list = await ownerOk(served, 'agents.list');
      return list.agents.some((x: R) => x.name === c.agent.name && x.waiting === true);
    },
    5000,
    `${c.agent.name} to be waiting`,
  );
}

/** A promise plus when it settled, so a test can tell whether it is still pending. */
function track<T>(p: Promise<T>) {
  const t = { settled: false, at: 0, promise: p as Promise<T> };
  t.promise = p.then(
    (v) => {
      t.settled = true;
      t.at = performance.now();
      return v;
    },
    (e) => {
      t.settled = true;
      t.at = performance.now();
      throw e;
    },
  );
  return t;
}

async function convLastSeq(convId: string): Promise<number> {
  return (await ownerOk(served, 'conversations.get', { conv_id: convId })).conversation.last_seq;
}

// ---- tools/list ---------------------------------------------------------------------------------

for (const era of ERAS) {
  describe(`tools/list, ${ERA_NAME[era]}`, () => {
    test("lists the contract's 37 tools in order, with the contract's descriptions and the catalog's argument schemas", async () => {
      const c = await agent(`list-${era}`, era);
      const { tools } = await c.listTools();
      const names = tools.map((t) => t.name as string);
      assert.equal(names.length, 37, 'tools/list has 37 tools');
      assert.deepEqual(
        names,
        TOOLS.map((t) => t.name),
        "names in the catalog's (contract) order",
      );

      const contract = loadContract();
      assert.equal(contract.length, 37, 'the contract has 37 tools');
      contract.forEach((ct, i) => {
        assert.equal(names[i], ct.name, `tool ${i} is the contract's ${ct.name}`);
        assert.equal(tools[i]!.description, ct.description, `${names[i]}: description is the contract paragraph verbatim`);
      });

      for (const [i, t] of tools.entries()) {
        const spec = TOOLS[i]!;
        assert.equal(t.description, spec.description, `${t.name}: description equals the catalog's`);
        const want = toolInputJsonSchema(spec) as { properties: R; required?: string[] };
        assert.equal(t.inputSchema.type, 'object', `${t.name}: an object schema`);
        assert.deepEqual(t.inputSchema.properties, want.properties, `${t.name}: inputSchema.properties equal toolInputJsonSchema`);
        assert.deepEqual(t.inputSchema.required ?? [], want.required ?? [], `${t.name}: inputSchema.required equals toolInputJsonSchema`);
        // The served hub's schemas are precomputed by the build: they must be the sources' schemas, key order and all.
        assert.equal(JSON.stringify(t.inputSchema), JSON.stringify(want), `${t.name}: inputSchema is toolInputJsonSchema's, byte for byte`);
      }
    });
  });
}

// ---- asking the owner ---------------------------------------------------------------------------

describe('request_human / get_request / cancel_request, decided by the owner through the owner API', () => {
  let a: AgentClient;
  let conv: string;
  before(async () => {
    a = await agent('asker');
    conv = await directWithOwner(a);
  });

  /** Starts get_request(wait_secs: 10), waits until it is waiting in the hub, decides as the owner; returns the result and the latency. */
  async function decideWhileWaiting(requestId: string, decision: R) {
    const waiting = track(a.ok('get_request', { request_id: requestId, wait_secs: 10 }));
    await untilWaiting(a);
    assert.equal(waiting.settled, false, 'get_request is still waiting before the decision');
    const decidedAt = performance.now();
    const decided = await ownerOk(served, 'requests.decide', { request_id: requestId, ...decision });
    const r = await waiting.promise;
    const latency = waiting.at - decidedAt;
    assert.ok(
      latency < 1000,
      `get_request(wait_secs: 10) returned ${latency.toFixed(1)} ms after the owner's decision (expected < 1000 ms)`,
    );
    return { r, decided, latency };
  }

  test('approve: the waiting get_request returns approved soon after the owner approves; deciding again is refused with 409 conflict', async (t) => {
    const req = await a.ok('request_human', {
      conv_id: conv,
      kind: 'approve',
      title: 'Deploy v2 to prod?',
      context: { tool: 'deploy', args: { env: 'prod' } },
    });
    assert.equal(req.state, 'pending');
    assert.deepEqual(req.assignees, [ownerName], 'by default the owner is asked');
    // The result's request_id is the request's (the contract's), not the id of this MCP call.
    assert.equal(typeof req.call_request_id, 'string');
    assert.notEqual(req.request_id, req.call_request_id);
    // The owner's Approvals inbox shows it pending, with its context.
    const inbox = await ownerOk(served, 'requests.list', { state: 'pending' });
    const seen = inbox.requests.find((x: R) => x.request_id === req.request_id);
    assert.ok(seen, 'the pending request is in requests.list');
    assert.deepEqual(seen.context, { tool: 'deploy', args: { env: 'prod' } });

    const { r, decided, latency } = await decideWhileWaiting(req.request_id, { decision: 'approve', comment: 'go ahead' });
    t.diagnostic(`get_request returned ${latency.toFixed(1)} ms after the owner's requests.decide was sent`);
    assert.equal(decided.request.state, 'approved');
    assert.equal(r.state, 'approved');
    assert.deepEqual(r.outcome, { decision: 'approve', comment: 'go ahead' });
    assert.equal(r.decided_by, ownerName);

    const again = await owner(served, 'requests.decide', { request_id: req.request_id, decision: 'reject' });
    assert.equal(again.status, 409, 'deciding twice is HTTP 409');
    assert.equal(again.error?.code, 'conflict');
    assert.match(again.error!.message, /already decided/);
    assert.equal((await a.ok('get_request', { request_id: req.request_id })).state, 'approved', 'the first decision stands');
  });

  test('reject: an approve request the owner rejects comes back rejected', async () => {
    const req = await a.ok('request_human', { conv_id: conv, kind: 'approve', title: 'Delete the old backups?' });
    const { r } = await decideWhileWaiting(req.request_id, { decision: 'reject', comment: 'keep them' });
    assert.equal(r.state, 'rejected');
    assert.deepEqual(r.outcome, { decision: 'reject', comment: 'keep them' });
  });

  test('answer: a question the owner answers comes back answered with the answer text', async () => {
    const req = await a.ok('request_human', { conv_id: conv, kind: 'answer', title: 'Which region should I use?' });
    const { r } = await decideWhileWaiting(req.request_id, { decision: 'answer', answer: 'eu-west-1' });
    assert.equal(r.state, 'answered');
    assert.equal(r.outcome.answer, 'eu-west-1');
  });

  test('choose: the owner chooses one of the options and it comes back chosen; a choice outside the options is refused', async () => {
    const req = await a.ok('request_human', { conv_id: conv, kind: 'choose', title: 'Pick a name', options: ['falcon', 'heron', 'kite'] });
    const bad = await ownerFail(served, 'requests.decide', { request_id: req.request_id, decision: 'choose', choice: 'eagle' }, 400);
    assert.equal(bad.code, 'invalid_argument');
    assert.match(bad.message, /^choice: /);
    const { r } = await decideWhileWaiting(req.request_id, { decision: 'choose', choice: 'heron' });
    assert.equal(r.state, 'chosen');
    assert.equal(r.outcome.choice, 'heron');
    assert.deepEqual(r.options, ['falcon', 'heron', 'kite']);
  });

  test("expired: a request with ttl_secs 1 expires on time while get_request waits; the owner's later decision is refused", async () => {
    const req = await a.ok('request_human', { conv_id: conv, kind: 'approve', title: 'Quick yes?', ttl_secs: 1 });
    const t0 = performance.now();
    const r = await a.ok('get_request', { request_id: req.request_id, wait_secs: 10 });
    const waited = performance.now() - t0;
    assert.equal(r.state, 'expired');
    assert.ok(waited < 4000, `get_request returned expired ${waited.toFixed(0)} ms after a 1 s ttl (expected < 4000 ms)`);
    const late = await owner(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
    assert.equal(late.status, 410, 'a decision after expiry is refused as expired (410, as on the device door)');
    assert.equal(late.error?.code, 'expired');
    assert.match(late.error!.message, /expired/);
    assert.equal((await a.ok('get_request', { request_id: req.request_id })).state, 'expired', 'it stays expired');
    const list = await ownerOk(served, 'requests.list', { state: 'expired' });
    assert.ok(
      list.requests.some((x: R) => x.request_id === req.request_id),
      'the owner sees it expired',
    );
  });

  test("expired without anybody calling get_request: the hub's timer expires it on time, waking the requester's get_updates; the owner's decision is refused", async () => {
    await drain(a);
    const req = await a.ok('request_human', { conv_id: conv, kind: 'answer', title: 'Anyone?', ttl_secs: 1 });
    await drain(a);
    const t0 = performance.now();
    const r = await a.ok('get_updates', { wait_secs: 10 });
    const waited = performance.now() - t0;
    assert.equal(r.woken, true, 'the expiry woke the requester');
    assert.ok(waited < 4000, `woken ${waited.toFixed(0)} ms after a 1 s ttl (expected < 4000 ms)`);
    const ev = r.events.find((e: R) => e.type === 'request.expired');
    assert.ok(ev, 'get_updates carries request.expired');
    assert.equal(ev.data.request_id, req.request_id);
    assert.equal(ev.for_you, true);
    const late = await owner(served, 'requests.decide', { request_id: req.request_id, decision: 'answer', answer: 'too late' });
    assert.equal(late.status, 410, 'expired is 410 on every door');
    assert.equal(late.error?.code, 'expired');
  });

  test('cancelled: the requester withdraws a pending request; the owner can no longer decide it, nor can it be cancelled twice', async () => {
    const req = await a.ok('request_human', { conv_id: conv, kind: 'approve', title: 'Rotate the keys?' });
    const c = await a.ok('cancel_request', { request_id: req.request_id });
    assert.equal(c.state, 'cancelled');
    assert.equal((await a.ok('get_request', { request_id: req.request_id })).state, 'cancelled');
    const refused = await owner(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
    assert.equal(refused.status, 409);
    assert.equal(refused.error?.code, 'conflict');
    assert.match(refused.error!.message, /cancelled/);
    const twice = await a.fail('cancel_request', { request_id: req.request_id });
    assert.equal(twice.code, 'conflict');
  });

  test('an agent cannot decide: no agent tool decides, an agent cannot be an assignee, and an agent key on /api/owner/* is 401', async () => {
    const { tools } = await a.listTools();
    for (const t of tools) {
      assert.ok(!/decide|approve|answer_card|hand_back/.test(t.name), `${t.name} is not a deciding tool`);
      assert.ok(!('decision' in (t.inputSchema.properties ?? {})), `${t.name} takes no decision`);
    }
    const other = await agent('not-a-person');
    const g = await group(a, [other]);
    const asAgent = await a.fail('request_human', { conv_id: g, kind: 'approve', title: 'x', assignees: [other.agent.name] });
    assert.equal(asAgent.code, 'invalid_argument');
    assert.match(asAgent.message, /only people can decide/);

    const req = await a.ok('request_human', { conv_id: conv, kind: 'approve', title: 'Let me approve myself?' });
    for (const key of [a.agent.key, other.agent.key]) {
      const r = await owner(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' }, { bearer: key });
      assert.equal(r.status, 401, 'an agent key opens no owner action');
      assert.equal(r.error?.code, 'unauthorized');
    }
    assert.equal((await a.ok('get_request', { request_id: req.request_id })).state, 'pending', 'nothing was decided');
  });

  test('bad input: context over 32 KB is refused (too_large) and nothing is stored; an unknown request_id is not_found', async () => {
    const before = await convLastSeq(conv);
    const pendingBefore = (await ownerOk(served, 'requests.list', {})).requests.length;
    const big = { blob: 'x'.repeat(LIMITS.maxContextBytes) };
    const e = await a.fail('request_human', { conv_id: conv, kind: 'approve', title: 'Too much context', context: big });
    assert.equal(e.code, 'too_large');
    assert.match(e.message, /context/);
    assert.equal(await convLastSeq(conv), before, 'no message or event was written');
    assert.equal((await ownerOk(served, 'requests.list', {})).requests.length, pendingBefore, 'no request was stored');

    const nf = await a.fail('get_request', { request_id: 'r_doesnotexist' });
    assert.equal(nf.code, 'not_found');
    assert.equal((await a.fail('cancel_request', { request_id: 'r_doesnotexist' })).code, 'not_found');
    const ownerNf = await owner(served, 'requests.decide', { request_id: 'r_doesnotexist', decision: 'approve' });
    assert.equal(ownerNf.status, 404);
    assert.equal(ownerNf.error?.code, 'not_found');
  });
});

// ---- cards ------------------------------------------------------------------------------------

describe('send_card, answered by the owner through cards.answer', () => {
  let a: AgentClient;
  let conv: string;
  before(async () => {
    a = await agent('carder');
    conv = await directWithOwner(a);
    await drain(a);
  });

  const ONCE_CARD = {
    title: 'Ship it?',
    once: true,
    blocks: [
      { type: 'text', text: 'v2 is ready.' },
      {
        type: 'buttons',
        id: 'go',
        options: [
          { id: 'yes', label: 'Yes', style: 'primary' },
          { id: 'no', label: 'No', style: 'danger' },
        ],
      },
      {
        type: 'form',
        id: 'details',
        submit: 'Send',
        fields: [
          { id: 'reason', label: 'Reason', type: 'text', required: true, max: 100 },
          { id: 'count', label: 'How many', type: 'number', max: 10 },
          { id: 'env', label: 'Environment', type: 'select', options: ['prod', 'staging'] },
          { id: 'sure', label: 'Sure', type: 'checkbox' },
        ],
      },
    ],
  };

  test("a once card: the owner's click wakes the agent's get_updates with a card.response for_you; a second answer is refused (409)", async () => {
    const sent = await a.ok('send_card', { conv_id: conv, text: 'Ship it? (yes/no)', card: ONCE_CARD });
    await drain(a);
    const waiting = track(a.ok('get_updates', { wait_secs: 10 }));
    await untilWaiting(a);
    const answeredAt = performance.now();
    const ans = await ownerOk(served, 'cards.answer', { msg_id: sent.msg_id, block_id: 'go', value: 'yes' });
    assert.equal(ans.closed, true, 'the first response closes a once card');
    const r = await waiting.promise;
    assert.ok(waiting.at - answeredAt < 1000, `the agent was woken ${(waiting.at - answeredAt).toFixed(1)} ms after the click`);
    assert.equal(r.woken, true);
    const ev = r.events.find((e: R) => e.type === 'card.response');
    assert.ok(ev, 'get_updates carries the card.response');
    assert.equal(ev.for_you, true);
    assert.equal(ev.data.msg_id, sent.msg_id, "tied to the card's message");
    assert.equal(ev.data.block_id, 'go');
    assert.equal(ev.data.value, 'yes');
    assert.equal(ev.data.by.name, ownerName);

    const second = await owner(served, 'cards.answer', { msg_id: sent.msg_id, block_id: 'details', value: { reason: 'changed my mind' } });
    assert.equal(second.status, 409, 'a second answer to a once card is refused');
    assert.equal(second.error?.code, 'conflict');
    assert.match(second.error!.message, /closed/);
    const after = await a.ok('get_updates', {});
    assert.ok(!after.events.some((e: R) => e.type === 'card.response'), 'no second response reached the agent');
  });

  test('a form answer reaches the agent with typed values; a value the form does not allow is refused naming the field', async () => {
    const card = { ...ONCE_CARD, once: false };
    const sent = await a.ok('send_card', { conv_id: conv, text: 'Details please', card });
    await drain(a);
    const bad = await ownerFail(
      served,
      'cards.answer',
      { msg_id: sent.msg_id, block_id: 'details', value: { reason: 'ok', count: 11 } },
      400,
    );
    assert.equal(bad.code, 'invalid_argument');
    assert.match(bad.message, /^value\.count: /);
    await ownerOk(served, 'cards.answer', {
      msg_id: sent.msg_id,
      block_id: 'details',
      value: { reason: 'tested', count: '3', env: 'staging', sure: true },
    });
    const r = await a.ok('get_updates', {});
    const ev = r.events.find((e: R) => e.type === 'card.response');
    assert.deepEqual(ev.data.value, { reason: 'tested', count: 3, env: 'staging', sure: true });
    assert.equal(ev.for_you, true);
  });

  const MALFORMED: Array<[string, R, string]> = [
    ['no blocks', { blocks: [] }, 'card.blocks'],
    [
      'a block id with capitals and !',
      { blocks: [{ type: 'buttons', id: 'Go!', options: [{ id: 'y', label: 'Y' }] }] },
      'card.blocks[0].id',
    ],
    [
      'an unknown button style',
      {
        blocks: [
          {
            type: 'buttons',
            id: 'go',
            options: [
              { id: 'y', label: 'Y' },
              { id: 'n', label: 'N', style: 'green' },
            ],
          },
        ],
      },
      'card.blocks[0].options[1].style',
    ],
    [
      'a form field of an unknown type',
      {
        blocks: [
          { type: 'text', text: 'hi' },
          { type: 'form', id: 'f', submit: 'Send', fields: [{ id: 'when', label: 'When', type: 'date' }] },
        ],
      },
      'card.blocks[1].fields[0].type',
    ],
    [
      'a select without options',
      { blocks: [{ type: 'form', id: 'f', submit: 'Send', fields: [{ id: 's', label: 'S', type: 'select' }] }] },
      'card.blocks[0].fields[0].options',
    ],
    [
      'max on a checkbox',
      { blocks: [{ type: 'form', id: 'f', submit: 'Send', fields: [{ id: 'c', label: 'C', type: 'checkbox', max: 3 }] }] },
      'card.blocks[0].fields[0].max',
    ],
    ['an unknown block field', { blocks: [{ type: 'text', text: 'hi', color: 'red' }] }, 'card.blocks[0].color'],
    [
      'the same block id twice',
      {
        blocks: [
          { type: 'buttons', id: 'b', options: [{ id: 'y', label: 'Y' }] },
          { type: 'buttons', id: 'b', options: [{ id: 'n', label: 'N' }] },
        ],
      },
      'card.blocks[1].id',
    ],
    ['once that is not a boolean', { blocks: [{ type: 'text', text: 'hi' }], once: 'yes' }, 'card.once'],
  ];

  for (const [what, card, where] of MALFORMED) {
    test(`a malformed card (${what}) is refused with invalid_argument at ${where}, and nothing is sent`, async () => {
      const before = await convLastSeq(conv);
      const e = await a.fail('send_card', { conv_id: conv, text: 'fallback', card });
      assert.equal(e.code, 'invalid_argument');
      // Checked by the hub (details.path) or, for a wrong JSON type, by the tool's schema: either way the message names the path.
      assert.ok(
        e.message.startsWith(`${where}: `) || e.message.includes(`: ${where}: `),
        `the message names the exact path ${where}: ${e.message}`,
      );
      if (e.details) assert.equal(e.details.path, where);
      assert.equal(await convLastSeq(conv), before, 'nothing was written');
    });
  }
});

// ---- handoffs -----------------------------------------------------------------------------------

describe("handoff and the owner's hand-back", () => {
  test("a handoff silences the agent (send_message → silenced) and it is not woken there; the owner's hand_back wakes its waiting get_updates with the note", async () => {
    const a = await agent('hander');
    const conv = await directWithOwner(a);
    const h = await a.ok('handoff', { conv_id: conv, note: 'The customer wants a refund; I may not grant those.' });
    assert.equal(h.silenced, true);
    assert.equal(h.to.name, ownerName);
    const listed = await ownerOk(served, 'handoffs.list');
    assert.ok(
      listed.handoffs.some((x: R) => x.conv_id === conv && x.agent.name === a.agent.name),
      'the owner sees the handoff',
    );

    const silenced = await a.fail('send_message', { conv_id: conv, text: 'Actually, let me…' });
    assert.equal(silenced.code, 'silenced');
    assert.match(silenced.message, /handed this conversation/);

    await drain(a);
    const waiting = track(a.ok('get_updates', { wait_secs: 10 }));
    await untilWaiting(a);
    // The owner speaking there, even naming the agent, does not wake it while it is handed off.
    const said = await ownerOk(served, 'messages.send', { conv_id: conv, text: `I have it, ${a.agent.name}.`, to: [a.agent.name] });
    assert.deepEqual(said.woken ?? [], [], 'nobody woken: the agent handed off');
    await sleep(300);
    assert.equal(waiting.settled, false, "the agent's get_updates is not woken by the owner's message");

    const backAt = performance.now();
    const back = await ownerOk(served, 'handoffs.hand_back', { conv_id: conv, note: 'Refund granted; carry on with the follow-up.' });
    assert.deepEqual(back.woken, [a.agent.name]);
    const r = await waiting.promise;
    assert.ok(waiting.at - backAt < 1000, `hand_back woke the agent ${(waiting.at - backAt).toFixed(1)} ms later (expected < 1000 ms)`);
    assert.equal(r.woken, true);
    const ev = r.events.find((e: R) => e.type === 'handoff.returned');
    assert.ok(ev, 'get_updates carries handoff.returned');
    assert.equal(ev.for_you, true);
    assert.equal(ev.data.note, 'Refund granted; carry on with the follow-up.');
    assert.equal(ev.data.by.name, ownerName);
    assert.ok(
      r.events.some((e: R) => e.type === 'message.created' && e.message.text.startsWith('I have it')),
      "the owner's message arrives with it",
    );

    const again = await a.ok('send_message', { conv_id: conv, text: 'Thanks, following up now.' });
    assert.ok(again.msg_id, 'the agent may speak again after the hand-back');
  });
});

// ---- tasks --------------------------------------------------------------------------------------

describe('task channels', () => {
  test("a task the owner completes (tasks.set) refuses agents' messages and wakes nobody; a non-manager cannot reassign", async () => {
    const [a, b, c] = await Promise.all([agent('lead'), agent('worker'), agent('helper')]);
    const t = await a.ok('create_task', {
      title: 'Write the release notes',
      members: [b.agent.name, c.agent.name],
      assignee: b.agent.name,
    });
    const conv = t.conversation.conv_id as string;
    assert.equal(t.conversation.task.state, 'submitted');
    assert.equal(t.conversation.task.assignee.name, b.agent.name);

    const re = await b.fail('update_task', { conv_id: conv, assignee: c.agent.name });
    assert.equal(re.code, 'forbidden', 'a member that is neither creator nor manager cannot reassign');
    assert.match(re.message, /creator or a manager/);
    const moved = await b.ok('update_task', { conv_id: conv, state: 'working', note: 'on it' });
    assert.equal(moved.state, 'working', 'any member may move the state');
    const reassigned = await a.ok('update_task', { conv_id: conv, assignee: c.agent.name });
    assert.equal(reassigned.assignee, c.agent.name, 'the creator may reassign');

    const done = await ownerOk(served, 'tasks.set', { conv_id: conv, state: 'completed', note: 'Shipped.' });
    assert.equal(done.state, 'completed');
    for (const x of [a, b, c]) {
      const e = await x.fail('send_message', { conv_id: conv, text: 'one more thing' });
      assert.equal(e.code, 'silenced', `${x.agent.name} cannot speak in a completed task`);
      assert.match(e.message, /completed/);
    }
    const said = await ownerOk(served, 'messages.send', { conv_id: conv, text: 'Thanks all', to: [b.agent.name] });
    assert.deepEqual(said.woken ?? [], [], 'nobody is woken in a completed task');
  });

  test("a task its creator completes with update_task refuses agents' messages", async () => {
    const [a, b] = await Promise.all([agent('creator'), agent('member')]);
    const t = await a.ok('create_task', { title: 'Triage', members: [b.agent.name] });
    const conv = t.conversation.conv_id as string;
    await b.ok('send_message', { conv_id: conv, text: 'looking' });
    const done = await a.ok('update_task', { conv_id: conv, state: 'failed', note: 'could not reproduce' });
    assert.equal(done.state, 'failed');
    const e = await b.fail('send_message', { conv_id: conv, text: 'wait' });
    assert.equal(e.code, 'silenced');
    const reopen = await b.fail('update_task', { conv_id: conv, state: 'working' });
    assert.equal(reopen.code, 'forbidden', 'a plain member cannot reopen it');
  });
});

// ---- claims -------------------------------------------------------------------------------------

describe('claims', () => {
  test('two agents racing to claim one request message over two MCP clients: exactly one wins, the other gets conflict naming the holder', async () => {
    const [a, b, c] = await Promise.all([agent('requester'), agent('racer-b'), agent('racer-c')]);
    const conv = await group(a, [b, c]);
    const wins: Record<string, number> = {};
    for (let round = 0; round < 5; round++) {
      const m = await a.ok('send_message', { conv_id: conv, text: `Who takes job ${round}?`, intent: 'request' });
      const [rb, rc] = await Promise.all([b.call('claim', { msg_id: m.msg_id }), c.call('claim', { msg_id: m.msg_id })]);
      const results = [
        [b, rb],
        [c, rc],
      ] as const;
      const winners = results.filter(([, r]) => !r.isError);
      const losers = results.filter(([, r]) => r.isError);
      assert.equal(winners.length, 1, `round ${round}: exactly one claim wins`);
      assert.equal(losers.length, 1);
      const [winner, won] = winners[0]!;
      const [, lost] = losers[0]!;
      assert.equal(won.structuredContent!.claimed_by.name, winner.agent.name);
      const err = lost.structuredContent!.error;
      assert.equal(err.code, 'conflict');
      assert.ok(err.message.includes(winner.agent.name), `the conflict names the holder: ${err.message}`);
      assert.equal(err.details.claimed_by, winner.agent.name);
      wins[winner.agent.name] = (wins[winner.agent.name] ?? 0) + 1;
      const hist = await a.ok('get_history', { conv_id: conv, limit: 5 });
      const msg = hist.events.find((e: R) => e.message?.msg_id === m.msg_id).message;
      assert.equal(msg.claimed_by.name, winner.agent.name, 'the message shows its holder');
    }
    // Releasing lets the other one take it.
    const m = await a.ok('send_message', { conv_id: conv, text: 'Last job', intent: 'request' });
    await b.ok('claim', { msg_id: m.msg_id });
    assert.equal((await c.fail('claim', { msg_id: m.msg_id })).code, 'conflict');
    await b.ok('release_claim', { msg_id: m.msg_id });
    assert.equal((await c.ok('claim', { msg_id: m.msg_id })).claimed_by.name, c.agent.name);
    // Only messages sent with intent=request can be claimed.
    const plain = await a.ok('send_message', { conv_id: conv, text: 'just chatting' });
    assert.equal((await b.fail('claim', { msg_id: plain.msg_id })).code, 'invalid_argument');
  });
});

// ---- floor ------------------------------------------------------------------------------------

describe('floor', () => {
  test("floor_grant by the group's admin agent silences another agent's send until floor_release", async () => {
    const [a, b, c] = await Promise.all([agent('coordinator'), agent('speaker'), agent('quiet')]);
    const conv = await group(a, [b, c]);
    const notManager = await b.fail('floor_grant', { conv_id: conv, agent: c.agent.name });
    assert.equal(notManager.code, 'forbidden', 'a plain member cannot give the floor');

    const g = await a.ok('floor_grant', { conv_id: conv, agent: b.agent.name, ttl_secs: 60 });
    assert.equal(g.holder.name, b.agent.name);
    assert.ok(Math.abs(g.until - (Date.now() + 60_000)) < 10_000, 'held for ttl_secs');
    const e = await c.fail('send_message', { conv_id: conv, text: 'me too!' });
    assert.equal(e.code, 'silenced');
    assert.ok(e.message.includes(b.agent.name), `the refusal names the holder: ${e.message}`);
    assert.ok((await b.ok('send_message', { conv_id: conv, text: 'my turn' })).msg_id, 'the holder speaks');

    const rel = await a.ok('floor_release', { conv_id: conv });
    assert.equal(rel.changed, true);
    assert.equal(rel.released.name, b.agent.name);
    assert.ok((await c.ok('send_message', { conv_id: conv, text: 'now me' })).msg_id, 'after floor_release the other agent speaks again');
  });
});

// ---- checkpoints --------------------------------------------------------------------------------

describe('checkpoints', () => {
  test('state_put: optimistic concurrency conflicts on a stale version; state_get reads an older version', async () => {
    const a = await agent('keeper');
    const v1 = await a.ok('state_put', { key: 'plan', value: { step: 1 }, version: 0 });
    assert.equal(v1.version, 1);
    const dup = await a.fail('state_put', { key: 'plan', value: { step: 'x' }, version: 0 });
    assert.equal(dup.code, 'conflict', 'creating an existing key is a conflict');
    assert.equal(dup.details?.current_version, 1);
    const v2 = await a.ok('state_put', { key: 'plan', value: { step: 2 }, version: 1 });
    assert.equal(v2.version, 2);
    const stale = await a.fail('state_put', { key: 'plan', value: { step: 'stale' }, version: 1 });
    assert.equal(stale.code, 'conflict', 'writing from a stale read is a conflict');
    assert.equal(stale.details?.current_version, 2);
    const ahead = await a.fail('state_put', { key: 'plan', value: {}, version: 7 });
    assert.equal(ahead.code, 'conflict');

    const cur = await a.ok('state_get', { key: 'plan' });
    assert.deepEqual([cur.version, cur.value], [2, { step: 2 }], 'the conflicts changed nothing');
    const old = await a.ok('state_get', { key: 'plan', version: 1 });
    assert.deepEqual([old.version, old.value, old.current_version], [1, { step: 1 }, 2]);

    // Per agent: another agent does not see the key.
    const other = await agent('stranger');
    assert.equal((await other.fail('state_get', { key: 'plan' })).code, 'not_found');
    // Delete needs the current version too.
    assert.equal((await a.fail('state_delete', { key: 'plan', version: 1 })).code, 'conflict');
    assert.equal((await a.ok('state_delete', { key: 'plan', version: 2 })).deleted, true);
    assert.equal((await a.fail('state_get', { key: 'plan' })).code, 'not_found');
    // archive/ is read-only.
    assert.equal((await a.fail('state_put', { key: 'archive/x', value: 1, version: 0 })).code, 'forbidden');
  });

  test('state_list returns keys in byte order, filtered by prefix, paged with after / next_after', async () => {
    const a = await agent('lister');
    const keys = ['p/b', 'p/a', 'p/B', 'p/c', 'p/é', 'q/z', 'p/d'];
    for (const key of keys) await a.ok('state_put', { key, value: key, version: 0 });
    const expected = ['p/B', 'p/a', 'p/b', 'p/c', 'p/d', 'p/é'];
    const got: string[] = [];
    let after: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await a.ok('state_list', { prefix: 'p/', limit: 2, ...(after ? { after } : {}) });
      pages++;
      assert.ok(page.keys.length <= 2);
      got.push(...page.keys.map((k: R) => k.key));
      if (page.next_after === null) break;
      assert.equal(page.next_after, page.keys[page.keys.length - 1].key);
      after = page.next_after;
      assert.ok(pages < 10, 'paging ends');
    }
    assert.deepEqual(got, expected);
    assert.equal(pages, 3);
    const all = await a.ok('state_list', {});
    assert.deepEqual(
      all.keys.map((k: R) => k.key),
      [...expected, 'q/z'],
    );
    assert.ok(all.keys.every((k: R) => k.version === 1));
  });
});

// ---- context ------------------------------------------------------------------------------------

describe('put_summary / get_context', () => {
  test('get_context returns the latest summary plus the newest events, oldest first, within max_tokens', async () => {
    const [a, b] = await Promise.all([agent('talker'), agent('reader')]);
    const conv = await group(a, [b]);
    for (let i = 0; i < 30; i++) await a.ok('send_message', { conv_id: conv, text: `Message ${i}: ${'lorem ipsum '.repeat(30)}` });
    const lastSeq = await convLastSeq(conv);
    await b.ok('put_summary', { conv_id: conv, from_seq: 1, to_seq: 6, text: 'Group made; talk about lorem ipsum began.' });

    const estimate = (x: unknown) => Math.ceil(JSON.stringify(x).length / 4);
    for (const maxTokens of [120, 500, 1500]) {
      const ctx = await b.ok('get_context', { conv_id: conv, max_tokens: maxTokens });
      assert.equal(ctx.max_tokens, maxTokens);
      assert.ok(ctx.token_estimate <= maxTokens, `token_estimate ${ctx.token_estimate} <= max_tokens ${maxTokens}`);
      const counted = (ctx.summary ? estimate(ctx.summary) : 0) + ctx.events.reduce((n: number, e: R) => n + estimate(e), 0);
      assert.equal(counted, ctx.token_estimate, 'token_estimate is the documented rule over what was returned');
      assert.ok(counted <= maxTokens);
      const seqs = ctx.events.map((e: R) => e.seq);
      assert.deepEqual(
        seqs,
        [...seqs].sort((x, y) => x - y),
        'events oldest first',
      );
      if (seqs.length) {
        assert.equal(seqs[seqs.length - 1], lastSeq, 'the newest event is kept');
        assert.ok(seqs[0] > 6, 'only events after the summary');
      }
      assert.equal(ctx.truncated, true, 'everything did not fit');
      assert.equal(typeof ctx.token_estimate_rule, 'string');
    }
    const full = await b.ok('get_context', { conv_id: conv, max_tokens: 100_000 });
    assert.equal(full.summary.text, 'Group made; talk about lorem ipsum began.');
    assert.equal(full.truncated, false);
    assert.deepEqual(
      full.events.map((e: R) => e.seq),
      Array.from({ length: lastSeq - 6 }, (_, i) => i + 7),
      'with room, every event after the summary',
    );
  });
});

// ---- files --------------------------------------------------------------------------------------

async function download(url: string): Promise<{ status: number; type: string | null; body: Buffer }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(15_000) });
  return { status: res.status, type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()) };
}

describe('send_file / file_url', () => {
  let a: AgentClient;
  let b: AgentClient;
  let outsider: AgentClient;
  let conv: string;
  before(async () => {
    [a, b, outsider] = await Promise.all([agent('photographer'), agent('viewer'), agent('outsider')]);
    conv = await group(a, [b]);
  });

  test('a JPEG with GPS EXIF comes back through file_url without EXIF, and its thumbnail is smaller; the link lasts 5 minutes and a tampered one is 404', async () => {
    const input = await gpsJpeg();
    const inMeta = await sharp(input).metadata();
    assert.ok(inMeta.exif && inMeta.exif.length > 0, 'the input really carries EXIF');
    assert.ok(input.includes(Buffer.from('GeoShooter 9000')));

    const sent = await a.ok('send_file', { conv_id: conv, data: input.toString('base64'), name: 'holiday.jpg', caption: 'Look!' });
    assert.equal(sent.kind, 'image');
    assert.equal(sent.mime, 'image/jpeg');
    assert.equal(sent.has_thumb, true);

    const link = await b.ok('file_url', { conv_id: conv, file_id: sent.file_id });
    const ttl = link.expires_at - Date.now();
    assert.ok(
      ttl > (LIMITS.fileUrlTtlSecs - 10) * 1000 && ttl <= LIMITS.fileUrlTtlSecs * 1000 + 1000,
      `the link expires in about 300 s (in ${Math.round(ttl / 1000)} s)`,
    );
    const original = await download(link.url);
    assert.equal(original.status, 200);
    assert.equal(original.type, 'image/jpeg');
    const outMeta = await sharp(original.body).metadata();
    assert.equal(outMeta.format, 'jpeg');
    assert.equal(outMeta.exif, undefined, 'the downloaded image has no EXIF (hence no GPS)');
    assert.ok(!original.body.includes(Buffer.from('GeoShooter 9000')), 'no camera strings either');
    assert.equal(original.body.length, sent.size);

    const thumbLink = await b.ok('file_url', { conv_id: conv, file_id: sent.file_id, variant: 'thumb' });
    const thumb = await download(thumbLink.url);
    assert.equal(thumb.status, 200);
    assert.ok(
      thumb.body.length < original.body.length,
      `the thumbnail (${thumb.body.length} B) is smaller than the original (${original.body.length} B)`,
    );
    const thumbMeta = await sharp(thumb.body).metadata();
    assert.ok(Math.max(thumbMeta.width!, thumbMeta.height!) < Math.max(outMeta.width!, outMeta.height!));
    assert.equal(thumbMeta.exif, undefined);

    // Tampered links: a flipped signature, and a later expiry with the old signature.
    const u = new URL(link.url);
    const token = u.pathname.slice('/files/'.length);
    const parts = token.split('.');
    assert.equal(parts.length, 4, 'file_id.variant.expiry.mac');
    const mac = parts[3]!;
    const flipped = [...parts.slice(0, 3), (mac[0] === 'A' ? 'B' : 'A') + mac.slice(1)].join('.');
    const extended = [parts[0], parts[1], (parseInt(parts[2]!, 36) + 3_600_000).toString(36), mac].join('.');
    const asThumb = [parts[0], 't', parts[2], mac].join('.');
    for (const bad of [flipped, extended, asThumb, 'nonsense']) {
      const r = await download(`${u.origin}/files/${bad}`);
      assert.equal(r.status, 404, `a tampered link (${bad.slice(0, 40)}) is refused with 404`);
    }
  });

  test('a non-member cannot get a file link', async () => {
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#3366aa' } })
      .png()
      .toBuffer();
    const sent = await a.ok('send_file', { conv_id: conv, data: png.toString('base64'), name: 'dot.png' });
    const e = await outsider.fail('file_url', { conv_id: conv, file_id: sent.file_id });
    assert.equal(e.code, 'not_member');
    // Through a conversation it is in, the file is not there for it either.
    const own = await directWithOwner(outsider);
    assert.equal((await outsider.fail('file_url', { conv_id: own, file_id: sent.file_id })).code, 'not_found');
  });

  test('bad files are refused and nothing is stored: bad base64, a fake PNG, and a file just over 16 MiB', async () => {
    const before = await convLastSeq(conv);
    const badB64 = await a.fail('send_file', { conv_id: conv, data: 'aGVsbG8$d29ybGQ=', name: 'note.txt' });
    assert.equal(badB64.code, 'invalid_argument');
    assert.match(badB64.message, /not valid base64/);

    const fake = await a.fail('send_file', {
      conv_id: conv,
      data: Buffer.from('GIF? no, just text pretending').toString('base64'),
      name: 'chart.png',
    });
    assert.equal(fake.code, 'invalid_argument');
    assert.match(fake.message, /claims to be PNG but is not/);
    const fakeMime = await a.fail('send_file', {
      conv_id: conv,
      data: Buffer.from('<html>hi</html>').toString('base64'),
      name: 'page',
      mime: 'image/png',
    });
    assert.equal(fakeMime.code, 'invalid_argument');
    assert.match(fakeMime.message, /claims to be PNG/);

    const oversize = Buffer.alloc(LIMITS.maxFileBytes + 3, 7);
    const big = await a.fail('send_file', {
      conv_id: conv,
      data: oversize.toString('base64'),
      name: 'big.bin',
      mime: 'application/octet-stream',
    });
    assert.equal(big.code, 'too_large');
    assert.match(big.message, /limit/);
    assert.equal(await convLastSeq(conv), before, 'no message or file was written');
  });
});
