// Archived conversations end to end: the owner archives a conversation from its menu in the browser; it moves to the
// sidebar's Archived section (in another open window too, through the live stream), an agent's send there is refused
// with archived, and Unarchive brings it back.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, openConversation, within } from './harness';

describe('archive', () => {
  const h = useHarness({ agents: ['kit', 'rex'] });
  let convId: string;

  before(async () => {
    convId = (await h().agents.kit!.call('create_group', { title: 'Release notes', members: ['rex'] })).conversation.conv_id;
    await h().agents.kit!.call('send_message', { conv_id: convId, text: 'the notes are written' });
  }, { timeout: 90_000 });

  test('Archive from the conversation menu moves it to Archived (in every window) and makes it read-only for agents; Unarchive brings it back', { timeout: 90_000 }, async () => {
    const { page, context } = h();
    const nav = page.getByRole('navigation', { name: 'Perch' });
    const groups = nav.getByRole('region', { name: 'Groups' });
    await openConversation(page, 'Release notes');
    // A second window on the same hub follows the change live.
    const other = await context.newPage();
    await other.goto(page.url());
    const otherGroups = other.getByRole('navigation', { name: 'Perch' }).getByRole('region', { name: 'Groups' });
    await otherGroups.getByRole('link', { name: /^Release notes/ }).waitFor();

    await page.getByRole('button', { name: 'Conversation menu' }).click();
    await page.getByRole('menuitem', { name: 'Archive' }).click();
    await page.getByRole('region', { name: 'Conversation archived' }).waitFor({ timeout: 10_000 });
    await groups.getByRole('link', { name: /^Release notes/ }).waitFor({ state: 'detached', timeout: 10_000 });
    await otherGroups.getByRole('link', { name: /^Release notes/ }).waitFor({ state: 'detached', timeout: 10_000 });
    const archived = nav.getByRole('region', { name: 'Archived' });
    await archived.getByRole('button', { name: 'Archived (1)' }).click();
    await archived.getByRole('link', { name: /^Release notes/ }).waitFor();
    await h().screenshot('archived');

    await assert.rejects(h().agents.rex!.call('send_message', { conv_id: convId, text: 'one more' }), /archived/);
    const kitList = await h().agents.kit!.call('list_conversations');
    assert.ok(!kitList.conversations.some((c: { conv_id: string }) => c.conv_id === convId), 'kit no longer lists it');
    assert.ok((await h().agents.kit!.call('get_history', { conv_id: convId })).events.length > 0, 'kit still reads it');

    await page.getByRole('button', { name: 'Conversation menu' }).click();
    await page.getByRole('menuitem', { name: 'Unarchive' }).click();
    await groups.getByRole('link', { name: /^Release notes/ }).waitFor({ timeout: 10_000 });
    await otherGroups.getByRole('link', { name: /^Release notes/ }).waitFor({ timeout: 10_000 });
    await page.getByRole('region', { name: 'Conversation archived' }).waitFor({ state: 'detached' });
    await within(10_000, 'rex may send again', h().agents.rex!.call('send_message', { conv_id: convId, text: 'one more' }));
    await other.close();
    assert.deepEqual(h().pageErrors, []);
  });
});
