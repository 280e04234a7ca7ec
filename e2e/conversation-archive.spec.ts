// Archived conversations end to end: the owner archives a conversation from its menu in the browser; it moves to the
// sidebar's Archived section (in another open window too, through the live stream), an agent's send there is refused
// with archived, and Unarchive brings it back.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, openConversation, within } from './harness';
import { on } from './pages/on';
import { sidebar } from './pages/app';
import { fromConversationMenu } from './pages/conversation';

describe('archive', () => {
  const h = useHarness({ agents: ['kit', 'rex'] });
  let convId: string;

  before(
    async () => {
      convId = (await h().agents.kit!.call('create_group', { title: 'Release notes', members: ['rex'] })).conversation.conv_id;
      await h().agents.kit!.call('send_message', { conv_id: convId, text: 'the notes are written' });
    },
    { timeout: 90_000 },
  );

  test(
    'Archive from the conversation menu moves it to Archived (in every window) and makes it read-only for agents; Unarchive brings it back',
    { timeout: 90_000 },
    async () => {
      const { page, context } = h();
      const nav = sidebar(page);
      const groups = nav.region('Groups');
      await openConversation(page, 'Release notes');
      // A second window on the same hub follows the change live.
      const other = await context.newPage();
      await other.goto(page.url());
      const otherGroups = sidebar(other).region('Groups');
      await otherGroups.link(/^Release notes/).waitFor();

      await fromConversationMenu(page, 'Archive');
      await on(page).region('Conversation archived').waitFor({ timeout: 10_000 });
      await groups.link(/^Release notes/).waitFor({ state: 'detached', timeout: 10_000 });
      await otherGroups.link(/^Release notes/).waitFor({ state: 'detached', timeout: 10_000 });
      const archived = nav.region('Archived');
      await archived.button('Archived (1)').click();
      await archived.link(/^Release notes/).waitFor();
      await h().screenshot('archived');

      await assert.rejects(h().agents.rex!.call('send_message', { conv_id: convId, text: 'one more' }), /archived/);
      const kitList = await h().agents.kit!.call('list_conversations');
      assert.ok(!kitList.conversations.some((c: { conv_id: string }) => c.conv_id === convId), 'kit no longer lists it');
      assert.ok((await h().agents.kit!.call('get_history', { conv_id: convId })).events.length > 0, 'kit still reads it');

      await fromConversationMenu(page, 'Unarchive');
      await groups.link(/^Release notes/).waitFor({ timeout: 10_000 });
      await otherGroups.link(/^Release notes/).waitFor({ timeout: 10_000 });
      await on(page).region('Conversation archived').waitFor({ state: 'detached' });
      await within(10_000, 'rex may send again', h().agents.rex!.call('send_message', { conv_id: convId, text: 'one more' }));
      await other.close();
      assert.deepEqual(h().pageErrors, []);
    },
  );
});
