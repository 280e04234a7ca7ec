// Owner actions run in-process against a real hub: what the owner may see that agents may not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withHub, callTool as call } from '../support/helpers';
import { runOwnerAction } from '../../src/main/owner/actions';
import { LIMITS } from '../../src/shared/limits';

test('owner search covers every conversation (not only the 20 recent ones) incl. agents-only ones, newest first', async () => {
  await withHub(async (t) => {
    const { hub } = t;
    const a = t.agent('a');
    t.agent('b');
    // An agents-only direct conversation the owner is not a member of, made first (so it is the oldest).
    const ab = await call(hub, a.id, 'open_direct', { user: 'b' });
    await call(hub, a.id, 'send_message', { conv_id: ab.conversation.conv_id, text: 'The NEEDLE in the oldest chat' });
    // More recent conversations than an agent's search would look at.
    for (let i = 0; i <= LIMITS.searchRecentConversations; i++) {
      const g = await call(hub, a.id, 'create_group', { title: `g${i}`, members: ['b'] });
      await call(hub, a.id, 'send_message', { conv_id: g.conversation.conv_id, text: i === 3 ? 'another needle here' : `hay ${i}` });
    }

    const agentView = await call(hub, a.id, 'search', { query: 'needle' });
    assert.equal(agentView.complete, false, 'an agent searches only its 20 most recent conversations');
    assert.equal(agentView.messages.length, 1);

    const r = (await runOwnerAction(hub, 'conversations.search', { query: 'needle' })) as {
      messages: Array<{ text: string; conv_id: string }>;
      complete: boolean;
    };
    assert.equal(r.complete, true);
    assert.deepEqual(
      r.messages.map((m) => m.text),
      ['another needle here', 'The NEEDLE in the oldest chat'],
    );
    assert.equal(r.messages[1]!.conv_id, ab.conversation.conv_id);

    const one = (await runOwnerAction(hub, 'conversations.search', { query: 'needle', limit: 1 })) as { messages: unknown[] };
    assert.equal(one.messages.length, 1, 'limit is respected');
  });
});
