// Paging older messages holds at the top whatever else happens at that moment: a scroll to the top that a
// re-layout overtakes (its scroll event comes a frame later) still loads the older page, and after a load that
// failed, scrolling up again at the top (where nothing moves and no scroll event fires) tries again.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { useHarness, openConversation, ownerCall, timeline, within } from './harness';

const N = 500;

/** The lowest "Line n" among the messages in the DOM (Infinity: none). */
const oldestInDom = (page: Page) =>
  timeline(page).evaluate((el) =>
    Math.min(...[...el.querySelectorAll('article')].map((a) => Number(/Line (\d+) of the history/.exec(a.textContent ?? '')?.[1] ?? Infinity))),
  );

/** Waits until a message older than `than` is in the DOM (an older page came in and rendered). */
const olderArrives = (page: Page, than: number, timeout: number) =>
  page.waitForFunction(
    (than) => {
      const el = document.querySelector('[role="log"][aria-label="Messages"]');
      const lines = [...(el?.querySelectorAll('article') ?? [])].map((a) => Number(/Line (\d+) of the history/.exec(a.textContent ?? '')?.[1] ?? Infinity));
      return Math.min(...lines) < than;
    },
    than,
    { timeout, polling: 100 },
  );

/** Two frames: scroll events of what was done before have been handled. */
const settle = (page: Page) => timeline(page).evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));

describe('older pages at the top', () => {
  const h = useHarness({ agents: ['bob'] });

  before(async () => {
    const { page } = h();
    const bob = h().agents.bob!;
    const conv = (await bob.call('open_direct', { user: 'owner' })).conversation.conv_id;
    await ownerCall(h(), 'agents.set_brakes', { agent: 'bob', budget: 'off' }); // 500 messages within a minute
    for (let i = 0; i < N; i += 40) {
      await within(30_000, 'seeding messages', Promise.all(Array.from({ length: Math.min(40, N - i) }, (_, j) => bob.call('send_message', { conv_id: conv, text: `Line ${i + j + 1} of the history` }))));
      await page.waitForTimeout(250); // pacing, not a wait: stay under the hub's per-agent rate limit
    }
    await page.getByRole('navigation', { name: 'Perch' }).getByRole('link', { name: new RegExp(`^bob .*${N} unread`) }).waitFor({ timeout: 60_000 });
    await openConversation(page, 'bob');
    await timeline(page).getByText(`Line ${N} of the history`, { exact: true }).waitFor({ timeout: 30_000 });
  }, { timeout: 180_000 });

  test('a scroll to the top that a row growing in the same frame overtakes still loads the older page', { timeout: 60_000 }, async () => {
    const { page } = h();
    const log = timeline(page);
    // The reader is in the middle of the loaded messages (an item there is the list's anchor).
    await log.evaluate((el) => (el.scrollTop = Math.round(el.scrollHeight / 2)));
    await settle(page);
    const oldest = await oldestInDom(page);
    assert.ok(oldest > N - 100, `only the latest page is loaded (oldest in the DOM: ${oldest})`);
    // In one frame, after that frame's scroll events: the reader jumps to the top (its scroll event comes with the
    // next frame) and a row on screen grows (as when an image or a late font comes in), so the list re-lays out
    // before it hears of the scroll. It must keep the reader at the top, not put them back on the old anchor.
    await log.evaluate(
      (el) =>
        new Promise<void>((resolve) =>
          requestAnimationFrame(() => {
            const row = el.querySelector<HTMLElement>('.vl-item article');
            el.scrollTop = 0;
            if (row) row.style.paddingBottom = '48px';
            resolve();
          }),
        ),
    );
    await olderArrives(page, N - 100 + 1, 15_000);
    assert.deepEqual(h().pageErrors, []);
  });

  test('after an older page failed to load, scrolling up again at the top loads it', { timeout: 60_000 }, async () => {
    const { page } = h();
    const log = timeline(page);
    // Wait out any load of the test before, then go to the top with the next older page's request failing once
    // (the connection drops).
    await page.getByText('Loading older messages…').waitFor({ state: 'detached' });
    let failed = 0;
    await page.route('**/api/owner/conversations.history', async (route) => {
      if (failed === 0 && route.request().postData()?.includes('before_seq')) {
        failed++;
        await route.abort('failed');
      } else {
        await route.continue();
      }
    });
    try {
      await log.evaluate((el) => (el.scrollTop = 0));
      await page.getByText(/Could not load older messages/).first().waitFor();
      assert.equal(failed, 1);
      await settle(page);
      const oldest = await oldestInDom(page);
      assert.equal(await log.evaluate((el) => el.scrollTop), 0, 'the reader is still at the top');
      // Scrolling up at the top moves nothing (no scroll event); each wheel turn there asks again. The list waits a
      // moment after a failure before it retries, so turn the wheel now and then until the page is in.
      const box = (await log.boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      const deadline = Date.now() + 15_000;
      for (;;) {
        await page.mouse.wheel(0, -400);
        if ((await oldestInDom(page)) < oldest) break;
        assert.ok(Date.now() < deadline, 'the older page came in after scrolling up again at the top');
        await page.waitForTimeout(500); // the pace of a reader turning the wheel, not a wait for a state
      }
      assert.equal(failed, 1, 'the request failed once, then went through');
    } finally {
      await page.unroute('**/api/owner/conversations.history');
    }
    assert.deepEqual(h().pageErrors, []);
  });
});
