// Deciding is safe and clear: a decision waits out a short undo window (a notice with Undo) before the hub hears
// of it; one item of the Approvals inbox has the keyboard's focus at a time, held items included; key hints on
// choice buttons read as keys; Settings can send decisions at once, and that choice survives a reload.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, openPage, ownerCall, within } from './harness';
import { on } from './pages/on';
import { screenTitle, settingsLink, sidebar } from './pages/app';
import { decisionNotice, heldCard, pendingCount, requestCard, undoButton } from './pages/approvals';

interface Req {
  request_id: string;
  state: string;
}

describe('deciding', () => {
  const h = useHarness({ agents: ['alice', 'bob'] });
  let convId: string;

  const stateOf = async (requestId: string): Promise<string> => {
    const { requests } = await ownerCall<{ requests: Req[] }>(h(), 'requests.list', {});
    return requests.find((r) => r.request_id === requestId)!.state;
  };

  before(
    async () => {
      convId = (await h().agents.alice!.call('create_group', { title: 'release', members: ['bob'] })).conversation.conv_id;
    },
    { timeout: 90_000 },
  );

  test(
    'Undo within the window sends nothing (still pending after the window); without Undo the decision reaches the hub when the window closes',
    { timeout: 90_000 },
    async () => {
      const { page } = h();
      const alice = h().agents.alice!;
      await openPage(page, 'Approvals');
      const merge = await alice.call('request_human', {
        conv_id: convId,
        kind: 'approve',
        title: 'Merge PR #482 and deploy',
        ttl_secs: 600,
      });
      const rotate = await alice.call('request_human', {
        conv_id: convId,
        kind: 'approve',
        title: 'Rotate the staging keys',
        ttl_secs: 1200,
      });
      const mergeCard = requestCard(page, 'Merge PR #482 and deploy');
      const rotateCard = requestCard(page, 'Rotate the staging keys');
      await mergeCard.waitFor();
      await rotateCard.waitFor();

      // a on the focused request (soonest to expire: the merge): it leaves the inbox, a notice offers Undo.
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.keyboard.press('a');
      const undo = undoButton(page);
      await undo.waitFor();
      await decisionNotice(page, 'Approve', 'Merge PR #482 and deploy').waitFor();
      await mergeCard.waitFor({ state: 'detached' });
      await pendingCount(page, 1).waitFor(); // the count leaves out what the owner decided
      assert.equal(await stateOf(merge.request_id), 'pending', 'the hub has not heard of the decision during the window');
      await h().screenshot('deciding-undo-notice');
      await undo.click();
      await mergeCard.waitFor();
      assert.match((await mergeCard.getAttribute('class')) ?? '', /\bselected\b/, 'the undone request has the focus again');

      // Approve the other one with a click and no Undo: pending at first, decided once its window closed.
      const waiting = alice.call('get_request', { request_id: rotate.request_id, wait_secs: 30 });
      await rotateCard.approve();
      assert.equal(await stateOf(rotate.request_id), 'pending', 'a decision is not sent before its window closes');
      const decided = await within(30_000, 'the approval after the window', waiting);
      assert.equal(decided.state, 'approved');
      // The rotate window opened after the merge was undone and has closed: the merge's would have closed too.
      assert.equal(await stateOf(merge.request_id), 'pending', 'the undone decision never reached the hub');
      await mergeCard.waitFor();
      assert.deepEqual(h().pageErrors, []);
    },
  );

  test('a decision still waiting when the page goes away is sent, not lost', { timeout: 60_000 }, async () => {
    const { page } = h();
    await openPage(page, 'Approvals');
    const req = await h().agents.alice!.call('request_human', {
      conv_id: convId,
      kind: 'approve',
      title: 'Publish the changelog?',
      ttl_secs: 300,
    });
    const waiting = h().agents.alice!.call('get_request', { request_id: req.request_id, wait_secs: 20 });
    await requestCard(page, 'Publish the changelog?').approve();
    await undoButton(page).first().waitFor();
    await page.reload();
    assert.equal((await within(20_000, 'the approval sent as the page left', waiting)).state, 'approved');
    await sidebar(page).waitFor({ timeout: 20_000 });
  });

  test(
    'one focused item across the inbox: a held item and a request are never both selected; keys act on the focused one',
    { timeout: 90_000 },
    async () => {
      const { page } = h();
      await ownerCall(h(), 'agents.set_review', { agent: 'bob', on: true });
      const sent = await h().agents.bob!.call('send_message', { conv_id: convId, text: 'Shipping tonight.' });
      assert.equal(sent.held, true);
      await openPage(page, 'Approvals');
      const held = heldCard(page, 'bob');
      await held.waitFor();
      await requestCard(page, 'Merge PR #482 and deploy').waitFor();
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      const selected = () => on(page).find('.approvals .request.selected').count();
      assert.equal(await selected(), 1, 'one item is focused');
      // Held items come first: k moves up to it, and then it alone is selected.
      await page.keyboard.press('k');
      await on(page).find('[data-held-id].selected').waitFor();
      assert.equal(await selected(), 1, 'one item is focused');

      // a does nothing on a held item (it is not a request); j moves to the request, and only it is selected.
      await page.keyboard.press('a');
      assert.equal(await undoButton(page).count(), 0, 'a on a held item decides nothing');
      await page.keyboard.press('j');
      await on(page).find('[data-request-id].selected').waitFor();
      assert.equal(await selected(), 1, 'still one focused item after moving');
      assert.doesNotMatch((await held.getAttribute('class')) ?? '', /\bselected\b/);
      // s acts on held items only: with the request focused, nothing is sent.
      await page.keyboard.press('s');
      assert.equal(await undoButton(page).count(), 0, 's on a request sends nothing');
      await ownerCall(h(), 'held.discard', { held_id: sent.held_id });
      await held.waitFor({ state: 'detached' });
    },
  );

  test('the 1–9 hints on choice buttons read as keys (a visible digit on a key cap)', { timeout: 60_000 }, async () => {
    const { page } = h();
    await openPage(page, 'Approvals');
    await h().agents.alice!.call('request_human', {
      conv_id: convId,
      kind: 'choose',
      title: 'Which region?',
      options: ['eu-west', 'us-east'],
      ttl_secs: 60,
    });
    const button = requestCard(page, 'Which region?').button('eu-west');
    await button.waitFor();
    // (No named functions inside evaluate: the test runner's transform would reference a helper the page lacks.)
    const look = await button.find('kbd').evaluate((k) => ({
      text: k.textContent,
      color: getComputedStyle(k).color,
      background: getComputedStyle(k).backgroundColor,
      border: getComputedStyle(k).borderTopStyle,
    }));
    const lum = (c: string) => {
      const [r, g, b] = (c.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
        const x = Number(v) / 255;
        return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const [l1, l2] = [lum(look.color), lum(look.background)];
    const contrast = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    assert.equal(look.text, '1');
    assert.ok(contrast >= 4.5, `the digit on its key cap has contrast ${contrast.toFixed(2)} (at least 4.5)`);
    assert.equal(look.border, 'solid', 'drawn as a key cap');
    assert.equal(await button.getAttribute('aria-keyshortcuts'), '1', 'the key is named for assistive technology');
    await h().screenshot('deciding-choice-keys');
  });

  test('Settings: "Send decisions at once" is kept across a reload and skips the undo window', { timeout: 60_000 }, async () => {
    const { page } = h();
    await settingsLink(page).click();
    const box = on(page).checkbox('Send decisions at once (no undo window)');
    assert.equal(await box.isChecked(), false, 'the undo window is the default');
    await box.check();
    await page.reload();
    await screenTitle(page, 'Settings').waitFor();
    assert.equal(await on(page).checkbox('Send decisions at once (no undo window)').isChecked(), true, 'the choice survives a reload');

    await openPage(page, 'Approvals');
    const req = await h().agents.alice!.call('request_human', { conv_id: convId, kind: 'approve', title: 'Tag v2.1?', ttl_secs: 600 });
    const waiting = h().agents.alice!.call('get_request', { request_id: req.request_id, wait_secs: 20 });
    await requestCard(page, 'Tag v2.1?').approve();
    assert.equal((await within(20_000, 'the approval', waiting)).state, 'approved');
    assert.equal(await undoButton(page).count(), 0, 'no undo notice when decisions go at once');
    assert.deepEqual(h().pageErrors, []);
  });
});
