// The agent contract over a real `perch serve` (official MCP client, the owner through the owner API): handoffs and the
// owner's hand-back, task channels, claims and the floor — and the bad input each of them refuses.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ownerOk, sleep } from '../support/serve-harness';
import { R, ownerName, served, agent, drain, directWithOwner, group, untilWaiting, track } from '../support/mcp-contract-kit';

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
