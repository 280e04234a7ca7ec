// A paired phone at 390×844, in device mode: a handoff to the owner shows in an approvals-only phone's
// inbox (live, and after a reload) and "Hand back" there reaches the agent's get_updates; "Turn on notifications" on a
// browser without a push service says so and changes nothing; "Forget this phone" (with a confirm step) forgets the
// credential and shows how to pair again; a full-access phone has no "Sign out" and its message actions open on a tap.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { useHarness, ARTIFACTS, openConversation, within, ownerCall, type Harness } from './harness';
import { on } from './pages/on';
import { screenTitle, sidebar } from './pages/app';
import { approvalsTitle, nothingWaiting } from './pages/approvals';
import { message } from './pages/conversation';
import { notificationsButton } from './pages/phone';

const PHONE = { width: 390, height: 844 };
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36';

async function door<T = any>(h: Harness, path: string, body: unknown): Promise<T> {
  const res = await fetch(`${h.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const j = (await res.json()) as { ok: boolean; value?: T; error?: { message: string } };
  if (!j.ok) throw new Error(`${path} (${res.status}): ${j.error?.message}`);
  return j.value as T;
}

/**
 * Pairs a device through the real device door (claim, the laptop confirms the phrase, the credential once). The /pair
 * page's own steps are driven in phone-layout.spec.ts; here the phone starts paired.
 */
async function pairDevice(h: Harness, name: string, scope: 'approvals' | 'full'): Promise<{ token: string; id: string }> {
  const start = await ownerCall<{ url: string; pairing: { pairing_id: string } }>(h, 'devices.pair_start', { scope });
  const code = start.url.slice(start.url.indexOf('#') + 1);
  const claim = await door<{ pairing_id: string; claim_secret: string; phrase: string }>(h, '/api/device/pair/claim', {
    code,
    device_name: name,
  });
  await ownerCall(h, 'devices.pair_confirm', { pairing_id: start.pairing.pairing_id, phrase: claim.phrase });
  const got = await door<{ device_token?: string; device?: { id: string } }>(h, '/api/device/pair/wait', {
    pairing_id: claim.pairing_id,
    claim_secret: claim.claim_secret,
    wait_secs: 5,
  });
  assert.match(got.device_token ?? '', /^pd_/, 'the pairing answers a device credential');
  return { token: got.device_token!, id: got.device!.id };
}

/** A phone-sized touch browser context holding a device credential, on the inbox. */
async function openPhone(h: Harness, token: string): Promise<{ ctx: BrowserContext; phone: Page; errors: string[] }> {
  const ctx = await h.browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true, colorScheme: 'light', userAgent: ANDROID });
  await ctx.addInitScript((t) => {
    if (!sessionStorage.getItem('seeded')) {
      localStorage.setItem('perch.device.token', t);
      sessionStorage.setItem('seeded', '1');
    }
  }, token);
  const phone = await ctx.newPage();
  phone.setDefaultTimeout(15_000);
  const errors: string[] = [];
  phone.on('pageerror', (e) => errors.push(e.message));
  await phone.goto(`${h.baseUrl}/`);
  await approvalsTitle(phone).waitFor();
  return { ctx, phone, errors };
}

describe('a paired phone (390×844): handoffs, notifications, forget, touch', () => {
  const h = useHarness({ agents: ['alice'] });
  let doorReady = false;

  before(
    async () => {
      await h().page.goto(`${h().baseUrl}/`);
      await screenTitle(h().page).first().waitFor();
      // The device door (/api/device/*) answers 401 without a credential; a build without it serves the UI there.
      const probe = await fetch(`${h().baseUrl}/api/device/me`);
      await probe.body?.cancel();
      doorReady = probe.status === 401;
      if (doorReady) await ownerCall(h(), 'phone.set', { public_url: 'https://laptop.tail1234.ts.net' });
    },
    { timeout: 90_000 },
  );

  test(
    'approvals-only phone: a handoff to the owner shows (live and after a reload) and Hand back reaches the agent',
    { timeout: 120_000 },
    async (t) => {
      if (!doorReady) return t.skip('the device door (/api/device/*) is not in this build yet');
      const alice = h().agents.alice!;
      const { token } = await pairDevice(h(), 'Handoff phone', 'approvals');
      const { ctx, phone, errors } = await openPhone(h(), token);
      try {
        const task = (await alice.call('create_task', { title: 'Renew the TLS certificate for billing', members: ['owner'] })).conversation;
        assert.equal(await on(phone).region('Handed to you').count(), 0, 'nothing handed off yet');

        // Live: the handoff arrives while the phone is open.
        await alice.call('handoff', { conv_id: task.conv_id, note: 'The registrar asks for a DNS record.\nCan you add it?' });
        const section = on(phone).region('Handed to you');
        const item = section.article('Handoff from alice: Renew the TLS certificate for billing');
        await item.waitFor();
        await item.text('The registrar asks for a DNS record.').waitFor();
        assert.equal(
          await item.button('Renew the TLS certificate for billing').count(),
          0,
          'the title is text: this phone cannot open conversations',
        );
        const box = (await section.boundingBox())!;
        assert.ok(box.width >= 0.9 * PHONE.width, `the handoff list fills the phone (${box.width}px)`);
        assert.equal(await nothingWaiting(phone).count(), 0, 'the inbox does not say nothing waits while a handoff does');

        // After a reload it comes from handoffs.list.
        await phone.reload();
        await item.waitFor();
        const hand = item.button('Hand back');
        assert.equal(await hand.isDisabled(), true, 'Hand back needs a note');
        const btn = (await hand.boundingBox())!;
        assert.ok(btn.height >= 44, `Hand back is a 44 px target (${btn.height})`);
        await phone.screenshot({ path: `${ARTIFACTS}/phone-handoff.png` });

        await item.textbox('Note for alice').fill('Added the TXT record. Go ahead.');
        await hand.click();
        const ev = await within(
          20_000,
          'alice to get handoff.returned',
          alice.waitFor((e) => e.type === 'handoff.returned' && e.conv_id === task.conv_id, 15_000),
        );
        assert.equal(ev.data?.note, 'Added the TXT record. Go ahead.');
        await item.waitFor({ state: 'detached' });
        await nothingWaiting(phone).waitFor();
        assert.deepEqual(errors, []);
      } finally {
        await ctx.close();
      }
    },
  );

  test(
    'approvals-only phone: a full-only page typed into the address bar (#/fleet, #/agents, #/settings, a conversation…) lands on the Approvals inbox, with no errors',
    { timeout: 120_000 },
    async (t) => {
      if (!doorReady) return t.skip('the device door (/api/device/*) is not in this build yet');
      const conv = (await h().agents.alice!.call('open_direct', { user: 'owner' })).conversation;
      const { token } = await pairDevice(h(), 'Address bar phone', 'approvals');
      const { ctx, phone, errors } = await openPhone(h(), token);
      const consoleErrors: string[] = [];
      phone.on('console', (m) => {
        if (m.type() === 'error') consoleErrors.push(m.text());
      });
      try {
        const inbox = approvalsTitle(phone);
        const pages = ['#/fleet', '#/agents', '#/settings', '#/conversations', '#/phone', `#/c/${encodeURIComponent(conv.conv_id)}`];
        for (const hash of pages) {
          // Typed into the open tab (a hash change), then opened afresh (a page load at that address).
          await phone.evaluate((x) => {
            location.hash = x;
          }, hash);
          await within(
            10_000,
            `${hash} to turn into the inbox`,
            (async () => {
              while ((await phone.evaluate(() => location.hash)) !== '#/approvals') await new Promise((r) => setTimeout(r, 50));
            })(),
          );
          await inbox.waitFor();
          assert.equal(await on(phone).find('main h1').count(), 1, `${hash}: only the inbox shows`);
          await phone.goto(`${h().baseUrl}/${hash}`);
          await inbox.waitFor();
          await within(
            10_000,
            `${hash} (loaded) to turn into the inbox`,
            (async () => {
              while ((await phone.evaluate(() => location.hash)) !== '#/approvals') await new Promise((r) => setTimeout(r, 50));
            })(),
          );
        }
        // Back does not return to the page it may not see.
        await phone.goBack().catch(() => {});
        await inbox.waitFor();
        assert.equal(await on(phone).find('.toast-error, .toast.error').count(), 0, 'no error toasts');
        assert.deepEqual(errors, []);
        assert.deepEqual(consoleErrors, []);
      } finally {
        await ctx.close();
      }
    },
  );

  test(
    '"Turn on notifications" without a push service says so and changes nothing; "Forget this phone" asks, then forgets',
    { timeout: 120_000 },
    async (t) => {
      if (!doorReady) return t.skip('the device door (/api/device/*) is not in this build yet');
      const { token, id } = await pairDevice(h(), 'Forgetful phone', 'approvals');
      const { ctx, phone, errors } = await openPhone(h(), token);
      try {
        await ctx.grantPermissions(['notifications'], { origin: h().baseUrl });
        // Headless Chromium has no push service (subscribe rejects with AbortError); a build without /sw.js cannot
        // start the worker. Either way: a clear message, and nothing left behind.
        await notificationsButton(phone).click();
        const alert = on(phone).find('.notify-control [role="alert"]');
        await alert.waitFor({ timeout: 30_000 });
        const said = (await alert.textContent()) ?? '';
        assert.match(said, /Nothing was changed/, `the message says nothing changed: ${said}`);
        assert.match(
          said,
          /no working push service|could not start its notification worker|could not make a push subscription/,
          `the message names the cause: ${said}`,
        );
        await notificationsButton(phone).waitFor();
        assert.equal(
          await phone.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length),
          0,
          'no service worker left registered',
        );
        const { devices } = await ownerCall<{ devices: Array<{ id: string; push: boolean }> }>(h(), 'devices.list', {});
        assert.equal(devices.find((d) => d.id === id)?.push, false, 'the hub holds no push subscription for this phone');
        await phone.screenshot({ path: `${ARTIFACTS}/phone-notify-failed.png` });

        // No laptop "Sign out" here; "Forget this phone" has a confirm step, and Cancel keeps the pairing.
        assert.equal(await on(phone).button('Sign out').count(), 0);
        await on(phone).button('This phone').click();
        await on(phone).text('Forgetful phone').waitFor();
        await on(phone).button('Forget this phone').click();
        const confirm = on(phone).role('alertdialog', 'Forget this phone?');
        await confirm.waitFor();
        await phone.screenshot({ path: `${ARTIFACTS}/phone-forget-confirm.png` });
        await confirm.button('Cancel').click();
        await confirm.waitFor({ state: 'detached' });
        assert.equal(await phone.evaluate(() => localStorage.getItem('perch.device.token')), token, 'Cancel keeps the credential');

        await on(phone).button('Forget this phone').click();
        await confirm.button('Yes, forget this phone').click();
        await screenTitle(phone, 'This phone is not paired').waitFor();
        await on(phone).text('Scan the QR code with this phone and tap Pair.').waitFor();
        assert.equal(await phone.evaluate(() => localStorage.getItem('perch.device.token')), null, 'the credential is forgotten');
        await phone.screenshot({ path: `${ARTIFACTS}/phone-forgotten.png` });
        await phone.reload();
        await screenTitle(phone).first().waitFor();
        assert.equal(await approvalsTitle(phone).count(), 0, 'after a reload the phone is still not signed in');
        assert.deepEqual(errors, []);
      } finally {
        await ctx.close();
      }
    },
  );

  test('full-access phone: no "Sign out", and a tap on a message shows its actions (touch screen)', { timeout: 120_000 }, async (t) => {
    if (!doorReady) return t.skip('the device door (/api/device/*) is not in this build yet');
    const alice = h().agents.alice!;
    const conv = (await alice.call('open_direct', { user: 'owner' })).conversation;
    await alice.call('send_message', { conv_id: conv.conv_id, text: 'The nightly backup finished in 12 minutes.' });
    const { token } = await pairDevice(h(), 'Full phone', 'full');
    const { ctx, phone, errors } = await openPhone(h(), token);
    try {
      await on(phone).button('This phone').waitFor();
      const bar = on(phone).nav('Sections');
      await bar.link(/^Conversations/).click();
      const list = sidebar(phone);
      await list.waitFor();
      assert.equal(await list.button('Sign out').count(), 0, 'a phone has no laptop Sign out');
      await list
        .link(/^alice/)
        .first()
        .click();
      const msg = message(phone, 'The nightly backup finished', 'alice');
      await msg.waitFor();
      if (!(await phone.evaluate(() => matchMedia('(hover: none)').matches)))
        return t.skip('this Chromium does not report (hover: none) for a touch context');
      const actions = msg.actionBar;
      const shown = () => actions.evaluate((el) => getComputedStyle(el).opacity === '1' && getComputedStyle(el).pointerEvents !== 'none');
      assert.equal(await shown(), false, 'the actions are hidden before a tap');
      await msg.text('The nightly backup finished in 12 minutes.').tap();
      await within(
        5_000,
        'the actions to show',
        (async () => {
          while (!(await shown())) await new Promise((r) => setTimeout(r, 100));
        })(),
      );
      const reply = actions.button('Reply', { exact: true });
      assert.ok((await reply.boundingBox())!.height >= 44, 'the actions are 44 px targets on a touch screen');
      await phone.screenshot({ path: `${ARTIFACTS}/phone-message-actions.png` });
      await reply.tap();
      await on(phone).find('.composer-reply').filter({ hasText: 'Replying to alice' }).waitFor();
      assert.deepEqual(errors, []);
    } finally {
      await ctx.close();
    }
  });

  test(
    'full-access phone: the role config shows MCP servers read-only (laptop only) and saves the rest without them',
    { timeout: 120_000 },
    async (t) => {
      if (!doorReady) return t.skip('the device door (/api/device/*) is not in this build yet');
      const servers = [{ name: 'docs', url: 'https://example.com/mcp' }];
      await ownerCall(h(), 'agents.update_config', { agent: 'alice', mcp_servers: servers });
      const { token } = await pairDevice(h(), 'Config phone', 'full');
      const { ctx, phone, errors } = await openPhone(h(), token);
      try {
        await phone.goto(`${h().baseUrl}/#/agents/alice`); // on a phone: alice's detail
        await on(phone).button('Edit config of alice').click();
        const dialog = on(phone).dialog('Role config of alice');
        await dialog.waitFor();
        const box = dialog.textbox('MCP servers (JSON)');
        assert.equal(await box.getAttribute('readonly'), '', 'the MCP servers are read-only on a phone');
        await dialog.text('MCP servers can be changed only on the laptop.').waitFor();
        await dialog.textbox('Description').fill('Edited on the phone');
        await dialog.button('Save config').click();
        await dialog.waitFor({ state: 'detached' });
        const { agents } = await ownerCall<{ agents: Array<{ name: string; description: string; config: { mcp_servers: unknown } }> }>(
          h(),
          'agents.list',
          {},
        );
        const alice = agents.find((a) => a.name === 'alice')!;
        assert.equal(alice.description, 'Edited on the phone', 'the rest of the config was saved');
        assert.deepEqual(alice.config.mcp_servers, servers, 'the MCP servers are as the laptop set them');
        assert.equal(await on(phone).find('.toast-error').count(), 0, 'no error toast');
        assert.deepEqual(errors, []);
      } finally {
        await ctx.close();
      }
    },
  );

  test(
    'the laptop (mouse) is unchanged: a message is not focusable and its actions stay hidden until hovered',
    { timeout: 60_000 },
    async () => {
      const { page } = h();
      const alice = h().agents.alice!;
      const conv = (await alice.call('open_direct', { user: 'owner' })).conversation;
      await alice.call('send_message', { conv_id: conv.conv_id, text: 'Disk usage on the build box is at 41%.' });
      assert.equal(await page.evaluate(() => matchMedia('(hover: none)').matches), false, 'the laptop page has a mouse');
      await openConversation(page, 'alice');
      const msg = message(page, 'Disk usage on the build box', 'alice');
      await msg.waitFor();
      assert.equal(await msg.getAttribute('tabindex'), null, 'a message is not made focusable on a screen with a mouse');
      await page.mouse.move(1, 1);
      const actions = msg.actionBar;
      assert.equal(await actions.evaluate((el) => getComputedStyle(el).opacity), '0', 'hidden without hover');
      await msg.hover();
      await page.waitForFunction((el) => getComputedStyle(el!).opacity === '1', await actions.elementHandle());
      const reply = (await actions.button('Reply', { exact: true }).boundingBox())!;
      assert.ok(reply.height < 44, `desktop action buttons keep their size (${reply.height}px)`);
    },
  );
});
