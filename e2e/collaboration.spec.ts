// Cards, handoffs, task channels, mentions and private notes: what the owner does in the browser reaches
// a real agent's get_updates.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, openConversation, timeline } from './harness';
import { on } from './pages/on';
import { composer } from './pages/conversation';

describe('collaboration', () => {
  const h = useHarness({ agents: ['alice', 'bob'] });
  let convId: string;

  before(
    async () => {
      convId = (await h().agents.alice!.call('open_direct', { user: 'owner' })).conversation.conv_id;
      await h().agents.alice!.call('send_message', { conv_id: convId, text: 'Hi! I am **alice**, ready when you are.' });
      await openConversation(h().page, 'alice');
    },
    { timeout: 90_000 },
  );

  test('a card form submitted by the owner reaches the agent in get_updates, and a once card closes', { timeout: 60_000 }, async () => {
    const { page } = h();
    const alice = h().agents.alice!;
    await alice.call('send_card', {
      conv_id: convId,
      text: 'Trip details (form)',
      card: {
        title: 'Trip details',
        once: true,
        blocks: [
          { type: 'text', text: 'Tell me about the **trip**.' },
          {
            type: 'form',
            id: 'trip',
            submit: 'Send details',
            fields: [
              { id: 'city', label: 'City', type: 'text', required: true, max: 40 },
              { id: 'nights', label: 'Nights', type: 'number', max: 14 },
              { id: 'class', label: 'Class', type: 'select', options: ['economy', 'business'], required: true },
              { id: 'refundable', label: 'Refundable only', type: 'checkbox' },
            ],
          },
        ],
      },
    });
    const card = timeline(page).region('Card: Trip details');
    await card.waitFor();
    await card.field('City').fill('Lisbon');
    await card.field('Nights').fill('4');
    await card.field('Class').selectOption('business');
    await card.field('Refundable only').check();
    await alice.call('progress', { conv_id: convId, kind: 'plan', text: 'Book flights, then the hotel' });
    await alice.call('progress', { conv_id: convId, kind: 'tool_call', text: 'flights.search LIS', data: { from: 'BER', to: 'LIS' } });
    await alice.call('progress', { conv_id: convId, kind: 'tool_result', text: '14 flights found' });
    await alice.call('progress', { conv_id: convId, kind: 'thinking', text: 'Waiting for the trip details' });
    await on(page).feed('Progress in this conversation').text('Waiting for the trip details').waitFor();
    await h().screenshot('conversation-card');
    await card.button('Send details').click();

    const ev = await alice.waitFor((e) => e.type === 'card.response');
    assert.equal(ev.data?.block_id, 'trip');
    assert.deepEqual(ev.data?.value, { city: 'Lisbon', nights: 4, class: 'business', refundable: true });
    // once: the card is closed and its controls disabled.
    await card.text('Closed', { exact: false }).waitFor();
    assert.equal(await card.button('Send details').isDisabled(), true);
    assert.equal(await card.field('City').isDisabled(), true);
  });

  test('a card button click reaches the agent', { timeout: 60_000 }, async () => {
    const { page } = h();
    const alice = h().agents.alice!;
    await alice.call('send_card', {
      conv_id: convId,
      text: 'Ship it?',
      card: {
        title: 'Ship it?',
        blocks: [
          {
            type: 'buttons',
            id: 'ship',
            options: [
              { id: 'yes', label: 'Ship', style: 'primary' },
              { id: 'no', label: 'Hold', style: 'danger' },
            ],
          },
        ],
      },
    });
    const card = timeline(page).region('Card: Ship it?');
    await card.button('Hold').click();
    const ev = await alice.waitFor((e) => e.type === 'card.response' && e.data?.block_id === 'ship');
    assert.equal(ev.data?.value, 'no');
  });

  test('a handoff shows a banner live; Hand back with a note reaches the agent', { timeout: 60_000 }, async () => {
    const { page } = h();
    const alice = h().agents.alice!;
    await alice.call('handoff', { conv_id: convId, note: 'The vendor wants a call. Can you confirm the budget?' });
    const banner = on(page).region('Handoff from alice');
    await banner.text('alice handed this to you:').waitFor();
    await banner.text('The vendor wants a call. Can you confirm the budget?').waitFor();
    await h().screenshot('conversation-handoff');
    await banner.textbox('Note for alice').fill('Budget confirmed: 5k. Book the call.');
    await banner.button('Hand back').click();
    const ev = await alice.waitFor((e) => e.type === 'handoff.returned');
    assert.equal(ev.data?.note, 'Budget confirmed: 5k. Book the call.');
    await banner.waitFor({ state: 'detached' });
  });

  test('a task state change by the owner reaches the agent, and the history shows it', { timeout: 60_000 }, async () => {
    const { page } = h();
    const alice = h().agents.alice!;
    await alice.call('create_task', { title: 'Write release notes', members: ['owner'], assignee: 'alice' });
    await openConversation(page, 'Write release notes');
    const bar = on(page).region('Task');
    const state = bar.combobox('Task state');
    assert.equal(await state.inputValue(), 'submitted');
    await bar.textbox('Note with the next state change').fill('Start with the API changes');
    await state.selectOption('working');
    const ev = await alice.waitFor((e) => e.type === 'task.updated' && e.data?.state === 'working');
    assert.equal(ev.data?.previous_state, 'submitted');
    assert.equal(ev.data?.note, 'Start with the API changes');
    // The agent moves it on; the owner sees it live, with the history.
    await alice.call('update_task', { conv_id: ev.conv_id, state: 'input_required', note: 'Need the version number' });
    await page.waitForFunction(
      () => (document.querySelector('select[aria-label="Task state"]') as HTMLSelectElement | null)?.value === 'input_required',
    );
    await bar.button(/History/).click();
    const hist = bar.list('Task history');
    await hist.text('Need the version number', { exact: false }).waitFor();
    await hist.text('Start with the API changes', { exact: false }).waitFor();
    await h().screenshot('task-channel');
  });

  test('an @mention fills `to`, and a private note reaches only that agent', { timeout: 60_000 }, async () => {
    const { page } = h();
    const alice = h().agents.alice!;
    const group = (await alice.call('create_group', { title: 'Launch crew', members: ['owner', 'bob'] })).conversation.conv_id;
    await openConversation(page, 'Launch crew');
    const box = composer(page, 'Launch crew');
    await box.mention('bob');
    await box.type('can you check the **changelog**?');
    await on(page).text('Wakes:').waitFor();
    await box.submit();
    const ev = await h().agents.bob!.waitFor((e) => e.type === 'message.created' && !!e.message?.text?.includes('changelog'));
    assert.equal(ev.conv_id, group);
    assert.deepEqual((ev.message as { to?: string[] }).to, ['bob']);
    await timeline(page).text('can you check the', { exact: false }).waitFor();

    await on(page).button('Private note').click();
    await on(page).combobox('Agent for the private note').selectOption('alice');
    const note = on(page).textbox('Private note to alice');
    await note.fill('Keep the launch date quiet for now.');
    await note.press('Enter');
    const n = await alice.waitFor((e) => e.type === 'owner.note');
    assert.equal(n.data?.text, 'Keep the launch date quiet for now.');
    assert.deepEqual(h().pageErrors, []);
  });
});
