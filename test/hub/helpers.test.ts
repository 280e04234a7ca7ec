// The unit tests' hub helper: withHub gives a fresh hub on its own file and always removes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { withHub, type TestHub } from '../support/helpers';

test('withHub hands a fresh hub to the test and closes it (its folder removed) when the test returns, throws or rejects', async () => {
  let seen: TestHub | undefined;
  const value = await withHub(async (t) => {
    seen = t;
    assert.ok(fs.existsSync(t.file), 'the SQLite file exists while the test runs');
    t.agent('alpha');
    return 42;
  });
  assert.equal(value, 42, "the test's value comes back");
  assert.equal(fs.existsSync(seen!.dir), false, 'closed after a return');

  await assert.rejects(
    withHub(async (t) => {
      seen = t;
      throw new Error('boom');
    }),
    /boom/,
  );
  assert.equal(fs.existsSync(seen!.dir), false, 'closed after a rejection');
  await assert.rejects(
    withHub((t) => {
      seen = t;
      throw new Error('sync boom');
    }),
    /sync boom/,
  );
  assert.equal(fs.existsSync(seen!.dir), false, 'closed after a throw');
});

test('withHub passes the hub options: a test clock', async () => {
  let clock = Date.UTC(2026, 0, 1);
  await withHub({ now: () => clock }, (t) => {
    assert.equal(t.hub.now(), Date.UTC(2026, 0, 1));
    clock += 5;
    assert.equal(t.hub.now(), Date.UTC(2026, 0, 1) + 5);
  });
});
