// A direct conversation has one other side: a message without `to` names it (it is woken, the event is for_you,
// its wake run starts). Over a real `perch serve` with the official MCP clients of both eras and the owner API.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ERAS, ERA_NAME, ROOT, cliAsync, eventually, ownerOk, useSharedServe, type AgentClient } from '../support/serve-harness';

type R = Record<string, any>;

const served = useSharedServe();

/** Reads get_updates until nothing is left; returns the last ack (the next call confirms everything read). */
async function drain(c: AgentClient): Promise<string> {
  let ack: string | undefined;
  for (let i = 0; i < 50; i++) {
    const r = await c.ok('get_updates', ack ? { ack } : {});
    ack = r.ack as string;
    if (r.events.length === 0) return ack;
  }
  throw new Error('get_updates never ran dry');
}

/** A get_updates that waits (long: only a wake ends it early) and the moment it is known to wait in the hub. */
async function waitingCall(c: AgentClient, ack: string): Promise<{ answer: Promise<R> }> {
  const answer = c.ok('get_updates', { ack, wait_secs: 45 });
  await eventually(
    async () => (await ownerOk(served, 'agents.list')).agents.some((a: R) => a.id === c.agent.id && a.waiting),
    5000,
    `${c.agent.name} to wait`,
  );
  return { answer }; // wrapped: an async function returning the promise itself would wait for the answer
}

function messageEvent(r: R, msgId: string): R {
  const e = r.events.find((x: R) => x.type === 'message.created' && x.message?.msg_id === msgId);
  assert.ok(e, `the message ${msgId} is among the events: ${JSON.stringify(r.events.map((x: R) => x.type))}`);
  return e;
}

for (const era of ERAS) {
  describe(`a direct message is addressed to the other side, ${ERA_NAME[era]}`, () => {
    test("the owner writes in an agent's direct conversation without to: the agent's waiting get_updates is woken and the event is for_you", async () => {
      const coder = await served.agent('coder', era);
      const conv = (await ownerOk(served, 'conversations.open_direct', { user: coder.agent.id })).conversation.conv_id as string;
      const waiting = await waitingCall(coder, await drain(coder));
      const sent = await ownerOk(served, 'messages.send', { conv_id: conv, text: 'how is it going?' });
      assert.deepEqual(sent.to, [coder.agent.name], 'the result says whom the message named: the agent');
      assert.deepEqual(sent.woken, [coder.agent.name]);
      const r = await waiting.answer;
      assert.equal(r.woken, true, `the wait ended because the agent was woken, not at its timeout: ${JSON.stringify(r).slice(0, 800)}`);
      const e = messageEvent(r, sent.msg_id);
      assert.equal(e.for_you, true);
      assert.deepEqual(e.message.to, [coder.agent.name], 'the message names the agent');
    });

    test('an agent writes to its owner in their direct conversation without to: the message names the owner', async () => {
      const coder = await served.agent('reporter', era);
      const conv = (await coder.ok('open_direct', { user: 'owner' })).conversation.conv_id as string;
      const sent = await coder.ok('send_message', { conv_id: conv, text: 'done with the parser, have a look' });
      assert.deepEqual(sent.to, ['owner']);
      assert.deepEqual(sent.woken, ['owner']);
      const h = await ownerOk(served, 'conversations.history', { conv_id: conv });
      const e = h.events.find((x: R) => x.message?.msg_id === sent.msg_id);
      assert.equal(e.for_you, true, 'for the owner');
    });

    test('between two agents: a message without to wakes the other agent, for_you; an explicit to is kept as given', async () => {
      const [a, b] = await Promise.all([served.agent('left', era), served.agent('right', era)]);
      const conv = (await a.ok('open_direct', { user: b.agent.name })).conversation.conv_id as string;
      const waiting = await waitingCall(b, await drain(b));
      const sent = await a.ok('send_message', { conv_id: conv, text: 'can you take the tests?' });
      assert.deepEqual(sent.to, [b.agent.name]);
      assert.deepEqual(sent.woken, [b.agent.name]);
      const r = await waiting.answer;
      assert.equal(r.woken, true);
      assert.equal(messageEvent(r, sent.msg_id).for_you, true);
      const back = await b.ok('send_message', { conv_id: conv, text: 'yes', to: [a.agent.name], reply_to: sent.msg_id });
      assert.deepEqual(back.to, [a.agent.name]);
    });

    test('a status or done message without to names nobody, even in a direct conversation (updates nobody must answer)', async () => {
      const [a, b] = await Promise.all([served.agent('status-a', era), served.agent('status-b', era)]);
      const conv = (await a.ok('open_direct', { user: b.agent.name })).conversation.conv_id as string;
      await drain(b);
      const sent = await a.ok('send_message', { conv_id: conv, text: 'still compiling', intent: 'status' });
      assert.deepEqual(sent.to, []);
      assert.deepEqual(sent.woken, []);
      const r = await b.ok('get_updates', {});
      const e = messageEvent(r, sent.msg_id);
      assert.equal(e.for_you, false);
      assert.equal(e.message.to, undefined);
      const refused = await b.fail('send_message', { conv_id: conv, text: 'ok!', reply_to: sent.msg_id });
      assert.equal(refused.code, 'brake', 'the notice brake still ends acknowledgements of a status message');
    });

    test('in a group a message without to still names nobody', async () => {
      const [a, b] = await Promise.all([served.agent('group-a', era), served.agent('group-b', era)]);
      const conv = (await a.ok('create_group', { title: 'pair', members: [b.agent.name] })).conversation.conv_id as string;
      const sent = await a.ok('send_message', { conv_id: conv, text: 'hello all' });
      assert.deepEqual(sent.to, []);
      assert.deepEqual(sent.woken, []);
    });
  });
}

test("the owner's message without to in an agent's direct conversation starts the agent's wake run", async () => {
  const agent = await served.agent('sleeper');
  await agent.close();
  const r = await cliAsync([
    'agent',
    'wake',
    agent.agent.name,
    '--data-dir',
    served.dataDir,
    '--',
    process.execPath,
    path.join(ROOT, 'test', 'fixtures', 'wake-agent.mjs'),
  ]);
  assert.equal(r.code, 0, r.stderr);
  const conv = (await ownerOk(served, 'conversations.open_direct', { user: agent.agent.id })).conversation.conv_id as string;
  await ownerOk(served, 'messages.send', { conv_id: conv, text: 'wake up and look at the build' });
  let runs: R[] = [];
  await eventually(
    async () => {
      runs = (await ownerOk(served, 'wake.runs', { agent: agent.agent.name })).runs;
      return runs.length > 0 && runs.every((x) => x.status !== 'running');
    },
    20_000,
    'a wake run to start and end',
  );
  assert.equal(runs[0]!.why.reasons[0].type, 'message.created');
  assert.equal(runs[0]!.why.reasons[0].conv_id, conv);
});
