// The gates of an agent's call (hub/talk/gates.ts): one ordered, named list — scope › paused › archived › review ›
// may-speak › brakes — each asked at its stage wherever the call goes (the MCP door, the tool map, the write's
// transaction); the first gate that refuses answers with its error, unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callTool, withHub, type TestHub } from '../support/helpers';
import { AGENT_GATES } from '../../src/main/hub/talk/gates';
import { callAgentTool } from '../../src/main/hub/tools/tools';
import { addAgentKey } from '../../src/main/hub/identity/agent-keys';
import { authenticateKey } from '../../src/main/hub/identity/key-login';
import { pauseAgent } from '../../src/main/hub/control/control';
import { setReview } from '../../src/main/hub/features/review/review';
import { archiveConversation } from '../../src/main/hub/talk/archive';
import { openDirect } from '../../src/main/hub/talk/conversations';
import { sendMessage } from '../../src/main/hub/talk/messages';
import { presenceOf } from '../../src/main/hub/control/presence';
import { HubError } from '../../src/shared/errors';

/** Asserts the call is refused with this code (and message), and returns the error. */
async function refusedWith(p: Promise<unknown>, code: string, message?: RegExp): Promise<HubError> {
  let caught: unknown;
  await assert.rejects(p, (err: unknown) => {
    caught = err;
    return true;
  });
  assert.ok(caught instanceof HubError, `a HubError: ${String(caught)}`);
  assert.equal(caught.code, code, `${code}: ${caught.message}`);
  if (message) assert.match(caught.message, message);
  return caught;
}

/** A brake's refusal shows the owner a row after the transaction (setImmediate): let it run before the hub closes. */
const settle = () => new Promise((r) => setImmediate(r));

function direct(t: TestHub, name: string) {
  const a = t.agent(name);
  return { a, conv: openDirect(t.hub, a.id, t.hub.ownerId).conv_id };
}

test('the gates are one ordered, named list: scope, paused, archived, review, may-speak, brakes', () => {
  assert.deepEqual(
    AGENT_GATES.map((g) => g.name),
    ['scope', 'paused', 'archived', 'review', 'may-speak', 'brakes'],
  );
  assert.deepEqual(
    AGENT_GATES.map((g) => g.stage),
    ['key', 'call', 'call', 'hold', 'conversation', 'words'],
    'the stages follow the order of the list',
  );
});

test('scope refuses a call its key lacks the scope for (forbidden), before the pause, and it does not count as work', () =>
  withHub(async (t) => {
    const { a, conv } = direct(t, 'ada');
    const issued = addAgentKey(t.hub, { agent: 'ada', name: 'reader', scopes: ['read'] });
    const login = authenticateKey(t.hub, issued.secret);
    assert.equal(login.standing, 'ok');
    const key = login.standing === 'ok' ? login.auth : undefined;
    pauseAgent(t.hub, 'ada', { reason: 'lunch' });
    const e = await refusedWith(
      callAgentTool(t.hub, a.id, 'send_message', { conv_id: conv, text: 'hi' }, { key }),
      'forbidden',
      /lacks the "write" scope that send_message needs/,
    );
    assert.equal(e.details?.missing_scope, 'write');
    assert.equal(presenceOf(t.hub, a.id).active_at, null, 'a call the key may not make is not work');
    // With its own key the same call meets the next gate: paused.
    await refusedWith(
      callAgentTool(t.hub, a.id, 'send_message', { conv_id: conv, text: 'hi' }),
      'paused',
      /You are paused \(the owner paused you: lunch\)/,
    );
    assert.notEqual(presenceOf(t.hub, a.id).active_at, null, 'a paused call still shows the agent at work, as before');
  }));

test('paused comes before may-speak: a paused agent writing in its notes channel is told it is paused', () =>
  withHub(async (t) => {
    const a = t.agent('ada');
    const inbox = t.hub.user(a.id).inbox_id!;
    await refusedWith(callTool(t.hub, a.id, 'send_message', { conv_id: inbox, text: 'hi' }), 'forbidden', /private notes channel/);
    pauseAgent(t.hub, 'ada', {});
    await refusedWith(callTool(t.hub, a.id, 'send_message', { conv_id: inbox, text: 'hi' }), 'paused');
  }));

test('archived has its place after paused and before review: a write into an archived conversation is refused (archived), not held', () =>
  withHub(async (t) => {
    const { a, conv } = direct(t, 'ada');
    const archived = AGENT_GATES.find((g) => g.name === 'archived')!;
    assert.equal(archived.stage, 'call');
    const sent = await callTool(t.hub, a.id, 'send_message', { conv_id: conv, text: 'hi' });
    assert.ok(sent.msg_id, 'the send went through');
    archiveConversation(t.hub, conv);
    setReview(t.hub, 'ada', true);
    await refusedWith(callTool(t.hub, a.id, 'send_message', { conv_id: conv, text: 'hi again' }), 'archived', /archived/);
    pauseAgent(t.hub, 'ada', {});
    await refusedWith(callTool(t.hub, a.id, 'send_message', { conv_id: conv, text: 'hi again' }), 'paused');
  }));

test('review holds the words, and a held send still meets may-speak (forbidden) and brakes (brake)', () =>
  withHub(async (t) => {
    const { a, conv } = direct(t, 'ada');
    setReview(t.hub, 'ada', true);
    const held = await callTool(t.hub, a.id, 'send_message', { conv_id: conv, text: 'same words' });
    assert.equal(held.held, true);
    assert.ok(held.held_id);
    await refusedWith(
      callTool(t.hub, a.id, 'send_message', { conv_id: t.hub.user(a.id).inbox_id!, text: 'hi' }),
      'forbidden',
      /private notes channel/,
    );
    await callTool(t.hub, a.id, 'send_message', { conv_id: conv, text: 'same words' });
    const e = await refusedWith(
      callTool(t.hub, a.id, 'send_message', { conv_id: conv, text: 'same words' }),
      'brake',
      /^A brake stopped this send: duplicate:/,
    );
    assert.equal(e.details?.brake, 'duplicate');
    await settle();
  }));

test('may-speak refuses an agent silenced in a conversation (silenced), before the brakes would', () =>
  withHub(async (t) => {
    const { a, conv } = direct(t, 'ada');
    for (let i = 0; i < 2; i++) await callTool(t.hub, a.id, 'send_message', { conv_id: conv, text: 'same words' });
    // A third time the duplicate brake stops it ...
    await refusedWith(callTool(t.hub, a.id, 'send_message', { conv_id: conv, text: 'same words' }), 'brake', /duplicate:/);
    // ... but once the agent handed the conversation to its owner, may-speak answers first.
    await callTool(t.hub, a.id, 'handoff', { conv_id: conv, note: 'over to you' });
    await refusedWith(
      callTool(t.hub, a.id, 'send_message', { conv_id: conv, text: 'same words' }),
      'silenced',
      /You handed this conversation to/,
    );
    await settle();
  }));

test('brakes refuse an agent repeating itself (brake, duplicate), and never a person', () =>
  withHub(async (t) => {
    const { a, conv } = direct(t, 'ada');
    for (let i = 0; i < 2; i++) await callTool(t.hub, a.id, 'send_message', { conv_id: conv, text: 'again' });
    const e = await refusedWith(
      callTool(t.hub, a.id, 'send_message', { conv_id: conv, text: 'again' }),
      'brake',
      /duplicate: you already sent exactly this text 2 times/,
    );
    assert.equal(e.details?.conv_id, conv);
    // The owner's sends pass the same writes: the write stages let a person through.
    for (let i = 0; i < 3; i++) assert.ok(sendMessage(t.hub, t.hub.ownerId, { conv_id: conv, text: 'again' }).msg_id);
    await settle();
  }));
