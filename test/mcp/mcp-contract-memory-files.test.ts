// The agent contract over a real `perch serve` (official MCP client, the owner through the owner API): checkpoints
// (state_*), summaries and get_context, send_file / file_url — and the bad input each of them refuses.
import { before, describe, test } from 'node:test';
import { gpsJpeg } from '../support/images';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { LIMITS } from '../../src/shared/limits';
import { type AgentClient } from '../support/serve-harness';
import { R, agent, directWithOwner, group, convLastSeq } from '../support/mcp-contract-kit';

// ---- checkpoints --------------------------------------------------------------------------------

describe('checkpoints', () => {
  test('state_put: optimistic concurrency conflicts on a stale version; state_get reads an older version', async () => {
    const a = await agent('keeper');
    const v1 = await a.ok('state_put', { key: 'plan', value: { step: 1 }, version: 0 });
    assert.equal(v1.version, 1);
    const dup = await a.fail('state_put', { key: 'plan', value: { step: 'x' }, version: 0 });
    assert.equal(dup.code, 'conflict', 'creating an existing key is a conflict');
    assert.equal(dup.details?.current_version, 1);
    const v2 = await a.ok('state_put', { key: 'plan', value: { step: 2 }, version: 1 });
    assert.equal(v2.version, 2);
    const stale = await a.fail('state_put', { key: 'plan', value: { step: 'stale' }, version: 1 });
    assert.equal(stale.code, 'conflict', 'writing from a stale read is a conflict');
    assert.equal(stale.details?.current_version, 2);
    const ahead = await a.fail('state_put', { key: 'plan', value: {}, version: 7 });
    assert.equal(ahead.code, 'conflict');

    const cur = await a.ok('state_get', { key: 'plan' });
    assert.deepEqual([cur.version, cur.value], [2, { step: 2 }], 'the conflicts changed nothing');
    const old = await a.ok('state_get', { key: 'plan', version: 1 });
    assert.deepEqual([old.version, old.value, old.current_version], [1, { step: 1 }, 2]);

    // Per agent: another agent does not see the key.
    const other = await agent('stranger');
    assert.equal((await other.fail('state_get', { key: 'plan' })).code, 'not_found');
    // Delete needs the current version too.
    assert.equal((await a.fail('state_delete', { key: 'plan', version: 1 })).code, 'conflict');
    assert.equal((await a.ok('state_delete', { key: 'plan', version: 2 })).deleted, true);
    assert.equal((await a.fail('state_get', { key: 'plan' })).code, 'not_found');
    // archive/ is read-only.
    assert.equal((await a.fail('state_put', { key: 'archive/x', value: 1, version: 0 })).code, 'forbidden');
  });

  test('state_list returns keys in byte order, filtered by prefix, paged with after / next_after', async () => {
    const a = await agent('lister');
    const keys = ['p/b', 'p/a', 'p/B', 'p/c', 'p/é', 'q/z', 'p/d'];
    for (const key of keys) await a.ok('state_put', { key, value: key, version: 0 });
    const expected = ['p/B', 'p/a', 'p/b', 'p/c', 'p/d', 'p/é'];
    const got: string[] = [];
    let after: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await a.ok('state_list', { prefix: 'p/', limit: 2, ...(after ? { after } : {}) });
      pages++;
      assert.ok(page.keys.length <= 2);
      got.push(...page.keys.map((k: R) => k.key));
      if (page.next_after === null) break;
      assert.equal(page.next_after, page.keys[page.keys.length - 1].key);
      after = page.next_after;
      assert.ok(pages < 10, 'paging ends');
    }
    assert.deepEqual(got, expected);
    assert.equal(pages, 3);
    const all = await a.ok('state_list', {});
    assert.deepEqual(
      all.keys.map((k: R) => k.key),
      [...expected, 'q/z'],
    );
    assert.ok(all.keys.every((k: R) => k.version === 1));
  });
});

// ---- context ------------------------------------------------------------------------------------

describe('put_summary / get_context', () => {
  test('get_context returns the latest summary plus the newest events, oldest first, within max_tokens', async () => {
    const [a, b] = await Promise.all([agent('talker'), agent('reader')]);
    const conv = await group(a, [b]);
    for (let i = 0; i < 30; i++) await a.ok('send_message', { conv_id: conv, text: `Message ${i}: ${'lorem ipsum '.repeat(30)}` });
    const lastSeq = await convLastSeq(conv);
    await b.ok('put_summary', { conv_id: conv, from_seq: 1, to_seq: 6, text: 'Group made; talk about lorem ipsum began.' });

    const estimate = (x: unknown) => Math.ceil(JSON.stringify(x).length / 4);
    for (const maxTokens of [120, 500, 1500]) {
      const ctx = await b.ok('get_context', { conv_id: conv, max_tokens: maxTokens });
      assert.equal(ctx.max_tokens, maxTokens);
      assert.ok(ctx.token_estimate <= maxTokens, `token_estimate ${ctx.token_estimate} <= max_tokens ${maxTokens}`);
      const counted = (ctx.summary ? estimate(ctx.summary) : 0) + ctx.events.reduce((n: number, e: R) => n + estimate(e), 0);
      assert.equal(counted, ctx.token_estimate, 'token_estimate is the documented rule over what was returned');
      assert.ok(counted <= maxTokens);
      const seqs = ctx.events.map((e: R) => e.seq);
      assert.deepEqual(
        seqs,
        [...seqs].sort((x, y) => x - y),
        'events oldest first',
      );
      if (seqs.length) {
        assert.equal(seqs[seqs.length - 1], lastSeq, 'the newest event is kept');
        assert.ok(seqs[0] > 6, 'only events after the summary');
      }
      assert.equal(ctx.truncated, true, 'everything did not fit');
      assert.equal(typeof ctx.token_estimate_rule, 'string');
    }
    const full = await b.ok('get_context', { conv_id: conv, max_tokens: 100_000 });
    assert.equal(full.summary.text, 'Group made; talk about lorem ipsum began.');
    assert.equal(full.truncated, false);
    assert.deepEqual(
      full.events.map((e: R) => e.seq),
      Array.from({ length: lastSeq - 6 }, (_, i) => i + 7),
      'with room, every event after the summary',
    );
  });
});

// ---- files --------------------------------------------------------------------------------------

async function download(url: string): Promise<{ status: number; type: string | null; body: Buffer }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(15_000) });
  return { status: res.status, type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()) };
}

describe('send_file / file_url', () => {
  let a: AgentClient;
  let b: AgentClient;
  let outsider: AgentClient;
  let conv: string;
  before(async () => {
    [a, b, outsider] = await Promise.all([agent('photographer'), agent('viewer'), agent('outsider')]);
    conv = await group(a, [b]);
  });

  test('a JPEG with GPS EXIF comes back through file_url without EXIF, and its thumbnail is smaller; the link lasts 5 minutes and a tampered one is 404', async () => {
    const input = await gpsJpeg();
    const inMeta = await sharp(input).metadata();
    assert.ok(inMeta.exif && inMeta.exif.length > 0, 'the input really carries EXIF');
    assert.ok(input.includes(Buffer.from('GeoShooter 9000')));

    const sent = await a.ok('send_file', { conv_id: conv, data: input.toString('base64'), name: 'holiday.jpg', caption: 'Look!' });
    assert.equal(sent.kind, 'image');
    assert.equal(sent.mime, 'image/jpeg');
    assert.equal(sent.has_thumb, true);

    const link = await b.ok('file_url', { conv_id: conv, file_id: sent.file_id });
    const ttl = link.expires_at - Date.now();
    assert.ok(
      ttl > (LIMITS.fileUrlTtlSecs - 10) * 1000 && ttl <= LIMITS.fileUrlTtlSecs * 1000 + 1000,
      `the link expires in about 300 s (in ${Math.round(ttl / 1000)} s)`,
    );
    const original = await download(link.url);
    assert.equal(original.status, 200);
    assert.equal(original.type, 'image/jpeg');
    const outMeta = await sharp(original.body).metadata();
    assert.equal(outMeta.format, 'jpeg');
    assert.equal(outMeta.exif, undefined, 'the downloaded image has no EXIF (hence no GPS)');
    assert.ok(!original.body.includes(Buffer.from('GeoShooter 9000')), 'no camera strings either');
    assert.equal(original.body.length, sent.size);

    const thumbLink = await b.ok('file_url', { conv_id: conv, file_id: sent.file_id, variant: 'thumb' });
    const thumb = await download(thumbLink.url);
    assert.equal(thumb.status, 200);
    assert.ok(
      thumb.body.length < original.body.length,
      `the thumbnail (${thumb.body.length} B) is smaller than the original (${original.body.length} B)`,
    );
    const thumbMeta = await sharp(thumb.body).metadata();
    assert.ok(Math.max(thumbMeta.width!, thumbMeta.height!) < Math.max(outMeta.width!, outMeta.height!));
    assert.equal(thumbMeta.exif, undefined);

    // Tampered links: a flipped signature, and a later expiry with the old signature.
    const u = new URL(link.url);
    const token = u.pathname.slice('/files/'.length);
    const parts = token.split('.');
    assert.equal(parts.length, 4, 'file_id.variant.expiry.mac');
    const mac = parts[3]!;
    const flipped = [...parts.slice(0, 3), (mac[0] === 'A' ? 'B' : 'A') + mac.slice(1)].join('.');
    const extended = [parts[0], parts[1], (parseInt(parts[2]!, 36) + 3_600_000).toString(36), mac].join('.');
    const asThumb = [parts[0], 't', parts[2], mac].join('.');
    for (const bad of [flipped, extended, asThumb, 'nonsense']) {
      const r = await download(`${u.origin}/files/${bad}`);
      assert.equal(r.status, 404, `a tampered link (${bad.slice(0, 40)}) is refused with 404`);
    }
  });

  test('a non-member cannot get a file link', async () => {
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#3366aa' } })
      .png()
      .toBuffer();
    const sent = await a.ok('send_file', { conv_id: conv, data: png.toString('base64'), name: 'dot.png' });
    const e = await outsider.fail('file_url', { conv_id: conv, file_id: sent.file_id });
    assert.equal(e.code, 'not_member');
    // Through a conversation it is in, the file is not there for it either.
    const own = await directWithOwner(outsider);
    assert.equal((await outsider.fail('file_url', { conv_id: own, file_id: sent.file_id })).code, 'not_found');
  });

  test('bad files are refused and nothing is stored: bad base64, a fake PNG, and a file just over 16 MiB', async () => {
    const before = await convLastSeq(conv);
    const badB64 = await a.fail('send_file', { conv_id: conv, data: 'aGVsbG8$d29ybGQ=', name: 'note.txt' });
    assert.equal(badB64.code, 'invalid_argument');
    assert.match(badB64.message, /not valid base64/);

    const fake = await a.fail('send_file', {
      conv_id: conv,
      data: Buffer.from('GIF? no, just text pretending').toString('base64'),
      name: 'chart.png',
    });
    assert.equal(fake.code, 'invalid_argument');
    assert.match(fake.message, /claims to be PNG but is not/);
    const fakeMime = await a.fail('send_file', {
      conv_id: conv,
      data: Buffer.from('<html>hi</html>').toString('base64'),
      name: 'page',
      mime: 'image/png',
    });
    assert.equal(fakeMime.code, 'invalid_argument');
    assert.match(fakeMime.message, /claims to be PNG/);

    const oversize = Buffer.alloc(LIMITS.maxFileBytes + 3, 7);
    const big = await a.fail('send_file', {
      conv_id: conv,
      data: oversize.toString('base64'),
      name: 'big.bin',
      mime: 'application/octet-stream',
    });
    assert.equal(big.code, 'too_large');
    assert.match(big.message, /limit/);
    assert.equal(await convLastSeq(conv), before, 'no message or file was written');
  });
});
