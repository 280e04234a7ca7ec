// The run key never reaches a wake run's log: KeyRedactor (launcher/redact.ts) on every way of splitting the output.
// (test/wake/wake-runs.test.ts checks the same with a real process printing its key in pieces.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { KeyRedactor, MIN_FRAGMENT, REDACTED, RedactorChain } from '../../src/main/launcher/redact';

const KEY = `perch_run_${crypto.randomBytes(24).toString('base64url')}`;

/** Feeds chunks one by one; returns what was written after each, and all of it with the end. */
function feed(chunks: string[]): { steps: string[]; all: string } {
  const r = new KeyRedactor(KEY);
  const steps = chunks.map((c) => r.push(Buffer.from(c, 'utf8')).toString('utf8'));
  const tail = r.end().toString('utf8');
  return { steps, all: steps.join('') + tail };
}

/** No MIN_FRAGMENT characters of the key in a row anywhere in text. */
function assertNoPiece(text: string, what: string): void {
  for (let i = 0; i + MIN_FRAGMENT <= KEY.length; i++) {
    assert.ok(!text.includes(KEY.slice(i, i + MIN_FRAGMENT)), `${what}: a piece of the key at ${i} is in ${JSON.stringify(text)}`);
  }
}

test('a key split over two writes at any point is redacted, and its first part is never written before the rest comes', () => {
  for (let cut = 1; cut < KEY.length; cut++) {
    const { steps, all } = feed([`token: ${KEY.slice(0, cut)}`, `${KEY.slice(cut)} ok\n`]);
    assert.equal(all, `token: ${REDACTED} ok\n`, `split at ${cut}`);
    assert.equal(steps[0], 'token: ', `split at ${cut}: the first write holds the key's start back`);
  }
});

test('a key written one byte at a time, or twice in one write, is redacted', () => {
  assert.equal(feed([...`a${KEY}b`]).all, `a${REDACTED}b`);
  assert.equal(feed([`${KEY}${KEY}\n`]).all, `${REDACTED}${REDACTED}\n`);
});

test('a key printed in pieces of its own (cut -c1-12, then the rest on the next line) leaves no piece in the log', () => {
  const { all } = feed([`${KEY.slice(0, 12)}\n`, `${KEY.slice(12)}\n`, 'done\n']);
  assertNoPiece(all, 'cut in two lines');
  assert.equal(all, `${REDACTED}\n${REDACTED}\ndone\n`);
  // The stream ends on the first part: it is not written either.
  const ended = feed([`start ${KEY.slice(0, 20)}`]);
  assertNoPiece(ended.all, 'ended on a part');
  assert.equal(ended.all, `start ${REDACTED}`);
});

test("other output passes unchanged: text, the key's public prefix, short runs of key characters, UTF-8 split across writes", () => {
  const text = `perch_run_ is the prefix of run keys; ${KEY.slice(10, 10 + MIN_FRAGMENT - 1)} is too short to count.\n`;
  assert.equal(feed([text]).all, text);
  const utf8 = Buffer.from('héllo — 世界 ✓\n', 'utf8');
  const r = new KeyRedactor(KEY);
  const out = Buffer.concat([r.push(utf8.subarray(0, 2)), r.push(utf8.subarray(2, 9)), r.push(utf8.subarray(9)), r.end()]);
  assert.ok(out.equals(utf8), 'bytes pass through as they are');
});

test("RedactorChain redacts the run's key and its telemetry token, each split over writes at any point", () => {
  const token = `perch_otlp_run_${crypto.randomBytes(24).toString('base64url')}`;
  const line = `key ${KEY} header Authorization=Bearer ${token} end\n`;
  for (let cut = 1; cut < line.length; cut += 3) {
    const r = new RedactorChain([KEY, token]);
    const out = [r.push(Buffer.from(line.slice(0, cut))), r.push(Buffer.from(line.slice(cut))), r.end()].map(String).join('');
    assert.equal(out, `key ${REDACTED} header Authorization=Bearer ${REDACTED} end\n`, `split at ${cut}`);
  }
});
