// Handoffs: the agent is silenced and not woken until the person hands the conversation back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withHub, callTool as call, drain } from '../support/helpers';
import { handBack } from '../../src/main/hub/features/coordination/handoffs';
import { sendMessage, getHistory } from '../../src/main/hub/talk/messages';
import type { EventView } from '../../src/shared/api/event-log';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

test('handoff silences the agent, does not wake it, and the hand-back wakes it with the note', async () => {
  await withHub(async (t) => {
    const { hub } = t;
    const alice = t.agent('alice');
    const direct = await call(hub, alice.id, 'open_direct', { user: 'owner' });
    const convId: string = direct.conversation.conv_id;

    const h = await call(hub, alice.id, 'handoff', { conv_id: convId, note: 'Pricing needs your call.' });
    assert.equal(h.to.name, 'owner');
    assert.equal(h.silenced, true);

    // The owner was woken by it (for_you from the owner's point of view).
    const hist = getHistory(hub, hub.ownerId, convId, {});
    const created = hist.events.find((e) => e.type === 'handoff.created')!;
    assert.ok(created, 'handoff.created is in the log');
    assert.equal(created.for_you, true);
    assert.equal(created.data!.note, 'Pricing needs your call.');
    assert.equal((created.data!.agent as Any).name, 'alice');

    // Silenced: sends are refused with code silenced.
    await assert.rejects(call(hub, alice.id, 'send_message', { conv_id: convId, text: 'hello?' }), (e: Any) => {
      assert.equal(e.code, 'silenced');
      assert.match(e.message, /handed this conversation to owner/);
      return true;
    });

    // Not woken: a message naming it does not end a waiting get_updates.
    await drain(hub, alice.id);
    const started = Date.now();
    const waiting = call(hub, alice.id, 'get_updates', { wait_secs: 1 });
    assert.ok(hub.bus.isWaiting(alice.id));
    const sent = sendMessage(hub, hub.ownerId, { conv_id: convId, text: 'alice, are you there?', to: ['alice'] });
    assert.deepEqual(sent.woken, []);
    const quiet = await waiting;
    assert.equal(quiet.woken, false);
    assert.ok(Date.now() - started >= 900, 'the wait ran to its end');
    const msgEvent = quiet.events.find((e: EventView) => e.type === 'message.created');
    assert.ok(msgEvent, 'the message is still delivered');
    assert.equal(msgEvent.for_you, false);

    // The hand-back wakes it at once, with the note.
    await drain(hub, alice.id);
    const t0 = Date.now();
    const waiting2 = call(hub, alice.id, 'get_updates', { wait_secs: 10 });
    const back = handBack(hub, hub.ownerId, { conv_id: convId, note: 'Go with plan B.' });
    assert.equal(back.agent.name, 'alice');
    assert.deepEqual(back.woken, ['alice']);
    const woke = await waiting2;
    assert.equal(woke.woken, true);
    assert.ok(Date.now() - t0 < 1000, 'woken promptly');
    const returned = woke.events.find((e: EventView) => e.type === 'handoff.returned');
    assert.ok(returned);
    assert.equal(returned.for_you, true);
    assert.equal(returned.data.note, 'Go with plan B.');
    assert.equal(returned.data.handoff_note, 'Pricing needs your call.');

    // Speaking again.
    const ok = await call(hub, alice.id, 'send_message', { conv_id: convId, text: 'On it.' });
    assert.ok(ok.msg_id);
  });
});

test('a second handoff while one is active is a conflict; handoffs go to people only', async () => {
  await withHub(async (t) => {
    const { hub } = t;
    const alice = t.agent('alice');
    t.agent('bob');
    const direct = await call(hub, alice.id, 'open_direct', { user: 'owner' });
    const convId: string = direct.conversation.conv_id;
    await assert.rejects(call(hub, alice.id, 'handoff', { conv_id: convId, note: 'x', to: 'bob' }), { code: 'invalid_argument' });
    await call(hub, alice.id, 'handoff', { conv_id: convId, note: 'first' });
    await assert.rejects(call(hub, alice.id, 'handoff', { conv_id: convId, note: 'second' }), (e: Any) => {
      assert.equal(e.code, 'conflict');
      assert.equal(e.details.to, 'owner');
      return true;
    });
    // Retrying with the same operation_id is safe once it is handed back.
    handBack(hub, hub.ownerId, { conv_id: convId, agent: 'alice', note: 'done' });
    const again = await call(hub, alice.id, 'handoff', { conv_id: convId, note: 'again', operation_id: 'op-1' });
    const replay = await call(hub, alice.id, 'handoff', { conv_id: convId, note: 'again', operation_id: 'op-1' });
    assert.deepEqual(replay, again);
  });
});

test('handing off a conversation without the owner adds the owner as a member', async () => {
  await withHub(async (t) => {
    const { hub } = t;
    const alice = t.agent('alice');
    const bob = t.agent('bob');
    const direct = await call(hub, alice.id, 'open_direct', { user: 'bob' });
    const convId: string = direct.conversation.conv_id;
    assert.ok(!direct.conversation.members.some((m: Any) => m.name === 'owner'));
    await call(hub, alice.id, 'handoff', { conv_id: convId, note: 'bob needs a human' });
    const list = await call(hub, bob.id, 'list_conversations', {});
    const conv = list.conversations.find((c: Any) => c.conv_id === convId);
    assert.ok(
      conv.members.some((m: Any) => m.name === 'owner'),
      'owner joined',
    );
    assert.equal(conv.handoffs.length, 1);
    assert.equal(conv.handoffs[0].agent.name, 'alice');
    // bob is not silenced by alice's handoff.
    await call(hub, bob.id, 'send_message', { conv_id: convId, text: 'still here' });
  });
});

test('hand-back refuses when nothing is handed off, and needs a name when several are', async () => {
  await withHub(async (t) => {
    const { hub } = t;
    const alice = t.agent('alice');
    t.agent('bob');
    const g = await call(hub, alice.id, 'create_group', { title: 'ops', members: ['bob'] });
    const convId: string = g.conversation.conv_id;
    assert.throws(() => handBack(hub, hub.ownerId, { conv_id: convId, note: 'n' }), { code: 'not_found' });
    const bob = hub.user(g.conversation.members.find((m: Any) => m.name === 'bob').id);
    await call(hub, alice.id, 'handoff', { conv_id: convId, note: 'a' });
    await call(hub, bob.id, 'handoff', { conv_id: convId, note: 'b' });
    assert.throws(() => handBack(hub, hub.ownerId, { conv_id: convId, note: 'n' }), { code: 'invalid_argument' });
    const r = handBack(hub, hub.ownerId, { conv_id: convId, agent: 'bob', note: 'yours' });
    assert.equal(r.agent.name, 'bob');
    await call(hub, bob.id, 'send_message', { conv_id: convId, text: 'back' });
    await assert.rejects(call(hub, alice.id, 'send_message', { conv_id: convId, text: 'me too' }), { code: 'silenced' });
  });
});
