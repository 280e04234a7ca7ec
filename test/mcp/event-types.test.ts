// Typed events (shared/api/event-log.ts): one map from event type to what its data carries, used by hub.emit and by every
// reader. The lines marked @ts-expect-error below must fail to compile (npm run typecheck checks this file: an
// expected error that does not happen is itself an error), so a misspelt or missing field, data on a type without
// data, a msgId where none belongs, an unnarrowed read and a wrong live-stream value cannot compile. At run time: the
// map has an entry for every event type, and a real `perch serve` driven through every kind of event writes each
// one's data with only the fields the map lists (and a msg_id exactly for the types about one message).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { openDatabase } from '../../src/main/store/db/db';
import type { PerchHub } from '../../src/main/hub/services';
import { EVENT_TYPES, type EventType } from '../../src/shared/types';
import { EVENT_DATA, type EventView, type LiveItem } from '../../src/shared/api/event-log';
import { eventually, ownerOk, useSharedServe, type AgentClient } from '../support/serve-harness';

type R = Record<string, any>;

/** Never called: it only has to compile (with the expected errors where marked). */
export function emitIsTypedByEventType(
  hub: PerchHub,
  convId: string,
  msgId: string,
  ref: { id: string; name: string; kind: 'agent' },
): void {
  hub.emit(convId, 'request.decided', ref.id, { msgId, data: { request_id: 'q_1', state: 'approved', outcome: { decision: 'approve' } } });
  // @ts-expect-error a misspelt field of request.decided
  hub.emit(convId, 'request.decided', ref.id, { msgId, data: { requst_id: 'q_1', state: 'approved', outcome: { decision: 'approve' } } });
  // @ts-expect-error a field of request.decided left out (outcome)
  hub.emit(convId, 'request.decided', ref.id, { msgId, data: { request_id: 'q_1', state: 'approved' } });
  // @ts-expect-error a state a decision never leaves a request in
  hub.emit(convId, 'request.decided', ref.id, { msgId, data: { request_id: 'q_1', state: 'pending', outcome: { decision: 'approve' } } });
  hub.emit(convId, 'held.created', ref.id, { data: { held_id: 'h_1', kind: 'message', conv_id: convId } });
  // @ts-expect-error held_id misspelt
  hub.emit(convId, 'held.created', ref.id, { data: { heldId: 'h_1', kind: 'message', conv_id: convId } });
  // @ts-expect-error a kind of held item that does not exist
  hub.emit(convId, 'held.created', ref.id, { data: { held_id: 'h_1', kind: 'mesage', conv_id: convId } });
  // @ts-expect-error handoff_id is a number
  hub.emit(convId, 'handoff.created', ref.id, { data: { handoff_id: 'x', agent: ref, to: ref, note: '' } });
  hub.emit(convId, 'floor.released', null, { data: { reason: 'expired', holder: ref, until: null } });
  // @ts-expect-error a floor released by someone names who (by)
  hub.emit(convId, 'floor.released', ref.id, { data: { reason: 'released', holder: ref } });
  hub.emit(convId, 'message.created', ref.id, { msgId });
  // @ts-expect-error message.created carries no data
  hub.emit(convId, 'message.created', ref.id, { msgId, data: { text: 'hi' } });
  // @ts-expect-error an event about a message names it (msgId)
  hub.emit(convId, 'reaction.added', ref.id, { data: { key: '👍' } });
  // @ts-expect-error an event about no message takes no msgId
  hub.emit(convId, 'owner.note', ref.id, { msgId, data: { text: 'hi', about_conv_id: null } });
  // @ts-expect-error not an event type
  hub.emit(convId, 'request.decide', ref.id, { msgId, data: { request_id: 'q_1' } });
}

/** Never called: readers narrow on type and read typed fields. */
export function readersAreTypedByEventType(ev: EventView): unknown[] {
  const out: unknown[] = [];
  if (ev.type === 'held.sent') {
    out.push(ev.data.held_id, ev.data.owner_edited);
    // @ts-expect-error held_id misspelt in a reader
    out.push(ev.data.held_idd);
  }
  if (ev.type === 'task.updated') {
    out.push(ev.data.previous_state, ev.data.assignee?.name);
    // @ts-expect-error task.updated has no field assignee_name
    out.push(ev.data.assignee_name);
  }
  if (ev.type === 'reaction.added') {
    // @ts-expect-error from before your history, an event about a message carries only its msg_id
    out.push(ev.data.key);
    if (!ev.before_your_history) out.push(ev.data.key);
    else out.push(ev.data.msg_id);
  }
  if (ev.type === 'floor.released') {
    // @ts-expect-error an expired floor names nobody who released it
    out.push(ev.data.by.name);
    if (ev.data.reason !== 'expired') out.push(ev.data.by.name);
  }
  // @ts-expect-error data is read after narrowing on type
  out.push(ev.data.held_id);
  return out;
}

/** Never called: the owner's live stream items are typed too. */
export function liveItemsAreTyped(hub: PerchHub, item: LiveItem): unknown[] {
  hub.bus.publish({ kind: 'hub', value: { reads: ['c_1'] } });
  // @ts-expect-error not a hub status value
  hub.bus.publish({ kind: 'hub', value: { fleeet: null } });
  // @ts-expect-error storage is a StorageStatus
  hub.bus.publish({ kind: 'hub', value: { storage: { state: 'fine' } } });
  const out: unknown[] = [];
  if (item.kind === 'hub') {
    out.push(item.value.wake_run?.status, item.value.budget_paused?.cap, item.value.fleet?.agents);
    // @ts-expect-error wake_run has no field state
    out.push(item.value.wake_run?.state);
  }
  return out;
}

test('the event map has an entry for every event type, and none for a type that does not exist', () => {
  assert.deepEqual(Object.keys(EVENT_DATA).sort(), [...EVENT_TYPES].sort());
  for (const [type, spec] of Object.entries(EVENT_DATA)) {
    assert.equal(typeof spec.message, 'boolean', type);
    assert.equal(new Set(spec.fields).size, spec.fields.length, `${type}: a field listed twice`);
  }
});

const served = useSharedServe({ args: ['--rate', '0'] });

/** Reads and confirms everything pending for the agent. */
async function drain(c: AgentClient): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const r = await c.ok('get_updates', { limit: 500 });
    if (r.events.length === 0) return;
  }
  throw new Error('get_updates never ran dry');
}

function storedEvents(): Array<{ type: string; msg_id: string | null; data: string | null }> {
  const db = openDatabase(path.join(served.dataDir, 'perch.sqlite'), { readonly: true });
  try {
    return db.prepare('SELECT type, msg_id, data FROM events ORDER BY gid').all() as Array<{
      type: string;
      msg_id: string | null;
      data: string | null;
    }>;
  } finally {
    db.close();
  }
}

test("a hub driven through every kind of event writes each one's data with the fields the event map lists", async () => {
  const [a, b, c, d] = await Promise.all([served.agent('ev-a'), served.agent('ev-b'), served.agent('ev-c'), served.agent('ev-d')]);
  // conversation.created, member.added; messages, reactions, pins, claims
  const g = (await a.ok('create_group', { title: 'events', members: [b.agent.name] })).conversation.conv_id as string;
  await a.ok('add_member', { conv_id: g, user: c.agent.name });
  const hello = await a.ok('send_message', { conv_id: g, text: 'Who reviews PR 7?', intent: 'request' });
  await a.ok('edit_message', { msg_id: hello.msg_id, text: 'Who reviews PR 7 today?' });
  const gone = await a.ok('send_message', { conv_id: g, text: 'never mind this' });
  await a.ok('recall_message', { msg_id: gone.msg_id });
  await b.ok('react', { conv_id: g, msg_id: hello.msg_id, key: '👍' });
  await b.ok('unreact', { conv_id: g, msg_id: hello.msg_id, key: '👍' });
  await ownerOk(served, 'messages.pin', { conv_id: g, msg_id: hello.msg_id, on: true });
  await ownerOk(served, 'messages.pin', { conv_id: g, msg_id: hello.msg_id, on: false });
  await b.ok('claim', { msg_id: hello.msg_id });
  await b.ok('release_claim', { msg_id: hello.msg_id });
  // requests: decided, cancelled, expired (ttl 1 s: its timer expires it)
  const decided = await a.ok('request_human', { conv_id: g, kind: 'approve', title: 'Ship it?' });
  await ownerOk(served, 'requests.decide', { request_id: decided.request_id, decision: 'approve', comment: 'yes' });
  const cancelled = await a.ok('request_human', { conv_id: g, kind: 'answer', title: 'Which day?' });
  await a.ok('cancel_request', { request_id: cancelled.request_id });
  const expiring = await a.ok('request_human', { conv_id: g, kind: 'choose', title: 'Which one?', options: ['x', 'y'], ttl_secs: 1 });
  // a card answered by the owner
  const card = await a.ok('send_card', {
    conv_id: g,
    text: 'Go?',
    card: { blocks: [{ type: 'buttons', id: 'go', options: [{ id: 'yes', label: 'Yes' }] }] },
  });
  await ownerOk(served, 'cards.answer', { msg_id: card.msg_id, block_id: 'go', value: 'yes' });
  // a task moved
  const task = (await a.ok('create_task', { title: 'Write notes', members: [b.agent.name], assignee: b.agent.name })).conversation
    .conv_id as string;
  await b.ok('update_task', { conv_id: task, state: 'working', note: 'on it' });
  // the floor: granted, replaced, released, expired (ttl 1 s)
  await a.ok('floor_grant', { conv_id: g, agent: b.agent.name });
  await a.ok('floor_grant', { conv_id: g, agent: c.agent.name });
  await a.ok('floor_release', { conv_id: g });
  await a.ok('floor_grant', { conv_id: g, agent: b.agent.name, ttl_secs: 1 });
  // a handoff to the owner and back
  const h = await c.ok('create_group', { title: 'handing', members: [a.agent.name] });
  await c.ok('handoff', { conv_id: h.conversation.conv_id, note: 'Your call.' });
  await ownerOk(served, 'handoffs.hand_back', { conv_id: h.conversation.conv_id, note: 'Go with B.' });
  // the agent's notes channel: config, a note, review mode, pause
  await ownerOk(served, 'agents.update_config', { agent: d.agent.name, description: 'writes notes' });
  await ownerOk(served, 'notes.send', { agent: d.agent.name, text: 'Mind the tone.', conv_id: g });
  const dg = (await d.ok('create_group', { title: 'reviewed', members: [a.agent.name] })).conversation.conv_id as string;
  await ownerOk(served, 'agents.set_review', { agent: d.agent.name, on: true });
  const kept = await d.ok('send_message', { conv_id: dg, text: 'draft one' });
  await ownerOk(served, 'held.send', { held_id: kept.held_id, text: 'draft one, edited' });
  const dropped = await d.ok('send_message', { conv_id: dg, text: 'draft two' });
  await ownerOk(served, 'held.discard', { held_id: dropped.held_id });
  await ownerOk(served, 'agents.pause', { agent: d.agent.name, reason: 'lunch' });
  await ownerOk(served, 'agents.resume', { agent: d.agent.name });
  // the loop brake: two agents trade 30 turns with no person; the owner resumes the conversation
  const loop = (await a.ok('create_group', { title: 'loop', members: [b.agent.name] })).conversation.conv_id as string;
  for (let i = 0; i < 30; i++) await (i % 2 ? b : a).ok('send_message', { conv_id: loop, text: `turn ${i}` });
  await ownerOk(served, 'conversations.resume', { conv_id: loop });
  // archived conversations (hub/talk/archive.ts): the owner archives the loop group, then writing in it brings it back
  await ownerOk(served, 'conversations.archive', { conv_id: loop });
  await ownerOk(served, 'messages.send', { conv_id: loop, text: 'one more word here' });
  await eventually(
    () => {
      const rows = storedEvents();
      return (
        rows.some((e) => e.type === 'request.expired') && rows.some((e) => e.type === 'floor.released' && !!e.data?.includes('"expired"'))
      );
    },
    10_000,
    'the request and the floor to expire',
  );
  assert.equal((await a.ok('get_request', { request_id: expiring.request_id })).state, 'expired');
  await Promise.all([a, b, c, d].map(drain));

  const rows = storedEvents();
  const missing = EVENT_TYPES.filter((t) => !rows.some((r) => r.type === t));
  assert.deepEqual(missing, [], 'the scenario writes every event type');
  for (const r of rows) {
    const spec = EVENT_DATA[r.type as EventType];
    assert.ok(spec, `${r.type} is in the event map`);
    assert.equal(r.msg_id !== null, spec.message, `${r.type}: a msg_id exactly when the type is about one message`);
    if (spec.fields.length === 0) {
      assert.equal(r.data, null, `${r.type} carries no data`);
      continue;
    }
    assert.ok(r.data, `${r.type} carries data`);
    const data = JSON.parse(r.data) as R;
    const unlisted = Object.keys(data).filter((k) => !(spec.fields as readonly string[]).includes(k));
    assert.deepEqual(unlisted, [], `${r.type}: fields the event map does not list (${r.data})`);
  }
});
