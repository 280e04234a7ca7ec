// The one rate limiter (src/main/hub/rate-limit.ts), behind the MCP door and progress reports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RateLimiter } from '../src/main/hub/rate-limit';

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
