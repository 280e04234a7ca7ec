// The agent contract over a real `perch serve`, driven by the OFFICIAL MCP client (sdk v1 for the bulk; both protocol
// eras for tools/list), with the owner played through the owner API (POST /api/owner/<action> with the bearer token of
// runtime.json): tools/list, asking the owner, cards — and the bad input each of them refuses. Coordination between
// agents is in mcp-contract-coordination.test.ts, checkpoints, context and files in mcp-contract-memory-files.test.ts.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TOOLS, toolInputJsonSchema } from '../../src/shared/api/catalog';
import { LIMITS } from '../../src/shared/limits';
import { loadContract } from '../support/contract-fixture';
import { ERAS, ERA_NAME, owner, ownerFail, ownerOk, type AgentClient } from '../support/serve-harness';
import { R, ownerName, served, agent, drain, directWithOwner, group, untilWaiting, track, convLastSeq } from '../support/mcp-contract-kit';

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
