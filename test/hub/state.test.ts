// Checkpoints: state_put / state_get / state_list / state_delete.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withHub, callTool as call } from '../support/helpers';
import { TOOL_BY_NAME } from '../../src/shared/api/catalog';
import { HubError } from '../../src/shared/errors';
import { LIMITS } from '../../src/shared/limits';
import { STATE_VERSIONS_KEPT, prefixRange, statePut } from '../../src/main/hub/features/memory/state';

type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any

async function refused(p: Promise<unknown>, code: string, details?: Record<string, unknown>): Promise<HubError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof HubError, `expected a HubError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (details) for (const [k, v] of Object.entries(details)) assert.deepEqual(e.details?.[k], v);
    return e;
  }
  assert.fail(`expected a ${code} refusal`);
}

test('state_put creates at version 0 and advances; a stale version is a conflict naming the current one', async () => {
  await withHub(async (t) => {
    const a = t.agent('alpha');
    const v1 = await call(t.hub, a.id, 'state_put', { key: 'plan', value: { step: 1 }, version: 0 });
    assert.deepEqual({ key: v1.key, version: v1.version }, { key: 'plan', version: 1 });
    const v2 = await call(t.hub, a.id, 'state_put', { key: 'plan', value: { step: 2 }, version: 1 });
    assert.equal(v2.version, 2);
    // Two writers both read version 2; the first wins, the second gets a conflict.
    const w1 = await call(t.hub, a.id, 'state_put', { key: 'plan', value: { step: 3, by: 'w1' }, version: 2 });
    assert.equal(w1.version, 3);
    await refused(call(t.hub, a.id, 'state_put', { key: 'plan', value: { step: 3, by: 'w2' }, version: 2 }), 'conflict', {
      current_version: 3,
    });
    // Creating over an existing key is a conflict too; so is updating a key that does not exist.
    await refused(call(t.hub, a.id, 'state_put', { key: 'plan', value: 1, version: 0 }), 'conflict', { current_version: 3 });
    await refused(call(t.hub, a.id, 'state_put', { key: 'nope', value: 1, version: 4 }), 'conflict', { current_version: 0 });
    // The losing write changed nothing.
    const cur = await call(t.hub, a.id, 'state_get', { key: 'plan' });
    assert.deepEqual(cur.value, { step: 3, by: 'w1' });
    assert.equal(cur.version, 3);
    await refused(call(t.hub, a.id, 'state_get', { key: 'nope' }), 'not_found');
  });
});

test('older versions stay readable by number; unknown versions are not_found', async () => {
  await withHub(async (t) => {
    const a = t.agent('alpha');
    for (let v = 0; v < 5; v++) await call(t.hub, a.id, 'state_put', { key: 'k', value: { n: v, list: [v, null, 'x'] }, version: v });
    const cur = await call(t.hub, a.id, 'state_get', { key: 'k' });
    assert.equal(cur.version, 5);
    assert.deepEqual(cur.value, { n: 4, list: [4, null, 'x'] });
    const old = await call(t.hub, a.id, 'state_get', { key: 'k', version: 2 });
    assert.equal(old.version, 2);
    assert.equal(old.current_version, 5);
    assert.deepEqual(old.value, { n: 1, list: [1, null, 'x'] });
    await refused(call(t.hub, a.id, 'state_get', { key: 'k', version: 6 }), 'not_found', { current_version: 5 });
    // Any JSON value, null included, round-trips.
    await call(t.hub, a.id, 'state_put', { key: 'null', value: null, version: 0 });
    assert.equal((await call(t.hub, a.id, 'state_get', { key: 'null' })).value, null);
  });
});

test(`only the newest ${STATE_VERSIONS_KEPT} versions of a key are kept`, async () => {
  await withHub(async (t) => {
    const a = t.agent('alpha');
    const n = STATE_VERSIONS_KEPT + 3;
    for (let v = 0; v < n; v++) await call(t.hub, a.id, 'state_put', { key: 'k', value: v, version: v });
    const oldest = n - STATE_VERSIONS_KEPT + 1;
    assert.equal((await call(t.hub, a.id, 'state_get', { key: 'k', version: oldest })).value, oldest - 1);
    await refused(call(t.hub, a.id, 'state_get', { key: 'k', version: oldest - 1 }), 'not_found', { oldest_version: oldest });
  });
});

test('state_list returns keys in UTF-8 byte order, filtered by prefix, paged with after', async () => {
  await withHub(async (t) => {
    const a = t.agent('alpha');
    // JS sorts by UTF-16 code units, which puts 😀 (U+1F600, a surrogate pair) before ｚ (U+FF5A);
    // in UTF-8 byte order ｚ (EF BD 9A) comes before 😀 (F0 9F 98 80).
    const keys = ['task/😀', 'task/ｚ', 'task/b', 'task/B', 'task/a/1', 'task/a', 'tasks', 'taskZ', 'other', 'task/é'];
    for (const k of keys) await call(t.hub, a.id, 'state_put', { key: k, value: k, version: 0 });
    const byteOrder = [...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    assert.notDeepEqual(byteOrder, [...keys].sort(), 'the test keys must tell byte order from UTF-16 order');

    const all = await call(t.hub, a.id, 'state_list', {});
    assert.deepEqual(
      all.keys.map((k: Any) => k.key),
      byteOrder,
    );
    assert.equal(all.next_after, null);
    assert.equal(all.keys[0].version, 1);
    assert.equal(typeof all.keys[0].updated_at, 'number');

    const prefixed = await call(t.hub, a.id, 'state_list', { prefix: 'task/' });
    const want = byteOrder.filter((k) => k.startsWith('task/'));
    assert.deepEqual(
      prefixed.keys.map((k: Any) => k.key),
      want,
    );
    assert.ok(!want.includes('tasks') && !want.includes('taskZ'));

    // Page through the prefix two at a time.
    const paged: string[] = [];
    let after: string | undefined;
    for (let i = 0; i < 10; i++) {
      const page = await call(t.hub, a.id, 'state_list', { prefix: 'task/', limit: 2, ...(after ? { after } : {}) });
      paged.push(...page.keys.map((k: Any) => k.key));
      assert.ok(page.keys.length <= 2);
      if (!page.next_after) break;
      assert.equal(page.next_after, page.keys[page.keys.length - 1].key);
      after = page.next_after;
    }
    assert.deepEqual(paged, want);
  });
});

test('prefixRange bounds exactly the strings with that prefix', () => {
  assert.deepEqual(prefixRange(''), { lower: '', upper: null });
  assert.deepEqual(prefixRange('ab'), { lower: 'ab', upper: 'ac' });
  assert.deepEqual(prefixRange('a\u{10FFFF}'), { lower: 'a\u{10FFFF}', upper: 'b' });
  assert.deepEqual(prefixRange('\uD7FF'), { lower: '\uD7FF', upper: '\uE000' });
  assert.equal(prefixRange('\u{10FFFF}').upper, null);
});

test('keys under archive/ are read-only for agents', async () => {
  await withHub(async (t) => {
    const a = t.agent('alpha');
    await refused(call(t.hub, a.id, 'state_put', { key: 'archive/notes', value: 'x', version: 0 }), 'forbidden');
    // An import (the hub itself) may write there; the agent can read it but not change or delete it.
    statePut(t.hub, a.id, { key: 'archive/notes', value: { imported: true }, version: 0 }, { system: true });
    assert.deepEqual((await call(t.hub, a.id, 'state_get', { key: 'archive/notes' })).value, { imported: true });
    await refused(call(t.hub, a.id, 'state_put', { key: 'archive/notes', value: 'mine', version: 1 }), 'forbidden');
    await refused(call(t.hub, a.id, 'state_delete', { key: 'archive/notes', version: 1 }), 'forbidden');
    const listed = await call(t.hub, a.id, 'state_list', { prefix: 'archive/' });
    assert.deepEqual(
      listed.keys.map((k: Any) => [k.key, k.version]),
      [['archive/notes', 1]],
    );
    // archive without the slash is an ordinary key.
    assert.equal((await call(t.hub, a.id, 'state_put', { key: 'archive', value: 1, version: 0 })).version, 1);
  });
});

test("an agent never sees another agent's keys", async () => {
  await withHub(async (t) => {
    const a = t.agent('alpha');
    const b = t.agent('beta');
    await call(t.hub, a.id, 'state_put', { key: 'secret', value: 'alpha only', version: 0 });
    await refused(call(t.hub, b.id, 'state_get', { key: 'secret' }), 'not_found');
    assert.deepEqual((await call(t.hub, b.id, 'state_list', {})).keys, []);
    await refused(call(t.hub, b.id, 'state_delete', { key: 'secret', version: 1 }), 'not_found');
    // The same key name is independent per agent.
    assert.equal((await call(t.hub, b.id, 'state_put', { key: 'secret', value: 'beta', version: 0 })).version, 1);
    assert.equal((await call(t.hub, a.id, 'state_get', { key: 'secret' })).value, 'alpha only');
    assert.equal((await call(t.hub, b.id, 'state_get', { key: 'secret' })).value, 'beta');
  });
});

test('state_delete needs the current version and removes every version', async () => {
  await withHub(async (t) => {
    const a = t.agent('alpha');
    await call(t.hub, a.id, 'state_put', { key: 'k', value: 1, version: 0 });
    await call(t.hub, a.id, 'state_put', { key: 'k', value: 2, version: 1 });
    await refused(call(t.hub, a.id, 'state_delete', { key: 'k', version: 1 }), 'conflict', { current_version: 2 });
    assert.equal((await call(t.hub, a.id, 'state_get', { key: 'k' })).value, 2);
    const del = await call(t.hub, a.id, 'state_delete', { key: 'k', version: 2 });
    assert.equal(del.deleted, true);
    await refused(call(t.hub, a.id, 'state_get', { key: 'k' }), 'not_found');
    await refused(call(t.hub, a.id, 'state_get', { key: 'k', version: 1 }), 'not_found');
    assert.deepEqual((await call(t.hub, a.id, 'state_list', {})).keys, []);
    const n = t.hub.db.prepare('SELECT count(*) AS n FROM state_values WHERE user_id = ?').get(a.id) as { n: number };
    assert.equal(n.n, 0);
    // It can be created again from version 0.
    assert.equal((await call(t.hub, a.id, 'state_put', { key: 'k', value: 3, version: 0 })).version, 1);
  });
});

test('size limits: value over 1 MiB and key over the byte limit are refused, nothing stored', async () => {
  await withHub(async (t) => {
    const a = t.agent('alpha');
    const big = 'x'.repeat(LIMITS.maxStateValueBytes); // serialized with quotes: 2 bytes over
    await refused(call(t.hub, a.id, 'state_put', { key: 'big', value: big, version: 0 }), 'too_large');
    const fits = 'x'.repeat(LIMITS.maxStateValueBytes - 2);
    assert.equal((await call(t.hub, a.id, 'state_put', { key: 'fits', value: fits, version: 0 })).version, 1);
    // The key limit is in UTF-8 bytes: 200 × 'é' is 200 characters but 400 bytes; 300 × 'é' is 600.
    assert.equal((await call(t.hub, a.id, 'state_put', { key: 'é'.repeat(200), value: 1, version: 0 })).version, 1);
    await refused(call(t.hub, a.id, 'state_put', { key: 'é'.repeat(300), value: 1, version: 0 }), 'too_large');
    await refused(call(t.hub, a.id, 'state_put', { key: 'bad\uD800', value: 1, version: 0 }), 'invalid_argument');
    assert.deepEqual(
      (await call(t.hub, a.id, 'state_list', {})).keys.map((k: Any) => k.key),
      ['fits', 'é'.repeat(200)],
    );
    // An empty key never reaches the hub (the catalog refuses it).
    assert.throws(() => TOOL_BY_NAME.get('state_put')!.input.parse({ key: '', value: 1, version: 0 }));
  });
});

test('a retried state_put with the same operation_id is done once', async () => {
  await withHub(async (t) => {
    const a = t.agent('alpha');
    const first = await call(t.hub, a.id, 'state_put', { key: 'k', value: 1, version: 0, operation_id: 'op-1' });
    const again = await call(t.hub, a.id, 'state_put', { key: 'k', value: 1, version: 0, operation_id: 'op-1' });
    assert.deepEqual(again, first);
    assert.equal((await call(t.hub, a.id, 'state_get', { key: 'k' })).version, 1);
  });
});
