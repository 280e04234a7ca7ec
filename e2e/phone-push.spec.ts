// Approve from the phone, the whole chain, with nothing of it stubbed on the hub's side:
//   the laptop's Settings → Phone shows a pairing QR for the public URL → a phone-sized Chromium context opens the link
//   THROUGH a front that behaves like `tailscale serve` (it keeps the Host and adds X-Forwarded-* / Tailscale-*
//   headers, so the hub sees a remote request) → both screens show the same phrase, the owner confirms on the laptop →
//   the phone, in device mode, registers the real service worker (/sw.js) and its push subscription → an agent asks
//   for approval over MCP → the real `perch serve` encrypts a Web Push (RFC 8291) and POSTs it to a push service on
//   loopback (HTTPS; the hub trusts its certificate through NODE_EXTRA_CA_CERTS) → this test, as the push service
//   and the browser's push stack, decrypts it and delivers it to the phone's service worker (CDP
//   ServiceWorker.deliverPushMessage: Chromium here has no push service of its own) → the service worker shows the
//   notification with Approve / Reject → its Approve handler POSTs the single-use action token through the front →
//   the agent's waiting get_request returns approved, and a second push clears the notification.
// Then with push content 'ids' (the push carries only ids and a read token): the service worker fetches the real
// title through the front before showing the notification; its buttons only when the request is still pending.
// Last, a phone paired with scope full opens every view through the front: nothing it loads is refused 403 (no error
// toast, no console error); the parts only the laptop may do say so in one line, and their buttons are disabled.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { BrowserContext, CDPSession, Page, Worker } from 'playwright-core';
import { useHarness, ARTIFACTS, within, ownerCall } from './harness';
import { frontBrowserArgs, startFront, type Front } from './front';
import sharp from 'sharp';
import { decryptPush, makeSubscriptionKeys, PUSH_TEST_ENV, startPushEndpoint, type PushEndpoint } from '../test/support/push-endpoint';
import { on } from './pages/on';
import { openSettings, screenTitle } from './pages/app';
import { approvalsTitle, nothingWaiting } from './pages/approvals';
import { conversationMenuItem } from './pages/conversation';
import { confirmPairing, notificationsButton, pairForm, pairOnPhone, pairingPhrase, remoteAccess, showPairingQr } from './pages/phone';
import { PHONE, ANDROID_UA, type Notice, pushAndSee } from './phone-notices';

describe('approve from the phone: pairing through the front, Web Push, the service worker’s Approve button', () => {
  let front: Front;
  let pushService: PushEndpoint;
  let phoneCtx: BrowserContext;
  let phone: Page;
  // Set by the push test, reused by the 'ids' one: the subscription's keys, its path at the push service, CDP delivery.
  let keys: ReturnType<typeof makeSubscriptionKeys>;
  let pushPath: string;
  let deliver: (plain: string) => Promise<unknown>;

  // In registration order: the front and the push service start before the hub and close after it; the phone's
  // browser context closes before it.
  before(
    async () => {
      front = await startFront();
      pushService = await startPushEndpoint();
    },
    { timeout: 30_000 },
  );
  after(
    async () => {
      await phoneCtx?.close().catch(() => undefined);
    },
    { timeout: 20_000 },
  );
  const h = useHarness(() => ({
    agents: ['alice'],
    serveArgs: ['--public-url', front.url],
    serveEnv: { ...PUSH_TEST_ENV },
    browserArgs: frontBrowserArgs(front),
    onPort: (port) => front.setTarget(port),
  }));
  after(
    async () => {
      await front?.close();
      await pushService?.close();
    },
    { timeout: 30_000 },
  );

  test(
    'the laptop shows a QR link on the public URL; the phone pairs through the front after both screens show the same phrase',
    { timeout: 90_000 },
    async () => {
      const laptop = h().page;
      await openSettings(laptop, 'Phone');
      await screenTitle(laptop, 'Phone').waitFor();
      await remoteAccess(laptop).text('Phones reach this hub at').waitFor();
      const { link } = await showPairingQr(laptop, { name: 'Pocket Pixel' });
      await on(laptop).img('QR code to pair a phone').waitFor();
      assert.ok(link.startsWith(`${front.url}/pair#`), `the QR link is on the public URL: ${link}`);

      // The phone: its own context (no owner session), phone-sized, at the front's origin (a tailnet name).
      phoneCtx = await h().browser.newContext({
        viewport: PHONE,
        isMobile: true,
        hasTouch: true,
        userAgent: ANDROID_UA,
        colorScheme: 'light',
      });
      await phoneCtx.grantPermissions(['notifications'], { origin: front.url });
      phone = await phoneCtx.newPage();
      phone.setDefaultTimeout(15_000);
      // Before pairing, the public URL itself says how to pair (login links do not work through the front).
      await phone.goto(`${front.url}/`);
      await screenTitle(phone, 'This phone is not paired').waitFor();
      await on(phone).text('Scan the QR code with this phone and tap Pair.').waitFor();
      await phone.goto(link);
      const phrase = await pairOnPhone(phone);
      assert.match(phrase, /\S+/);
      await phone.screenshot({ path: `${ARTIFACTS}/phone-push-pair-phone.png` });

      // The laptop shows the same words; the owner confirms there.
      await on(laptop).text('The phone shows the same words — pair it.').waitFor({ timeout: 20_000 });
      assert.equal((await pairingPhrase(laptop).textContent())!.trim(), phrase, 'both screens show the same phrase');
      await laptop.screenshot({ path: `${ARTIFACTS}/phone-push-pair-laptop.png` });
      await confirmPairing(laptop);
      await on(laptop).role('main').text('Paired Pocket Pixel.').waitFor();

      await approvalsTitle(phone).waitFor({ timeout: 40_000 });
      const stored = await phone.evaluate(() => ({
        device: localStorage.getItem('perch.device.token'),
        owner: localStorage.getItem('perch.owner.session'),
      }));
      assert.match(stored.device ?? '', /^pd_/, 'the phone holds a device credential');
      assert.equal(stored.owner, null, 'and no owner session');
      assert.ok(
        front.seen.some((s) => s.startsWith('POST /api/device/pair/claim')),
        'the phone paired through the front',
      );
      assert.ok(
        front.seen.some((s) => s.startsWith('POST /api/device/pair/wait')),
        'and fetched its credential through it',
      );
    },
  );

  test('Turn on notifications says plainly when the browser has no push service, and changes nothing', { timeout: 60_000 }, async () => {
    await notificationsButton(phone).click();
    // Debian's headless Chromium has no push service: the page must say so, not pretend.
    const alert = on(phone).alert();
    await alert.waitFor();
    assert.match((await alert.innerText()).toLowerCase(), /push|notification/);
    const subs = await phone.evaluate(async () => {
      const r = await navigator.serviceWorker.getRegistration();
      return r ? !!(await r.pushManager.getSubscription()) : false;
    });
    assert.equal(subs, false, 'no half-made subscription is left behind');
  });

  test(
    'an agent asks; the encrypted push reaches the phone’s service worker; its Approve button decides; a second push clears it',
    { timeout: 120_000 },
    async () => {
      const alice = h().agents.alice!;
      // The real service worker, registered as the page does, at the front's origin.
      const swReady = phoneCtx.waitForEvent('serviceworker', { timeout: 20_000 }).catch(() => undefined);
      await phone.evaluate(async () => {
        await navigator.serviceWorker.register('/sw.js');
        await navigator.serviceWorker.ready;
      });
      const sw: Worker = phoneCtx.serviceWorkers().find((w) => w.url().endsWith('/sw.js')) ?? (await swReady)!;
      assert.ok(sw && sw.url() === `${front.url}/sw.js`, 'the service worker runs at the front’s origin');

      // What the page sends after pushManager.subscribe: the push service's endpoint and the browser's keys. Here the
      // push service is this test's HTTPS server and the keys are this test's (it decrypts as a browser would).
      keys = makeSubscriptionKeys();
      const endpoint = pushService.endpointUrl('pocket-pixel');
      const subscribed = await phone.evaluate(
        async (sub) => {
          const res = await fetch('/api/device/push/subscribe', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${localStorage.getItem('perch.device.token')}` },
            body: JSON.stringify(sub),
          });
          return { status: res.status, body: await res.text() };
        },
        { endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth } },
      );
      assert.equal(subscribed.status, 200, subscribed.body);

      // Chromium's push delivery, driven over CDP: the registration of the phone's service worker.
      const cdp: CDPSession = await phoneCtx.newCDPSession(phone);
      const registrations = new Map<string, string>();
      cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => {
        for (const r of e.registrations) if (!r.isDeleted) registrations.set(r.scopeURL, r.registrationId);
      });
      await cdp.send('ServiceWorker.enable');
      const registrationId = await within(
        10_000,
        'the service worker registration',
        (async () => {
          for (;;) {
            const id = registrations.get(`${front.url}/`);
            if (id !== undefined) return id;
            await new Promise((r) => setTimeout(r, 50));
          }
        })(),
      );
      deliver = (plain: string) => cdp.send('ServiceWorker.deliverPushMessage', { origin: `${front.url}/`, registrationId, data: plain });
      pushPath = new URL(endpoint).pathname;

      // The agent asks over MCP and waits for the answer.
      const convId = (await alice.call('open_direct', { user: 'owner' })).conversation.conv_id as string;
      const req = await alice.call('request_human', {
        conv_id: convId,
        kind: 'approve',
        title: 'Ship release 4.2 tonight?',
        context: { changes: 12, risk: 'low' },
        ttl_secs: 3600,
      });
      const waiting = alice.call('get_request', { request_id: req.request_id, wait_secs: 60 });

      // The push service receives only ciphertext; decrypted with the subscription's keys it is the request's notice.
      const pushed = await pushService.next(pushPath, () => true, 15_000);
      assert.equal(pushed.headers['content-encoding'], 'aes128gcm');
      assert.ok(!pushed.body.includes(Buffer.from('Ship release')), 'the push service never sees the title');
      const plain = decryptPush(pushed.body, keys);
      const notice = JSON.parse(plain) as Notice;
      assert.equal(notice.type, 'notice');
      assert.equal(notice.tag, req.request_id, 'the notification is tagged with the request id');
      assert.equal(notice.title, 'Ship release 4.2 tonight?');
      assert.deepEqual(
        notice.actions?.map((a) => a.action),
        ['approve', 'reject'],
      );
      assert.ok(notice.url?.startsWith(front.url), `a tap opens the public URL: ${notice.url}`);

      // Delivered to the phone's service worker, it shows the notification with both buttons.
      await deliver(plain);
      const shown = await within(
        10_000,
        'the notification to show',
        (async () => {
          // DevTools hands the push to the service worker once; on a loaded machine the worker may not take it (it was
          // starting), so the same push is handed again every 3 s, as a push service retries an undelivered message.
          let handed = Date.now();
          for (;;) {
            if (Date.now() - handed > 3_000) {
              await deliver(plain);
              handed = Date.now();
            }
            const list = await phone.evaluate(async (tag) => {
              const r = await navigator.serviceWorker.ready;
              return (await r.getNotifications({ tag })).map((n) => ({
                title: n.title,
                tag: n.tag,
                actions: (n as Notification & { actions?: Array<{ action: string; title: string }> }).actions ?? [],
              }));
            }, req.request_id);
            if (list.length) return list;
            await new Promise((r) => setTimeout(r, 100));
          }
        })(),
      );
      assert.equal(shown[0]!.title, 'Ship release 4.2 tonight?');
      assert.deepEqual(
        shown[0]!.actions.map((a) => a.title),
        ['Approve', 'Reject'],
      );
      await phone.screenshot({ path: `${ARTIFACTS}/phone-push-inbox.png` });

      // The owner taps Approve on the notification: the service worker's own notificationclick handler runs.
      const seenBefore = front.seen.length;
      await sw.evaluate(async (tag) => {
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the service worker's global scope (no DOM lib types for it here)
        const scope = self as any;
        const [n] = await scope.registration.getNotifications({ tag });
        if (!n) throw new Error('no notification to click');
        scope.dispatchEvent(new scope.NotificationEvent('notificationclick', { notification: n, action: 'approve' }));
      }, req.request_id);
      const decided = await within(20_000, 'the agent’s get_request to return', waiting);
      assert.equal(decided.state, 'approved', 'the agent got the decision made on the phone');
      assert.ok(
        front.seen.slice(seenBefore).some((s) => s.startsWith('POST /api/device/action')),
        'the decision went through the front',
      );

      // Decided: a second push with the same tag closes the notification on the phone.
      const clearPush = await pushService.next(pushPath, (p) => (JSON.parse(decryptPush(p.body, keys)) as Notice).type === 'clear', 15_000);
      const clear = JSON.parse(decryptPush(clearPush.body, keys)) as Notice;
      assert.equal(clear.tag, req.request_id);
      await deliver(JSON.stringify(clear));
      await within(
        10_000,
        'the notification to close',
        (async () => {
          let handed = Date.now();
          for (;;) {
            if (Date.now() - handed > 3_000) {
              await deliver(JSON.stringify(clear)); // handed again, as above: a worker still starting may drop it
              handed = Date.now();
            }
            const left = await phone.evaluate(
              async (tag) => (await (await navigator.serviceWorker.ready).getNotifications({ tag })).length,
              req.request_id,
            );
            if (left === 0) return;
            await new Promise((r) => setTimeout(r, 100));
          }
        })(),
      );

      // The phone's inbox shows it decided too (live), and the laptop's device audit lists the button's decision.
      await nothingWaiting(phone).waitFor({ timeout: 15_000 });
      await phone.screenshot({ path: `${ARTIFACTS}/phone-push-decided.png` });
      const laptop = h().page;
      await on(laptop).button('Refresh').click();
      await on(laptop).role('table', 'Device audit').text('action', { exact: true }).first().waitFor();
    },
  );

  test(
    "push content 'ids': the push carries no title; the service worker fetches it through the front and shows the buttons only while pending",
    { timeout: 120_000 },
    async () => {
      assert.ok(deliver, 'the push test ran first (it registers the worker and the subscription)');
      const alice = h().agents.alice!;
      await ownerCall(h(), 'phone.set', { push_content: 'ids' });
      try {
        const convId = (await alice.call('open_direct', { user: 'owner' })).conversation.conv_id as string;
        const req = await alice.call('request_human', {
          conv_id: convId,
          kind: 'approve',
          title: 'Migrate the billing database?',
          context: 'five minutes of downtime',
          ttl_secs: 3600,
        });
        const pushed = await pushService.next(
          pushPath,
          (p) => {
            try {
              return (JSON.parse(decryptPush(p.body, keys)) as Notice).tag === req.request_id;
            } catch {
              return false;
            }
          },
          15_000,
        );
        const plain = decryptPush(pushed.body, keys);
        assert.ok(!/billing|downtime/.test(plain), `the decrypted push itself has no title or summary: ${plain}`);
        const notice = JSON.parse(plain) as Notice;
        assert.ok(notice.read_token, 'it carries a read token');

        // The worker fetches the details through the front, then shows the real title with Approve / Reject.
        const seenBefore = front.seen.length;
        const shown = await pushAndSee(deliver, phone, plain, req.request_id, (n) => n.title !== notice.title);
        assert.equal(shown.title, 'Migrate the billing database?');
        assert.match(shown.body, /five minutes of downtime/);
        assert.deepEqual(
          shown.actions.map((a) => a.title),
          ['Approve', 'Reject'],
        );
        assert.ok(
          front.seen.slice(seenBefore).some((l) => l.startsWith('POST /api/device/notice')),
          'the details came through the front',
        );
        await phone.screenshot({ path: `${ARTIFACTS}/phone-push-ids.png` });

        // No details (here: a read token the hub refuses, as when it cannot be reached): the generic line, no buttons.
        const broken = { ...notice, read_token: notice.read_token!.slice(0, -2) + (notice.read_token!.endsWith('AA') ? 'BB' : 'AA') };
        const blind = await pushAndSee(deliver, phone, JSON.stringify(broken), req.request_id, (n) => n.title === notice.title);
        assert.equal(blind.actions.length, 0, 'never Approve / Reject without the details');

        // Decided on the laptop before the push is shown: the worker says so and offers no buttons.
        await ownerCall(h(), 'requests.decide', { request_id: req.request_id, decision: 'approve' });
        const late = await pushAndSee(deliver, phone, plain, req.request_id, (n) => n.title.startsWith('Already'));
        assert.equal(late.title, 'Already approved: Migrate the billing database?');
        assert.equal(late.actions.length, 0);
      } finally {
        await ownerCall(h(), 'phone.set', { push_content: 'summary' });
      }
    },
  );

  test(
    'hostile pushes (not JSON, wrong types, huge, a link to another site) never break the worker and never open another site',
    { timeout: 120_000 },
    async () => {
      assert.ok(deliver, 'the push test ran first (it registers the worker and the subscription)');
      // Not JSON, and JSON that is not a notice: the generic line.
      const generic = await pushAndSee(deliver, phone, 'not json {', 'perch');
      assert.equal(generic.title, 'Perch');
      assert.equal(generic.actions.length, 0);

      // Wrong types everywhere: no title/body text, junk buttons, a link to another site. Shown with what is sound.
      const junk = {
        type: 'notice',
        tag: 'hostile-types',
        title: { x: 1 },
        body: 42,
        url: 'https://evil.example/steal',
        request_id: ['r'],
        actions: [
          null,
          5,
          'approve',
          { action: 'approve' },
          { action: 7, token: 't' },
          { action: 'approve', title: { no: 1 }, token: 'tok-a' },
        ],
      };
      const typed = await pushAndSee(deliver, phone, JSON.stringify(junk), 'hostile-types');
      assert.equal(typed.title, 'Perch', 'a title that is not text is not shown');
      assert.equal(typed.body, '');
      assert.deepEqual(
        typed.actions.map((a) => [a.action, a.title]),
        [['approve', 'approve']],
        'only the well-formed button is kept',
      );

      // Huge: shown, cut to a sane length.
      const huge = await pushAndSee(
        deliver,
        phone,
        JSON.stringify({
          type: 'notice',
          tag: 'hostile-huge',
          title: 'T'.repeat(50_000),
          body: 'B'.repeat(200_000),
          url: '/',
          actions: [],
        }),
        'hostile-huge',
      );
      assert.ok(huge.title.length <= 200 && huge.title.startsWith('TTT'), `title cut: ${huge.title.length}`);
      assert.ok(huge.body.length <= 1000 && huge.body.startsWith('BBB'), `body cut: ${huge.body.length}`);

      // Not a URL at all: still shown; a tap goes home.
      await pushAndSee(
        deliver,
        phone,
        JSON.stringify({ type: 'notice', tag: 'hostile-url', title: 'Bad link', body: '', url: 'http://[::1', actions: [] }),
        'hostile-url',
      );

      // Tapping them (no button): only this hub's own pages open, never evil.example.
      const foreign: string[] = [];
      phoneCtx.on('request', (r) => {
        if (!r.url().startsWith(front.url)) foreign.push(r.url());
      });
      phoneCtx.on('page', (p) => foreign.push(`new page ${p.url()}`));
      const sw = phoneCtx.serviceWorkers().find((w) => w.url().endsWith('/sw.js'));
      assert.ok(sw, 'the service worker still runs');
      for (const tag of ['hostile-types', 'hostile-url']) {
        const navigated = phone.waitForEvent('framenavigated', { timeout: 15_000 });
        const clicked = await sw.evaluate(async (t) => {
          // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the service worker's global scope (no DOM lib types for it here)
          const scope = self as any;
          const [n] = await scope.registration.getNotifications({ tag: t });
          if (!n) return false;
          scope.dispatchEvent(new scope.NotificationEvent('notificationclick', { notification: n, action: '' }));
          return true;
        }, tag);
        assert.ok(clicked, `the ${tag} notification was there to tap`);
        const frame = await navigated;
        assert.equal(frame.url(), `${front.url}/`, `a tap on ${tag} opens this hub's home page`);
      }
      assert.deepEqual(foreign, [], 'nothing outside the hub was requested or opened');
      assert.ok(
        phoneCtx.pages().every((p) => p.url().startsWith(front.url)),
        'every page is on the hub',
      );
    },
  );
  test(
    'a full-access phone through the front: every view opens without a laptop-only call (no 403, no error toast); the laptop-only parts say so',
    { timeout: 120_000 },
    async () => {
      const alice = h().agents.alice!;
      const conv = (await alice.call('open_direct', { user: 'owner' })).conversation;
      const png = await sharp({ create: { width: 64, height: 40, channels: 3, background: { r: 40, g: 120, b: 200 } } })
        .png()
        .toBuffer();
      await alice.call('send_file', {
        conv_id: conv.conv_id,
        name: 'graph.png',
        data: png.toString('base64'),
        caption: 'Latency this week',
      });
      await alice.call('send_file', { conv_id: conv.conv_id, name: 'notes.txt', data: Buffer.from('p99 under 80 ms').toString('base64') });

      // Paired with scope full through the front: the /pair page claims, the laptop confirms the phrase.
      const start = await ownerCall<{ url: string; pairing: { pairing_id: string } }>(h(), 'devices.pair_start', {
        name: 'Full pocket',
        scope: 'full',
      });
      const ctx = await h().browser.newContext({
        viewport: PHONE,
        isMobile: true,
        hasTouch: true,
        userAgent: ANDROID_UA,
        colorScheme: 'light',
      });
      try {
        // Error toasts come and go: every one that ever shows is kept.
        await ctx.addInitScript(() => {
          const seen: string[] = ((window as unknown as { errorToasts: string[] }).errorToasts = []);
          new MutationObserver(() => {
            for (const el of Array.from(document.querySelectorAll('.toast-error'))) {
              if (!(el as HTMLElement).dataset.seen) {
                (el as HTMLElement).dataset.seen = '1';
                seen.push(el.textContent ?? '');
              }
            }
          }).observe(document, { childList: true, subtree: true });
        });
        const full = await ctx.newPage();
        full.setDefaultTimeout(15_000);
        const pageErrors: string[] = [];
        const consoleErrors: string[] = [];
        const refused: string[] = [];
        full.on('pageerror', (e) => pageErrors.push(e.message));
        full.on('console', (m) => {
          if (m.type() === 'error') consoleErrors.push(m.text());
        });
        full.on('response', (r) => {
          if (r.status() === 403) refused.push(r.url());
        });
        await full.goto(start.url);
        const phrase = await pairOnPhone(full);
        await ownerCall(h(), 'devices.pair_confirm', { pairing_id: start.pairing.pairing_id, phrase });
        await approvalsTitle(full).waitFor({ timeout: 40_000 });

        const errorToasts = () => full.evaluate(() => (window as unknown as { errorToasts: string[] }).errorToasts);
        const settle = () => new Promise((r) => setTimeout(r, 1_000)); // the page's loads answer (a 403 would show by then)
        const laptopLine = (text: string) => on(full).note().filter({ hasText: text });
        const toasts: string[] = [];
        const visit = async (hash: string, heading: string | null) => {
          await full.goto(`${front.url}/${hash}`);
          await (heading ? screenTitle(full, heading) : on(full).find('main h1')).first().waitFor();
          await settle();
          toasts.push(...(await errorToasts()).map((t) => `${hash}: ${t}`));
        };

        await visit('#/fleet', 'Fleet');
        await visit('#/approvals', 'Approvals');

        await visit('#/settings/containers', 'Settings'); // Settings → Containers
        await laptopLine('The container listener is switched on the laptop.').waitFor();
        await visit('#/settings/data', 'Settings'); // Settings → Data
        await laptopLine('Exports are made on the laptop.').waitFor();
        assert.equal(await on(full).checkbox('Let agents in containers connect').count(), 0, 'no container switch');
        assert.equal(await on(full).button('Export…').count(), 0, 'no Export button');
        await full.screenshot({ path: `${ARTIFACTS}/phone-full-settings.png` });

        await visit('#/phone', 'Phone');
        await laptopLine('Pairing, devices and push settings are managed on the laptop.').waitFor();
        assert.equal(await pairForm(full).count(), 0, 'no pairing form');

        await visit('#/agents/alice', 'Agents'); // on a phone: alice's detail
        await laptopLine('Adding agents, their keys, wake setup and exports are managed on the laptop.').waitFor();
        for (const name of ['Add agent', 'Rotate key of alice', 'Wake runs of alice', 'Export conversations of alice']) {
          const b = on(full).button(name, { exact: true });
          assert.equal(await b.isDisabled(), true, `${name} is disabled on a phone`);
          assert.match((await b.getAttribute('title')) ?? '', /Only on the laptop/, `${name} says why`);
        }
        // Keys: listed (and revocable) here; issued on the laptop.
        await on(full).button('Keys of alice').click();
        const keys = on(full).dialog('Keys of alice');
        await keys.note().filter({ hasText: 'New keys are issued on the laptop.' }).waitFor();
        assert.equal(await keys.form('Issue a key').count(), 0, 'no form to issue a key');
        await keys.button('Close').last().click();
        await full.screenshot({ path: `${ARTIFACTS}/phone-full-agents.png` });

        await visit(`#/c/${encodeURIComponent(conv.conv_id)}`, null);
        await on(full).text('Latency this week').waitFor();
        for (const name of ['View image graph.png', 'Download notes.txt']) {
          const b = on(full).button(name);
          assert.equal(await b.isDisabled(), true, `${name} is disabled on a phone (file links are the laptop's)`);
          assert.match((await b.getAttribute('title')) ?? '', /Only on the laptop/);
        }
        const exp = await conversationMenuItem(full, 'Export…');
        assert.equal(await exp.isDisabled(), true, 'Export… is disabled in the conversation menu');
        await settle();
        toasts.push(...(await errorToasts()));

        assert.deepEqual(toasts, [], 'no error toast on any view');
        assert.deepEqual(refused, [], 'no request was refused 403');
        assert.deepEqual(pageErrors, []);
        assert.deepEqual(consoleErrors, [], 'no console errors (a refused call logs "Failed to load resource: 403")');
      } finally {
        await ctx.close();
      }
    },
  );
});
