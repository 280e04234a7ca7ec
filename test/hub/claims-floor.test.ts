// Claims on requests (first claim wins) and the floor (one agent speaks; it expires).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withHub, callTool as call, drain } from '../support/helpers';
import { ownerFloor, expireFloors, startFloorExpiry } from '../../src/main/hub/features/coordination/floor';
import { getHistory } from '../../src/main/hub/talk/messages';
import type { PerchHub } from '../../src/main/hub/services';
import { findAgent } from '../../src/main/hub/identity/identities';
import { addAgent } from '../../src/main/hub/control/agents';
import { conversationById } from '../../src/main/store/tables/talk/conversations';
import type { EventView } from '../../src/shared/api/event-log';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** A group of lead (its admin), b and c. */
async function group(hub: PerchHub, lead: { id: string }): Promise<string> {
  const g = await call(hub, lead.id, 'create_group', { title: 'crew', members: ['b', 'c'] });
  return g.conversation.conv_id;
}

// ---- claims ---------------------------------------------------------------------------------

test('two agents racing to claim one request: exactly one wins, the other gets a conflict naming the holder', async () => {
  await withHub(async (t) => {
    const { hub } = t;
    const lead = t.agent('lead');
    const b = t.agent('b');
    const c = t.agent('c');
    const convId = await group(hub, lead);
    const req = await call(hub, lead.id, 'send_message', { conv_id: convId, text: 'Who can review PR 12?', intent: 'request' });
    await drain(hub, lead.id);

    const results = await Promise.allSettled([
      call(hub, b.id, 'claim', { msg_id: req.msg_id }),
      call(hub, c.id, 'claim', { msg_id: req.msg_id }),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled') as PromiseFulfilledResult<Any>[];
    const lost = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    assert.equal(won.length, 1);
    assert.equal(lost.length, 1);
    const winner = won[0]!.value.claimed_by.name as string;
    assert.ok(winner === 'b' || winner === 'c');
    assert.equal(won[0]!.value.changed, true);
    const err = lost[0]!.reason;
    assert.equal(err.code, 'conflict');
    assert.equal(err.details.claimed_by, winner);
    assert.match(err.message, new RegExp(`claimed by ${winner}`));

    // The message shows its holder; the sender was woken by claim.taken.
    const hist = getHistory(hub, lead.id, convId, {});
    const msg = hist.events.find((e) => e.type === 'message.created' && e.message?.msg_id === req.msg_id)!;
    assert.equal(msg.message!.claimed_by!.name, winner);
    const evs = await drain(hub, lead.id);
    const taken = evs.filter((e) => e.type === 'claim.taken');
    assert.equal(taken.length, 1);
    const claimed = taken[0]!;
    assert.equal(claimed.for_you, true);
    assert.ok(!claimed.before_your_history);
    assert.equal(claimed.data.by.name, winner);
  });
});

test('claims: only requests; re-claiming is a no-op; release by the holder or a manager only', async () => {
  await withHub(async (t) => {
    const { hub } = t;
    const lead = t.agent('lead');
    const b = t.agent('b');
    const c = t.agent('c');
    t.agent('d');
    const convId = await group(hub, lead);
    const plain = await call(hub, lead.id, 'send_message', { conv_id: convId, text: 'FYI', intent: 'status' });
    await assert.rejects(call(hub, b.id, 'claim', { msg_id: plain.msg_id }), { code: 'invalid_argument' });
    const req = await call(hub, lead.id, 'send_message', { conv_id: convId, text: 'Deploy please', intent: 'request' });
    const d = hub.user((await call(hub, lead.id, 'find_user', { name: 'd' })).user.id);
    await assert.rejects(call(hub, d.id, 'claim', { msg_id: req.msg_id }), { code: 'not_found' });

    const first = await call(hub, b.id, 'claim', { msg_id: req.msg_id });
    assert.equal(first.changed, true);
    const again = await call(hub, b.id, 'claim', { msg_id: req.msg_id });
    assert.equal(again.changed, false);
    assert.equal(again.claimed_by.name, 'b');

    await assert.rejects(call(hub, c.id, 'release_claim', { msg_id: req.msg_id }), { code: 'forbidden' });
    const rel = await call(hub, b.id, 'release_claim', { msg_id: req.msg_id });
    assert.equal(rel.changed, true);
    assert.equal(rel.claimed_by, null);
    const cl = await call(hub, c.id, 'claim', { msg_id: req.msg_id });
    assert.equal(cl.claimed_by.name, 'c');
    // The group's admin may release somebody else's claim.
    const byManager = await call(hub, lead.id, 'release_claim', { msg_id: req.msg_id });
    assert.equal(byManager.changed, true);
    const evs = (await drain(hub, c.id)).filter((e) => e.type === 'claim.released');
    const last = evs[evs.length - 1]!;
    assert.ok(!last.before_your_history);
    assert.equal(last.data.holder.name, 'c');
    assert.equal(last.data.by.name, 'lead');
    assert.equal(last.for_you, true);
  });
});

// ---- floor ----------------------------------------------------------------------------------

test('the floor silences other agents, wakes its holder, replaces a previous holder and is released', async () => {
  await withHub(async (t) => {
    const { hub } = t;
    const lead = t.agent('lead');
    const b = t.agent('b');
    const c = t.agent('c');
    const convId = await group(hub, lead);
    await drain(hub, b.id);

    const w = call(hub, b.id, 'get_updates', { wait_secs: 5 });
    const g = await call(hub, lead.id, 'floor_grant', { conv_id: convId, agent: 'b', ttl_secs: 60 });
    assert.equal(g.holder.name, 'b');
    assert.equal(g.replaced, null);
    const got = await w;
    assert.equal(got.woken, true);
    assert.equal(got.events.find((e: EventView) => e.type === 'floor.granted').for_you, true);

    await assert.rejects(call(hub, c.id, 'send_message', { conv_id: convId, text: 'me!' }), (e: Any) => {
      assert.equal(e.code, 'silenced');
      assert.equal(e.details.floor_holder, 'b');
      return true;
    });
    await call(hub, b.id, 'send_message', { conv_id: convId, text: 'my turn' });

    // Only managers grant; only the holder or a manager releases.
    await assert.rejects(call(hub, c.id, 'floor_grant', { conv_id: convId, agent: 'c' }), { code: 'forbidden' });
    await assert.rejects(call(hub, c.id, 'floor_release', { conv_id: convId }), { code: 'forbidden' });
    await assert.rejects(call(hub, lead.id, 'floor_grant', { conv_id: convId, agent: 'owner' }), { code: 'invalid_argument' });

    // Granting to c replaces b: floor.released (replaced) first, then floor.granted.
    const g2 = await call(hub, lead.id, 'floor_grant', { conv_id: convId, agent: 'c' });
    assert.equal(g2.replaced.name, 'b');
    assert.equal(g2.ttl_secs, 300);
    const hist = getHistory(hub, hub.ownerId, convId, {}).events;
    const tail = hist.slice(-2);
    assert.equal(tail[0]!.type, 'floor.released');
    assert.equal(tail[0]!.data!.reason, 'replaced');
    assert.equal(tail[1]!.type, 'floor.granted');
    assert.equal((tail[1]!.data!.replaced as Any).name, 'b');
    await assert.rejects(call(hub, b.id, 'send_message', { conv_id: convId, text: 'still me?' }), { code: 'silenced' });

    // The holder ends its turn; the granter is woken; everyone may speak again.
    const r = await call(hub, c.id, 'floor_release', { conv_id: convId });
    assert.equal(r.released.name, 'c');
    const leadEvents = await drain(hub, lead.id);
    const released = leadEvents.filter((e) => e.type === 'floor.released').pop()!;
    assert.equal(released.for_you, true);
    await call(hub, b.id, 'send_message', { conv_id: convId, text: 'free again' });
    const none = await call(hub, c.id, 'floor_release', { conv_id: convId });
    assert.equal(none.changed, false);

    // Owner side.
    const og = ownerFloor(hub, hub.ownerId, { conv_id: convId, agent: 'c', ttl_secs: 30 }) as Any;
    assert.equal(og.holder.name, 'c');
    await assert.rejects(call(hub, b.id, 'send_message', { conv_id: convId, text: 'x' }), { code: 'silenced' });
    const or = ownerFloor(hub, hub.ownerId, { conv_id: convId, release: true }) as Any;
    assert.equal(or.released.name, 'c');
    assert.throws(() => ownerFloor(hub, b.id, { conv_id: convId, release: true }), { code: 'forbidden' });
  });
});

test('an expired floor silences nobody and is cleared lazily', async () => {
  let clock = 1_700_000_000_000;
  await withHub({ now: () => clock }, async ({ hub }) => {
    const lead = addAgent(hub, { name: 'lead' }).agent;
    const b = addAgent(hub, { name: 'b' }).agent;
    const c = addAgent(hub, { name: 'c' }).agent;
    const convId = await group(hub, lead);

    await call(hub, lead.id, 'floor_grant', { conv_id: convId, agent: 'b', ttl_secs: 5 });
    await assert.rejects(call(hub, c.id, 'send_message', { conv_id: convId, text: 'now?' }), { code: 'silenced' });
    clock += 4_999;
    await assert.rejects(call(hub, c.id, 'send_message', { conv_id: convId, text: 'now?' }), { code: 'silenced' });
    clock += 2;
    await call(hub, c.id, 'send_message', { conv_id: convId, text: 'expired, my turn' });
    const list = await call(hub, c.id, 'list_conversations', {});
    assert.equal(list.conversations.find((x: Any) => x.conv_id === convId).floor, undefined);

    // Still recorded until the next grant/release there clears it with floor.released (expired).
    assert.equal(conversationById(hub.db, convId)!.floor_holder, b.id);
    const r = await call(hub, c.id, 'floor_release', { conv_id: convId });
    assert.equal(r.changed, false);
    assert.equal(conversationById(hub.db, convId)!.floor_holder, null);
    const last = getHistory(hub, hub.ownerId, convId, {}).events.pop()!;
    assert.equal(last.type, 'floor.released');
    assert.equal(last.data!.reason, 'expired');

    // A grant after expiry does not count the old holder as replaced; the sweep clears the rest.
    await call(hub, lead.id, 'floor_grant', { conv_id: convId, agent: 'c', ttl_secs: 1 });
    clock += 1_000;
    const g = await call(hub, lead.id, 'floor_grant', { conv_id: convId, agent: 'b', ttl_secs: 1 });
    assert.equal(g.replaced, null);
    clock += 1_000;
    assert.equal(expireFloors(hub), 1);
    assert.equal(conversationById(hub.db, convId)!.floor_holder, null);
    assert.equal(expireFloors(hub), 0);
  });
});

test('on a running hub the floor runs out on time with nobody calling: floor.released (expired) wakes the grantor', async () => {
  await withHub(async (t) => {
    const { hub } = t;
    startFloorExpiry(hub);
    const lead = t.agent('lead');
    t.agent('b');
    t.agent('c');
    const convId = await group(hub, lead);
    const b = listAgentsByName(hub, 'b');
    await call(hub, lead.id, 'floor_grant', { conv_id: convId, agent: 'b', ttl_secs: 1 });
    await drain(hub, lead.id);
    const started = Date.now();
    const r = await call(hub, lead.id, 'get_updates', { wait_secs: 5 });
    const waited = Date.now() - started;
    const released = r.events.find((e: EventView) => e.type === 'floor.released');
    assert.ok(released, 'a floor.released event arrives');
    assert.equal(released.data.reason, 'expired');
    assert.equal(released.data.holder.id, b);
    assert.equal(r.woken, true, 'the grantor is woken by the expiry');
    assert.ok(waited < 3000, `released about when it ran out (waited ${waited} ms)`);
    assert.equal(conversationById(hub.db, convId)!.floor_holder, null);
  });
});

function listAgentsByName(hub: PerchHub, name: string): string {
  return findAgent(hub, name).id;
}
