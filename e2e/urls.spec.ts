// URLs drive the view: a hash typed into the open tab, Back and Forward, and a navigation item opened in a new
// tab (navigation items are links with addresses) all show what the URL says.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, openPage } from './harness';
import { screenTitle, sidebar } from './pages/app';
import { approvalsTitle } from './pages/approvals';

describe('URLs drive the view', () => {
  const h = useHarness({ agents: ['alice'] });
  let convId: string;

  before(
    async () => {
      convId = (await h().agents.alice!.call('create_group', { title: 'Weekly sync', members: ['owner'] })).conversation.conv_id;
      await h().agents.alice!.call('send_message', { conv_id: convId, text: 'Agenda is up.' });
    },
    { timeout: 90_000 },
  );

  test('#/approvals typed into the open tab shows the Approvals inbox; #/c/<id> its conversation', { timeout: 60_000 }, async () => {
    const { page } = h();
    await openPage(page, 'Fleet');
    await page.goto(`${h().baseUrl}/#/approvals`); // same document: only the hash changes, as when typed in the address bar
    await approvalsTitle(page).waitFor();
    await page.goto(`${h().baseUrl}/#/c/${convId}`);
    await screenTitle(page, 'Weekly sync').waitFor();
    assert.deepEqual(h().pageErrors, []);
  });

  test('Back and Forward move between the views the owner opened', { timeout: 60_000 }, async () => {
    const { page } = h();
    await openPage(page, 'Fleet');
    await openPage(page, 'Agents');
    assert.match(page.url(), /#\/agents$/);
    await page.goBack();
    await screenTitle(page, 'Fleet').waitFor();
    assert.match(page.url(), /#\/fleet$/);
    await page.goForward();
    await screenTitle(page, 'Agents').waitFor();
    assert.deepEqual(h().pageErrors, []);
  });

  test('navigation items are links: their address opened in a new tab shows that view', { timeout: 60_000 }, async () => {
    const { page, context } = h();
    const nav = sidebar(page);
    const approvals = nav.link(/^Approvals/);
    assert.equal(await approvals.getAttribute('href'), '#/approvals');
    const conv = nav.link(/^Weekly sync/);
    assert.equal(await conv.getAttribute('href'), `#/c/${convId}`);

    // What "Open link in new tab" does: a new tab at the link's address (the owner session is shared by the origin).
    const tab = await context.newPage();
    try {
      await tab.goto(new URL((await approvals.getAttribute('href'))!, `${h().baseUrl}/`).href);
      await approvalsTitle(tab).waitFor({ timeout: 20_000 });
      await tab.goto(new URL((await conv.getAttribute('href'))!, `${h().baseUrl}/`).href);
      await screenTitle(tab, 'Weekly sync').waitFor();
      // A modified click opens a new tab rather than changing this one.
      const [popup] = await Promise.all([context.waitForEvent('page'), approvals.click({ modifiers: ['Control'] })]);
      await approvalsTitle(popup).waitFor({ timeout: 20_000 });
      await popup.close();
    } finally {
      await tab.close();
    }
    assert.deepEqual(h().pageErrors, []);
  });
});
