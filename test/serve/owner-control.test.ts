// Owner control over MCP with the official client and a real `perch serve`:
// pause refuses an agent's writing tools with `paused` (reads still work) and returns its waiting
// get_updates at once with agent.paused; the pause survives a restart of the hub process; resume sends
// agent.resumed and wakes it; `perch agent pause` (another process writing the SQLite file) bites at once
// while the hub runs; pause --all; daily caps (messages, tool calls, reported cost) pause with reason
// budget; the owner (a person) is never refused.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  cliAsync,
  connect,
  addAgent,
  owner,
  ownerOk,
  startServe,
  tempDataDir,
  untilWaiting,
  useSharedServe,
  type AgentClient,
} from '../support/serve-harness';

const served = useSharedServe();

/** Reads get_updates until nothing is left (each answer confirmed by the next call). */
async function drain(c: AgentClient): Promise<Array<Record<string, any>>> {
  const all: Array<Record<string, any>> = [];
  for (let i = 0; i < 50; i++) {
    const r = await c.ok('get_updates', {});
    all.push(...r.events);
    if (r.events.length === 0) return all;
  }
  throw new Error('get_updates never ran dry');
}

/** An agent with a direct conversation with the owner, caught up on its updates. */
async function agentWithConv(base: string): Promise<{ c: AgentClient; conv: string }> {
  const c = await served.agent(base);
  const conv = (await c.ok('open_direct', { user: 'owner' })).conversation.conv_id as string;
  await drain(c);
  return { c, conv };
}

describe('pause', () => {
  test("a paused agent's writes are refused with paused and change nothing; reads, get_updates and progress work; the owner still writes", async () => {
    const { c, conv } = await agentWithConv('paused');
    await ownerOk(served, 'agents.pause', { agent: c.agent.name, reason: 'lunch' });

    const refused = await c.fail('send_message', { conv_id: conv, text: 'still here?' });
    assert.equal(refused.code, 'paused');
    assert.match(refused.next_step, /wait for your owner/i);
    assert.equal(refused.details?.reason, 'lunch');
    assert.equal((await c.fail('state_put', { key: 'k', value: 1, version: 0 })).code, 'paused');
    const title = `refused-${c.agent.name}`;
    assert.equal((await c.fail('create_group', { title, members: [] })).code, 'paused');
    const history = await c.ok('get_history', { conv_id: conv });
    assert.ok(!history.events.some((e: any) => e.message?.text === 'still here?'), 'the refused send changed nothing');
    assert.equal((await c.fail('state_get', { key: 'k' })).code, 'not_found', 'the refused state_put stored nothing');
    const convs = await c.ok('list_conversations', {});
    assert.ok(!JSON.stringify(convs).includes(title), 'the refused create_group made no group');

    const me = await c.ok('whoami', {});
    assert.equal(me.paused, true);
    assert.equal(me.pause.reason, 'lunch');
    assert.equal(me.pause.by, 'owner');
    await c.ok('progress', { conv_id: conv, kind: 'step', text: 'stopping as asked' });

    // People are never refused: the owner writes in the paused agent's conversation.
    const sent = await ownerOk(served, 'messages.send', { conv_id: conv, text: 'take your time', to: [c.agent.id] });
    assert.equal(typeof sent.msg_id, 'string');
    const updates = await drain(c);
    assert.ok(
      updates.some((e) => e.type === 'agent.paused' && e.data?.reason === 'lunch'),
      'agent.paused with the reason is in its updates',
    );
    assert.ok(
      updates.some((e) => e.message?.text === 'take your time'),
      "the owner's message arrives while paused",
    );

    await ownerOk(served, 'agents.resume', { agent: c.agent.name });
    await c.ok('send_message', { conv_id: conv, text: 'back at work' });
    const after = (await c.ok('get_history', { conv_id: conv })).events.map((e: any) => e.message?.text).filter(Boolean);
    assert.ok(
      after.includes('back at work') && !after.includes('still here?'),
      `only the send after resume is stored: ${JSON.stringify(after)}`,
    );
  });

  test('a waiting get_updates returns at once with agent.paused (and the reason); resume sends agent.resumed and wakes it', async () => {
    const { c } = await agentWithConv('waiter');
    const waiting = c.ok('get_updates', { wait_secs: 30 });
    await untilWaiting(served, c.agent.name);
    await ownerOk(served, 'agents.pause', { agent: c.agent.id, reason: 'hold on' });
    const r = await waiting;
    assert.equal(r.woken, true, 'the pause woke the waiting call (it did not time out)');
    const ev = r.events.find((e: any) => e.type === 'agent.paused');
    assert.ok(ev, `agent.paused came: ${JSON.stringify(r.events)}`);
    assert.equal(ev.data.reason, 'hold on');
    assert.equal(ev.for_you, true);

    const again = c.ok('get_updates', { ack: r.ack, wait_secs: 30 });
    await new Promise((res) => setTimeout(res, 200));
    await ownerOk(served, 'agents.resume', { agent: c.agent.id });
    const r2 = await again;
    assert.equal(r2.woken, true);
    assert.ok(
      r2.events.some((e: any) => e.type === 'agent.resumed'),
      'agent.resumed came',
    );
  });

  test('perch agent pause from another process bites at once while the hub runs (writes refused, waiting get_updates woken); perch agent resume --all lifts it', async () => {
    const { c, conv } = await agentWithConv('cli-paused');
    const waiting = c.ok('get_updates', { wait_secs: 30 });
    const r = await cliAsync(['agent', 'pause', c.agent.name, '--reason', 'from the shell', '--data-dir', served.dataDir, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).agents[0].paused.reason, 'from the shell');
    assert.equal((await c.fail('send_message', { conv_id: conv, text: 'x' })).code, 'paused', 'the next write is refused at once');
    const woke = await waiting;
    assert.equal(woke.woken, true, 'the waiting get_updates was woken by the outside pause');
    assert.ok(woke.events.some((e: any) => e.type === 'agent.paused' && e.data.reason === 'from the shell'));

    const res = await cliAsync(['agent', 'resume', '--all', '--data-dir', served.dataDir]);
    assert.equal(res.code, 0, res.stderr);
    await c.ok('send_message', { conv_id: conv, text: 'resumed from the shell' });
  });

  test('perch agent pause refuses bad usage and unknown agents and changes nothing', async () => {
    const pausedNow = async () =>
      (await ownerOk(served, 'agents.list', {})).agents
        .filter((g: any) => g.paused)
        .map((g: any) => g.id)
        .sort();
    const before = await pausedNow();
    const none = await cliAsync(['agent', 'pause', '--data-dir', served.dataDir]);
    assert.equal(none.code, 2, none.stderr);
    assert.match(none.stderr, /NAME or --all/);
    const missing = await cliAsync(['agent', 'pause', 'no-such-agent', '--data-dir', served.dataDir]);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /No agent named/);
    assert.deepEqual(await pausedNow(), before, 'no agent was paused by the refused commands');
    const help = await cliAsync(['agent', 'pause', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /perch agent pause NAME\|--all/);
  });

  test('pause_all stops every agent at once; resume_all lets them all go on', async () => {
    const a = await agentWithConv('all-a');
    const b = await agentWithConv('all-b');
    const r = await ownerOk(served, 'agents.pause_all', { reason: 'stop everything' });
    assert.ok(r.agents.length >= 2);
    for (const x of [a, b]) {
      const e = await x.c.fail('send_message', { conv_id: x.conv, text: 'no' });
      assert.equal(e.code, 'paused');
      assert.equal(e.details?.reason, 'stop everything');
    }
    const list = await ownerOk(served, 'agents.list', {});
    assert.ok(
      list.agents.every((g: any) => g.revoked || g.paused?.reason === 'stop everything'),
      'every agent shows as paused',
    );
    await ownerOk(served, 'agents.resume_all', {});
    for (const x of [a, b]) {
      await x.c.ok('send_message', { conv_id: x.conv, text: 'yes' });
      const texts = (await x.c.ok('get_history', { conv_id: x.conv })).events.map((e: any) => e.message?.text);
      assert.ok(texts.includes('yes') && !texts.includes('no'), `the refused send stored nothing: ${JSON.stringify(texts)}`);
    }
  });
});

describe('daily caps', () => {
  test("a messages cap pauses the agent with reason budget when reached; whoami and the fleet view show caps and today's usage", async () => {
    const { c, conv } = await agentWithConv('capped');
    const set = await ownerOk(served, 'agents.set_caps', { agent: c.agent.name, messages: 2 });
    assert.deepEqual(set.caps, { cost_usd: null, messages: 2, tool_calls: null });
    await c.ok('send_message', { conv_id: conv, text: 'one' });
    const me = await c.ok('whoami', {});
    assert.equal(me.caps.messages, 2);
    assert.equal(me.usage_today.messages, 1);
    assert.equal(me.paused, false);
    await c.ok('send_message', { conv_id: conv, text: 'two' });
    const e = await c.fail('send_message', { conv_id: conv, text: 'three' });
    assert.equal(e.code, 'paused');
    assert.equal(e.details?.reason, 'budget');
    assert.match(String(e.details?.detail), /messages: 2 of 2/);

    const fleet = await ownerOk(served, 'agents.controls', {});
    const row = fleet.agents.find((x: any) => x.agent.id === c.agent.id);
    assert.equal(row.paused.by, 'budget');
    assert.equal(row.today.messages, 2);
    assert.equal(row.days.length, 14);
    assert.equal(row.days[13].day, fleet.today);
    assert.ok(row.today.tool_calls >= 4, `tool calls counted: ${row.today.tool_calls}`);

    // The owner lifts the cap and resumes: the agent goes on.
    await ownerOk(served, 'agents.set_caps', { agent: c.agent.name, off: true });
    await ownerOk(served, 'agents.resume', { agent: c.agent.name });
    await c.ok('send_message', { conv_id: conv, text: 'three' });
    const texts = (await c.ok('get_history', { conv_id: conv })).events.map((e: any) => e.message?.text).filter(Boolean);
    assert.deepEqual(texts, ['one', 'two', 'three'], 'the send refused at the cap stored nothing');
  });

  test('reported cost (progress data.usage) is summed per day and a cost cap pauses; malformed usage is refused and saves nothing', async () => {
    const { c, conv } = await agentWithConv('spender');
    await ownerOk(served, 'agents.set_caps', { agent: c.agent.id, cost_usd: 0.05 });
    const bad = await c.fail('progress', { conv_id: conv, kind: 'step', text: 'bad', data: { usage: { cost_usd: -1 } } });
    assert.equal(bad.code, 'invalid_argument');
    await c.ok('progress', {
      conv_id: conv,
      kind: 'step',
      text: 'a',
      data: { usage: { input_tokens: 1000, output_tokens: 200, cost_usd: 0.03 } },
    });
    await new Promise((r) => setTimeout(r, 150)); // progress is limited to 10 a second
    const me = await c.ok('whoami', {});
    assert.equal(me.usage_today.input_tokens, 1000);
    assert.equal(me.usage_today.cost_usd, 0.03);
    assert.equal(me.paused, false);
    await c.ok('progress', { conv_id: conv, kind: 'step', text: 'b', data: { usage: { cost_usd: 0.03 } } });
    const e = await c.fail('send_message', { conv_id: conv, text: 'over budget' });
    assert.equal(e.code, 'paused');
    assert.equal(e.details?.reason, 'budget');
    assert.match(String(e.details?.detail), /cost_usd/);
  });

  test('a tool-calls cap set by `perch agent caps` pauses the agent; --off lifts it', async () => {
    const { c, conv } = await agentWithConv('busy');
    const r = await cliAsync(['agent', 'caps', c.agent.name, '--tool-calls', '3', '--data-dir', served.dataDir, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).caps.tool_calls, 3);
    // open_direct and the drain already made calls today: the next one reaches the cap.
    await c.ok('list_conversations', {});
    const e = await c.fail('send_message', { conv_id: conv, text: 'x' });
    assert.equal(e.code, 'paused');
    assert.equal(e.details?.reason, 'budget');
    const bad = await cliAsync(['agent', 'caps', c.agent.name, '--messages', 'lots', '--data-dir', served.dataDir]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--messages must be a whole number/);
    // Only plain numbers: what Number() would also read is refused in one line, and the cap stays as it was.
    for (const [flag, v] of [
      ['--messages', '0x10'],
      ['--tool-calls', '1e2'],
      ['--cost-usd', 'Infinity'],
      ['--cost-usd', ' 5'],
      ['--cost-usd', '1,000'],
      ['--messages', '2.5'],
    ] as const) {
      const odd = await cliAsync(['agent', 'caps', c.agent.name, flag, v, '--data-dir', served.dataDir]);
      assert.equal(odd.code, 2, `${flag} ${v}: ${odd.stdout}`);
      assert.match(odd.stderr, new RegExp(`^perch: ${flag} must be `), `${flag} ${v}`);
    }
    const kept = await cliAsync(['agent', 'caps', c.agent.name, '--cost-usd', '2.50', '--data-dir', served.dataDir, '--json']);
    assert.equal(kept.code, 0, kept.stderr);
    assert.equal(JSON.parse(kept.stdout).caps.tool_calls, 3, 'the refused values changed nothing');
    assert.equal(JSON.parse(kept.stdout).caps.cost_usd, 2.5);
    const off = await cliAsync(['agent', 'caps', c.agent.name, '--off', '--data-dir', served.dataDir, '--json']);
    assert.equal(off.code, 0, off.stderr);
    assert.deepEqual(JSON.parse(off.stdout).caps, { cost_usd: null, messages: null, tool_calls: null });
  });

  test('bad caps are refused and change nothing', async () => {
    const { c } = await agentWithConv('badcaps');
    await ownerOk(served, 'agents.set_caps', { agent: c.agent.id, messages: 50, tool_calls: 500 });
    const r = await owner(served, 'agents.set_caps', { agent: c.agent.id, messages: -1, tool_calls: 7 });
    assert.equal(r.status, 400);
    assert.equal(r.error?.code, 'invalid_argument');
    const me = await c.ok('whoami', {});
    assert.deepEqual(
      me.caps,
      { cost_usd: null, messages: 50, tool_calls: 500 },
      'the caps set before are unchanged (not even the valid part applied)',
    );
  });
});

describe('pause survives a restart', () => {
  test('paused before the hub process stops, still paused after it starts again; resume then lets it write', async () => {
    const dir = tempDataDir();
    let hub = await startServe(dir);
    const key = await addAgent(dir, 'restart-me');
    let c = await connect('v1', hub.mcpUrl, key);
    const conv = (await c.ok('open_direct', { user: 'owner' })).conversation.conv_id as string;
    await ownerOk(hub, 'agents.pause', { agent: 'restart-me', reason: 'overnight' });
    await c.close();
    assert.equal(await hub.stop(), 0);

    hub = await startServe(dir);
    try {
      c = await connect('v2', hub.mcpUrl, key);
      const e = await c.fail('send_message', { conv_id: conv, text: 'morning' });
      assert.equal(e.code, 'paused');
      assert.equal(e.details?.reason, 'overnight');
      assert.equal((await c.ok('whoami', {})).paused, true);
      await drain(c);
      const waiting = c.ok('get_updates', { wait_secs: 30 });
      await untilWaiting(hub, 'restart-me');
      await ownerOk(hub, 'agents.resume', { agent: 'restart-me' });
      const r = await waiting;
      assert.equal(r.woken, true);
      assert.ok(r.events.some((x: any) => x.type === 'agent.resumed'));
      await c.ok('send_message', { conv_id: conv, text: 'morning' });
      await c.close();
    } finally {
      await hub.stop();
    }
  });
});
