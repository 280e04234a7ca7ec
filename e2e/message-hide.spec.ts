// Hiding a message is the owner's own view, and every open window of the owner follows it live: two pages of the
// same owner; Hide in one and the other shows the hidden stub without a reload; Show in the other and the first shows
// the message again. Each step waits for the state it needs, never for a time.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, openConversation } from './harness';
import { on } from './pages/on';
import { messageById } from './pages/conversation';

describe('hide in every window', () => {
  const h = useHarness({ agents: ['pip'] });
  let msgId: string;

  before(
    async () => {
      const convId = (await h().agents.pip!.call('open_direct', { user: 'owner' })).conversation.conv_id;
      msgId = (await h().agents.pip!.call('send_message', { conv_id: convId, text: 'a message to hide from every window' })).msg_id;
    },
    { timeout: 90_000 },
  );

  test(
    'Hide in one window shows the hidden stub in another without a reload, and Show there brings it back in the first',
    { timeout: 90_000 },
    async () => {
      const { page, context } = h();
      await openConversation(page, 'pip');
      const other = await context.newPage();
      try {
        await other.goto(page.url());
        const here = messageById(page, msgId);
        const there = messageById(other, msgId);
        await here.text('a message to hide from every window').waitFor({ timeout: 20_000 });
        await there.text('a message to hide from every window').waitFor({ timeout: 20_000 });

        await here.hide();
        await on(page).article('Hidden message from pip').waitFor({ timeout: 5_000 });
        const stub = on(other).article('Hidden message from pip');
        await stub.waitFor({ timeout: 5_000 }); // the other window, without a reload
        assert.equal(await there.text('a message to hide from every window').count(), 0, 'the other window no longer renders the content');

        await stub.button('Show the hidden message from pip').click();
        await there.text('a message to hide from every window').waitFor({ timeout: 5_000 });
        await here.text('a message to hide from every window').waitFor({ timeout: 5_000 }); // the first window, without a reload
        assert.equal(await on(page).article('Hidden message from pip').count(), 0);
      } finally {
        await other.close();
      }
      assert.deepEqual(h().pageErrors, []);
    },
  );
});
