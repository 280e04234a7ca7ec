// Hostile agent text never takes the owner's UI down. An agent sends what overflowed the Markdown renderer
// ('> ' x 3000), what cost it seconds ('_a' x 16384) and a 32,768-character line without spaces, into a
// conversation and (under review) into the Approvals inbox: the app still shows the conversation, its other
// messages, its header and composer, and the inbox; a message whose stored content is broken shows "Could
// not show this message" with its raw text, not a blank app; and the owner hides a message, which stays
// hidden after a reload.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { useHarness, openConversation, openPage, ownerCall, timeline } from './harness';
import { on } from './pages/on';
import { screenTitle } from './pages/app';
import { approvalsTitle, heldCard, requestCard } from './pages/approvals';
import { messageById } from './pages/conversation';

const QUOTE_BOMB = '> '.repeat(3000) + 'x';
const EMPHASIS_RUN = '_a'.repeat(16384);
const MAX_TEXT = 32 * 1024; // LIMITS.maxTextChars
const UNBROKEN = 'y'.repeat(MAX_TEXT);

/** Nothing is wider than the window, and the conversation's header and composer are on screen. */
async function assertLayoutHolds(page: Page, title: string): Promise<void> {
  await screenTitle(page, title, { exact: true }).waitFor();
  const composer = on(page).textbox(`Message ${title}`);
  await composer.waitFor();
  const box = await composer.boundingBox();
  const head = await screenTitle(page, title, { exact: true }).boundingBox();
  const vp = page.viewportSize()!;
  assert.ok(
    box && box.y >= 0 && box.y + box.height <= vp.height && box.x + box.width <= vp.width,
    `the composer is on screen: ${JSON.stringify(box)}`,
  );
  assert.ok(
    head && head.y >= 0 && head.y < vp.height && head.x + head.width <= vp.width,
    `the header is on screen: ${JSON.stringify(head)}`,
  );
  const widths = await page.evaluate(() => {
    const log = document.querySelector('[role="log"][aria-label="Messages"]') as HTMLElement | null;
    return { doc: document.documentElement.scrollWidth, win: window.innerWidth, log: log ? log.scrollWidth - log.clientWidth : -1 };
  });
  assert.ok(widths.doc <= widths.win, `the page is not wider than the window: ${JSON.stringify(widths)}`);
  assert.equal(widths.log, 0, 'the timeline does not scroll sideways');
}

/** Scrolls the timeline to its top and waits for a message text there (the list renders what is on screen). */
async function seeAtTop(page: Page, text: string): Promise<void> {
  await timeline(page).evaluate((el) => {
    el.scrollTop = 0;
  });
  await timeline(page).text(text, { exact: true }).waitFor();
}

/** Scrolls the timeline to its end (where it then stays as messages arrive) and waits for a message text. */
async function seeAtBottom(page: Page, text: string): Promise<void> {
  await timeline(page).evaluate((el) => {
    el.scrollTop = el.scrollHeight;
  });
  await timeline(page).text(text, { exact: true }).waitFor();
}

describe('hostile agent text', () => {
  const h = useHarness({ agents: ['loud', 'calm'] });
  let convId: string;
  const ids: Record<string, string> = {};

  before(
    async () => {
      const loud = h().agents.loud!;
      convId = (await loud.call('open_direct', { user: 'owner' })).conversation.conv_id;
      await loud.call('send_message', { conv_id: convId, text: 'calm before' });
      ids.bomb = (await loud.call('send_message', { conv_id: convId, text: QUOTE_BOMB })).msg_id;
      ids.emphasis = (await loud.call('send_message', { conv_id: convId, text: EMPHASIS_RUN })).msg_id;
      ids.unbroken = (await loud.call('send_message', { conv_id: convId, text: UNBROKEN })).msg_id;
      await loud.call('send_message', { conv_id: convId, text: 'calm after' });
    },
    { timeout: 90_000 },
  );

  test('a 40,000-character message is refused by the hub (the longest accepted is 32,768)', { timeout: 30_000 }, async () => {
    await assert.rejects(h().agents.loud!.call('send_message', { conv_id: convId, text: 'z'.repeat(40_000) }), /too_large.*32768/);
  });

  test(
    'the conversation with the hostile messages shows, with its other messages, header and composer, before and after a reload',
    { timeout: 120_000 },
    async () => {
      const { page } = h();
      await openConversation(page, 'loud');
      await timeline(page).text('calm after', { exact: true }).waitFor();
      await assertLayoutHolds(page, 'loud');
      // The unbroken line wraps inside its bubble.
      const unbroken = on(page).find(`[data-msg-id="${ids.unbroken}"] .md-plain`);
      await unbroken.waitFor();
      const ub = (await unbroken.boundingBox())!;
      assert.ok(ub.width < page.viewportSize()!.width, `the long line wraps (${ub.width} px wide)`);
      await h().screenshot('hostile-text-conversation');

      // The quote bomb and the emphasis run are shown as plain text.
      await seeAtTop(page, 'calm before');
      const bomb = messageById(page, ids.bomb);
      await bomb.find('.md-plain').waitFor();
      assert.ok((await bomb.find('.md-plain').textContent())!.startsWith('> > > '));
      assert.equal(await bomb.find('blockquote').count(), 0);
      await assertLayoutHolds(page, 'loud');

      await page.reload();
      await screenTitle(page, 'loud', { exact: true }).waitFor({ timeout: 20_000 });
      await timeline(page).text('calm after', { exact: true }).waitFor();
      await assertLayoutHolds(page, 'loud');
      assert.deepEqual(h().pageErrors, []);
    },
  );

  test('the owner hides the hostile message; it stays hidden after a reload and Show brings it back', { timeout: 90_000 }, async () => {
    const { page } = h();
    await seeAtTop(page, 'calm before');
    const bomb = messageById(page, ids.bomb);
    await bomb.find('.md-plain').waitFor();
    await bomb.hide();
    const note = on(page).article('Hidden message from loud');
    await note.waitFor();
    assert.equal(await bomb.find('.md-plain').count(), 0, 'the hidden content is not rendered');

    await page.reload();
    await screenTitle(page, 'loud', { exact: true }).waitFor({ timeout: 20_000 });
    await seeAtTop(page, 'calm before');
    await note.waitFor();
    const hist = await ownerCall<{ events: Array<{ message?: { msg_id: string; hidden?: boolean } }> }>(h(), 'conversations.history', {
      conv_id: convId,
    });
    assert.equal(hist.events.find((e) => e.message?.msg_id === ids.bomb)?.message?.hidden, true);
    const agentHist = await h().agents.loud!.call('get_history', { conv_id: convId });
    assert.equal(agentHist.events.find((e: any) => e.message?.msg_id === ids.bomb)?.message?.hidden, undefined, 'the agent sees no change');

    await note.button('Show the hidden message from loud').click();
    await bomb.find('.md-plain').waitFor();
    assert.deepEqual(h().pageErrors, []);
  });

  test(
    'a message whose stored content cannot be shown is a small note with its raw text; the rest of the app goes on',
    { timeout: 90_000 },
    async () => {
      const { page } = h();
      const loud = h().agents.loud!;
      const card = await loud.call('send_card', {
        conv_id: convId,
        text: 'broken card',
        card: { title: 'Fine card', blocks: [{ type: 'text', text: 'card *body*' }] },
      });
      await loud.call('send_message', { conv_id: convId, text: 'after the card' });
      await seeAtBottom(page, 'after the card');
      // The stored card is damaged in the SQLite file (its blocks are not a list), as an old or broken row would be.
      const db = new Database(path.join(h().dataDir, 'perch.sqlite'));
      try {
        db.pragma('busy_timeout = 5000');
        const changed = db
          .prepare("UPDATE messages SET payload = json_set(payload, '$.card.blocks', 'not a list') WHERE id = ?")
          .run(card.msg_id).changes;
        assert.equal(changed, 1);
      } finally {
        db.close();
      }
      await page.reload();
      await screenTitle(page, 'loud', { exact: true }).waitFor({ timeout: 20_000 });
      const broken = messageById(page, card.msg_id);
      await broken.text('Could not show this message.').waitFor();
      await broken.text('Show the raw text').click();
      await broken.text('broken card').waitFor();
      await timeline(page).text('after the card', { exact: true }).waitFor();
      await assertLayoutHolds(page, 'loud');
      // The sidebar and the other pages still work.
      await openPage(page, 'Approvals');
      await openConversation(page, 'loud');
      await broken.text('Could not show this message.').waitFor();
      // pageerror lists uncaught errors: the boundary caught this one (React logs it to the console only).
      assert.deepEqual(h().pageErrors, []);
    },
  );

  test('held for review, the hostile messages show in the Approvals inbox with the requests', { timeout: 120_000 }, async () => {
    const { page } = h();
    const loud = h().agents.loud!;
    const calm = h().agents.calm!;
    await ownerCall(h(), 'agents.set_review', { agent: 'loud', on: true });
    const heldBomb = await loud.call('send_message', { conv_id: convId, text: QUOTE_BOMB });
    const heldRun = await loud.call('send_message', { conv_id: convId, text: EMPHASIS_RUN });
    const heldLong = await loud.call('send_message', { conv_id: convId, text: UNBROKEN });
    assert.ok(heldBomb.held && heldRun.held && heldLong.held, 'the sends are held');
    const calmConv = (await calm.call('open_direct', { user: 'owner' })).conversation.conv_id;
    await calm.call('request_human', {
      conv_id: calmConv,
      kind: 'approve',
      title: 'Ship the calm release?',
      context: { log: 'z'.repeat(30_000) },
      ttl_secs: 3600,
    });

    await openPage(page, 'Approvals');
    await requestCard(page, 'Ship the calm release?').waitFor();
    const held = heldCard(page, 'loud');
    await held.nth(2).waitFor();
    assert.equal(await held.count(), 3);
    assert.equal(await on(page).find('[data-held-id] .md-plain').count(), 3, 'each held text is plain text (over a budget)');
    const request = requestCard(page, 'Ship the calm release?');
    await request.text('Context', { exact: true }).click();
    await request.text(/^"zzzz/).waitFor(); // the request's 30,000-character context string, open
    const widths = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, win: window.innerWidth }));
    assert.ok(widths.doc <= widths.win, `the inbox is not wider than the window: ${JSON.stringify(widths)}`);
    await h().screenshot('hostile-text-inbox');

    await page.reload();
    await approvalsTitle(page).waitFor({ timeout: 20_000 });
    await held.nth(2).waitFor();
    await requestCard(page, 'Ship the calm release?').waitFor();
    // Discarding from the inbox still works.
    await on(held.nth(0)).button('Discard').click();
    await held.nth(1).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('[data-held-id]').length === 2);
    assert.deepEqual(h().pageErrors, []);
  });
});
