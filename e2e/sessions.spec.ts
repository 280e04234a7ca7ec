// Sessions of one agent, scoped keys and read receipts as the owner sees them in Chromium: a read-only key
// issued from the Agents page reads but cannot send, and stops working when revoked there; a message sent
// from a named instance shows it after the byline; "read by …" appears under the last message as members confirm.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, connectAgent, openConversation, openPage, timeline } from './harness';
import { on } from './pages/on';
import { openAgentDialog } from './pages/agents';

describe('sessions, scoped keys and read receipts', () => {
  const h = useHarness({ agents: ['kit', 'rue'] });

  test(
    'the owner issues a read-only key from the Agents page, it reads but cannot send, and revoking it there stops it',
    { timeout: 60_000 },
    async () => {
      const { page } = h();
      await openPage(page, 'Agents');
      const dlg = await openAgentDialog(page, 'Keys', 'kit');
      await dlg.text('No extra keys yet.').waitFor();
      await dlg.field('Key name').fill('ci-reader');
      for (const scope of ['write', 'files', 'state', 'ask']) await dlg.checkbox(scope).uncheck();
      await dlg.button('Issue key').click();
      const secret = (await dlg.field('Scoped key').textContent())!.trim();
      assert.match(secret, /^perch_[A-Za-z0-9_-]{20,}$/);
      const row = dlg.item('Key ci-reader');
      await row.text('no expiry').waitFor();
      assert.equal(
        await row
          .find('.chip')
          .allTextContents()
          .then((t) => t.join(',')),
        'read',
        'the key lists only the read scope',
      );
      await h().screenshot('scoped-key');

      const reader = await connectAgent('kit', h().agents.kit!.id, secret, h().mcpUrl);
      try {
        const me = await reader.call('whoami');
        assert.equal(me.agent.name, 'kit');
        assert.deepEqual(me.scopes, ['read']);
        await reader.call('list_conversations');
        const conv = (await h().agents.kit!.call('open_direct', { user: 'rue' })).conversation.conv_id;
        await assert.rejects(reader.call('send_message', { conv_id: conv, text: 'nope' }), /forbidden.*lacks the .{1,3}write.{1,3} scope/);
      } finally {
        await reader.client.close();
      }

      await row.button('Revoke key ci-reader').click();
      await row.text('revoked').waitFor();
      const res = await fetch(h().mcpUrl, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          Authorization: `Bearer ${secret}`,
          'MCP-Protocol-Version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
      });
      assert.equal(res.status, 401, 'the revoked key is refused');
      await dlg.button('Close').last().click();
    },
  );

  test(
    'the instance name shows after the byline, and read receipts show under the last message as members confirm',
    { timeout: 60_000 },
    async () => {
      const { page } = h();
      const kit = h().agents.kit!;
      const rue = h().agents.rue!;
      const g = await kit.call('create_group', { title: 'standup', members: ['rue'] });
      const convId = g.conversation.conv_id as string;
      await rue.waitFor((e) => e.conv_id === convId);
      await rue.call('get_updates', {}); // confirms what it received
      await openConversation(page, 'standup');

      const sent = await kit.call('send_message', { conv_id: convId, text: 'tests are green on my side', instance: 'laptop-repo' });
      const msg = timeline(page).article('Message from kit').filter({ hasText: 'tests are green' });
      await msg.waitFor();
      await on(msg).text('· laptop-repo').waitFor();
      assert.equal(await on(page).field('Read receipts').count(), 0, 'nobody has confirmed it yet');

      const got = await rue.waitFor((e) => e.message?.msg_id === sent.msg_id);
      assert.equal(got.conv_id, convId);
      await rue.call('get_updates', {}); // confirms it: rue has read it
      const receipts = on(page).field('Read receipts');
      await receipts.text('read by rue').waitFor({ timeout: 10_000 });
      await h().screenshot('read-receipts');
    },
  );
});
