// The live view: progress in the feed and the fleet, recalls, agent text kept inert, images, reactions,
// threads, pins, and a long history that stays virtualized.
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { useHarness, openConversation, openPage, timeline, within } from './harness';
import { on } from './pages/on';
import { sidebar } from './pages/app';
import { composer, message, messageById, replyInThread } from './pages/conversation';

describe('live view', () => {
  const h = useHarness({ agents: ['alice', 'bob'] });
  let convId: string;

  before(
    async () => {
      convId = (await h().agents.alice!.call('open_direct', { user: 'owner' })).conversation.conv_id;
      await h().agents.alice!.call('send_message', { conv_id: convId, text: 'Starting on the migration now.' });
      await openConversation(h().page, 'alice');
    },
    { timeout: 90_000 },
  );

  test('progress events appear live in the conversation feed and in the fleet view', { timeout: 60_000 }, async () => {
    const { page } = h();
    const alice = h().agents.alice!;
    const feed = on(page).feed('Progress in this conversation');
    await alice.call('progress', { conv_id: convId, kind: 'plan', text: 'Plan: dump, transform, load' });
    await alice.call('progress', {
      conv_id: convId,
      kind: 'tool_call',
      text: 'psql --dump orders',
      data: { table: 'orders', rows: 120000 },
    });
    await feed.text('Plan: dump, transform, load').waitFor();
    const call = feed.article('Tool call from alice');
    await call.text('psql --dump orders').waitFor();
    await call.text('Data').click();
    await call.text('120000').waitFor();
    await h().screenshot('conversation');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForTimeout(300); // let colour transitions finish
    await h().screenshot('conversation-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    await openPage(page, 'Fleet');
    const fleetFeed = on(page).feed('Progress feed');
    await alice.call('progress', { conv_id: convId, kind: 'thinking', text: 'Checking foreign keys' });
    await fleetFeed.text('Checking foreign keys').waitFor();
    await on(page)
      .button(/^alice: working/)
      .waitFor();
    await alice.call('progress', { conv_id: convId, kind: 'error', text: 'Constraint violation on orders.customer_id' });
    await fleetFeed.article('Error from alice').waitFor();
    await on(page).item('Agent alice').text('Constraint violation on orders.customer_id').waitFor(); // the error is its last report
    await on(page)
      .button(/^bob: (connected, idle|offline)/)
      .waitFor();
    await on(page)
      .img(/alice activity, last 30 minutes: [1-9]\d* reports/)
      .waitFor();
    await h().screenshot('fleet');
    await openConversation(page, 'alice');
  });

  test('a recalled message disappears from the conversation', { timeout: 60_000 }, async () => {
    const { page } = h();
    const alice = h().agents.alice!;
    const sent = await alice.call('send_message', { conv_id: convId, text: 'The staging password is hunter2' });
    const log = timeline(page);
    await log.text('The staging password is hunter2').waitFor();
    await alice.call('recall_message', { msg_id: sent.msg_id });
    await log.text('The staging password is hunter2').waitFor({ state: 'detached' });
    await log.text('This message was recalled.').waitFor();
    assert.equal(await on(page).text('hunter2').count(), 0);
  });

  test('agent-written <script> and <img onerror> stay inert text', { timeout: 60_000 }, async () => {
    const { page } = h();
    const alice = h().agents.alice!;
    const payloads = [
      '<script>alert("xss-script")</script>',
      '<img src=x onerror="window.__pwned=1;alert(\'xss-img\')">',
      '[click me](javascript:alert(1)) and <a href="javascript:alert(2)">a link</a>',
      '<iframe src="https://example.com"></iframe> <svg onload=alert(3)>',
    ];
    for (const text of payloads) await alice.call('send_message', { conv_id: convId, text });
    // The card path renders agent Markdown too.
    await alice.call('send_card', {
      conv_id: convId,
      text: 'card',
      card: { title: 'Inert card', blocks: [{ type: 'text', text: '<img src=x onerror="window.__pwned=2">' }] },
    });
    const log = timeline(page);
    await log.text('<script>alert("xss-script")</script>').waitFor();
    await log.text('<img src=x onerror="window.__pwned=1;alert(\'xss-img\')">').waitFor();
    await log.text('<svg onload=alert(3)>', { exact: false }).waitFor();
    await log.region('Card: Inert card').text('<img src=x onerror="window.__pwned=2">').waitFor();
    await page.waitForTimeout(300);
    assert.deepEqual(h().dialogs, [], 'no dialog may fire');
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
    assert.equal(await on(page).find('.msg script, .msg iframe, .msg svg[onload], .msg img[src="x"], .card img[src="x"]').count(), 0);
    assert.equal(await on(page).find('[onerror], [onload]').count(), 0);
    assert.equal(await on(page).find('a[href^="javascript" i]').count(), 0);
    assert.deepEqual(h().pageErrors, []);
  });

  test('an image shows as a thumbnail and opens full size; reactions, threads and pins work', { timeout: 60_000 }, async () => {
    const { page } = h();
    const alice = h().agents.alice!;
    const png = await sharp({ create: { width: 640, height: 400, channels: 3, background: { r: 40, g: 120, b: 200 } } })
      .png()
      .toBuffer();
    await alice.call('send_file', {
      conv_id: convId,
      name: 'chart.png',
      data: png.toString('base64'),
      caption: 'Throughput after the change',
    });
    const log = timeline(page);
    const thumb = log.button('View image chart.png');
    await thumb.find('img').waitFor();
    assert.ok(await thumb.find('img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), 'the thumbnail loads');
    await thumb.click();
    const viewer = on(page).dialog('chart.png');
    await viewer.img('chart.png').waitFor();
    assert.equal(await viewer.img('chart.png').evaluate((img: HTMLImageElement) => img.naturalWidth), 640);
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached' });

    // Reactions: the owner adds one (the agent sees it), then removes it.
    const sent = await alice.call('send_message', { conv_id: convId, text: 'Migration finished in 4 minutes.' });
    const msg = message(page, 'Migration finished in 4 minutes.', 'alice');
    await msg.react('🎉');
    const reaction = msg.button(/🎉 1, you reacted/);
    await reaction.waitFor();
    const ev = await alice.waitFor((e) => e.type === 'reaction.added' && e.message?.msg_id === sent.msg_id);
    assert.equal(ev.data?.key, '🎉');
    await reaction.click();
    await reaction.waitFor({ state: 'detached' });

    // Threads: the owner replies in a thread; the agent's reply shows there live.
    const thread = await msg.openThread();
    await replyInThread(page, 'Great, any errors?');
    const reply = await alice.waitFor((e) => e.type === 'message.created' && e.message?.text === 'Great, any errors?');
    assert.equal((reply.message as { thread_id?: string }).thread_id, sent.msg_id);
    await alice.call('send_message', { conv_id: convId, text: 'None at all.', thread_id: sent.msg_id });
    await thread.text('None at all.').waitFor();
    await msg.button(/2 replies/).waitFor();
    await h().screenshot('thread');
    await thread.button('Close thread').click();

    // Pins.
    await msg.pin();
    await msg.text('pinned').waitFor();
    await on(page).button('Pinned messages (1)').waitFor();
  });

  test('the owner edits and recalls their own message', { timeout: 60_000 }, async () => {
    const { page } = h();
    const alice = h().agents.alice!;
    await composer(page, 'alice').send('Lets ship on Fryday');
    const msgId = (await message(page, 'Lets ship on Fryday', 'owner').getAttribute('data-msg-id'))!;
    const mine = messageById(page, msgId);
    await mine.edit("Let's ship on Friday");
    await timeline(page).text("Let's ship on Friday").waitFor();
    await timeline(page).text('(edited)').waitFor();
    const ev = await alice.waitFor((e) => e.type === 'message.edited');
    assert.equal(ev.message?.text, "Let's ship on Friday");

    await mine.recall();
    await mine.text('This message was recalled.').waitFor();
    await alice.waitFor((e) => e.type === 'message.recalled' && e.message?.msg_id === msgId);
    assert.equal(await timeline(page).text("Let's ship on Friday").count(), 0);
  });

  test('a long history is virtualized and pages older messages on scroll up', { timeout: 240_000 }, async (t) => {
    const { page } = h();
    const bob = h().agents.bob!;
    const conv = (await bob.call('open_direct', { user: 'owner' })).conversation.conv_id;
    const N = 1200;
    // 1,200 messages in one conversation within a minute: the owner lifts bob's budget brake first (it stops
    // an agent at 60 messages per conversation per hour).
    const rt = JSON.parse(fs.readFileSync(path.join(h().dataDir, 'runtime.json'), 'utf8')) as { owner_token: string };
    const lifted = await fetch(`${h().baseUrl}/api/owner/agents.set_brakes`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${rt.owner_token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ agent: 'bob', budget: 'off' }),
    });
    assert.equal(lifted.status, 200, await lifted.text());
    for (let i = 0; i < N; i += 40) {
      await within(
        30_000,
        'seeding messages',
        Promise.all(
          Array.from({ length: Math.min(40, N - i) }, (_, j) =>
            bob.call('send_message', { conv_id: conv, text: `Line ${i + j + 1} of the long history` }),
          ),
        ),
      );
      await page.waitForTimeout(250); // pacing, not a wait: stay under the hub's per-agent rate limit (200 calls/s)
    }
    // Unread counts come live to the sidebar while the owner is elsewhere: 1,200 live events for the page to
    // apply, which takes a while on a loaded machine (wait for the count, not for a time).
    await sidebar(page)
      .link(new RegExp(`^bob .*${N} unread`))
      .waitFor({ timeout: 60_000 });
    await openConversation(page, 'bob');
    const log = timeline(page);
    const last = await bob.call('send_message', { conv_id: conv, text: 'The newest line' });
    assert.ok(last.seq > N);
    await log.text('The newest line').waitFor({ timeout: 30_000 });
    const rendered = await log.find('article').count();
    assert.ok(rendered > 5 && rendered < 120, `only what is near the viewport is in the DOM (got ${rendered})`);
    // Scroll to the top, again and again: each time an older page loads (before_seq) and renders above, until
    // the beginning. Each step waits for that state (an older line on screen, or the beginning), not for a time.
    const oldestShown = () =>
      log.evaluate((el) =>
        Math.min(
          ...[...el.querySelectorAll('article')].map((a) =>
            Number(/Line (\d+) of the long history/.exec(a.textContent ?? '')?.[1] ?? Infinity),
          ),
        ),
      );
    const beginning = log.text('This is the beginning of the conversation.');
    let steps = 0;
    const started = Date.now();
    for (;;) {
      const before = await oldestShown();
      await log.evaluate((el) => (el.scrollTop = 0));
      if (await beginning.isVisible()) break;
      await page.waitForFunction(
        ({ before }) => {
          const el = document.querySelector('[role="log"][aria-label="Messages"]');
          if (!el) return false;
          if ([...el.querySelectorAll('.timeline-start')].some((s) => s.textContent?.includes('This is the beginning'))) return true;
          const lines = [...el.querySelectorAll('article')].map((a) =>
            Number(/Line (\d+) of the long history/.exec(a.textContent ?? '')?.[1] ?? Infinity),
          );
          return Math.min(...lines) < before;
        },
        { before },
        { timeout: 30_000, polling: 100 },
      );
      steps++;
      assert.ok(steps <= 2 * Math.ceil(N / 50), `the top is reached in a bounded number of steps (${steps})`);
    }
    t.diagnostic(`reached the beginning in ${steps} steps, ${Date.now() - started} ms`);
    await log.text('Line 1 of the long history', { exact: true }).waitFor();
    assert.ok((await log.find('article').count()) < 150, 'still virtualized after loading everything');
    assert.deepEqual(h().pageErrors, []);
  });
});
