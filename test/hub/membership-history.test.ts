// A member added with history: 0 sees nothing from before they joined: no reaction, pin, edit,
// recall, claim, card response or request decision on an older message brings its content to
// them through get_updates, get_history, get_context (nor list_pins, search or get_thread).
// Such events still come (the log stays gap-free), as { data: { msg_id }, before_your_history: true }.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withHub, callTool as call, drain, type TestHub } from '../support/helpers';
import { answerCard } from '../../src/main/hub/features/cards/cards';
import { decideRequest } from '../../src/main/hub/features/requests/owner-decisions';
import { getHistory, pin, react } from '../../src/main/hub/talk/messages';
import { handBack } from '../../src/main/hub/features/coordination/handoffs';
import { HubError } from '../../src/shared/errors';
import type { EventType } from '../../src/shared/types';
import type { EventView } from '../../src/shared/api/event-log';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** Every old message carries this marker (and the card/request its own secret labels). */
const OLD = 'OLDSECRET';

interface World {
  t: TestHub;
  convId: string;
  alice: { id: string };
  bob: { id: string };
  carol: { id: string };
  msgs: { text: string; recall: string; request: string; card: string; requestMsg: string };
  requestId: string;
  joinSeq: number;
}

/** alice's group with bob and the owner: five old messages, then carol joins with history 0. */
async function world(t: TestHub): Promise<World> {
  const { hub } = t;
  const alice = t.agent('alice');
  const bob = t.agent('bob');
  const carol = t.agent('carol');
  const convId: string = (await call(hub, alice.id, 'create_group', { title: 'crew', members: ['bob'] })).conversation.conv_id;
  const text = (await call(hub, alice.id, 'send_message', { conv_id: convId, text: `${OLD} plain text`, topics: [`${OLD}-topic`] })).msg_id;
  const recall = (await call(hub, alice.id, 'send_message', { conv_id: convId, text: `${OLD} to recall`, refs: [`${OLD}-ref`] })).msg_id;
  const request = (await call(hub, alice.id, 'send_message', { conv_id: convId, text: `${OLD} who reviews PR 12?`, intent: 'request' }))
    .msg_id;
  const card = (
    await call(hub, alice.id, 'send_card', {
      conv_id: convId,
      text: `${OLD} card fallback`,
      card: { title: `${OLD} card title`, blocks: [{ type: 'buttons', id: 'go', options: [{ id: 'yes', label: `${OLD} label` }] }] },
    })
  ).msg_id;
  const req = await call(hub, alice.id, 'request_human', {
    conv_id: convId,
    kind: 'choose',
    title: `${OLD} pick a region`,
    options: [`${OLD}-eu`, `${OLD}-us`],
    context: { why: OLD },
  });
  const added = await call(hub, alice.id, 'add_member', { conv_id: convId, user: 'carol', history: 0 });
  assert.ok(added.conversation.members.some((m: Any) => m.name === 'carol'));
  return {
    t,
    convId,
    alice,
    bob,
    carol,
    msgs: { text, recall, request, card, requestMsg: req.msg_id },
    requestId: req.request_id,
    joinSeq: added.conversation.last_seq,
  };
}

/** What carol reads through every tool that shows a conversation's content. */
async function carolReads(w: World) {
  const { hub } = w.t;
  const updates = await drain(hub, w.carol.id);
  const history = await call(hub, w.carol.id, 'get_history', { conv_id: w.convId });
  const context = await call(hub, w.carol.id, 'get_context', { conv_id: w.convId });
  const pins = await call(hub, w.carol.id, 'list_pins', { conv_id: w.convId });
  const search = (await call(hub, w.carol.id, 'search', { query: OLD })).messages; // (the answer echoes the query)
  return { updates, history, context, pins, search };
}

function assertNoOldContent(what: string, value: unknown) {
  const json = JSON.stringify(value);
  assert.ok(!json.includes(OLD), `${what} shows content from before carol joined: ${json}`);
}

/** The event of this type on an old message reaches carol, in each view, with only the msg_id. */
function assertHiddenEvent(events: EventView[], type: EventType, msgId: string, where: string) {
  const e = events.find((x) => x.type === type);
  assert.ok(e, `${where}: ${type} is delivered (the log stays gap-free)`);
  assert.equal(e.before_your_history, true, `${where}: ${type} is marked before_your_history`);
  assert.equal(e.message, undefined, `${where}: ${type} carries no message`);
  assert.deepEqual(e.data, { msg_id: msgId }, `${where}: ${type} carries only the msg_id`);
}

async function checkCarol(w: World, type: EventType, msgId: string) {
  const r = await carolReads(w);
  for (const [name, value] of Object.entries(r)) assertNoOldContent(`carol's ${name}`, value);
  assertHiddenEvent(r.updates, type, msgId, 'get_updates');
  assertHiddenEvent(r.history.events, type, msgId, 'get_history');
  assertHiddenEvent(r.context.events, type, msgId, 'get_context');
  // Gap-free from where carol's view starts.
  const seqs = (r.history.events as EventView[]).map((e) => e.seq);
  assert.equal(seqs[0], r.history.visible_from_seq);
  seqs.forEach((s, i) => assert.equal(s, seqs[0]! + i, 'history seqs are gap-free'));
  assert.equal(r.context.omitted_events, 0);
}

/** The owner (and alice, a member from the start) still see the old content with the event. */
async function checkOthersSee(w: World, type: EventType, expected: string) {
  const owner = getHistory(w.t.hub, w.t.hub.ownerId, w.convId, {}, true);
  const ownerEvent = owner.events.find((e) => e.type === type);
  assert.ok(ownerEvent?.message, `the owner's ${type} carries its message`);
  assert.ok(JSON.stringify(ownerEvent).includes(expected), `the owner sees ${expected} in ${type}`);
  assert.equal(ownerEvent.before_your_history, undefined);
  const alice = await call(w.t.hub, w.alice.id, 'get_history', { conv_id: w.convId });
  const aliceEvent = (alice.events as EventView[]).find((e) => e.type === type);
  assert.ok(aliceEvent?.message && JSON.stringify(aliceEvent).includes(expected), `alice sees ${expected} in ${type}`);
}

const ACTIONS: Array<{
  name: string;
  type: EventType;
  msg: keyof World['msgs'];
  act: (w: World) => Promise<unknown> | unknown;
  ownerSees: string;
}> = [
  {
    name: 'a reaction',
    type: 'reaction.added',
    msg: 'text',
    act: (w) => react(w.t.hub, w.t.hub.ownerId, w.convId, w.msgs.text, '👍', true),
    ownerSees: `${OLD} plain text`,
  },
  {
    name: 'a pin',
    type: 'pin.added',
    msg: 'text',
    act: (w) => pin(w.t.hub, w.t.hub.ownerId, w.convId, w.msgs.text, true),
    ownerSees: `${OLD} plain text`,
  },
  {
    name: 'an edit',
    type: 'message.edited',
    msg: 'text',
    act: (w) => call(w.t.hub, w.alice.id, 'edit_message', { msg_id: w.msgs.text, text: `${OLD} edited text` }),
    ownerSees: `${OLD} edited text`,
  },
  {
    name: 'a recall',
    type: 'message.recalled',
    msg: 'recall',
    act: (w) => call(w.t.hub, w.alice.id, 'recall_message', { msg_id: w.msgs.recall }),
    ownerSees: '"recalled":true',
  },
  {
    name: 'a claim',
    type: 'claim.taken',
    msg: 'request',
    act: (w) => call(w.t.hub, w.bob.id, 'claim', { msg_id: w.msgs.request }),
    ownerSees: `${OLD} who reviews`,
  },
  {
    name: 'a card response',
    type: 'card.response',
    msg: 'card',
    act: (w) => answerCard(w.t.hub, w.t.hub.ownerId, { msg_id: w.msgs.card, block_id: 'go', value: 'yes' }),
    ownerSees: `${OLD} label`,
  },
  {
    name: 'a request decision',
    type: 'request.decided',
    msg: 'requestMsg',
    act: (w) =>
      decideRequest(w.t.hub, w.t.hub.ownerId, {
        request_id: w.requestId,
        decision: 'choose',
        choice: `${OLD}-eu`,
        comment: `${OLD} comment`,
      }),
    ownerSees: `${OLD} pick a region`,
  },
];

for (const a of ACTIONS) {
  test(`${a.name} on a message from before carol joined (history 0) brings none of its content to her, in get_updates, get_history or get_context; the owner sees it`, async () => {
    await withHub(async (t) => {
      const w = await world(t);
      // Before the action: carol sees only her own joining.
      const before = await carolReads(w);
      for (const [name, value] of Object.entries(before)) assertNoOldContent(`carol's ${name} (before)`, value);
      assert.deepEqual(
        before.history.events.map((e: EventView) => e.type),
        ['member.added'],
      );
      await a.act(w);
      await checkCarol(w, a.type, w.msgs[a.msg]);
      await checkOthersSee(w, a.type, a.ownerSees);
    });
  });
}

test("a new reply whose reply_to / thread is older than carol's join shows her only the ids; get_thread of it is not_found; its old root stays hidden", async () => {
  await withHub(async (t) => {
    const w = await world(t);
    const { hub } = w.t;
    const reply = await call(hub, w.alice.id, 'send_message', {
      conv_id: w.convId,
      text: 'a new reply',
      reply_to: w.msgs.text,
      thread_id: w.msgs.text,
    });
    const r = await carolReads(w);
    for (const [name, value] of Object.entries(r)) assertNoOldContent(`carol's ${name}`, value);
    const got = r.updates.find((e) => e.type === 'message.created');
    assert.equal(got?.message?.text, 'a new reply', 'the new reply itself is delivered');
    assert.equal(got?.message?.reply_to, w.msgs.text);
    for (const thread of [w.msgs.text, reply.msg_id]) {
      await assert.rejects(call(hub, w.carol.id, 'get_thread', { conv_id: w.convId, thread_id: thread }), (e: unknown) => {
        assert.ok(e instanceof HubError);
        assert.equal(e.code, 'not_found');
        assert.ok(!e.message.includes(OLD));
        return true;
      });
    }
    // Acting on the old message is refused as if it did not exist.
    await assert.rejects(
      call(hub, w.carol.id, 'react', { conv_id: w.convId, msg_id: w.msgs.text, key: '👀' }),
      (e: unknown) => e instanceof HubError && e.code === 'not_found',
    );
    // The owner reads the thread with its root.
    const owner = getHistory(hub, hub.ownerId, w.convId, {}, true);
    assert.ok(JSON.stringify(owner).includes(`${OLD} plain text`));
  });
});

test('a member added with history: 2 sees the content of events on those two messages, and not on older ones', async () => {
  await withHub(async (t) => {
    const w = await world(t);
    const { hub } = w.t;
    // dave sees the last two messages: the card and the request message.
    const daveId = w.t.agent('dave').id;
    await call(hub, w.alice.id, 'add_member', { conv_id: w.convId, user: 'dave', history: 2 });
    react(hub, hub.ownerId, w.convId, w.msgs.card, '👍', true);
    react(hub, hub.ownerId, w.convId, w.msgs.text, '👀', true);
    const events = await drain(hub, daveId);
    const onCard = events.find((e) => e.type === 'reaction.added' && e.message?.msg_id === w.msgs.card);
    assert.ok(onCard?.message?.text?.includes(`${OLD} card fallback`), 'a visible message comes with its content');
    assert.deepEqual(onCard!.data, { key: '👍' });
    const onOld = events.filter((e) => e.type === 'reaction.added' && e.before_your_history);
    assert.equal(onOld.length, 1);
    assert.deepEqual(onOld[0]!.data, { msg_id: w.msgs.text });
    assert.ok(!JSON.stringify(onOld).includes(OLD));
    // get_context with a summary covering part of what dave sees still joins the visible messages.
    const h = await call(hub, daveId, 'get_history', { conv_id: w.convId });
    await call(hub, daveId, 'put_summary', {
      conv_id: w.convId,
      from_seq: h.visible_from_seq,
      to_seq: h.visible_from_seq + 1,
      text: 'sum',
    });
    const ctx = await call(hub, daveId, 'get_context', { conv_id: w.convId });
    const ctxCard = (ctx.events as EventView[]).find((e) => e.type === 'reaction.added' && e.message?.msg_id === w.msgs.card);
    assert.ok(ctxCard?.message, 'get_context joins a visible message even when a summary covers it');
  });
});

test('a hand-back of a handoff from before carol joined brings her the event and the new note, not the old handoff note; alice still sees it', async () => {
  await withHub(async (t) => {
    const { hub } = t;
    const alice = t.agent('alice');
    const bob = t.agent('bob');
    const carol = t.agent('carol');
    const convId: string = (await call(hub, alice.id, 'create_group', { title: 'crew', members: ['bob'] })).conversation.conv_id;
    await call(hub, bob.id, 'handoff', { conv_id: convId, note: `${OLD} handoff note` });
    await call(hub, alice.id, 'add_member', { conv_id: convId, user: 'carol', history: 0 });
    handBack(hub, hub.ownerId, { conv_id: convId, agent: 'bob', note: 'back to you, bob' });

    const updates = await drain(hub, carol.id);
    const history = await call(hub, carol.id, 'get_history', { conv_id: convId });
    const context = await call(hub, carol.id, 'get_context', { conv_id: convId });
    for (const [name, value] of Object.entries({ updates, history, context })) assertNoOldContent(`carol's ${name}`, value);
    for (const [name, events] of [
      ['get_updates', updates],
      ['get_history', history.events],
      ['get_context', context.events],
    ] as const) {
      const e = (events as EventView[]).find((x) => x.type === 'handoff.returned');
      assert.ok(e, `${name}: handoff.returned is delivered`);
      assert.equal(e.before_your_history, true, `${name}: marked before_your_history`);
      assert.equal((e.data as Any).note, 'back to you, bob', `${name}: the hand-back's own note is hers to read`);
      assert.equal((e.data as Any).handoff_note, undefined, `${name}: the old handoff note is not`);
    }
    const aliceHistory = await call(hub, alice.id, 'get_history', { conv_id: convId });
    const aliceEvent = (aliceHistory.events as EventView[]).find((x) => x.type === 'handoff.returned');
    assert.equal((aliceEvent?.data as Any).handoff_note, `${OLD} handoff note`, 'a member from before the handoff sees its note');
  });
});
