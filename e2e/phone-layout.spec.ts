// The owner UI on a phone at 390×844: one column with the Approvals inbox first, a bottom bar, request
// cards at full width, touch targets of 44 px, no sideways scroll (the Agents page too), an empty composer of one
// line; approving there reaches the agent's waiting get_request. Then a second browser context (the phone) pairs
// through /pair#<code>, and approves in device mode.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { useHarness, ARTIFACTS, within, ownerCall } from './harness';
import { on } from './pages/on';
import { agentList } from './pages/agents';
import { screenTitle, sidebar } from './pages/app';
import { approvalsTitle, nothingWaiting, requestCard } from './pages/approvals';
import { confirmPairing, notificationsButton, pairButton, pairOnPhone, showPairingQr } from './pages/phone';

const PHONE = { width: 390, height: 844 };

/** Sizes the inbox must meet on a phone: every visible button 44 px tall, nothing wider than the screen. */
async function phoneMetrics(page: Page) {
  return page.evaluate(() => {
    const small = [...document.querySelectorAll<HTMLElement>('main button, .bottombar button')]
      .filter((b) => b.offsetParent !== null)
      .map((b) => ({ text: (b.textContent ?? '').trim().slice(0, 40), h: b.getBoundingClientRect().height }))
      .filter((b) => b.h < 44);
    return { scrollWidth: document.scrollingElement!.scrollWidth, small };
  });
}

/** A phone of its own: a browser context (no owner session), phone-sized, with an Android phone's user agent. */
function androidPhone(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({
    viewport: PHONE,
    isMobile: true,
    hasTouch: true,
    colorScheme: 'light',
    userAgent: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36',
  });
}

describe('phone layout (390×844)', () => {
  const h = useHarness({ agents: ['alice'] });
  let convId: string;

  before(
    async () => {
      convId = (await h().agents.alice!.call('open_direct', { user: 'owner' })).conversation.conv_id;
      await h().page.setViewportSize(PHONE);
      await h().page.goto(`${h().baseUrl}/`);
    },
    { timeout: 90_000 },
  );

  test(
    'Approvals first, a bottom bar, full-width request, 44 px buttons, no sideways scroll; Approve reaches the agent',
    { timeout: 90_000 },
    async () => {
      const { page } = h();
      const alice = h().agents.alice!;
      // Approvals first (no view asked): the inbox, not the home page; the sidebar is not on screen.
      await approvalsTitle(page).waitFor();
      const bar = on(page).nav('Sections');
      await bar.waitFor();
      for (const name of ['Approvals', 'Conversations', 'Fleet'])
        assert.ok(await bar.link(new RegExp(`^${name}`)).isVisible(), `bottom bar item ${name}`);
      assert.equal(await sidebar(page).isVisible(), false, 'the sidebar is not beside the inbox on a phone');

      const req = await alice.call('request_human', {
        conv_id: convId,
        kind: 'approve',
        title: 'Deploy v2 to production with the new connection pool settings?',
        context: { service: 'api', replicas: 3, steps: ['drain', 'deploy', 'verify'] },
        ttl_secs: 3600,
      });
      let settled = false;
      const waiting = alice.call('get_request', { request_id: req.request_id, wait_secs: 60 }).finally(() => (settled = true));

      const card = requestCard(page, 'Deploy v2 to production with the new connection pool settings?');
      await card.waitFor({ timeout: 10_000 });
      await bar.link(/Approvals.*1 pending/).waitFor();
      const box = (await card.boundingBox())!;
      assert.ok(box.width >= 0.9 * PHONE.width, `the request card is ${box.width}px wide on a ${PHONE.width}px screen`);
      const barBox = (await bar.boundingBox())!;
      assert.ok(barBox.y + barBox.height <= PHONE.height + 1 && barBox.y > PHONE.height / 2, `the bar sits at the bottom (y=${barBox.y})`);
      const m = await phoneMetrics(page);
      assert.deepEqual(m.small, [], 'every button in the inbox is at least 44 px tall');
      assert.ok(m.scrollWidth <= PHONE.width, `no horizontal scroll (scrollWidth ${m.scrollWidth})`);
      await h().screenshot('phone-inbox');

      assert.equal(settled, false, 'get_request must still be waiting before the owner decides');
      await card.approve();
      const decided = await within(15_000, 'get_request to return', waiting);
      assert.equal(decided.state, 'approved');
      await nothingWaiting(page).waitFor();
      await h().screenshot('phone-inbox-decided');
    },
  );

  test('Conversations tab: the list at full width; a conversation full screen with a back button', { timeout: 60_000 }, async () => {
    const { page } = h();
    const bar = on(page).nav('Sections');
    await bar.link(/^Conversations/).click();
    const list = sidebar(page);
    await list.waitFor();
    assert.ok((await list.boundingBox())!.width >= PHONE.width - 1, 'the conversation list fills the width');
    const row = list.link(/^alice/).first();
    assert.ok((await row.boundingBox())!.height >= 44, 'a conversation row is a 44 px target');
    await h().screenshot('phone-conversations');
    await row.click();
    await screenTitle(page, 'alice', { exact: true }).waitFor();
    const main = (await on(page).region('Conversation alice').boundingBox())!;
    assert.ok(main.width >= PHONE.width - 1, `the conversation is full screen (${main.width}px)`);
    assert.equal(await list.isVisible(), false, 'the list is not beside the conversation');
    assert.ok((await phoneMetrics(page)).scrollWidth <= PHONE.width, 'no horizontal scroll in a conversation');
    const box = (await on(page)
      .textbox(/^Message/)
      .boundingBox())!;
    assert.ok(box.height <= 48, `the empty composer is one line (${box.height}px), its placeholder does not grow it`);
    await h().screenshot('phone-conversation');
    await on(page).button('Back to conversations').click();
    await list.waitFor();
  });

  test(
    "the Agents page fits the phone: the list, then an agent's detail at a readable width, its buttons on screen",
    { timeout: 60_000 },
    async () => {
      const { page } = h();
      await page.goto(`${h().baseUrl}/#/agents`);
      const row = agentList(page).item('Agent alice');
      await row.waitFor();
      await row.link().click();
      const pane = on(page).region('Agent alice details');
      await pane.waitFor();
      const info = (await pane.boundingBox())!;
      assert.ok(info.width >= 240, `alice's details are ${info.width.toFixed(0)}px wide`);
      const off = await pane
        .button()
        .evaluateAll(
          (bs, w) => bs.map((b) => ({ t: b.textContent?.trim(), r: b.getBoundingClientRect().right })).filter((b) => b.r > (w as number)),
          PHONE.width,
        );
      assert.deepEqual(off, [], 'every button of the detail is on screen');
      assert.ok((await phoneMetrics(page)).scrollWidth <= PHONE.width, 'no horizontal scroll on the Agents page');
      await h().screenshot('phone-agents');
    },
  );

  test('the request page /r/<request_id> (a notification tap) shows the request at full width', { timeout: 60_000 }, async () => {
    const { page } = h();
    const alice = h().agents.alice!;
    const req = await alice.call('request_human', {
      conv_id: convId,
      kind: 'choose',
      title: 'Which region for the replica?',
      options: ['eu-west', 'us-east'],
      ttl_secs: 600,
    });
    const waiting = alice.call('get_request', { request_id: req.request_id, wait_secs: 45 });
    await page.goto(`${h().baseUrl}/r/${req.request_id}`);
    const card = on(page).region('Which region for the replica?');
    await card.waitFor();
    assert.ok((await card.boundingBox())!.width >= 0.9 * PHONE.width, 'the request fills the screen');
    assert.deepEqual((await phoneMetrics(page)).small, [], 'every button on the request page is 44 px tall');
    await h().screenshot('phone-request');
    await card.button('us-east').click();
    const decided = await within(15_000, 'get_request to return', waiting);
    assert.equal(decided.state, 'chosen');
    assert.equal(decided.outcome.choice, 'us-east');
    await on(page)
      .button(/All approvals/)
      .click();
    await approvalsTitle(page).waitFor();
    assert.deepEqual(h().pageErrors, []);
  });

  test(
    'pairing: the phone opens /pair#<code>, both screens show the phrase, the laptop confirms, the phone approves in device mode',
    { timeout: 120_000 },
    async (t) => {
      // The device door (helper A's /api/device/*) answers 401 to a call without a credential; before it is merged the
      // path is served as the UI: this test then has nothing to drive and says so.
      const probe = await fetch(`${h().baseUrl}/api/device/me`);
      await probe.body?.cancel();
      if (probe.status !== 401) return t.skip('the device door (/api/device/*) is not in this build yet');
      const alice = h().agents.alice!;
      await ownerCall(h(), 'phone.set', { public_url: 'https://laptop.tail1234.ts.net' });
      const start = await ownerCall<{ url: string; pairing: { pairing_id: string } }>(h(), 'devices.pair_start', { scope: 'approvals' });
      const code = start.url.slice(start.url.indexOf('#') + 1);
      assert.ok(start.url.startsWith('https://laptop.tail1234.ts.net/pair#') && code.length >= 16, `a pairing link: ${start.url}`);

      // The phone: its own browser context (no owner session), phone-sized, an Android user agent. On loopback here;
      // through the HTTPS front in real use.
      const phoneCtx = await androidPhone(h().browser);
      try {
        const phone = await phoneCtx.newPage();
        phone.setDefaultTimeout(15_000);
        const phoneErrors: string[] = [];
        phone.on('pageerror', (e) => phoneErrors.push(e.message));
        await phone.goto(`${h().baseUrl}/pair#${code}`);
        const name = on(phone).textbox('Name of this device');
        assert.equal(await name.inputValue(), 'Android phone', 'the device name defaults from the user agent');
        assert.equal(new URL(phone.url()).hash, '', 'the code is taken out of the address bar');
        await name.fill('Pixel in my pocket');
        const phrase = await pairOnPhone(phone);
        await on(phone).text('Check that your laptop shows the same words, then confirm there.').waitFor();
        await phone.screenshot({ path: `${ARTIFACTS}/phone-pair-phrase.png` });

        // The laptop shows the same phrase (and the phone's name); the owner confirms it there.
        type Pairing = { state: string; phrase: string | null; device_name: string | null };
        let status: Pairing | null = null;
        for (let i = 0; i < 5 && status?.state !== 'claimed'; i++) {
          status = (
            await ownerCall<{ pairing: Pairing }>(h(), 'devices.pair_status', { pairing_id: start.pairing.pairing_id, wait_secs: 5 })
          ).pairing;
        }
        assert.equal(status?.state, 'claimed');
        assert.equal(status?.phrase, phrase, 'both screens show the same phrase');
        assert.equal(status?.device_name, 'Pixel in my pocket');
        await ownerCall(h(), 'devices.pair_confirm', { pairing_id: start.pairing.pairing_id, phrase });

        // The phone lands in its inbox, in device mode: scope approvals, so no bar, no sidebar.
        await approvalsTitle(phone).waitFor({ timeout: 40_000 });
        const stored = await phone.evaluate(() => ({
          device: localStorage.getItem('perch.device.token'),
          owner: localStorage.getItem('perch.owner.session'),
        }));
        assert.match(stored.device ?? '', /^pd_/, 'the device credential is kept');
        assert.equal(stored.owner, null, 'the phone has no owner session');
        assert.equal(await on(phone).nav('Sections').count(), 0, 'an approvals-only phone has no bottom bar');
        assert.equal(await sidebar(phone).count(), 0, 'an approvals-only phone has no conversation list');
        await notificationsButton(phone).waitFor();

        // A request arrives live on the phone; Approve there reaches the agent.
        const req = await alice.call('request_human', {
          conv_id: convId,
          kind: 'approve',
          title: 'Restart the billing worker?',
          ttl_secs: 600,
        });
        const waiting = alice.call('get_request', { request_id: req.request_id, wait_secs: 60 });
        const card = requestCard(phone, 'Restart the billing worker?');
        await card.waitFor({ timeout: 15_000 });
        assert.ok((await card.boundingBox())!.width >= 0.9 * PHONE.width, 'the request fills the phone screen');
        const m = await phoneMetrics(phone);
        assert.deepEqual(m.small, [], 'every button on the phone inbox is 44 px tall');
        assert.ok(m.scrollWidth <= PHONE.width, `no horizontal scroll on the phone (${m.scrollWidth})`);
        await phone.screenshot({ path: `${ARTIFACTS}/phone-device-inbox.png` });
        await card.approve();
        const decided = await within(15_000, 'get_request to return', waiting);
        assert.equal(decided.state, 'approved');
        await nothingWaiting(phone).waitFor();

        // The code worked once: opening the link again answers 410 with a clear message.
        const again = await phoneCtx.newPage();
        await again.goto(`${h().baseUrl}/pair#${code}`);
        await pairButton(again).click();
        await on(again).text('This pairing code was used or has expired — start a new pairing on the laptop').waitFor();
        await again.close();

        // Revoked on the laptop: the phone forgets its credential and says how to pair again.
        const { devices } = await ownerCall<{ devices: Array<{ id: string; name: string }> }>(h(), 'devices.list', {});
        const dev = devices.find((d) => d.name === 'Pixel in my pocket');
        assert.ok(dev, 'the laptop lists the phone');
        await ownerCall(h(), 'devices.revoke', { device_id: dev.id });
        await phone.reload();
        await on(phone).text("This phone's pairing was revoked — pair it again from the laptop (Settings → Phone).").waitFor();
        assert.equal(await phone.evaluate(() => localStorage.getItem('perch.device.token')), null, 'the revoked credential is forgotten');
        await phone.screenshot({ path: `${ARTIFACTS}/phone-revoked.png` });
        assert.deepEqual(phoneErrors, []);
      } finally {
        await phoneCtx.close();
      }
    },
  );

  test(
    'pairing names the device the same on both screens: the laptop (1280×800) named it "Pixel 8", the phone (390×844) suggested "Android phone" — both say "Pixel 8"',
    { timeout: 120_000 },
    async () => {
      const { page } = h();
      await ownerCall(h(), 'phone.set', { public_url: 'https://laptop.tail1234.ts.net' });
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(`${h().baseUrl}/#/phone`);
      const { code } = await showPairingQr(page, { name: 'Pixel 8' });
      const phoneCtx = await androidPhone(h().browser);
      try {
        const phone = await phoneCtx.newPage();
        phone.setDefaultTimeout(15_000);
        await phone.goto(`${h().baseUrl}/pair#${code}`);
        assert.equal(await on(phone).textbox('Name of this device').inputValue(), 'Android phone', 'the phone suggests a name of its own');
        await pairOnPhone(phone);
        assert.equal(
          await on(phone).field('Paired as').textContent(),
          'This phone will be paired as “Pixel 8”, the name the laptop shows.',
        );
        await phone.screenshot({ path: `${ARTIFACTS}/pair-name-phone.png` });

        const compare = on(page).group('Compare the words');
        await compare.waitFor({ timeout: 15_000 });
        assert.equal(await compare.field('Paired as').textContent(), 'It will be paired as “Pixel 8”, the name the phone shows.');
        assert.doesNotMatch(await on(page).find('main').innerText(), /Android phone/, 'the laptop names it the one way too');
        await page.screenshot({ path: `${ARTIFACTS}/pair-name.png` });
        await confirmPairing(page);
        await on(page)
          .status()
          .filter({ hasText: /^Paired Pixel 8\./ })
          .waitFor({ timeout: 15_000 });
        await approvalsTitle(phone).waitFor({ timeout: 40_000 });
        const { devices } = await ownerCall<{ devices: Array<{ name: string }> }>(h(), 'devices.list', {});
        assert.ok(
          devices.some((d) => d.name === 'Pixel 8'),
          'the device is Pixel 8',
        );
      } finally {
        await phoneCtx.close();
        await page.setViewportSize(PHONE);
      }
      assert.deepEqual(h().pageErrors, []);
    },
  );
});
