// The gates of an agent's call (hub/tools/gates.ts): one ordered list, scope → paused → archived, run by the hub for
// every call whichever door it came through; the first gate that refuses answers with its error, unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeHub } from './helpers';
import { AGENT_GATES } from '../src/main/hub/tools/gates';
import { callAgentTool } from '../src/main/hub/tools/tools';
import { addAgentKey } from '../src/main/hub/identity/agent-keys';
import { authenticateKey } from '../src/main/hub/identity/key-login';
import { pauseAgent } from '../src/main/hub/control/control';
import { openDirect } from '../src/main/hub/talk/conversations';
import { presenceOf } from '../src/main/hub/control/presence';
import { HubError } from '../src/shared/errors';

test('the gates are one ordered, named list: scope, paused, archived', () => {
  assert.deepEqual(AGENT_GATES.map((g) => g.name), ['scope', 'paused', 'archived']);
});

test('the hub refuses a call its key lacks the scope for, before the pause, and it does not count as work', async () => {
  const t = makeHub();
  try {
    const a = t.agent('ada');
    const conv = openDirect(t.hub, a.id, t.hub.ownerId);
    const issued = addAgentKey(t.hub, { agent: 'ada', name: 'reader', scopes: ['read'] });
    const login = authenticateKey(t.hub, issued.secret);
    assert.equal(login.standing, 'ok');
    const key = login.standing === 'ok' ? login.auth : undefined;
    pauseAgent(t.hub, 'ada', { reason: 'lunch' });
    const send = () => callAgentTool(t.hub, a.id, 'send_message', { conv_id: conv.conv_id, text: 'hi' }, { key });
    await assert.rejects(send(), (err: unknown) => {
      assert.ok(err instanceof HubError);
      assert.equal(err.code, 'forbidden');
      assert.match(err.message, /lacks the "write" scope that send_message needs/);
      assert.equal(err.details?.missing_scope, 'write');
      return true;
    });
    assert.equal(presenceOf(t.hub, a.id).active_at, null, 'a call the key may not make is not work');
    // With its own key the same call meets the next gate: paused.
    await assert.rejects(callAgentTool(t.hub, a.id, 'send_message', { conv_id: conv.conv_id, text: 'hi' }), (err: unknown) => err instanceof HubError && err.code === 'paused');
    assert.notEqual(presenceOf(t.hub, a.id).active_at, null, 'a paused call still shows the agent at work, as before');
  } finally {
    t.close();
  }
});
