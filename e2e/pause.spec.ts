// Owner control end to end: the owner pauses every agent with one click in the browser and an
// agent's next send is refused at once with `paused`; the fleet view shows it plainly; resume lets it go on.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, openPage, within } from './harness';
import { screenTitle } from './pages/app';
import { fleetCard, pauseAllButton, resumeAllButton } from './pages/agents';

describe('pause', () => {
  const h = useHarness({ agents: ['kit', 'rex'] });
  let convId: string;

  before(
    async () => {
      convId = (await h().agents.kit!.call('open_direct', { user: 'owner' })).conversation.conv_id;
    },
    { timeout: 90_000 },
  );

  test(
    'one click on "Pause all agents" refuses an agent\'s send at once; the fleet shows them paused; Resume all lets them go on',
    { timeout: 90_000 },
    async () => {
      const { page } = h();
      const kit = h().agents.kit!;
      await kit.call('send_message', { conv_id: convId, text: 'working on it' });
      await openPage(page, 'Fleet');
      const kitCard = fleetCard(page, 'kit');
      await kitCard.pauseButton.waitFor();

      await pauseAllButton(page).click();
      await resumeAllButton(page).waitFor({ timeout: 10_000 });

      // At once: the very next call after the click is refused.
      await assert.rejects(kit.call('send_message', { conv_id: convId, text: 'one more thing' }), /paused/);
      await assert.rejects(h().agents.rex!.call('state_put', { key: 'k', value: 1, version: 0 }), /paused/);
      const paused = await kit.waitFor((e) => e.type === 'agent.paused', 15_000);
      assert.equal(paused.data?.by, 'owner');
      // Shown plainly on the card, and kit can still read.
      await kitCard.text('Paused by you').waitFor();
      await kitCard.resumeButton.waitFor();
      assert.equal((await kit.call('whoami')).paused, true);
      await h().screenshot('fleet-paused');

      await resumeAllButton(page).click();
      await pauseAllButton(page).waitFor({ timeout: 10_000 });
      await within(
        10_000,
        'kit resumed',
        kit.waitFor((e) => e.type === 'agent.resumed', 10_000),
      );
      await kit.call('send_message', { conv_id: convId, text: 'back to work' });
    },
  );

  test('Alt+Shift+P pauses every agent from any screen; one click on a fleet card resumes one agent', { timeout: 60_000 }, async () => {
    const { page } = h();
    await openPage(page, 'Agents');
    await screenTitle(page, 'Agents').click(); // focus out of any field (the shortcut is off while typing)
    await page.keyboard.press('Alt+Shift+KeyP');
    await resumeAllButton(page).waitFor({ timeout: 10_000 });
    await assert.rejects(h().agents.kit!.call('send_message', { conv_id: convId, text: 'x' }), /paused/);
    await openPage(page, 'Fleet');
    await fleetCard(page, 'kit').resumeButton.click();
    await fleetCard(page, 'kit').pauseButton.waitFor({ timeout: 10_000 });
    await h().agents.kit!.call('send_message', { conv_id: convId, text: 'kit alone resumed' });
    await assert.rejects(h().agents.rex!.call('state_put', { key: 'k', value: 1, version: 0 }), /paused/);
    assert.deepEqual(h().pageErrors, []);
  });
});
