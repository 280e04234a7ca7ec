// Files: send_file (strict base64, sniffed types, EXIF/GPS stripped, thumbnails) and file_url (signed links).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { gpsJpeg as gpsJpegOf } from '../support/images';
import { withHub, type TestHub, callTool as call } from '../support/helpers';
import { createHub } from '../../src/main/hub-services';
import { HubError } from '../../src/shared/errors';
import { LIMITS } from '../../src/shared/limits';
import {
  decodeBase64Strict,
  ownerFileUrl,
  readFile,
  signFileToken,
  sniffImage,
  verifyFileToken,
  THUMB_BOX,
} from '../../src/main/hub/features/files/files';

type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any
type T = TestHub;

async function refused(p: Promise<unknown> | (() => unknown), code: string, message?: RegExp): Promise<HubError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    assert.ok(e instanceof HubError, `expected a HubError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (message) assert.match(e.message, message);
    return e;
  }
  assert.fail(`expected a ${code} refusal`);
}

async function setup(t: T) {
  const a = t.agent('alpha');
  const b = t.agent('beta');
  const c = t.agent('gamma');
  const conv = (await call(t.hub, a.id, 'open_direct', { user: 'beta' })).conversation.conv_id as string;
  return { a, b, c, conv };
}

function fileCount(t: T): number {
  return (t.hub.db.prepare('SELECT count(*) AS n FROM files').get() as { n: number }).n;
}

function lastSeq(t: T, conv: string): number {
  return (t.hub.db.prepare('SELECT last_seq FROM conversations WHERE id = ?').get(conv) as { last_seq: number }).last_seq;
}

/** Tag ids of IFD0 of an EXIF block (as sharp's metadata().exif gives it: "Exif\0\0" + TIFF). */
function exifIfd0Tags(exif: Buffer): Set<number> {
  const tiff = exif.subarray(exif.subarray(0, 6).toString('latin1') === 'Exif\0\0' ? 6 : 0);
  const le = tiff.subarray(0, 2).toString('latin1') === 'II';
  const u16 = (o: number) => (le ? tiff.readUInt16LE(o) : tiff.readUInt16BE(o));
  const u32 = (o: number) => (le ? tiff.readUInt32LE(o) : tiff.readUInt32BE(o));
  const ifd = u32(4);
  const n = u16(ifd);
  const tags = new Set<number>();
  for (let i = 0; i < n; i++) tags.add(u16(ifd + 2 + i * 12));
  return tags;
}
const GPS_IFD_POINTER = 0x8825;
const TAG_MAKE = 0x010f;

/** A 1200×800 JPEG from a camera "TestCam" with GPS coordinates and orientation 6 (rotate 90°). */
const gpsJpeg = () => gpsJpegOf({ orientation: 6 });

test('a JPEG with GPS EXIF is stored without it, turned upright, with a smaller thumbnail', async () => {
  await withHub(async (t) => {
    const { a, b, conv } = await setup(t);
    const input = await gpsJpeg();
    const inMeta = await sharp(input).metadata();
    assert.ok(inMeta.exif, 'the input carries EXIF');
    const inTags = exifIfd0Tags(inMeta.exif);
    assert.ok(inTags.has(GPS_IFD_POINTER), 'the input carries a GPS IFD');
    assert.ok(inTags.has(TAG_MAKE));
    assert.equal(inMeta.orientation, 6);
    assert.ok(input.includes(Buffer.from('GeoShooter 9000')));

    const sent = await call(t.hub, a.id, 'send_file', {
      conv_id: conv,
      data: input.toString('base64'),
      name: 'holiday.jpg',
      caption: 'Look!',
    });
    assert.equal(sent.kind, 'image');
    assert.equal(sent.mime, 'image/jpeg');
    assert.equal(sent.has_thumb, true);
    // Orientation 6 applied: the 1200×800 landscape is stored as 800×1200.
    assert.deepEqual([sent.width, sent.height], [800, 1200]);

    // The message the other member reads.
    const hist = await call(t.hub, b.id, 'get_history', { conv_id: conv });
    const msg = hist.events.find((e: Any) => e.message?.msg_id === sent.msg_id).message;
    assert.equal(msg.kind, 'image');
    assert.equal(msg.text, 'Look!');
    assert.deepEqual(msg.payload, {
      file_id: sent.file_id,
      name: 'holiday.jpg',
      mime: 'image/jpeg',
      size: sent.size,
      width: 800,
      height: 1200,
      has_thumb: true,
    });

    // What is stored (and served) has no EXIF at all, hence no GPS, and no camera strings.
    const original = readFile(t.hub, sent.file_id, 'original');
    assert.equal(original.mime, 'image/jpeg');
    assert.equal(original.size, sent.size);
    assert.equal(sniffImage(original.data), 'jpeg');
    const outMeta = await sharp(original.data).metadata();
    assert.equal(outMeta.exif, undefined, 'no EXIF in the stored original');
    assert.equal(outMeta.xmp, undefined);
    assert.ok(!outMeta.orientation || outMeta.orientation === 1);
    assert.ok(!original.data.includes(Buffer.from('GeoShooter 9000')));
    assert.ok(!original.data.includes(Buffer.from('TestCam')));
    assert.deepEqual([outMeta.width, outMeta.height], [800, 1200]);

    // The thumbnail: made once, stored beside it, inside the 320px box, smaller, also without EXIF.
    const thumb = readFile(t.hub, sent.file_id, 'thumb');
    const thumbMeta = await sharp(thumb.data).metadata();
    assert.equal(thumb.mime, 'image/webp');
    assert.ok(thumb.size < original.size, `thumb ${thumb.size} < original ${original.size}`);
    assert.ok(Math.max(thumbMeta.width!, thumbMeta.height!) <= THUMB_BOX);
    assert.equal(thumbMeta.height, THUMB_BOX, 'the portrait thumbnail fills the box height');
    assert.equal(thumbMeta.exif, undefined);

    // Links to both, for a member of the conversation.
    const link = await call(t.hub, b.id, 'file_url', { conv_id: conv, file_id: sent.file_id });
    assert.equal(link.mime, 'image/jpeg');
    assert.equal(link.name, 'holiday.jpg');
    assert.equal(link.size, sent.size);
    const ttl = link.expires_at - t.hub.now();
    assert.ok(ttl > (LIMITS.fileUrlTtlSecs - 5) * 1000 && ttl <= LIMITS.fileUrlTtlSecs * 1000, 'valid for fileUrlTtlSecs');
    assert.ok(link.url.startsWith(`${t.hub.doors.baseUrl}/files/`));
    const token = link.url.slice(link.url.lastIndexOf('/') + 1);
    assert.deepEqual({ ...verifyFileToken(t.hub, token), expires_at: 0 }, { file_id: sent.file_id, variant: 'original', expires_at: 0 });
    const thumbLink = await call(t.hub, b.id, 'file_url', { conv_id: conv, file_id: sent.file_id, variant: 'thumb' });
    assert.equal(thumbLink.mime, 'image/webp');
    assert.equal(thumbLink.size, thumb.size);
    assert.equal(verifyFileToken(t.hub, thumbLink.url.split('/files/')[1]).variant, 'thumb');
  });
});

test('PNG, GIF and WebP are sniffed, re-encoded in their own format and thumbnailed', async () => {
  await withHub(async (t) => {
    const { a, conv } = await setup(t);
    const img = () => sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 10, g: 120, b: 200 } } });
    const cases: Array<[string, Buffer, string]> = [
      [
        'chart.png',
        await img()
          .png()
          .withExif({ IFD0: { Make: 'PngCam' } })
          .toBuffer(),
        'image/png',
      ],
      ['anim.gif', await img().gif().toBuffer(), 'image/gif'],
      [
        'photo.webp',
        await img()
          .webp()
          .withExif({ IFD0: { Make: 'WebpCam' } })
          .toBuffer(),
        'image/webp',
      ],
      // A real type wins over a missing or generic name.
      ['no-extension', await img().png().toBuffer(), 'image/png'],
    ];
    assert.ok((await sharp(cases[0]![1]).metadata()).exif, 'the PNG input carries EXIF');
    assert.ok((await sharp(cases[2]![1]).metadata()).exif, 'the WebP input carries EXIF');
    for (const [name, buf, mime] of cases) {
      const sent = await call(t.hub, a.id, 'send_file', { conv_id: conv, data: buf.toString('base64'), name });
      assert.equal(sent.kind, 'image', name);
      assert.equal(sent.mime, mime, name);
      assert.deepEqual([sent.width, sent.height], [640, 480], name);
      const stored = readFile(t.hub, sent.file_id);
      assert.equal(`image/${sniffImage(stored.data)}`, mime, name);
      assert.equal((await sharp(stored.data).metadata()).exif, undefined, name);
      const thumbMeta = await sharp(readFile(t.hub, sent.file_id, 'thumb').data).metadata();
      assert.deepEqual([thumbMeta.width, thumbMeta.height], [320, 240], name);
    }

    // An animated GIF keeps its frames; width/height are those of one frame; the thumbnail is the first.
    const frame = (c: string) =>
      sharp({ create: { width: 64, height: 48, channels: 3, background: c } })
        .png()
        .toBuffer();
    const anim = await sharp([await frame('#f00'), await frame('#0f0'), await frame('#00f')], { join: { animated: true } })
      .gif()
      .toBuffer();
    assert.equal((await sharp(anim).metadata()).pages, 3);
    const sent = await call(t.hub, a.id, 'send_file', { conv_id: conv, data: anim.toString('base64'), name: 'blink.gif' });
    assert.deepEqual([sent.kind, sent.width, sent.height], ['image', 64, 48]);
    assert.equal((await sharp(readFile(t.hub, sent.file_id).data).metadata()).pages, 3);
    const animThumb = await sharp(readFile(t.hub, sent.file_id, 'thumb').data).metadata();
    assert.deepEqual([animThumb.width, animThumb.height, animThumb.pages ?? 1], [64, 48, 1]);
  });
});

test('a non-image is stored as a file: given mime kept, otherwise application/octet-stream; no thumbnail', async () => {
  await withHub(async (t) => {
    const { a, b, conv } = await setup(t);
    const pdf = Buffer.from('%PDF-1.7\n1 0 obj <<>> endobj\n%%EOF\n');
    const sent = await call(t.hub, a.id, 'send_file', {
      conv_id: conv,
      data: pdf.toString('base64'),
      name: 'report.pdf',
      mime: 'application/pdf',
    });
    assert.equal(sent.kind, 'file');
    assert.equal(sent.mime, 'application/pdf');
    assert.equal(sent.has_thumb, false);
    assert.equal(sent.width, undefined);
    const got = readFile(t.hub, sent.file_id);
    assert.ok(got.data.equals(pdf), 'bytes of a non-image are stored unchanged');
    assert.equal(got.disposition, 'attachment');

    const blob = await call(t.hub, a.id, 'send_file', {
      conv_id: conv,
      data: Buffer.from([1, 2, 3, 4, 5]).toString('base64'),
      name: '../../etc/data.bin',
      caption: '',
    });
    assert.equal(blob.mime, 'application/octet-stream');
    assert.equal(blob.name, 'data.bin', 'folders are dropped from the name');
    const hist = await call(t.hub, b.id, 'get_history', { conv_id: conv });
    const msg = hist.events.find((e: Any) => e.message?.msg_id === blob.msg_id).message;
    assert.equal(msg.kind, 'file');
    assert.equal(msg.text, '');
    assert.deepEqual(msg.payload, { file_id: blob.file_id, name: 'data.bin', mime: 'application/octet-stream', size: 5, has_thumb: false });

    await refused(
      call(t.hub, b.id, 'file_url', { conv_id: conv, file_id: blob.file_id, variant: 'thumb' }),
      'invalid_argument',
      /not an image/,
    );
  });
});

test('bad base64, oversize files and a fake PNG are refused, and nothing is stored', async () => {
  await withHub(async (t) => {
    const { a, conv } = await setup(t);
    const seq0 = lastSeq(t, conv);
    const send = (data: string, name = 'x.bin', extra: Record<string, unknown> = {}) =>
      call(t.hub, a.id, 'send_file', { conv_id: conv, data, name, ...extra });

    // Buffer.from would quietly decode all of these.
    await refused(send('aGVsbG8gd29ybGQ*'), 'invalid_argument', /not valid base64/);
    await refused(send('aGVs bG8='), 'invalid_argument', /not valid base64/);
    await refused(send('aGVsbG8=aGVs'), 'invalid_argument', /padding/);
    await refused(send('aGVsbG8gd29ybGQ-'), 'invalid_argument', /not valid base64/); // base64url character
    await refused(send('aGVsb'), 'invalid_argument', /length/);
    await refused(send('aGVsbG9='), 'invalid_argument', /stray bits/); // 'hello' is aGVsbG8=
    await refused(send('aGVsbG8==='), 'invalid_argument', /not valid base64/);
    assert.equal(Buffer.from('aGVsbG8gd29ybGQ*', 'base64').toString(), 'hello world', 'Buffer.from is lenient');
    assert.throws(() => decodeBase64Strict('aGVsbG8gd29ybGQ*'), HubError);
    // Correct base64 passes, padded or not, and wrapped at 76 columns.
    assert.equal(decodeBase64Strict('aGVsbG8=').toString(), 'hello');
    assert.equal(decodeBase64Strict('aGVsbG8').toString(), 'hello');
    const long = Buffer.alloc(300, 7);
    assert.ok(decodeBase64Strict(long.toString('base64').replace(/.{76}/g, '$&\n')).equals(long));

    // One byte over 16 MiB decoded.
    const over = Buffer.alloc(LIMITS.maxFileBytes + 1, 0x41).toString('base64');
    await refused(send(over), 'too_large');

    // Named .png (or declared image/png) but its bytes are not PNG.
    const text = Buffer.from('I am not a picture at all').toString('base64');
    await refused(send(text, 'chart.png'), 'invalid_argument', /claims to be PNG but is not/);
    await refused(send(text, 'chart.bin', { mime: 'image/png' }), 'invalid_argument', /claims to be PNG but is not/);
    const jpeg = (
      await sharp({ create: { width: 8, height: 8, channels: 3, background: '#fff' } })
        .jpeg()
        .toBuffer()
    ).toString('base64');
    await refused(send(jpeg, 'chart.png'), 'invalid_argument', /claims to be PNG but is not.*JPEG/);
    // Starts like a PNG but is broken.
    const brokenPng = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('garbage garbage')]);
    await refused(send(brokenPng.toString('base64'), 'chart.png'), 'invalid_argument', /could not be read/);

    assert.equal(fileCount(t), 0, 'no file stored');
    assert.equal(lastSeq(t, conv), seq0, 'no message or event written');
  });
});

test('only members may send or link a file; a foreign conversation or file is not found', async () => {
  await withHub(async (t) => {
    const { a, b, c, conv } = await setup(t);
    const data = Buffer.from('secret plans').toString('base64');
    await refused(call(t.hub, c.id, 'send_file', { conv_id: conv, data, name: 'plans.txt' }), 'not_member');
    assert.equal(fileCount(t), 0);

    const sent = await call(t.hub, a.id, 'send_file', { conv_id: conv, data, name: 'plans.txt', mime: 'text/plain' });
    assert.ok((await call(t.hub, b.id, 'file_url', { conv_id: conv, file_id: sent.file_id })).url);
    // gamma is not in the conversation.
    await refused(call(t.hub, c.id, 'file_url', { conv_id: conv, file_id: sent.file_id }), 'not_member');
    // gamma's own conversation does not hold that file.
    const own = (await call(t.hub, c.id, 'open_direct', { user: 'alpha' })).conversation.conv_id as string;
    await refused(call(t.hub, c.id, 'file_url', { conv_id: own, file_id: sent.file_id }), 'not_found');
    await refused(call(t.hub, a.id, 'file_url', { conv_id: conv, file_id: 'f_0000000000000000' }), 'not_found');
    await refused(call(t.hub, a.id, 'file_url', { conv_id: 'c_nope', file_id: sent.file_id }), 'not_found');

    // The owner's UI gets links to any file.
    const owned = ownerFileUrl(t.hub, sent.file_id);
    assert.equal(verifyFileToken(t.hub, owned.url.split('/files/')[1]).file_id, sent.file_id);
    assert.equal(readFile(t.hub, sent.file_id).data.toString(), 'secret plans');
  });
});

test('file links expire after fileUrlTtlSecs; forged or altered links are not found', async () => {
  await withHub(async (t) => {
    const { a, conv } = await setup(t);
    const sent = await call(t.hub, a.id, 'send_file', { conv_id: conv, data: Buffer.from('x').toString('base64'), name: 'x.txt' });
    const link = await call(t.hub, a.id, 'file_url', { conv_id: conv, file_id: sent.file_id });
    const token = link.url.split('/files/')[1] as string;
    assert.equal(link.expires_at - t.hub.now() <= LIMITS.fileUrlTtlSecs * 1000, true);

    // The same hub (same secret) a moment before and after the expiry.
    const at = (ms: number) => createHub({ db: t.hub.db, now: () => ms });
    assert.equal(verifyFileToken(at(link.expires_at - 1), token).file_id, sent.file_id);
    await refused(() => verifyFileToken(at(link.expires_at), token), 'expired');
    await refused(() => verifyFileToken(at(link.expires_at + 60_000), token), 'expired');

    // A token signed with an explicit past expiry.
    await refused(() => verifyFileToken(t.hub, signFileToken(t.hub, sent.file_id, 'original', t.hub.now() - 1)), 'expired');

    // Altering any part breaks the signature: not found (not "expired"), even with a later expiry.
    const [id, v, exp, mac] = token.split('.') as [string, string, string, string];
    const later = (parseInt(exp, 36) + 3_600_000).toString(36);
    await refused(() => verifyFileToken(t.hub, [id, v, later, mac].join('.')), 'not_found');
    await refused(() => verifyFileToken(t.hub, [id, 't', exp, mac].join('.')), 'not_found');
    await refused(() => verifyFileToken(t.hub, [id, v, exp, mac.replace(/^./, (ch) => (ch === 'A' ? 'B' : 'A'))].join('.')), 'not_found');
    await refused(() => verifyFileToken(t.hub, 'garbage'), 'not_found');
  });
});

test('a retried send_file with the same operation_id stores one file', async () => {
  await withHub(async (t) => {
    const { a, conv } = await setup(t);
    const args = { conv_id: conv, data: Buffer.from('once').toString('base64'), name: 'once.txt', operation_id: 'op-file-1' };
    const first = await call(t.hub, a.id, 'send_file', args);
    const again = await call(t.hub, a.id, 'send_file', args);
    assert.deepEqual(again, first);
    assert.equal(fileCount(t), 1);
  });
});
