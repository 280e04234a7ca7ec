// The owner's files in the composer (attach button, drop, paste; files.send with its upload's progress) and long
// text (a counter near the limit, a refusal before sending, "Send as file"), against a real `perch serve`: what the
// owner sends reaches a real agent's get_updates; a photo arrives without its EXIF; the page never widens.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import type { Page } from 'playwright-core';
import { LIMITS } from '../src/shared/limits';
import { gpsJpeg } from '../test/support/images';
import { useHarness, openConversation, within, type Agent } from './harness';
import { on } from './pages/on';
import { screenTitle } from './pages/app';
import { composer } from './pages/conversation';

/** The file an agent received, downloaded through file_url. */
async function download(agent: Agent, convId: string, fileId: string): Promise<Buffer> {
  const link = await agent.call('file_url', { conv_id: convId, file_id: fileId });
  const res = await within(10_000, 'file download', fetch(link.url));
  return Buffer.from(await res.arrayBuffer());
}

/** Every aria-valuenow an upload's progress bar showed, recorded from now on (the upload is quick on loopback). */
async function recordProgress(page: Page): Promise<() => Promise<number[]>> {
  await page.evaluate(`(() => {
    window.__progress = [];
    const seen = () => document.querySelectorAll('.composer [role=progressbar]').forEach((el) => window.__progress.push(Number(el.getAttribute('aria-valuenow'))));
    window.__progressObserver?.disconnect();
    window.__progressObserver = new MutationObserver(seen);
    window.__progressObserver.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-valuenow'] });
  })()`);
  return () => page.evaluate('window.__progress') as Promise<number[]>;
}

describe('files in the composer', () => {
  const h = useHarness({ agents: ['alice'] });
  let convId: string;
  let alice: Agent;

  before(
    async () => {
      alice = h().agents.alice!;
      convId = (await alice.call('open_direct', { user: 'owner' })).conversation.conv_id;
      await alice.call('send_message', { conv_id: convId, text: 'Send me the photo when you can.' });
      await openConversation(h().page, 'alice');
    },
    { timeout: 90_000 },
  );

  test(
    'the owner attaches a photo with the button: its upload shows progress, the agent gets it with the caption and a thumbnail, without EXIF',
    { timeout: 90_000 },
    async () => {
      const { page } = h();
      const jpeg = await gpsJpeg({ orientation: 6 });
      assert.ok((await sharp(jpeg).metadata()).exif, 'the photo carries EXIF');
      assert.ok(jpeg.includes(Buffer.from('TestCam')));

      // The button opens the file picker; the picked file waits in the composer until Send.
      const toAlice = composer(page, 'alice');
      await toAlice.attach({ name: 'holiday.jpg', mimeType: 'image/jpeg', buffer: jpeg });
      const files = toAlice.attachedFiles;
      await files.text('holiday.jpg').waitFor();
      await toAlice.box.fill('Here it is @alice');

      const progress = await recordProgress(page);
      // Loopback is too fast to watch an upload: Chromium's own network throttling slows this one down.
      const cdp = await h().context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: 512 * 1024,
      });
      await toAlice.sendButton.click();
      await on(page).role('progressbar', 'Uploading holiday.jpg').waitFor();
      await h().screenshot('composer-photo-uploading');
      const ev = await alice.waitFor((e) => e.type === 'message.created' && e.message?.kind === 'image');
      await files.waitFor({ state: 'detached' }); // sent: the composer is empty again
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
      await cdp.detach();
      const shown = await progress();
      assert.ok(
        shown.some((v) => v > 0 && v < 100),
        `the progress bar showed the upload part way: ${shown.join(',')}`,
      );
      assert.deepEqual(
        shown,
        [...shown].sort((a, b) => a - b),
        'progress only grows',
      );
      assert.ok(
        shown.every((v) => v >= 0 && v <= 100),
        `progress in 0..100: ${shown.join(',')}`,
      );
      assert.equal(await toAlice.box.inputValue(), '');

      assert.equal(ev.actor?.kind, 'human');
      assert.equal(ev.message!.text, 'Here it is @alice');
      const payload = ev.message!.payload as { file_id: string; name: string; width: number; height: number; has_thumb: boolean };
      assert.equal(payload.name, 'holiday.jpg');
      assert.deepEqual([payload.width, payload.height], [800, 1200], 'turned upright');
      assert.equal(payload.has_thumb, true);
      const bytes = await download(alice, convId, payload.file_id);
      assert.equal((await sharp(bytes).metadata()).exif, undefined, 'no EXIF (no GPS) in what the agent downloads');
      assert.ok(!bytes.includes(Buffer.from('TestCam')), 'no camera strings left');
      // The owner sees it in the timeline as an image.
      await on(page).button('View image holiday.jpg').waitFor();
      await h().screenshot('composer-photo-sent');
    },
  );

  test('a file dropped on the composer and an image pasted into it are sent; the agent gets both', { timeout: 60_000 }, async () => {
    const { page } = h();
    const toAlice = composer(page, 'alice');
    const dropped = await page.evaluateHandle(`(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['line one\\nline two\\n'], 'notes.txt', { type: 'text/plain' }));
      return dt;
    })()`);
    await toAlice.area.dispatchEvent('dragover', { dataTransfer: dropped });
    await toAlice.area.dispatchEvent('drop', { dataTransfer: dropped });
    const files = toAlice.attachedFiles;
    await files.text('notes.txt').waitFor();

    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3a7' } })
      .png()
      .toBuffer();
    await page.evaluate(`((b64) => {
      const bin = atob(b64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], 'image.png', { type: 'image/png' }));
      const box = document.querySelector('.composer textarea');
      box.focus();
      box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
    })(${JSON.stringify(png.toString('base64'))})`);
    await files.text('image.png').waitFor();
    assert.equal(await toAlice.box.inputValue(), '', 'a pasted file is attached, not typed');

    await toAlice.submit();
    const txt = await alice.waitFor((e) => e.type === 'message.created' && e.message?.kind === 'file');
    const img = await alice.waitFor((e) => e.type === 'message.created' && e.message?.kind === 'image');
    const txtPayload = txt.message!.payload as { file_id: string; name: string; mime: string };
    assert.equal(txtPayload.name, 'notes.txt');
    assert.equal(txtPayload.mime, 'text/plain');
    assert.equal((await download(alice, convId, txtPayload.file_id)).toString('utf8'), 'line one\nline two\n');
    assert.equal((img.message!.payload as { name: string }).name, 'image.png');
    await files.waitFor({ state: 'detached' });
  });

  test(
    "a file the hub refuses stays in the composer with the hub's reason; a file over the limit is refused when attached; nothing is sent",
    { timeout: 60_000 },
    async () => {
      const { page } = h();
      const before = (await alice.call('get_history', { conv_id: convId })).events.length as number;
      // A PNG named .jpg: the hub reads the type from the bytes and refuses the disguise.
      const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#a33' } })
        .png()
        .toBuffer();
      const toAlice = composer(page, 'alice');
      await toAlice.attach({ name: 'fake.jpg', mimeType: 'image/jpeg', buffer: png });
      await toAlice.sendButton.click();
      const files = toAlice.attachedFiles;
      await files
        .alert()
        .filter({ hasText: /Not sent: The file claims to be JPEG but is not/ })
        .waitFor();
      await files.button('Remove fake.jpg').click();
      await files.waitFor({ state: 'detached' });

      // One byte over the limit, made in the page and dropped (handing 16 MiB to the file chooser is slow).
      const huge = await page.evaluateHandle(`(() => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(${LIMITS.maxFileBytes + 1})], 'huge.bin', { type: 'application/octet-stream' }));
      return dt;
    })()`);
      await toAlice.area.dispatchEvent('drop', { dataTransfer: huge });
      const alert = on(page).find('.composer-refusal');
      await alert.text(/"huge\.bin" is 16\.0 MB; a file can be at most 16\.0 MB/).waitFor();
      assert.equal(await toAlice.attachedFiles.count(), 0, 'not attached');
      assert.equal(await toAlice.sendButton.isDisabled(), true);
      await alert.button('Dismiss').click();
      assert.equal((await alice.call('get_history', { conv_id: convId })).events.length, before, 'nothing reached the conversation');
    },
  );
});

describe('long text in the composer', () => {
  const h = useHarness({ agents: ['bob'] });
  let convId: string;
  let bob: Agent;

  before(
    async () => {
      bob = h().agents.bob!;
      convId = (await bob.call('open_direct', { user: 'owner' })).conversation.conv_id;
      await bob.call('send_message', { conv_id: convId, text: 'Paste the log here.' });
      await openConversation(h().page, 'bob');
    },
    { timeout: 90_000 },
  );

  test(
    'pasting 40,000 characters without spaces leaves the header and composer in view, shows the counter and the refusal, and "Send as file" delivers a file the agent reads',
    { timeout: 90_000 },
    async () => {
      const { page } = h();
      const limit = LIMITS.maxTextChars;
      const n = (x: number) => x.toLocaleString('en-US');
      const toBob = composer(page, 'bob');
      const box = toBob.box;

      // Near the limit: the counter shows; sending is still allowed.
      await box.fill('y'.repeat(Math.ceil(limit * 0.95)));
      await on(page)
        .text(`${n(Math.ceil(limit * 0.95))} / ${n(limit)}`)
        .waitFor();
      assert.equal(await toBob.sendButton.isEnabled(), true);
      await box.fill('');

      // A real paste from the clipboard.
      const long = `${'x'.repeat(39_990)}0123456789`;
      await h().context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h().baseUrl });
      await page.evaluate(`navigator.clipboard.writeText(${JSON.stringify(long)})`);
      await box.click();
      await page.keyboard.press('Control+V');
      await on(page)
        .text(`${n(40_000)} / ${n(limit)}`)
        .waitFor();
      assert.equal((await box.inputValue()).length, 40_000);

      // The page did not widen: the header, the composer and its Send button stay in the window.
      const viewport = page.viewportSize()!;
      const inView = async (what: string, loc: ReturnType<Page['locator']>) => {
        const b = await loc.boundingBox();
        assert.ok(b, `${what} is shown`);
        assert.ok(b.x >= 0 && b.x + b.width <= viewport.width + 1, `${what} is within the window horizontally: ${JSON.stringify(b)}`);
        assert.ok(b.y >= 0 && b.y + b.height <= viewport.height + 1, `${what} is within the window vertically: ${JSON.stringify(b)}`);
      };
      await inView('the conversation heading', screenTitle(page, 'bob'));
      await inView('the composer', toBob.area);
      await inView('the Send button', toBob.sendButton);
      await inView('the Send as file button', toBob.sendAsFileButton);
      assert.equal(await page.evaluate('document.querySelector(".main").scrollLeft'), 0, 'the main pane is not scrolled sideways');
      assert.ok(
        ((await page.evaluate('document.documentElement.scrollWidth')) as number) <= viewport.width,
        'the page is no wider than the window',
      );

      // The refusal comes before sending, in plain words; Send and Enter do nothing.
      const refusal = on(page).alert().filter({ hasText: 'Too long to send as one message' });
      await refusal.waitFor();
      assert.match(await refusal.innerText(), new RegExp(`${n(40_000)} characters, ${n(40_000 - limit)} over the limit of ${n(limit)}`));
      assert.equal(await toBob.sendButton.isDisabled(), true);
      await toBob.submit();
      await h().screenshot('composer-too-long');

      // Send as file: the agent gets message.txt with the whole text, and the composer is empty again.
      await toBob.sendAsFileButton.click();
      const ev = await bob.waitFor((e) => e.type === 'message.created' && e.actor?.kind === 'human');
      assert.equal(ev.message!.kind, 'file', 'the first (and only) message the owner sent is the file');
      const payload = ev.message!.payload as { file_id: string; name: string; mime: string; size: number };
      assert.equal(payload.name, 'message.txt');
      assert.equal(payload.mime, 'text/plain');
      assert.equal(payload.size, 40_000);
      assert.equal((await download(bob, convId, payload.file_id)).toString('utf8'), long);
      // A function, not a string: the page's CSP forbids eval, and Playwright evaluates a string predicate with it.
      await page.waitForFunction(() => document.querySelector<HTMLTextAreaElement>('.composer textarea')?.value === '');
      assert.equal(await refusal.count(), 0);
      assert.deepEqual(h().pageErrors, []);
    },
  );
});
