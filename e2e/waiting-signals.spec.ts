// Nothing waits unseen: the tab's title counts what waits for the owner — pending requests, items held for review,
// conversations handed to them (the Approvals count) — as "(2) Perch" and goes back to "Perch"; the favicon shows a
// dot meanwhile; after one opt-in (kept in this browser) a desktop notification names the agent and what it wants
// for what arrives while the tab is not focused (nothing for what arrived while it was), and clicking it opens the
// request's card. A real `perch serve` and Chromium at 1280×800 (the title at 390×844 too); Chromium's real
// Notification constructor runs, wrapped by an init script that records what was shown.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, openPage, ownerCall, within } from './harness';
import { on } from './pages/on';
import { settingsLink } from './pages/app';
import { pendingCount, requestCard } from './pages/approvals';

type Note = { title: string; body: string; tag: string };

/** Records every notification the page creates; the real constructor still runs (and shows it). */
const RECORD_NOTIFICATIONS = `(() => {
  const Real = window.Notification;
  if (typeof Real !== 'function') return;
  window.__notes = [];
  window.__noteObjects = [];
  class Recorded extends Real {
    constructor(title, options) {
      super(title, options);
      window.__notes.push({ title, body: (options && options.body) || '', tag: (options && options.tag) || '' });
      window.__noteObjects.push(this);
    }
  }
  Object.defineProperty(Recorded, 'permission', { get: () => Real.permission });
  Recorded.requestPermission = (...a) => Real.requestPermission(...a);
  window.Notification = Recorded;
})();`;

describe('waiting signals', () => {
  const h = useHarness({ agents: ['alice', 'bob'] });

  const title = () => h().page.title();
  const favicon = () => h().page.evaluate(() => document.querySelector('link[rel="icon"]')?.getAttribute('href') ?? null);
  /** Waits (bounded) until the tab's title is this. */
  const titleBecomes = async (want: string) => {
    await h()
      .page.waitForFunction((t) => document.title === t, want, { timeout: 10_000 })
      .catch(async () => {
        throw new Error(`the tab's title stayed "${await title()}", expected "${want}"`);
      });
  };
  const notes = () => h().page.evaluate(() => (window as unknown as { __notes: Note[] }).__notes);

  test(
    'the title counts requests, held items and handoffs ("(3) Perch") and goes back to "Perch"; the favicon shows a dot meanwhile; at 390×844 too',
    { timeout: 120_000 },
    async () => {
      const { page } = h();
      await page.setViewportSize({ width: 1280, height: 800 });
      const alice = h().agents.alice!;
      const bob = h().agents.bob!;
      await openPage(page, 'Fleet');
      await titleBecomes('Perch');
      assert.equal(await favicon(), './favicon.svg', 'no dot while nothing waits');

      const conv = (await alice.call('create_group', { title: 'release', members: ['bob'] })).conversation.conv_id as string;
      const req = await alice.call('request_human', { conv_id: conv, kind: 'approve', title: 'Merge PR #12?', ttl_secs: 600 });
      await titleBecomes('(1) Perch');
      assert.equal(await favicon(), './favicon-waiting.svg', 'the favicon shows a dot while something waits');
      assert.equal(
        (await page.request.get(new URL('./favicon-waiting.svg', page.url()).href)).status(),
        200,
        'the dotted favicon is served',
      );

      await ownerCall(h(), 'agents.set_review', { agent: 'bob', on: true });
      const held = await bob.call('send_message', { conv_id: conv, text: 'Shipping tonight.' });
      assert.equal(held.held, true);
      await titleBecomes('(2) Perch');
      await alice.call('handoff', { conv_id: conv, note: 'Can you confirm the budget?' });
      await titleBecomes('(3) Perch');
      await pendingCount(page, 3).waitFor(); // the same count as the inbox's
      await openPage(page, 'Approvals');
      await h().screenshot('waiting-title');

      // The phone layout: the same title.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.reload();
      await titleBecomes('(3) Perch');
      assert.equal(await favicon(), './favicon-waiting.svg');
      await page.setViewportSize({ width: 1280, height: 800 });

      // Decided elsewhere (the owner API), discarded, handed back: the count goes down to nothing.
      await ownerCall(h(), 'requests.decide', { request_id: req.request_id, decision: 'approve' });
      await titleBecomes('(2) Perch');
      await ownerCall(h(), 'held.discard', { held_id: held.held_id });
      await titleBecomes('(1) Perch');
      await ownerCall(h(), 'handoffs.hand_back', { conv_id: conv, note: 'Budget confirmed.' });
      await titleBecomes('Perch');
      assert.equal(await favicon(), './favicon.svg', 'the dot goes when nothing waits');
      await ownerCall(h(), 'agents.set_review', { agent: 'bob', on: false });
      assert.deepEqual(h().pageErrors, []);
    },
  );

  test(
    'after the owner turns desktop notifications on (kept across a reload), a request that arrives while the tab is not focused is notified naming the agent and what it wants; clicking it opens the card; nothing for what arrived while focused',
    { timeout: 120_000 },
    async () => {
      const { page, context } = h();
      await page.setViewportSize({ width: 1280, height: 800 });
      await context.grantPermissions(['notifications'], { origin: h().baseUrl });
      await context.addInitScript(RECORD_NOTIFICATIONS);
      await page.reload();
      await openPage(page, 'Approvals');

      const turnOn = on(page).button('Turn on desktop notifications');
      await turnOn.click();
      await turnOn.waitFor({ state: 'detached' });
      await page.reload();
      await settingsLink(page).click();
      await on(page).text('Desktop notifications are on in this browser').waitFor();
      assert.equal(await on(page).button('Turn on desktop notifications').count(), 0, 'the opt-in is remembered');
      await h().screenshot('settings-notifications');

      const alice = h().agents.alice!;
      const conv = (await alice.call('create_group', { title: 'ops', members: ['bob'] })).conversation.conv_id as string;

      // Focused: the owner sees it arrive; no notification.
      assert.equal(await page.evaluate(() => document.hasFocus()), true, 'the Perch tab is focused');
      const seen = await alice.call('request_human', { conv_id: conv, kind: 'approve', title: 'Restart the cache?', ttl_secs: 600 });
      await titleBecomes('(1) Perch');

      // Another tab in front: the Perch tab loses focus for real (Playwright's focus emulation off for it).
      const cdp = await context.newCDPSession(page);
      await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: false });
      const other = await context.newPage();
      try {
        assert.equal(await page.evaluate(() => document.hasFocus()), false, 'the Perch tab is in the background');
        const req = await alice.call('request_human', { conv_id: conv, kind: 'approve', title: 'Rotate the staging keys?', ttl_secs: 600 });
        await titleBecomes('(2) Perch');
        await page.waitForFunction(() => (window as unknown as { __notes: Note[] }).__notes.length > 0, undefined, { timeout: 10_000 });
        assert.deepEqual(
          await notes(),
          [{ title: 'alice asks you to decide', body: 'Rotate the staging keys?', tag: `r:${req.request_id}` }],
          'one notification, for the request that came while the tab was in the background',
        );

        // The owner clicks it: the tab opens that request's card.
        await page.evaluate(() => {
          const list = (window as unknown as { __noteObjects: Notification[] }).__noteObjects;
          list[list.length - 1]!.dispatchEvent(new Event('click'));
        });
        await page.waitForFunction((id) => location.hash === `#/r/${id}`, req.request_id, { timeout: 10_000 });
        await requestCard(page, 'Rotate the staging keys?').approveButton.waitFor();
      } finally {
        await other.close();
        await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: true }).catch(() => {});
      }
      assert.ok(!(await notes()).some((n) => n.tag === `r:${seen.request_id}`), 'nothing for the request seen while the tab was focused');
      await within(10_000, 'the owner to decide', ownerCall(h(), 'requests.decide', { request_id: seen.request_id, decision: 'reject' }));
      assert.deepEqual(h().pageErrors, []);
    },
  );
});
