// Settings → Phone on the laptop: the public URL, pairing a phone by QR code with the phrase both
// screens show, the device list with revoke, and the installable web app (manifest + icons). The phone's side is
// played by plain HTTP requests that arrive as through the HTTPS front (Host = the public host, X-Forwarded-*).
import http from 'node:http';
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { useHarness, within } from './harness';
import { on } from './pages/on';
import { openSettings, screenTitle } from './pages/app';
import { confirmPairing, pairForm, pairingPhrase, remoteAccess, showPairingQr } from './pages/phone';

const PUBLIC_URL = 'https://laptop.tail1234.ts.net';
const PUBLIC_HOST = new URL(PUBLIC_URL).host;

/** A request as the front (tailscale serve) forwards a phone's: to the loopback port, with the public Host. */
function viaFront(baseUrl: string, method: string, path: string, body?: unknown, bearer?: string): Promise<{ status: number; json: any }> {
  const u = new URL(baseUrl);
  const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string> = {
    Host: PUBLIC_HOST,
    Origin: PUBLIC_URL,
    'X-Forwarded-For': '100.101.102.103',
    'X-Forwarded-Proto': 'https',
    'X-Forwarded-Host': PUBLIC_HOST,
  };
  if (data) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': String(data.length) });
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  return within(
    40_000,
    `${method} ${path} through the front`,
    new Promise((resolve, reject) => {
      const req = http.request({ host: u.hostname, port: u.port, method, path, headers, timeout: 35_000 }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          let json: unknown = null;
          try {
            json = JSON.parse(text);
          } catch {
            json = text;
          }
          // The device door answers {ok: true, value} or {ok: false, error}: hand back the value when there is one.
          const body = json as { ok?: boolean; value?: unknown } | null;
          resolve({ status: res.statusCode ?? 0, json: body && body.ok === true ? body.value : json });
        });
      });
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', reject);
      req.end(data);
    }),
  );
}

describe('Settings → Phone', () => {
  const h = useHarness({ agents: [] });
  let port: string;

  before(
    async () => {
      port = new URL(h().baseUrl).port;
    },
    { timeout: 90_000 },
  );

  const openPhone = async () => {
    await openSettings(h().page, 'Phone');
    await screenTitle(h().page, 'Phone').waitFor();
  };

  test(
    'the web app is installable: the manifest is served as application/manifest+json and its icons load',
    { timeout: 30_000 },
    async () => {
      const href = await on(h().page).find('link[rel="manifest"]').getAttribute('href');
      assert.ok(href, 'index.html links a manifest');
      const manifestUrl = new URL(href, h().page.url()).href;
      const res = await fetch(manifestUrl);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^application\/manifest\+json/);
      assert.equal(res.headers.get('cache-control'), 'no-cache', 'the manifest keeps its name across versions: browsers revalidate it');
      const manifest = (await res.json()) as {
        name: string;
        start_url: string;
        display: string;
        icons: Array<{ src: string; sizes: string; type: string; purpose?: string }>;
      };
      assert.equal(manifest.name, 'Perch');
      assert.equal(manifest.display, 'standalone');
      assert.equal(manifest.start_url, '/');
      assert.ok(
        manifest.icons.some((i) => i.sizes === '192x192') && manifest.icons.some((i) => i.sizes === '512x512'),
        'icons 192 and 512',
      );
      assert.ok(
        manifest.icons.some((i) => i.purpose === 'maskable'),
        'a maskable icon',
      );
      const apple = await on(h().page).find('link[rel="apple-touch-icon"]').getAttribute('href');
      assert.ok(apple, 'index.html links an apple-touch-icon');
      const icons = [
        ...manifest.icons.map((i) => ({ url: new URL(i.src, manifestUrl).href, sizes: i.sizes })),
        { url: new URL(apple, h().page.url()).href, sizes: '180x180' },
      ];
      for (const icon of icons) {
        const r = await fetch(icon.url);
        assert.equal(r.status, 200, icon.url);
        assert.equal(r.headers.get('content-type'), 'image/png', icon.url);
        assert.equal(r.headers.get('cache-control'), 'no-cache', `${icon.url} is revalidated (not hashed)`);
        const meta = await sharp(Buffer.from(await r.arrayBuffer())).metadata();
        assert.equal(`${meta.width}x${meta.height}`, icon.sizes, `${icon.url} is as large as the manifest says`);
      }
      assert.equal(await on(h().page).find('meta[name="apple-mobile-web-app-capable"]').getAttribute('content'), 'yes');
      // The bundler's hashed files are the only ones cached for good.
      const script = await on(h().page).find('script[src*="assets/"]').first().getAttribute('src');
      const js = await fetch(new URL(script!, h().page.url()).href);
      await js.arrayBuffer();
      assert.match(js.headers.get('cache-control') ?? '', /immutable/);
    },
  );

  test(
    'without a public URL the page explains the two tailscale serve commands with this hub’s port; a bad URL is refused inline',
    { timeout: 60_000 },
    async () => {
      const { page } = h();
      await openPhone();
      const howto = on(page).field('How to set up remote access');
      await howto.text('No phone can reach this hub yet.').waitFor();
      await howto.text(`tailscale serve --bg --https=443 http://127.0.0.1:${port}`, { exact: true }).waitFor();
      await howto.text('tailscale serve status', { exact: true }).waitFor();
      await on(page).text('Set the public URL first').waitFor();
      await h().screenshot('phone-settings-empty');

      const form = on(page).form('Public URL');
      await form.field('Public URL of the HTTPS front').fill(`${PUBLIC_URL}/perch?x=1`);
      await form.button('Save').click();
      const alert = form.alert();
      await alert.waitFor();
      assert.match(await alert.innerText(), /not valid/);
      await howto.waitFor(); // nothing changed: still no remote access

      await form.field('Public URL of the HTTPS front').fill(PUBLIC_URL);
      await form.button('Save').click();
      await remoteAccess(page).text('Phones reach this hub at').waitFor();
      assert.equal(await form.alert().count(), 0, 'the inline error is gone once saved');
      assert.equal(await howto.count(), 0);

      // What pushes carry, and the ntfy channel (a bad topic refused inline), kept across a reload.
      await on(page).text('Only ids').click();
      const ntfy = on(page).form('ntfy');
      await ntfy.field('Send to ntfy').check();
      await ntfy.field('Topic').fill('not a topic!');
      await ntfy.button('Save ntfy').click();
      await ntfy.alert().waitFor();
      await ntfy.field('Topic').fill('perch-e2e-topic_1');
      await ntfy.button('Save ntfy').click();
      await on(page).text('ntfy: pushes also go to perch-e2e-topic_1.').waitFor();
      assert.equal(await ntfy.alert().count(), 0);
      await page.reload();
      await screenTitle(page, 'Phone').waitFor(); // the hash keeps the page
      await remoteAccess(page).text('Phones reach this hub at').waitFor();
      assert.equal(
        await on(page)
          .radio(/^Only ids/)
          .isChecked(),
        true,
      );
      assert.equal(await on(page).form('ntfy').field('Topic').inputValue(), 'perch-e2e-topic_1');
    },
  );

  test(
    'pairing: the QR code and link appear, the phone claims, the phrase shows, confirm lists the device, revoke ends its credential',
    { timeout: 120_000 },
    async () => {
      const { page } = h();
      const pairing = pairForm(page);
      await pairing.field('Name of the phone').fill('Test Pixel');
      await pairing.text('Full owner access').click();
      await pairing
        .note()
        .text(/act as you/)
        .waitFor(); // the warning for full access
      await pairing.text('Approvals only').click();
      assert.equal(await pairing.note().count(), 0);
      const { link, code } = await showPairingQr(page);

      const qr = on(page).img('QR code to pair a phone');
      await qr.waitFor();
      assert.match((await qr.getAttribute('src')) ?? '', /^data:image\/svg\+xml;utf8,/);
      const width = await qr.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0));
      assert.ok(width > 0, 'the QR image decodes');
      assert.ok(link.startsWith(`${PUBLIC_URL}/pair#`), `the link is on the public URL: ${link}`);
      assert.ok(code.length >= 22, 'a 128-bit code');
      await on(page).text('Waiting for the phone…').waitFor();
      await on(page).field('Time left').text(/left$/).waitFor();
      await h().screenshot('phone-pairing-qr');

      // The phone opens the link and claims the code, through the front.
      const claim = await viaFront(h().baseUrl, 'POST', '/api/device/pair/claim', { code, device_name: 'Claiming Phone' });
      assert.equal(claim.status, 200, JSON.stringify(claim.json));
      const { pairing_id, phrase, claim_secret } = claim.json as { pairing_id: string; phrase: string; claim_secret: string };
      assert.ok(phrase && phrase.length > 3);

      const shown = pairingPhrase(page);
      await within(40_000, 'the phrase on the laptop', shown.waitFor({ timeout: 40_000 }));
      assert.equal((await shown.innerText()).trim(), phrase, 'the laptop shows the phrase the phone got');
      await on(page).text('The phone shows the same words — pair it.').waitFor();
      // One name on both screens: the laptop says what the device will be paired as (the owner's name for it here).
      assert.match(await on(page).field('Paired as').innerText(), /“Test Pixel”/, 'the laptop names the device as it will be paired');
      await h().screenshot('phone-pairing-phrase');

      // The code works once: a second claim is refused.
      const again = await viaFront(h().baseUrl, 'POST', '/api/device/pair/claim', { code, device_name: 'Someone else' });
      assert.equal(again.status, 410);

      await confirmPairing(page);
      await on(page).region('Pair a phone').text('Paired Test Pixel.').waitFor();
      const row = on(page).list('Paired devices').item('Device Test Pixel');
      await row.waitFor();
      await row.text('approvals only').waitFor();
      await row.text(/Last used never · notifications off/).waitFor();

      // The phone collects its credential (once) and uses it through the front.
      const waited = await viaFront(h().baseUrl, 'POST', '/api/device/pair/wait', { pairing_id, claim_secret, wait_secs: 5 });
      assert.equal(waited.status, 200, JSON.stringify(waited.json));
      const token = (waited.json as { device_token?: string }).device_token;
      assert.ok(token?.startsWith('pd_'), 'the phone gets a pd_ credential');
      assert.equal((await viaFront(h().baseUrl, 'GET', '/api/device/me', undefined, token)).status, 200);

      // The audit list shows what the device did.
      const audit = on(page).role('table', 'Device audit');
      await on(page).button('Refresh').click();
      await audit.text('pair.claim').first().waitFor();
      await h().screenshot('phone-devices');

      // Revoke asks first, then the credential stops at once.
      await row.button('Revoke Test Pixel').click();
      const dialog = on(page).dialog('Revoke Test Pixel?');
      await dialog.button('Cancel').click();
      assert.equal(await row.text('revoked', { exact: true }).count(), 0, 'cancel revokes nothing');
      assert.equal((await viaFront(h().baseUrl, 'GET', '/api/device/me', undefined, token)).status, 200);
      await row.button('Revoke Test Pixel').click();
      await dialog.button('Revoke').click();
      await row.text('revoked', { exact: true }).waitFor();
      assert.equal((await viaFront(h().baseUrl, 'GET', '/api/device/me', undefined, token)).status, 401);
      assert.deepEqual(h().pageErrors, []);
    },
  );

  test('cancelling a pairing ends its code: a claim after it is refused with 410', { timeout: 60_000 }, async () => {
    const { page } = h();
    await on(page).button('Pair another phone').click();
    const { code } = await showPairingQr(page);
    await on(page).button('Cancel').click();
    await pairForm(page).waitFor();
    const claim = await viaFront(h().baseUrl, 'POST', '/api/device/pair/claim', {
      code,
      device_name: 'Late phone',
    });
    assert.equal(claim.status, 410, JSON.stringify(claim.json));
  });
});
