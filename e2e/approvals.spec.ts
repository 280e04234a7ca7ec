// Requests end to end: an agent asks over MCP, the owner decides in the browser, the agent's waiting
// get_request returns the decision.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, openConversation, openPage, timeline, within } from './harness';
import { on } from './pages/on';
import { sidebar } from './pages/app';
import { nothingWaiting, pendingCount, requestCard } from './pages/approvals';

describe('approvals', () => {
  const h = useHarness({ agents: ['alice'] });
  let convId: string;

  before(
    async () => {
      convId = (await h().agents.alice!.call('open_direct', { user: 'owner' })).conversation.conv_id;
    },
    { timeout: 90_000 },
  );

  test("an agent's request appears live and Approve makes its waiting get_request return approved", { timeout: 90_000 }, async () => {
    const { page } = h();
    const alice = h().agents.alice!;
    await openPage(page, 'Approvals');
    await nothingWaiting(page).waitFor();

    const req = await alice.call('request_human', {
      conv_id: convId,
      kind: 'approve',
      title: 'Deploy v2 to production?',
      context: { service: 'api', replicas: 3, steps: ['drain', 'deploy', 'verify'] },
      ttl_secs: 3600,
    });
    let settled = false;
    const waiting = alice.call('get_request', { request_id: req.request_id, wait_secs: 45 }).finally(() => (settled = true));

    // Live: no reload, the card and the inbox count appear.
    const card = requestCard(page, 'Deploy v2 to production?');
    await card.waitFor({ timeout: 10_000 });
    await pendingCount(page, 1).waitFor();
    await card.text('Context').waitFor();
    await card.text('"api"').waitFor();
    await card.text(/left$/).waitFor();
    assert.equal(settled, false, 'get_request must still be waiting before the owner decides');
    await h().screenshot('approvals-inbox');
    // A short name leaves its chips their room: "1 to decide" beside alice is not cut.
    const chip = sidebar(page).find('.conv-item', { hasText: 'alice' }).find('.chip-pending');
    assert.equal(await chip.evaluate((el) => el.scrollWidth <= el.clientWidth), true, `the chip reads in full: ${await chip.innerText()}`);

    await card.approve({ comment: 'Go ahead, watch the error rate.' });

    const decided = await within(15_000, 'get_request to return', waiting);
    assert.equal(decided.state, 'approved');
    assert.equal(decided.outcome.decision, 'approve');
    assert.equal(decided.outcome.comment, 'Go ahead, watch the error rate.');
    await nothingWaiting(page).waitFor();
    await on(page).region('Decided requests').text('Approved').first().waitFor();
  });

  test('a choose request inline in the conversation: clicking an option returns it to the agent', { timeout: 60_000 }, async () => {
    const { page } = h();
    const alice = h().agents.alice!;
    await openConversation(page, 'alice');
    const req = await alice.call('request_human', {
      conv_id: convId,
      kind: 'choose',
      title: 'Which region?',
      options: ['eu-west', 'us-east'],
    });
    const waiting = alice.call('get_request', { request_id: req.request_id, wait_secs: 45 });
    const card = requestCard(timeline(page), 'Which region?');
    await card.waitFor();
    await card.choose('us-east');
    const decided = await within(15_000, 'get_request to return', waiting);
    assert.equal(decided.state, 'chosen');
    assert.equal(decided.outcome.choice, 'us-east');
    await card.state('Chosen').waitFor();
  });

  test('keyboard in the inbox: j/k move, r rejects, a answers with the typed answer', { timeout: 60_000 }, async () => {
    const { page } = h();
    const alice = h().agents.alice!;
    await openPage(page, 'Approvals');
    const r1 = await alice.call('request_human', { conv_id: convId, kind: 'approve', title: 'Delete the old bucket?', ttl_secs: 600 });
    const r2 = await alice.call('request_human', {
      conv_id: convId,
      kind: 'answer',
      title: 'What should the release be called?',
      ttl_secs: 1200,
    });
    const w1 = alice.call('get_request', { request_id: r1.request_id, wait_secs: 45 });
    const card2 = requestCard(page, 'What should the release be called?');
    await card2.waitFor();
    await requestCard(page, 'Delete the old bucket?').waitFor();
    // Soonest to expire first: the bucket request is selected; r rejects it.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('r');
    const d1 = await within(15_000, 'reject via keyboard', w1);
    assert.equal(d1.state, 'rejected');
    // The answer request is selected next; type the answer, then a sends it.
    await card2.answerField.fill('Kestrel');
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    await page.keyboard.press('a');
    const d2 = await alice.call('get_request', { request_id: r2.request_id, wait_secs: 15 });
    assert.equal(d2.state, 'answered');
    assert.equal(d2.outcome.answer, 'Kestrel');
    assert.deepEqual(h().pageErrors, []);
  });
});
