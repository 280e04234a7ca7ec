// Paging older messages holds at the top whatever else happens at that moment: a scroll to the top that a
// re-layout overtakes (its scroll event comes a frame later) still loads the older page; after a load that
// failed, scrolling up again at the top (where nothing moves and no scroll event fires) tries again; and a page
// that adds nothing above (all thread replies) does not leave the reader at the top with nothing more coming.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page, Request } from 'playwright-core';
import { useHarness, openConversation, ownerCall, timeline, within, type Agent } from './harness';
import { on } from './pages/on';
import { sidebar } from './pages/app';

const N = 500;

/** Sends texts as agent `a` in batches, paced under the hub's per-agent rate limit. */
async function seed(page: Page, a: Agent, texts: string[], extra: Record<string, unknown>): Promise<void> {
  for (let i = 0; i < texts.length; i += 40) {
    await within(30_000, 'seeding messages', Promise.all(texts.slice(i, i + 40).map((text) => a.call('send_message', { ...extra, text }))));
    await page.waitForTimeout(250); // pacing, not a wait: stay under the hub's per-agent rate limit
  }
}

const lines = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i + 1));

/** The lowest "Line n" among the messages in the DOM (Infinity: none). */
const oldestInDom = (page: Page) =>
  timeline(page).evaluate((el) =>
    Math.min(
      ...[...el.querySelectorAll('article')].map((a) => Number(/Line (\d+) of the history/.exec(a.textContent ?? '')?.[1] ?? Infinity)),
    ),
  );

/** Waits until a message older than `than` is in the DOM (an older page came in and rendered). */
const olderArrives = (page: Page, than: number, timeout: number) =>
  page.waitForFunction(
    (than) => {
      const el = document.querySelector('[role="log"][aria-label="Messages"]');
      const lines = [...(el?.querySelectorAll('article') ?? [])].map((a) =>
        Number(/Line (\d+) of the history/.exec(a.textContent ?? '')?.[1] ?? Infinity),
      );
      return Math.min(...lines) < than;
    },
    than,
    { timeout, polling: 100 },
  );

/** Two frames: scroll events of what was done before have been handled. */
const settle = (page: Page) =>
  timeline(page).evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));

describe('older pages at the top', () => {
  const h = useHarness({ agents: ['bob', 'kit'] });

  before(
    async () => {
      const { page } = h();
      const bob = h().agents.bob!;
      const conv = (await bob.call('open_direct', { user: 'owner' })).conversation.conv_id;
      await ownerCall(h(), 'agents.set_brakes', { agent: 'bob', budget: 'off' }); // 500 messages within a minute
      await seed(
        page,
        bob,
        lines(N, (i) => `Line ${i} of the history`),
        { conv_id: conv },
      );
      await sidebar(page)
        .link(new RegExp(`^bob .*${N} unread`))
        .waitFor({ timeout: 60_000 });
      await openConversation(page, 'bob');
      await timeline(page).text(`Line ${N} of the history`, { exact: true }).waitFor({ timeout: 30_000 });
    },
    { timeout: 180_000 },
  );

  test('a scroll to the top that a row growing in the same frame overtakes still loads the older page', { timeout: 60_000 }, async () => {
    const { page } = h();
    const log = timeline(page);
    // The reader is in the middle of the loaded messages (an item there is the list's anchor).
    await log.evaluate((el) => (el.scrollTop = Math.round(el.scrollHeight / 2)));
    await settle(page);
    const oldest = await oldestInDom(page);
    assert.ok(oldest > N - 100, `only the latest page is loaded (oldest in the DOM: ${oldest})`);
    const olderRequests: string[] = [];
    const count = (r: Request) => {
      if (r.url().endsWith('/conversations.history') && r.postData()?.includes('before_seq')) olderRequests.push(r.postData()!);
    };
    page.on('request', count);
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
    // One page for one scroll: the reader is now on the messages that were at the top, not near the top.
    await on(page).text('Loading older messages…').waitFor({ state: 'detached' });
    await settle(page);
    page.off('request', count);
    assert.equal(olderRequests.length, 1, `one older page was asked for: ${olderRequests.join(' ')}`);
    assert.ok((await log.evaluate((el) => el.scrollTop)) > 600, 'the reader is below the page that came in');
    assert.deepEqual(h().pageErrors, []);
  });

  test('after an older page failed to load, scrolling up again at the top loads it', { timeout: 60_000 }, async () => {
    const { page } = h();
    const log = timeline(page);
    // Wait out any load of the test before, then go to the top with the next older page's request failing once
    // (the connection drops).
    await on(page).text('Loading older messages…').waitFor({ state: 'detached' });
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
      await on(page)
        .text(/Could not load older messages/)
        .first()
        .waitFor();
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

describe('a page of thread replies at the top', () => {
  const h = useHarness({ agents: ['kit'] });

  test(
    'an older page that adds no rows (all thread replies) is followed by the next one while the reader stays at the top',
    { timeout: 180_000 },
    async () => {
      const { page } = h();
      const kit = h().agents.kit!;
      const conv = (await kit.call('open_direct', { user: 'owner' })).conversation.conv_id;
      await ownerCall(h(), 'agents.set_brakes', { agent: 'kit', budget: 'off' });
      // Oldest first: 20 messages, a thread root with 250 replies, then 100 messages. The first page is the 100
      // latest; the next older page (200 events) is all replies, which show in the thread, not in the timeline.
      await seed(
        page,
        kit,
        lines(20, (i) => `Early ${i}`),
        { conv_id: conv },
      );
      const root = await kit.call('send_message', { conv_id: conv, text: 'The thread root' });
      await seed(
        page,
        kit,
        lines(250, (i) => `Reply ${i}`),
        { conv_id: conv, thread_id: root.msg_id },
      );
      await seed(
        page,
        kit,
        lines(100, (i) => `Recent ${i}`),
        { conv_id: conv },
      );
      await sidebar(page)
        .link(/^kit .*unread/)
        .waitFor({ timeout: 60_000 });
      await openConversation(page, 'kit');
      const log = timeline(page);
      await log.text('Recent 100', { exact: true }).waitFor({ timeout: 30_000 });
      assert.equal(await log.text('The thread root').count(), 0, 'the thread root is not loaded yet');
      // One scroll to the top: the replies' page adds nothing above, so the reader is still at the top, and the
      // page before it (with the root and the early messages) comes in without another scroll.
      await log.evaluate((el) => (el.scrollTop = 0));
      await log.text('The thread root', { exact: true }).waitFor({ state: 'attached', timeout: 20_000 });
      assert.deepEqual(h().pageErrors, []);
    },
  );
});
