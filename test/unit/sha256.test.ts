// shared/sha256.ts hashes the login token perch serve prints before the hub (and node:crypto) is loaded; the hub checks
// that token with node:crypto's SHA-256. The two must agree on every input: lengths across the block boundaries,
// multi-byte UTF-8, and the FIPS 180-4 examples.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { sha256 } from '../../src/shared/sha256';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const nodeSha = (s: string) => crypto.createHash('sha256').update(s, 'utf8').digest('hex');

test('sha256 gives the FIPS 180-4 digests of "", "abc" and the two-block example', () => {
  assert.equal(hex(sha256('')), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.equal(hex(sha256('abc')), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.equal(
    hex(sha256('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')),
    '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
  );
});

test('sha256 agrees with node:crypto on every length 0..300, ASCII and multi-byte UTF-8, and on login tokens', () => {
  for (let n = 0; n <= 300; n++) {
    const ascii = 'x'.repeat(n);
    assert.equal(hex(sha256(ascii)), nodeSha(ascii), `length ${n}`);
    const utf8 = 'é😀z'.repeat(n).slice(0, n);
    assert.equal(hex(sha256(utf8)), nodeSha(utf8), `UTF-8 of ${n} code units`);
  }
  for (let i = 0; i < 200; i++) {
    const token = crypto.randomBytes(24).toString('base64url');
    assert.equal(hex(sha256(token)), nodeSha(token));
  }
});
