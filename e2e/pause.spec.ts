// Owner control end to end: the owner pauses every agent with one click in the browser and an
// agent's next send is refused at once with `paused`; the fleet view shows it plainly; resume lets it go on.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, openPage, within } from './harness';

describe('pause', () => {
  const h = useHarness({ agents: ['kit', 'rex'] });
  let convId: string;

  before(async () => {
    convId = (await h().agents.kit!.call('open_direct', { user: 'owner' })).conversation.conv_id;
  }, { timeout: 90_000 });

  test('one click on "Pause all agents" refuses an agent\'s send at once; the fleet shows them paused; Resume all lets them go on', { timeout: 90_000 }, async () => {
    const { page } = h();
    const kit = h().agents.kit!;
    await kit.call('send_message', { conv_id: convId, text: 'working on it' });
    await openPage(page, 'Fleet');
    const kitCard = page.getByRole('listitem', { name: 'Agent kit' });
    await kitCard.getByRole('button', { name: 'Pause kit' }).waitFor();

    await page.getByRole('button', { name: 'Pause all agents' }).click();
    await page.getByRole('button', { name: 'Resume all agents' }).waitFor({ timeout: 10_000 });

    // At once: the very next call after the click is refused.
    await assert.rejects(kit.call('send_message', { conv_id: convId, text: 'one more thing' }), /paused/);
    await assert.rejects(h().agents.rex!.call('state_put', { key: 'k', value: 1, version: 0 }), /paused/);
    const paused = await kit.waitFor((e) => e.type === 'agent.paused', 15_000);
    assert.equal(paused.data?.by, 'owner');
    // Shown plainly on the card, and kit can still read.
    await kitCard.getByText('Paused by you').waitFor();
    await kitCard.getByRole('button', { name: 'Resume kit' }).waitFor();
    assert.equal((await kit.call('whoami')).paused, true);
    await h().screenshot('fleet-paused');

    await page.getByRole('button', { name: 'Resume all agents' }).click();
    await page.getByRole('button', { name: 'Pause all agents' }).waitFor({ timeout: 10_000 });
    await within(10_000, 'kit resumed', kit.waitFor((e) => e.type === 'agent.resumed', 10_000));
    await kit.call('send_message', { conv_id: convId, text: 'back to work' });
  });

  test('Alt+Shift+P pauses every agent from any screen; one click on a fleet card resumes one agent', { timeout: 60_000 }, async () => {
    const { page } = h();
    await openPage(page, 'Agents');
    await page.getByRole('heading', { name: 'Agents', level: 1 }).click(); // focus out of any field (the shortcut is off while typing)
    await page.keyboard.press('Alt+Shift+KeyP');
    await page.getByRole('button', { name: 'Resume all agents' }).waitFor({ timeout: 10_000 });
    await assert.rejects(h().agents.kit!.call('send_message', { conv_id: convId, text: 'x' }), /paused/);
    await openPage(page, 'Fleet');
    await page.getByRole('listitem', { name: 'Agent kit' }).getByRole('button', { name: 'Resume kit' }).click();
    await page.getByRole('listitem', { name: 'Agent kit' }).getByRole('button', { name: 'Pause kit' }).waitFor({ timeout: 10_000 });
    await h().agents.kit!.call('send_message', { conv_id: convId, text: 'kit alone resumed' });
    await assert.rejects(h().agents.rex!.call('state_put', { key: 'k', value: 1, version: 0 }), /paused/);
    assert.deepEqual(h().pageErrors, []);
  });
});
