// Asking the owner: request_human, get_request, cancel_request, and the owner's decideRequest / listRequests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withHub, type TestHub } from '../support/helpers';
import { callAgentTool } from '../../src/main/hub/tools/tools';
import { TOOL_BY_NAME, type ToolName } from '../../src/shared/api/catalog';
import { HubError, type ErrorCode } from '../../src/shared/errors';
import { LIMITS } from '../../src/shared/limits';
import { decideRequest, listRequests, getRequestForOwner } from '../../src/main/hub/features/requests/owner-decisions';
import { startRequestExpiry } from '../../src/main/hub/features/requests/request-expiry';
import { getHistory } from '../../src/main/hub/talk/messages';
import { getUpdates } from '../../src/main/hub/talk/delivery';
import { requestById } from '../../src/main/store/tables/talk/requests';
import { messageById, setMessagePayload } from '../../src/main/store/tables/talk/messages';
import { conversationById } from '../../src/main/store/tables/talk/conversations';
import type { EventView } from '../../src/shared/api/event-log';

type R = Record<string, any>;

function call(t: TestHub, agentId: string, name: ToolName, args: Record<string, unknown>): Promise<R> {
  return callAgentTool(t.hub, agentId, name, TOOL_BY_NAME.get(name)!.input.parse(args)) as Promise<R>;
}

function isCode(code: ErrorCode, text?: RegExp) {
  return (e: unknown) => {
    assert.ok(e instanceof HubError, `expected a HubError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (text) assert.match(e.message, text);
    return true;
  };
}

async function setup(t: TestHub) {
  const a = t.agent('worker');
  const dm = await call(t, a.id, 'open_direct', { user: t.hub.owner.name });
  return { a, convId: dm.conversation.conv_id as string };
}

function requestMessage(t: TestHub, convId: string, msgId: string) {
  const h = getHistory(t.hub, t.hub.ownerId, convId, {}, true);
  const ev = h.events.find((e) => e.type === 'message.created' && e.message?.msg_id === msgId);
  assert.ok(ev?.message, 'the request is a message of the conversation');
  return ev.message;
}

async function drain(t: TestHub, agentId: string): Promise<EventView[]> {
  return (await getUpdates(t.hub, agentId, {})).events;
}

test('approved: the request is a message with payload, the owner approves, get_request and get_updates show it', async () => {
  await withHub(async (t) => {
    const { a, convId } = await setup(t);
    const r = await call(t, a.id, 'request_human', {
      conv_id: convId,
      kind: 'approve',
      title: 'Delete the staging database?',
      context: { db: 'staging' },
    });
    assert.equal(r.state, 'pending');
    assert.deepEqual(r.assignees, [t.hub.owner.name]);
    assert.ok(r.expires_at > Date.now() + (LIMITS.requestDefaultTtlSecs - 5) * 1000, 'default ttl is one day');
    const msg = requestMessage(t, convId, r.msg_id);
    assert.equal(msg.kind, 'request');
    assert.equal(msg.payload!.request_id, r.request_id);
    assert.equal(msg.payload!.state, 'pending');
    assert.equal(msg.payload!.kind, 'approve');
    assert.deepEqual(msg.payload!.context, { db: 'staging' });
    assert.equal(msg.payload!.expires_at, r.expires_at);

    await drain(t, a.id);
    const decided = decideRequest(t.hub, t.hub.ownerId, { request_id: r.request_id, decision: 'approve', comment: 'go ahead' });
    assert.equal(decided.state, 'approved');

    const g = await call(t, a.id, 'get_request', { request_id: r.request_id });
    assert.equal(g.state, 'approved');
    assert.deepEqual(g.outcome, { decision: 'approve', comment: 'go ahead' });
    assert.equal(g.decided_by, t.hub.owner.name);
    assert.equal(requestMessage(t, convId, r.msg_id).payload!.state, 'approved');

    const ev = (await drain(t, a.id)).find((e) => e.type === 'request.decided');
    assert.ok(ev, 'request.decided reaches the requester');
    assert.equal(ev.for_you, true);
    assert.deepEqual(ev.data, { request_id: r.request_id, state: 'approved', outcome: { decision: 'approve', comment: 'go ahead' } });
  });
});

test('rejected: an approve request can be rejected', async () => {
  await withHub(async (t) => {
    const { a, convId } = await setup(t);
    const r = await call(t, a.id, 'request_human', { conv_id: convId, kind: 'approve', title: 'Push to main?' });
    decideRequest(t.hub, t.hub.ownerId, { request_id: r.request_id, decision: 'reject', comment: 'not today' });
    const g = await call(t, a.id, 'get_request', { request_id: r.request_id });
    assert.equal(g.state, 'rejected');
    assert.deepEqual(g.outcome, { decision: 'reject', comment: 'not today' });
  });
});

test('answered: an answer request takes answer text, and only answer or reject', async () => {
  await withHub(async (t) => {
    const { a, convId } = await setup(t);
    const r = await call(t, a.id, 'request_human', { conv_id: convId, kind: 'answer', title: 'Which branch should I use?' });
    assert.throws(
      () => decideRequest(t.hub, t.hub.ownerId, { request_id: r.request_id, decision: 'approve' }),
      isCode('invalid_argument', /decision/),
    );
    assert.throws(
      () => decideRequest(t.hub, t.hub.ownerId, { request_id: r.request_id, decision: 'answer' }),
      isCode('invalid_argument', /^answer:/),
    );
    decideRequest(t.hub, t.hub.ownerId, { request_id: r.request_id, decision: 'answer', answer: 'release/2.1' });
    const g = await call(t, a.id, 'get_request', { request_id: r.request_id });
    assert.equal(g.state, 'answered');
    assert.equal(g.outcome.answer, 'release/2.1');
  });
});

test('chosen: choose needs 2+ options and the choice must be one of them', async () => {
  await withHub(async (t) => {
    const { a, convId } = await setup(t);
    await assert.rejects(
      call(t, a.id, 'request_human', { conv_id: convId, kind: 'choose', title: 'Pick', options: ['only'] }),
      isCode('invalid_argument', /at least 2/),
    );
    await assert.rejects(
      call(t, a.id, 'request_human', { conv_id: convId, kind: 'choose', title: 'Pick', options: ['a', 'a'] }),
      isCode('invalid_argument', /twice/),
    );
    await assert.rejects(
      call(t, a.id, 'request_human', { conv_id: convId, kind: 'approve', title: 'Ok?', options: ['a', 'b'] }),
      isCode('invalid_argument', /only kind=choose/),
    );
    const r = await call(t, a.id, 'request_human', {
      conv_id: convId,
      kind: 'choose',
      title: 'Which region?',
      options: ['eu-west', 'us-east'],
    });
    assert.deepEqual(requestMessage(t, convId, r.msg_id).payload!.options, ['eu-west', 'us-east']);
    assert.throws(
      () => decideRequest(t.hub, t.hub.ownerId, { request_id: r.request_id, decision: 'choose', choice: 'ap-south' }),
      isCode('invalid_argument', /^choice: must be one of/),
    );
    assert.throws(
      () => decideRequest(t.hub, t.hub.ownerId, { request_id: r.request_id, decision: 'answer', answer: 'x' }),
      isCode('invalid_argument'),
    );
    decideRequest(t.hub, t.hub.ownerId, { request_id: r.request_id, decision: 'choose', choice: 'us-east' });
    const g = await call(t, a.id, 'get_request', { request_id: r.request_id });
    assert.equal(g.state, 'chosen');
    assert.equal(g.outcome.choice, 'us-east');
  });
});

test('expired: ttl_secs 1 — a waiting get_request comes back expired on time, and deciding afterwards is refused', async () => {
  await withHub(async (t) => {
    const { a, convId } = await setup(t);
    const r = await call(t, a.id, 'request_human', { conv_id: convId, kind: 'approve', title: 'Quick one?', ttl_secs: 1 });
    const started = performance.now();
    const g = await call(t, a.id, 'get_request', { request_id: r.request_id, wait_secs: 5 });
    const took = performance.now() - started;
    assert.equal(g.state, 'expired');
    assert.ok(took >= 900 && took < 2000, `returned at expiry, after ${took.toFixed(0)} ms`);
    assert.throws(() => decideRequest(t.hub, t.hub.ownerId, { request_id: r.request_id, decision: 'approve' }), isCode('expired'));
    assert.equal(requestMessage(t, convId, r.msg_id).payload!.state, 'expired');
  });
});

test('expired: the timer expires a request on time while nobody calls, waking the requester', async () => {
  await withHub(async (t) => {
    const { a, convId } = await setup(t);
    startRequestExpiry(t.hub);
    const r = await call(t, a.id, 'request_human', { conv_id: convId, kind: 'approve', title: 'Anyone?', ttl_secs: 1 });
    await drain(t, a.id);
    // The requester waits in get_updates: the expiry must wake it without any read of the request.
    const started = performance.now();
    const u = await getUpdates(t.hub, a.id, { wait_secs: 5 });
    const took = performance.now() - started;
    assert.ok(u.woken, 'woken by the expiry');
    assert.ok(took < 2000, `woken after ${took.toFixed(0)} ms`);
    const ev = u.events.find((e) => e.type === 'request.expired');
    assert.ok(ev, 'request.expired is in get_updates');
    assert.equal(ev.for_you, true);
    assert.ok(!ev.before_your_history);
    assert.equal(ev.data.request_id, r.request_id);
    // Read straight from the store: the state was changed by the timer, not by a lazy read.
    assert.equal(requestById(t.hub.db, r.request_id)!.state, 'expired');
  });
});

test('cancelled: only the requester, only while pending', async () => {
  await withHub(async (t) => {
    const { a, convId } = await setup(t);
    const other = t.agent('other');
    const r = await call(t, a.id, 'request_human', { conv_id: convId, kind: 'approve', title: 'Deploy?' });
    await assert.rejects(call(t, other.id, 'cancel_request', { request_id: r.request_id }), isCode('not_found'));
    await assert.rejects(call(t, other.id, 'get_request', { request_id: r.request_id }), isCode('not_found'));
    const c = await call(t, a.id, 'cancel_request', { request_id: r.request_id });
    assert.equal(c.state, 'cancelled');
    assert.equal((await call(t, a.id, 'get_request', { request_id: r.request_id })).state, 'cancelled');
    assert.equal(requestMessage(t, convId, r.msg_id).payload!.state, 'cancelled');
    await assert.rejects(call(t, a.id, 'cancel_request', { request_id: r.request_id }), isCode('conflict', /cancelled/));
    assert.throws(
      () => decideRequest(t.hub, t.hub.ownerId, { request_id: r.request_id, decision: 'approve' }),
      isCode('conflict', /cancelled/),
    );

    const d = await call(t, a.id, 'request_human', { conv_id: convId, kind: 'approve', title: 'Deploy again?' });
    decideRequest(t.hub, t.hub.ownerId, { request_id: d.request_id, decision: 'approve' });
    await assert.rejects(call(t, a.id, 'cancel_request', { request_id: d.request_id }), isCode('conflict', /already decided/));
  });
});

test('get_request(wait_secs) returns soon after the decision, and another wake does not end the wait', async () => {
  await withHub(async (t) => {
    const { a, convId } = await setup(t);
    const b = t.agent('chatty');
    const group = await call(t, b.id, 'create_group', { title: 'noise', members: ['worker'] });
    const r = await call(t, a.id, 'request_human', { conv_id: convId, kind: 'approve', title: 'Spend $20?' });
    let decidedAt = 0;
    // A message naming the requester wakes it for another reason first; the request stays pending.
    setTimeout(() => void call(t, b.id, 'send_message', { conv_id: group.conversation.conv_id, text: 'hey worker', to: ['worker'] }), 30);
    let waitingAfterWake = -1;
    setTimeout(() => {
      waitingAfterWake = t.hub.bus.waitingCount(a.id);
    }, 100);
    setTimeout(() => {
      decideRequest(t.hub, t.hub.ownerId, { request_id: r.request_id, decision: 'approve' });
      decidedAt = performance.now();
    }, 200);
    const started = performance.now();
    const g = await call(t, a.id, 'get_request', { request_id: r.request_id, wait_secs: 10 });
    const done = performance.now();
    assert.equal(g.state, 'approved', 'the wait lasted through the unrelated wake');
    assert.ok(decidedAt > 0 && done - started >= 190, 'did not return on the unrelated wake');
    assert.ok(done - decidedAt < 100, `returned ${(done - decidedAt).toFixed(1)} ms after the decision`);
    assert.equal(waitingAfterWake, 1, 'still waiting after the unrelated wake');
    const hey = (await drain(t, a.id)).find((e) => e.type === 'message.created' && e.message?.text === 'hey worker');
    assert.equal(hey?.for_you, true, 'the unrelated message did wake the requester');
  });
});

test('get_request(wait_secs) on a pending request returns pending when the wait ends', async () => {
  await withHub(async (t) => {
    const { a, convId } = await setup(t);
    const r = await call(t, a.id, 'request_human', { conv_id: convId, kind: 'approve', title: 'Later?' });
    const started = performance.now();
    const g = await call(t, a.id, 'get_request', { request_id: r.request_id, wait_secs: 1 });
    const took = performance.now() - started;
    assert.equal(g.state, 'pending');
    assert.ok(took >= 950 && took < 1500, `waited ${took.toFixed(0)} ms`);
  });
});

test('an agent can never decide, nor be an assignee', async () => {
  await withHub(async (t) => {
    const { a } = await setup(t);
    const b = t.agent('helper');
    const group = await call(t, a.id, 'create_group', { title: 'work', members: ['helper'] });
    const convId = group.conversation.conv_id;
    await assert.rejects(
      call(t, a.id, 'request_human', { conv_id: convId, kind: 'approve', title: 'Ok?', assignees: ['helper'] }),
      isCode('invalid_argument', /agent/),
    );
    await assert.rejects(
      call(t, a.id, 'request_human', { conv_id: convId, kind: 'approve', title: 'Ok?', assignees: ['nobody'] }),
      isCode('invalid_argument', /not a member/),
    );
    const r = await call(t, a.id, 'request_human', { conv_id: convId, kind: 'approve', title: 'Ok?', assignees: [t.hub.owner.name] });
    assert.throws(
      () => decideRequest(t.hub, b.id, { request_id: r.request_id, decision: 'approve' }),
      isCode('forbidden', /agent can never decide/),
    );
    assert.throws(() => decideRequest(t.hub, a.id, { request_id: r.request_id, decision: 'approve' }), isCode('forbidden'));
    assert.equal(getRequestForOwner(t.hub, r.request_id).state, 'pending', 'nothing changed');
  });
});

test('deciding twice is refused with conflict and keeps the first decision', async () => {
  await withHub(async (t) => {
    const { a, convId } = await setup(t);
    const r = await call(t, a.id, 'request_human', { conv_id: convId, kind: 'approve', title: 'Merge?' });
    decideRequest(t.hub, t.hub.ownerId, { request_id: r.request_id, decision: 'approve' });
    assert.throws(
      () => decideRequest(t.hub, t.hub.ownerId, { request_id: r.request_id, decision: 'reject' }),
      isCode('conflict', /already decided/),
    );
    assert.equal((await call(t, a.id, 'get_request', { request_id: r.request_id })).state, 'approved');
    const decided = getHistory(t.hub, t.hub.ownerId, convId, {}, true).events.filter((e) => e.type === 'request.decided');
    assert.equal(decided.length, 1, 'one request.decided event');
  });
});

test('client_req_id: the same input returns the same request; a different input is idempotency_conflict', async () => {
  await withHub(async (t) => {
    const { a, convId } = await setup(t);
    const args = { conv_id: convId, kind: 'approve', title: 'Rotate keys?', client_req_id: 'req-1' };
    const first = await call(t, a.id, 'request_human', args);
    const again = await call(t, a.id, 'request_human', args);
    assert.equal(again.request_id, first.request_id);
    assert.equal(again.msg_id, first.msg_id);
    await assert.rejects(call(t, a.id, 'request_human', { ...args, title: 'Rotate all keys?' }), isCode('idempotency_conflict'));
    assert.equal(listRequests(t.hub).length, 1, 'one request stored');
  });
});

test('oversize context is refused and nothing is stored', async () => {
  await withHub(async (t) => {
    const { a, convId } = await setup(t);
    const before = conversationById(t.hub.db, convId)!.last_seq;
    const context = { blob: 'x'.repeat(LIMITS.maxContextBytes) };
    await assert.rejects(
      call(t, a.id, 'request_human', { conv_id: convId, kind: 'approve', title: 'Big?', context }),
      isCode('too_large', /context/),
    );
    await assert.rejects(
      call(t, a.id, 'request_human', { conv_id: convId, kind: 'approve', title: 'Big?', context, client_req_id: 'big-1' }),
      isCode('too_large'),
    );
    assert.equal(conversationById(t.hub.db, convId)!.last_seq, before, 'no message or event');
    assert.equal(listRequests(t.hub).length, 0, 'no request');
    // Just under the limit is fine.
    const ok = await call(t, a.id, 'request_human', {
      conv_id: convId,
      kind: 'approve',
      title: 'Fits?',
      context: 'y'.repeat(LIMITS.maxContextBytes - 2),
    });
    assert.equal(ok.state, 'pending');
  });
});

test('listRequests: pending first with conversation title, requester and expiry', async () => {
  await withHub(async (t) => {
    const { a, convId } = await setup(t);
    const group = await call(t, a.id, 'create_group', { title: 'Ops room', members: [] });
    const done = await call(t, a.id, 'request_human', { conv_id: convId, kind: 'approve', title: 'Old one' });
    decideRequest(t.hub, t.hub.ownerId, { request_id: done.request_id, decision: 'reject' });
    const p = await call(t, a.id, 'request_human', {
      conv_id: group.conversation.conv_id,
      kind: 'answer',
      title: 'New one',
      context: { k: 1 },
    });
    const all = listRequests(t.hub);
    assert.deepEqual(
      all.map((r) => r.request_id),
      [p.request_id, done.request_id],
    );
    assert.equal(all[0]!.state, 'pending');
    assert.equal(all[0]!.conv_title, 'Ops room');
    assert.equal(all[0]!.requester.name, 'worker');
    assert.equal(all[0]!.expires_at, p.expires_at);
    assert.deepEqual(all[0]!.context, { k: 1 });
    assert.deepEqual(
      listRequests(t.hub, { state: 'rejected' }).map((r) => r.request_id),
      [done.request_id],
    );
    assert.throws(() => listRequests(t.hub, { state: 'bogus' as never }), isCode('invalid_argument'));
  });
});

test('request.created wakes the owner, not other members', async () => {
  await withHub(async (t) => {
    const { a } = await setup(t);
    const b = t.agent('bystander');
    const group = await call(t, a.id, 'create_group', { title: 'team', members: ['bystander'] });
    await drain(t, b.id);
    const r = await call(t, a.id, 'request_human', { conv_id: group.conversation.conv_id, kind: 'approve', title: 'Ship?' });
    const evs = await drain(t, b.id);
    const created = evs.find((e) => e.type === 'request.created');
    assert.ok(created, 'members see request.created');
    assert.equal(created.for_you, false);
    assert.ok(!created.before_your_history);
    assert.equal(created.data.request_id, r.request_id);
    const asOwner = getHistory(t.hub, t.hub.ownerId, group.conversation.conv_id, {}, true).events.find((e) => e.type === 'request.created');
    assert.equal(asOwner?.for_you, true, 'the owner is woken');
  });
});

test("one home for a request's state: the stored message payload keeps only what never changes; readers and request.* events get the state from the request", async () => {
  await withHub(async (t) => {
    const { a, convId } = await setup(t);
    const r = await call(t, a.id, 'request_human', { conv_id: convId, kind: 'choose', title: 'Which region?', options: ['eu', 'us'] });
    const stored = () => JSON.parse(messageById(t.hub.db, r.msg_id)!.payload!) as R;
    assert.deepEqual(
      Object.keys(stored()).sort(),
      ['assignees', 'context', 'expires_at', 'kind', 'options', 'request_id', 'title'],
      'no state is stored in the message',
    );
    decideRequest(t.hub, t.hub.ownerId, { request_id: r.request_id, decision: 'choose', choice: 'us' });
    assert.equal(stored().state, undefined, 'deciding does not copy the state into the message');
    const read = requestMessage(t, convId, r.msg_id).payload!;
    assert.equal(read.state, 'chosen', "get_history shows the request's state, built when read");
    assert.deepEqual(read.outcome, { decision: 'choose', choice: 'us' });
    assert.equal((read.decided_by as R).name, t.hub.owner.name);

    // The owner's history: request.decided and the request's message.created carry the full request view.
    await call(t, a.id, 'send_message', { conv_id: convId, text: 'a plain message' });
    const h = getHistory(t.hub, t.hub.ownerId, convId, {}, true);
    const decided = h.events.find((e) => e.type === 'request.decided')!;
    assert.equal(decided.request?.request_id, r.request_id);
    assert.equal(decided.request?.state, 'chosen');
    assert.deepEqual(decided.request?.outcome, { decision: 'choose', choice: 'us' });
    assert.deepEqual(decided.request?.options, ['eu', 'us']);
    assert.equal(decided.request?.requester.name, 'worker');
    assert.equal(h.events.find((e) => e.type === 'message.created' && e.message?.msg_id === r.msg_id)?.request?.state, 'chosen');
    const plain = h.events.find((e) => e.type === 'message.created' && e.message?.text === 'a plain message');
    assert.ok(plain);
    assert.equal(plain.request, undefined, 'other messages carry no request');

    // A message written before this change kept a copy of the state: the request's state wins when read.
    setMessagePayload(t.hub.db, r.msg_id, JSON.stringify({ ...stored(), state: 'pending' }));
    assert.equal(requestMessage(t, convId, r.msg_id).payload!.state, 'chosen');
  });
});
