// Export… in the app: Settings → Export downloads the whole history as one archive, with a readable transcript of
// each conversation inside it; a conversation's ⋯ menu exports just that conversation.
import path from 'node:path';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openConversation, useHarness } from './harness';
import { exportEntries } from '../test/support/export-entries';
import { on } from './pages/on';
import { openSettings } from './pages/app';
import { fromConversationMenu } from './pages/conversation';

describe('Settings → Export', () => {
  const h = useHarness({ agents: ['scribe', 'critic'] });

  test('Export… downloads an archive whose transcript shows who said what', async () => {
    const { page, agents, dataDir } = h();
    const conv = (await agents.scribe!.call('create_group', { title: 'Minutes', members: [] })).conversation.conv_id as string;
    await agents.scribe!.call('send_message', { conv_id: conv, text: 'The minutes of today' });

    await openSettings(page, 'Data'); // its own tab
    await on(page).heading('Export', { level: 2 }).waitFor();
    const w = (await on(page).button('Export…').boundingBox())!.width;
    assert.ok(w < 200, `Export… is a button of its own width (${w.toFixed(0)} px), not a bar across the section`);
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), on(page).button('Export…').click()]);
    assert.match(download.suggestedFilename(), /^perch-archive-\d{4}-\d{2}-\d{2}\.tar\.gz$/);
    const file = path.join(dataDir, 'downloaded.tar.gz');
    await download.saveAs(file);
    await on(page)
      .status()
      .filter({ hasText: /^Saved perch-archive-/ })
      .waitFor();

    const entries = await exportEntries(file);
    const names = [...entries.keys()];
    const transcript = entries.get(`transcripts/minutes-${conv}.md`)?.toString('utf8') ?? ''; // named readably: title and id
    assert.equal(names[0], 'manifest.json');
    assert.ok(names.includes('messages.jsonl'));
    assert.match(transcript, /^# Minutes/);
    assert.match(transcript, /\*\*scribe\*\* · .*\n\n> The minutes of today/);
    assert.deepEqual(h().pageErrors, []);
  });

  test(
    "Export… in a conversation's menu downloads an archive of that conversation only, its transcript showing who said what",
    { timeout: 90_000 },
    async () => {
      const { page, agents, dataDir } = h();
      const kept = (await agents.scribe!.call('create_group', { title: 'Budget', members: ['critic'] })).conversation.conv_id as string;
      await agents.scribe!.call('send_message', { conv_id: kept, text: 'We spend 40 on tools' });
      await agents.critic!.call('send_message', { conv_id: kept, text: 'Too much, 30 at most' });
      const other = (await agents.scribe!.call('create_group', { title: 'Holidays', members: [] })).conversation.conv_id as string;
      await agents.scribe!.call('send_message', { conv_id: other, text: 'not in this export' });

      await openConversation(page, 'Budget');
      await fromConversationMenu(page, 'Export…');
      const dialog = on(page).dialog('Export conversation');
      await dialog.waitFor();
      const [download] = await Promise.all([
        page.waitForEvent('download', { timeout: 30_000 }),
        dialog.button('Export', { exact: true }).click(),
      ]);
      const file = path.join(dataDir, 'one-conversation.tar.gz');
      await download.saveAs(file);
      await dialog
        .status()
        .filter({ hasText: /^Saved perch-archive-/ })
        .waitFor();

      const entries = await exportEntries(file);
      assert.deepEqual(
        [...entries.keys()].filter((n) => n.startsWith('transcripts/')),
        [`transcripts/budget-${kept}.md`],
        "only that conversation's transcript, named by its title and id",
      );
      const convs = entries
        .get('conversations.jsonl')!
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).id);
      assert.deepEqual(convs, [kept], 'only that conversation');
      const texts = entries
        .get('messages.jsonl')!
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).text);
      assert.ok(!texts.includes('not in this export'), 'no message of another conversation');
      assert.deepEqual(JSON.parse(entries.get('manifest.json')!.toString('utf8')).scope.conversations, [kept]);
      const transcript = entries.get(`transcripts/budget-${kept}.md`)!.toString('utf8');
      assert.match(transcript, /^# Budget/);
      assert.match(transcript, /\*\*scribe\*\* · .*\n\n> We spend 40 on tools/);
      assert.match(transcript, /\*\*critic\*\* · .*\n\n> Too much, 30 at most/);
      assert.deepEqual(h().pageErrors, []);
    },
  );
});
