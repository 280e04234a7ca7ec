// What an archive's entries may cost, bounded from the manifest before they are read, and its images stored only as
// send_file would store them (docs/archive-format.md, "Import rules").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { makeHub, callTool, type TestHub } from '../support/helpers';
import { gpsJpeg } from '../support/images';
import { writeExport } from '../../src/main/store/export/write';
import { importExport } from '../../src/main/store/export/import';
import { ExportFileError } from '../../src/main/store/export/read';
import { cleanImage } from '../../src/main/hub/features/files/files';
import { exportEntries, fingerprint, jsonl, replaceEntry, rewrite, rowsOf, type Row } from '../support/export-entries';

/** A hub whose agent sent one image (a JPEG with GPS, cleaned by send_file), exported; its entries. */
async function imageArchive(dir: string): Promise<{ entries: Map<string, Buffer>; file: Row }> {
  const src = makeHub();
  try {
    const kit = src.agent('kit');
    const conv = (await callTool(src.hub, kit.id, 'create_group', { title: 'Pics', members: [src.hub.owner.name] })).conversation
      .conv_id as string;
    await callTool(src.hub, kit.id, 'send_file', { conv_id: conv, data: (await gpsJpeg()).toString('base64'), name: 'photo.jpg' });
    const out = path.join(dir, 'pics.tar.gz');
    await writeExport(src.file, out);
    const entries = await exportEntries(out);
    return { entries, file: rowsOf(entries, 'files')[0]! };
  } finally {
    src.close();
  }
}

/** The archive with file `f`'s bytes (and row) replaced, and its thumbnail replaced by `thumb`. */
async function withFileBytes(entries: Map<string, Buffer>, dest: string, f: Row, bytes: Buffer, thumb: Buffer, thumbMime: string) {
  await rewrite(entries, dest, (list, manifest) => {
    const row = { ...f, size: bytes.length, sha256: crypto.createHash('sha256').update(bytes).digest('hex'), thumb_mime: thumbMime };
    replaceEntry(list, manifest, 'files.jsonl', jsonl([row]), 1);
    replaceEntry(list, manifest, `files/${f.id as string}`, bytes);
    replaceEntry(list, manifest, `files/${f.id as string}.thumb`, thumb);
  });
  return dest;
}

async function refused(t: TestHub, file: string, message: RegExp, what: string): Promise<void> {
  const before = fingerprint(t.hub.db);
  for (const dryRun of [true, false]) {
    await assert.rejects(importExport(t.hub.db, file, { dryRun, cleanImage }), (err: unknown) => {
      assert.ok(err instanceof ExportFileError, `${what}: an ExportFileError, got ${String(err)}`);
      assert.match(err.message, message, what);
      assert.ok(!err.message.includes('\n'), `${what}: one line`);
      return true;
    });
    assert.equal(fingerprint(t.hub.db), before, `${what}${dryRun ? ' (dry run)' : ''}: nothing written`);
  }
}

/** A PNG whose header claims width×height, with a few bytes of image data: tiny on disk, huge to decode. */
function claimedPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(Buffer.alloc(64))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

test("an imported image is stored as send_file stores one: re-encoded without its EXIF, GPS and trailing bytes, with the hub's own thumbnail, its message saying the stored size; one claiming 40000×40000 pixels is refused in one line with nothing written", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-import-img-'));
  const target = makeHub();
  try {
    const { entries, file } = await imageArchive(dir);
    const trailer = Buffer.from('TRAILING-PAYLOAD-after-the-image');
    const raw = Buffer.concat([await gpsJpeg(), trailer]);
    assert.ok(raw.includes('TestCam') && raw.includes(trailer), 'the planted image carries its EXIF and a trailer');
    const planted = await withFileBytes(entries, path.join(dir, 'planted.tar.gz'), file, raw, await gpsJpeg(), 'image/jpeg');

    const r = await importExport(target.hub.db, planted, { cleanImage });
    assert.equal(r.added.files, 1);
    const stored = target.hub.db.prepare('SELECT data, thumb, thumb_mime, size, sha256, width, height FROM files').get() as {
      data: Buffer;
      thumb: Buffer;
      thumb_mime: string;
      size: number;
      sha256: string;
      width: number;
      height: number;
    };
    assert.ok(!stored.data.includes('TestCam') && !stored.data.includes(trailer), 'no EXIF, no trailing payload');
    const meta = await sharp(stored.data).metadata();
    assert.equal(meta.exif, undefined, 'no EXIF block at all');
    assert.equal(meta.format, 'jpeg');
    assert.equal(stored.size, stored.data.length);
    assert.equal(stored.sha256, crypto.createHash('sha256').update(stored.data).digest('hex'));
    assert.deepEqual([stored.width, stored.height], [meta.width, meta.height]);
    assert.equal(stored.thumb_mime, 'image/webp', "the hub's thumbnail, not the archive's");
    assert.ok(!stored.thumb.includes('TestCam'));
    const payload = JSON.parse(target.hub.db.prepare("SELECT payload FROM messages WHERE kind = 'image'").pluck().get() as string);
    assert.equal(payload.size, stored.data.length, 'the message says the stored size');

    const huge = claimedPng(40000, 40000);
    const bomb = await withFileBytes(
      entries,
      path.join(dir, 'bomb.tar.gz'),
      { ...file, mime: 'image/png' },
      huge,
      entries.get(`files/${file.id as string}.thumb`)!,
      'image/webp',
    );
    const fresh = makeHub();
    try {
      await refused(fresh, bomb, /^files\/f_[0-9a-f]+: The image has more than 100000000 pixels\.$/, 'a 40000×40000 PNG');
    } finally {
      fresh.close();
    }
  } finally {
    target.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("an archive's entries are bounded from its manifest before they are read: transcripts larger than its rows could make, a file's bytes with no row, a JSON-lines entry larger than its rows; a line over 8 MiB is still refused at that line", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-import-bounds-'));
  const target = makeHub();
  try {
    const { entries } = await imageArchive(dir);
    const transcript = [...entries.keys()].find((n) => n.startsWith('transcripts/'))!;
    // 64 MiB of zeros: about 64 KB compressed, against a few KB of rows.
    const expanded = path.join(dir, 'expanded.tar.gz');
    await rewrite(entries, expanded, (list, manifest) => replaceEntry(list, manifest, transcript, Buffer.alloc(64 * 1024 * 1024)));
    assert.ok(fs.statSync(expanded).size < 1024 * 1024, 'the archive is small');
    await refused(
      target,
      expanded,
      /^the transcripts are \d+ bytes, more than transcripts of the archive's rows can be \(\d+\); it is not an archive Perch wrote$/,
      'a transcript of 64 MiB',
    );

    const extra = path.join(dir, 'extra-bytes.tar.gz');
    await rewrite(entries, extra, (list, manifest) => {
      const bytes = Buffer.alloc(1024);
      list.push(['files/f_norow', bytes]);
      manifest.entries.push({ name: 'files/f_norow', size: bytes.length, sha256: crypto.createHash('sha256').update(bytes).digest('hex') });
    });
    await refused(target, extra, /^files\.jsonl lists 1 files but the archive holds the bytes of 2$/, "a file's bytes with no row");

    const long = path.join(dir, 'long-line.tar.gz');
    await rewrite(entries, long, (list, manifest) => {
      const users = rowsOf(entries, 'users');
      const body = jsonl([{ ...users[0]!, description: 'd'.repeat(9 * 1024 * 1024) }, ...users.slice(1)]);
      replaceEntry(list, manifest, 'users.jsonl', body, 10);
    });
    await refused(target, long, /^users\.jsonl line 1 is longer than 8388608 characters$/, 'a 9 MiB line');
  } finally {
    target.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
