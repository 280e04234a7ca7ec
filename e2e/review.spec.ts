// Review mode end to end: the owner turns review on for kit on its Fleet card; kit's message is held
// (bob sees nothing); in the Approvals inbox the owner edits it and sends it; kit is told the edited
// text, and the conversation shows the edited text as kit's, marked "edited by you" (one sent as written: reviewed).
// Then kit's edit of that message and its new task channel are held too, and shown as what they are (the text the
// edit replaces, the members).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, openConversation, openPage, timeline, within } from './harness';
import { on } from './pages/on';
import { heldCard, pendingCount } from './pages/approvals';
import { fleetCard } from './pages/agents';

describe('review mode', () => {
  const h = useHarness({ agents: ['kit', 'bob'] });
  let convId: string;

  before(
    async () => {
      convId = (await h().agents.kit!.call('create_group', { title: 'launch', members: ['bob'] })).conversation.conv_id;
    },
    { timeout: 90_000 },
  );

  test('a held message is edited and sent from the Approvals inbox, and the agent sees the edited text', { timeout: 90_000 }, async () => {
    const { page } = h();
    const kit = h().agents.kit!;
    const bob = h().agents.bob!;

    await openPage(page, 'Fleet');
    const toggle = fleetCard(page, 'kit').reviewButton;
    assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
    await toggle.click();
    await on(page).find('button[aria-label="Review mode for kit"][aria-pressed="true"]').waitFor({ timeout: 10_000 });
    assert.equal((await kit.call('whoami')).review_mode.on, true, 'whoami reports review mode');

    await openPage(page, 'Approvals');
    const held = await kit.call('send_message', { conv_id: convId, text: 'we launch tomorow, probably', to: ['bob'] });
    assert.equal(held.held, true);
    assert.equal(typeof held.held_id, 'string');
    const bobHistory = await bob.call('get_history', { conv_id: convId });
    assert.equal(bobHistory.events.filter((e: any) => e.type === 'message.created').length, 0, 'bob sees nothing while it is held');

    const card = heldCard(page, 'kit');
    await card.waitFor({ timeout: 10_000 });
    await card.text('we launch tomorow, probably').waitFor();
    await pendingCount(page, 1).waitFor();
    await h().screenshot('review-held-item');

    await card.editAndSend('We launch tomorrow.');

    const sent = await within(
      15_000,
      'kit to be told held.sent',
      kit.waitFor((e) => e.type === 'held.sent', 15_000),
    );
    assert.equal(sent.data?.text, 'We launch tomorrow.');
    assert.equal(sent.data?.owner_edited, true);
    assert.equal(sent.data?.held_id, held.held_id);
    await card.waitFor({ state: 'detached', timeout: 10_000 });

    const hist = await kit.call('get_history', { conv_id: convId });
    const msg = hist.events.find((e: any) => e.type === 'message.created')?.message;
    assert.equal(msg?.text, 'We launch tomorrow.', 'kit sees the edited text in the conversation');
    assert.equal(msg?.sender.name, 'kit');
    assert.equal(msg?.provenance.reviewed, true);
    assert.equal(msg?.provenance.owner_edited, true);
    const bobMsg = await bob.waitFor((e) => e.type === 'message.created', 10_000);
    assert.equal(bobMsg.message?.text, 'We launch tomorrow.');
    assert.deepEqual(h().pageErrors, []);
  });

  test(
    'the owner sees their review in the conversation: "edited by you" on an edited send, a quiet mark on one sent as written',
    { timeout: 90_000 },
    async () => {
      const { page } = h();
      const kit = h().agents.kit!;
      // The edited message of the test above, and one sent as written.
      await openPage(page, 'Approvals');
      await kit.call('send_message', { conv_id: convId, text: 'Release notes are drafted.' });
      const card = heldCard(page, 'kit');
      await card.text('Release notes are drafted.').waitFor({ timeout: 10_000 });
      await card.send();
      await within(
        15_000,
        'kit to be told held.sent',
        kit.waitFor((e) => e.type === 'held.sent', 15_000),
      );

      await openConversation(page, 'launch');
      const log = timeline(page);
      const edited = log.article().filter({ hasText: 'We launch tomorrow.' });
      await on(edited).text('edited by you', { exact: true }).waitFor({ timeout: 10_000 });
      const asWritten = log.article().filter({ hasText: 'Release notes are drafted.' });
      await on(asWritten).field('reviewed by you').waitFor();
      assert.equal(await on(asWritten).text('edited by you').count(), 0, 'sent as written: not marked edited');
      await h().screenshot('review-marks');
      assert.deepEqual(h().pageErrors, []);
    },
  );

  test(
    'an edit and a new task channel wait in the Approvals inbox as what they are, and are sent from there',
    { timeout: 90_000 },
    async () => {
      const { page } = h();
      const kit = h().agents.kit!;
      const bob = h().agents.bob!;
      await openPage(page, 'Approvals');
      const msgId = (await kit.call('get_history', { conv_id: convId })).events.find((e: any) => e.type === 'message.created')?.message
        ?.msg_id;
      const edit = await kit.call('edit_message', { msg_id: msgId, text: 'We launch next week.' });
      assert.equal(edit.held, true, 'the edit is held');

      const editCard = heldCard(page, 'kit', 'edit a message');
      await editCard.waitFor({ timeout: 10_000 });
      await editCard.text('Now reads:').waitFor();
      await editCard.text('We launch tomorrow.').waitFor();
      await editCard.text('We launch next week.').waitFor();

      const task = await kit.call('create_task', { title: 'Write the launch post', members: ['bob'], assignee: 'bob' });
      assert.equal(task.held, true, 'the task channel is held');
      const taskCard = heldCard(page, 'kit', 'create a task channel');
      await taskCard.waitFor({ timeout: 10_000 });
      await taskCard.text('Write the launch post').waitFor();
      await taskCard.text(/With bob/).waitFor();
      await taskCard.text(/a new conversation/).waitFor();
      await pendingCount(page, 2).waitFor();
      await h().screenshot('review-held-edit-and-task');

      await editCard.send();
      const editSent = await within(
        15_000,
        'kit to be told the edit was sent',
        kit.waitFor((e) => e.type === 'held.sent' && e.data?.held_id === edit.held_id, 15_000),
      );
      assert.equal(editSent.data?.msg_id, msgId);
      const bobMsg = (await bob.call('get_history', { conv_id: convId })).events.find((e: any) => e.type === 'message.created')?.message;
      assert.equal(bobMsg?.text, 'We launch next week.');
      assert.equal(bobMsg?.provenance.reviewed, true, 'the edit the owner sent is marked reviewed');

      await taskCard.editAndSend('Write the launch announcement');
      const taskSent = await within(
        15_000,
        'kit to be told the task was made',
        kit.waitFor((e) => e.type === 'held.sent' && e.data?.held_id === task.held_id, 15_000),
      );
      const conv = (taskSent.data?.result as any)?.conversation;
      assert.equal(conv?.title, 'Write the launch announcement');
      assert.equal(conv?.kind, 'task');
      await taskCard.waitFor({ state: 'detached', timeout: 10_000 });
      assert.deepEqual(h().pageErrors, []);
    },
  );

  test(
    "a held message of a direct conversation names it as the sidebar does (the agent's name), not by its id",
    { timeout: 60_000 },
    async () => {
      const { page } = h();
      const kit = h().agents.kit!;
      const direct = (await kit.call('open_direct', { user: 'owner' })).conversation.conv_id;
      await openPage(page, 'Approvals');
      await kit.call('send_message', { conv_id: direct, text: 'A word for you alone.' });
      const card = heldCard(page, 'kit');
      await card.text('A word for you alone.').waitFor({ timeout: 10_000 });
      await card.button('kit', { exact: true }).waitFor();
      assert.equal(await card.text(direct).count(), 0, 'the conversation id is not shown');
      await card.discard();
      await card.waitFor({ state: 'detached', timeout: 15_000 });
    },
  );
});
