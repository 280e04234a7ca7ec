// Brakes on agents' sends (hub/control/brakes.ts), over MCP with the official client against a real `perch serve`:
// each brake refuses with code brake and the right reason and changes nothing; the loop brake pauses the
// conversation until a person resumes it (Resume or writing in it) and the members are woken; a person's
// message resets the counts; the owner is never refused; counts survive a restart of the hub process.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { openDatabase } from '../../src/main/store/db/db';
import { recentEvents } from '../../src/main/store/tables/agents/brakes';
import {
  addAgent,
  cliAsync,
  connect,
  eventually,
  ownerOk,
  startServe,
  tempDataDir,
  uniqueName,
  untilWaiting,
  useSharedServe,
  type AgentClient,
  type Served,
} from '../support/serve-harness';

type R = Record<string, any>;

const served = useSharedServe({ args: ['--rate', '0'] });

async function lastSeq(convId: string): Promise<number> {
  return (await ownerOk(served, 'conversations.get', { conv_id: convId })).conversation.last_seq;
}

/** A group of fresh agents (the first created it), and the agents' clients. */
async function group(n: number, title: string): Promise<{ conv: string; agents: AgentClient[] }> {
  const agents: AgentClient[] = [];
  for (let i = 0; i < n; i++) agents.push(await served.agent(`${title}-${i}`));
  const g = await agents[0]!.ok('create_group', { title, members: agents.slice(1).map((a) => a.agent.name) });
  return { conv: g.conversation.conv_id, agents };
}

/** A send that a brake must refuse: code brake, the reason's first word, and nothing changed in the conversation. */
async function refused(c: AgentClient, word: string, args: R, tool = 'send_message'): Promise<R> {
  const before = await lastSeq(args.conv_id);
  const e = await c.fail(tool, args);
  assert.equal(e.code, 'brake', `${tool} refused with code brake: ${JSON.stringify(e)}`);
  const reason = (e as R).reason as string;
  assert.ok(reason.startsWith(`${word}:`), `the reason starts with "${word}": ${reason}`);
  assert.equal((e.details as R).reason, reason);
  assert.equal(await lastSeq(args.conv_id), before, 'a refused send changes nothing');
  return e;
}

/** Reads get_updates (confirming each page) until an event of this type arrives; bounded. */
async function until(c: AgentClient, type: string, waitSecs = 0): Promise<R> {
  let ack: string | undefined;
  for (let i = 0; i < 40; i++) {
    const r = await c.ok('get_updates', { ...(ack ? { ack } : {}), limit: 500, ...(waitSecs ? { wait_secs: waitSecs } : {}) });
    ack = r.ack;
    const e = (r.events as R[]).find((x) => x.type === type);
    if (e) {
      await c.ok('get_updates', { ack }); // confirm it
      return e;
    }
    if (r.events.length === 0 && !waitSecs) break;
  }
  throw new Error(`no ${type} event for ${c.agent.name}`);
}

/** a and b trade `turns` turns in conv (each send is a new turn: the speaker changes every time). */
async function pingPong(a: AgentClient, b: AgentClient, conv: string, turns: number, tag: string): Promise<void> {
  for (let i = 0; i < turns; i++) await (i % 2 ? b : a).ok('send_message', { conv_id: conv, text: `${tag} turn ${i}` });
}

describe('duplicate', () => {
  test('an agent may send the same text twice since a person last took part; the third is refused, a person resets it', async () => {
    const {
      conv,
      agents: [a],
    } = await group(2, 'dup');
    await a!.ok('send_message', { conv_id: conv, text: 'same words' });
    await a!.ok('send_message', { conv_id: conv, text: 'same words' });
    const e = await refused(a!, 'duplicate', { conv_id: conv, text: 'same words' });
    assert.match(e.next_step, /\S/);
    await a!.ok('send_message', { conv_id: conv, text: 'other words' }); // a different text goes
    await ownerOk(served, 'messages.send', { conv_id: conv, text: 'I am here.' });
    await a!.ok('send_message', { conv_id: conv, text: 'same words' }); // a person took part: counts reset
    // The refusal was shown to the owner in the agent's feed (a progress row of kind error with data.brake).
    await eventually(
      async () => {
        const rows = (await ownerOk(served, 'progress.list', { agent_id: a!.agent.id })).progress as R[];
        return rows.some((p) => p.kind === 'error' && p.data?.brake?.word === 'duplicate' && p.conv_id === conv);
      },
      5000,
      "the duplicate brake row in the owner's feed",
    );
  });

  test('a card and a file count as sends too (their text is what is compared)', async () => {
    const {
      conv,
      agents: [a],
    } = await group(2, 'dupcard');
    const card = { blocks: [{ type: 'text', text: 'hello' }] };
    await a!.ok('send_card', { conv_id: conv, text: 'card text', card });
    await a!.ok('send_card', { conv_id: conv, text: 'card text', card });
    await refused(a!, 'duplicate', { conv_id: conv, text: 'card text', card }, 'send_card');
  });
});

describe('budget', () => {
  test('the owner sets a budget (CLI, running hub); the send over it is refused; off lifts it; a person does not reset it', async () => {
    const {
      conv,
      agents: [a],
    } = await group(2, 'budget');
    const set = await cliAsync(['agent', 'brakes', a!.agent.name, '--budget', '5', '--data-dir', served.dataDir, '--json']);
    assert.equal(set.code, 0, set.stderr);
    assert.equal(JSON.parse(set.stdout).brakes.budget_per_hour, 5);
    assert.equal((await a!.ok('whoami')).brakes.budget_per_hour, 5, 'whoami reports the budget');
    for (let i = 0; i < 5; i++) await a!.ok('send_message', { conv_id: conv, text: `report ${i}` });
    await ownerOk(served, 'messages.send', { conv_id: conv, text: 'carry on' });
    const e = await refused(a!, 'budget', { conv_id: conv, text: 'report 5' });
    assert.equal((e.details as R).budget_per_hour, 5);
    // Another conversation has its own count.
    const other = (await a!.ok('create_group', { title: 'budget-elsewhere', members: [] })).conversation.conv_id;
    await a!.ok('send_message', { conv_id: other, text: 'elsewhere' });
    const off = await ownerOk(served, 'agents.set_brakes', { agent: a!.agent.name, budget: 'off' });
    assert.equal(off.brakes.budget_per_hour, null);
    await a!.ok('send_message', { conv_id: conv, text: 'report 5' });
    const back = await ownerOk(served, 'agents.set_brakes', { agent: a!.agent.name, budget: 'default' });
    assert.equal(back.brakes.budget_per_hour, 60);
    assert.equal(back.brakes.budget_is_default, true);
  });

  test('a bad budget is refused and changes nothing', async () => {
    const a = await served.agent('badbudget');
    const r = await cliAsync(['agent', 'brakes', a.agent.name, '--budget', '-3', '--data-dir', served.dataDir]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /budget/);
    assert.equal((await a.ok('whoami')).brakes.budget_per_hour, 60);
  });
});

describe('notice', () => {
  test('a reply to a status or done message that named nobody is refused; to one that named someone it goes', async () => {
    const {
      conv,
      agents: [a, b],
    } = await group(2, 'notice');
    const status = await a!.ok('send_message', { conv_id: conv, text: 'Build is green.', intent: 'status' });
    await refused(b!, 'notice', { conv_id: conv, text: 'Thanks!', reply_to: status.msg_id });
    const done = await a!.ok('send_message', { conv_id: conv, text: 'All done.', intent: 'done' });
    await refused(b!, 'notice', { conv_id: conv, text: 'Great work!', reply_to: done.msg_id });
    const named = await a!.ok('send_message', { conv_id: conv, text: 'Done; please check.', intent: 'done', to: [b!.agent.name] });
    await b!.ok('send_message', { conv_id: conv, text: 'Checked, looks right.', reply_to: named.msg_id });
    // The owner may answer anything.
    await ownerOk(served, 'messages.send', { conv_id: conv, text: 'Thanks both.', reply_to: status.msg_id });
  });
});

describe('loop', () => {
  test('30 turns between two agents with no person pause the conversation for every agent; Resume lifts it and wakes them', async () => {
    const {
      conv,
      agents: [a, b, c],
    } = await group(3, 'loop');
    await pingPong(a!, b!, conv, 30, 'loop1'); // the 30th turn is sent, then the conversation is paused
    const paused = await until(c!, 'conversation.paused');
    assert.match(String(paused.data.reason), /30 turns/);
    const view = (await ownerOk(served, 'conversations.get', { conv_id: conv })).conversation;
    assert.ok(view.paused, 'the owner sees the conversation paused');
    assert.deepEqual([...view.paused.agents].sort(), [a!.agent.name, b!.agent.name].sort());
    await refused(a!, 'loop', { conv_id: conv, text: 'one more' });
    await refused(c!, 'loop', { conv_id: conv, text: 'I was quiet' }); // paused for all agents
    // The owner is never refused; here the owner presses Resume while b waits.
    await until(b!, 'conversation.paused'); // b has read everything so far, then waits
    const waiting = b!.ok('get_updates', { wait_secs: 20 });
    await untilWaiting(served, b!.agent.name);
    const r = await ownerOk(served, 'conversations.resume', { conv_id: conv });
    assert.equal(r.resumed, true);
    assert.equal(r.conversation.paused, undefined);
    const w = await waiting;
    assert.equal(w.woken, true, 'Resume woke the waiting member');
    const resumed = (w.events as R[]).find((e) => e.type === 'conversation.resumed');
    assert.equal(resumed?.actor.kind, 'human');
    await a!.ok('send_message', { conv_id: conv, text: 'resumed, carrying on' });
    assert.equal(
      (await ownerOk(served, 'conversations.resume', { conv_id: conv })).resumed,
      false,
      'resuming a running conversation changes nothing',
    );
  });

  test('an owner message lifts the pause and wakes the members', async () => {
    const {
      conv,
      agents: [a, b],
    } = await group(2, 'loop2');
    await pingPong(a!, b!, conv, 30, 'loop2');
    await refused(b!, 'loop', { conv_id: conv, text: 'still here' });
    await until(a!, 'conversation.paused'); // a has read everything so far, then waits
    const waiting = a!.ok('get_updates', { wait_secs: 20 });
    await untilWaiting(served, a!.agent.name);
    await ownerOk(served, 'messages.send', { conv_id: conv, text: 'Stop thanking each other. B, write the summary.' });
    const w = await waiting;
    assert.equal(w.woken, true, "the owner's message woke the waiting member");
    assert.ok(
      (w.events as R[]).some((e) => e.type === 'conversation.resumed'),
      'with conversation.resumed',
    );
    assert.equal((await ownerOk(served, 'conversations.get', { conv_id: conv })).conversation.paused, undefined);
    await b!.ok('send_message', { conv_id: conv, text: 'Summary coming.' });
  });

  test('a person taking part resets the turn count; one agent posting a series is no loop', async () => {
    const {
      conv,
      agents: [a, b],
    } = await group(2, 'noloop');
    await pingPong(a!, b!, conv, 20, 'first');
    await ownerOk(served, 'messages.react', {
      conv_id: conv,
      msg_id: (await a!.ok('send_message', { conv_id: conv, text: 'checkpoint' })).msg_id,
      key: '👀',
      on: true,
    });
    await pingPong(b!, a!, conv, 20, 'second'); // 20 + 20 turns, but a person acted in between
    for (let i = 0; i < 35; i++) await a!.ok('send_message', { conv_id: conv, text: `series ${i}` }); // no change of speaker
    assert.equal((await ownerOk(served, 'conversations.get', { conv_id: conv })).conversation.paused, undefined);
  });
});

describe('people are never slowed', () => {
  test('the owner sends the same text many times, over any budget, replying to status messages', async () => {
    const {
      conv,
      agents: [a],
    } = await group(2, 'owner');
    const status = await a!.ok('send_message', { conv_id: conv, text: 'status', intent: 'status' });
    for (let i = 0; i < 65; i++)
      await ownerOk(served, 'messages.send', { conv_id: conv, text: 'same owner words', reply_to: status.msg_id });
    assert.equal((await lastSeq(conv)) >= 65, true);
  });
});

test('counts are rebuilt after a restart of the perch serve process; a loop pause survives it', async () => {
  const dir = tempDataDir();
  let hub: Served = await startServe(dir, { args: ['--rate', '0'] });
  const clients: AgentClient[] = [];
  try {
    const ka = await addAgent(dir, uniqueName('ra'));
    const kb = await addAgent(dir, uniqueName('rb'));
    const setBudget = await cliAsync(['agent', 'brakes', ka.name, '--budget', '16', '--data-dir', dir]);
    assert.equal(setBudget.code, 0, setBudget.stderr);
    let a = await connect('v1', hub.mcpUrl, ka);
    let b = await connect('v1', hub.mcpUrl, kb);
    clients.push(a, b);
    const conv = (await a.ok('create_group', { title: 'restart', members: [kb.name] })).conversation.conv_id as string;
    const loopConv = (await a.ok('create_group', { title: 'restart-loop', members: [kb.name] })).conversation.conv_id as string;
    await a.ok('send_message', { conv_id: conv, text: 'again' });
    await a.ok('send_message', { conv_id: conv, text: 'again' });
    for (let i = 3; i <= 16; i++) await a.ok('send_message', { conv_id: conv, text: `r${i}` });
    await b.ok('send_message', { conv_id: conv, text: 'b says' });
    await b.ok('send_message', { conv_id: conv, text: 'b says' });
    // a ping-pong of 30 turns in the other conversation pauses it.
    for (let i = 0; i < 30; i++) await (i % 2 ? b : a).ok('send_message', { conv_id: loopConv, text: `t${i}` });
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await hub.stop();

    hub = await startServe(dir, { args: ['--rate', '0'] });
    a = await connect('v1', hub.mcpUrl, ka);
    b = await connect('v1', hub.mcpUrl, kb);
    clients.push(a, b);
    const seq = async (c: string) => (await ownerOk(hub, 'conversations.get', { conv_id: c })).conversation.last_seq;
    const before = await seq(conv);
    const budget = await a.fail('send_message', { conv_id: conv, text: 'r17' });
    assert.equal(budget.code, 'brake');
    assert.match((budget as R).reason, /^budget:/, 'the budget count (16 of 16) was rebuilt from the log');
    const dup = await b.fail('send_message', { conv_id: conv, text: 'b says' });
    assert.match((dup as R).reason, /^duplicate:/, 'the duplicate count was rebuilt from the log');
    assert.equal(await seq(conv), before);
    const loop = await b.fail('send_message', { conv_id: loopConv, text: 'after restart' });
    assert.match((loop as R).reason, /^loop:/, 'the pause survived the restart');
    assert.ok((await ownerOk(hub, 'conversations.get', { conv_id: loopConv })).conversation.paused);
    await ownerOk(hub, 'conversations.resume', { conv_id: loopConv });
    await b.ok('send_message', { conv_id: loopConv, text: 'after resume' });
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await hub.stop();
  }
});

test("the rebuild reads only a conversation's newest events: of those, the ones in the window, newest first, with message kind and text", () => {
  const dir = tempDataDir();
  const db = openDatabase(path.join(dir, 'perch.sqlite'));
  try {
    const event = db.prepare("INSERT INTO events (conv_id, seq, type, actor_id, msg_id, ts) VALUES ('c_q', ?, ?, 'u_a', ?, ?)");
    db.prepare(
      "INSERT INTO messages (id, conv_id, seq, sender_id, kind, text, created_at) VALUES ('m_1', 'c_q', 1, 'u_a', 'status', 'hello', 5000)",
    ).run();
    // seq 1 is in the window (ts 5000); then three events stamped before it (a clock that went back).
    event.run(1, 'message.created', 'm_1', 5000);
    for (let seq = 2; seq <= 4; seq++) event.run(seq, 'message.created', null, 1000 + seq);
    assert.deepEqual(recentEvents(db, 'c_q', 4000, 4), [
      { type: 'message.created', actor_id: 'u_a', ts: 5000, kind: 'status', text: 'hello' },
    ]);
    assert.deepEqual(
      recentEvents(db, 'c_q', 1000, 4).map((r) => r.ts),
      [1004, 1003, 1002, 5000],
      'newest first',
    );
    assert.deepEqual(
      recentEvents(db, 'c_q', 1000, 2).map((r) => r.ts),
      [1004, 1003],
      'at most limit',
    );
    // The newest 3 are all before the window: nothing older is read, so seq 1 is not found.
    assert.deepEqual(recentEvents(db, 'c_q', 4000, 3), [], 'events past the newest `limit` are never read');
  } finally {
    db.close();
  }
});
