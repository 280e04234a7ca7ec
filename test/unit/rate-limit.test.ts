// The one rate limiter (src/main/hub/core/rate-limit.ts), behind the MCP door and progress reports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RateLimiter } from '../../src/main/hub/core/rate-limit';

test('a full bucket lets `burst` calls through at once, then refuses with the wait until the next token', () => {
  const l = new RateLimiter(10, 10);
  for (let i = 0; i < 10; i++) assert.equal(l.take('a', 1000), 0, `call ${i + 1} of the burst passes`);
  const wait = l.take('a', 1000);
  assert.ok(Math.abs(wait - 100) < 1e-6, `the 11th waits one token's time (100 ms at 10/s), got ${wait}`);
  assert.ok(l.take('a', 1050) > 0, 'half a token later: still refused');
  assert.equal(l.take('a', 1100), 0, 'one token later: allowed again');
  assert.ok(l.take('a', 1100) > 0, 'and that token is spent');
});

test('tokens come back at perSecond up to burst, never more', () => {
  const l = new RateLimiter(2, 3);
  for (let i = 0; i < 3; i++) assert.equal(l.take('a', 0), 0);
  assert.ok(l.take('a', 0) > 0);
  // An hour later the bucket holds burst (3) tokens, not 7200.
  for (let i = 0; i < 3; i++) assert.equal(l.take('a', 3_600_000), 0);
  assert.ok(l.take('a', 3_600_000) > 0, 'refilled to burst only');
  assert.equal(l.take('a', 3_600_500), 0, 'half a second at 2/s gives one token back');
});

test('each key has its own bucket', () => {
  const l = new RateLimiter(1, 1);
  assert.equal(l.take('a', 0), 0);
  assert.ok(l.take('a', 0) > 0);
  assert.equal(l.take('b', 0), 0, 'another agent is not limited by the first');
});

test('perSecond 0 means no limit', () => {
  const l = new RateLimiter(0, 1);
  for (let i = 0; i < 1000; i++) assert.equal(l.take('a', 0), 0);
});

test('maxKeys bounds the buckets kept (keys a stranger picks): refilled buckets go first, then the oldest; a limited key stays limited', () => {
  const l = new RateLimiter(1, 1, 10);
  assert.equal(l.take('owner', 0), 0);
  assert.ok(l.take('owner', 0) > 0, 'the owner key is limited');
  for (let i = 0; i < 9; i++) assert.equal(l.take(`old-${i}`, 0), 0);
  assert.equal(l.size, 10);
  // A second later every bucket has refilled (holds nothing worth keeping): a new key drops them all.
  assert.equal(l.take('late', 1000), 0);
  assert.equal(l.size, 1, 'refilled buckets were dropped');
  // Keys that are all still limited: past maxKeys the oldest tenth is dropped, the size stays bounded.
  for (let i = 0; i < 100; i++) l.take(`flood-${i}`, 1000);
  assert.ok(l.size <= 10, `at most maxKeys buckets (${l.size})`);
  assert.ok(l.take('flood-99', 1000) > 0, 'the newest keys are still limited');
});
