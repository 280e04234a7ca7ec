// One spelling of a JSON value (src/shared/text/canonical-json.ts), used by the tool-schema fingerprint, a retried
// call's arguments and the ledger's matching of a hook's input to its call: key order never matters, undefined members
// are left out, and untrusted input nested too deep gives undefined rather than a thrown stack overflow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson, canonicalJsonOrUndefined } from '../../src/shared/text/canonical-json';

test('key order at every level does not change the text; undefined members are left out; arrays keep their order', () => {
  const a = { b: 1, a: { d: [3, { y: 2, x: 1 }], c: 'é' }, u: undefined };
  const b = { a: { c: 'é', d: [3, { x: 1, y: 2 }] }, b: 1 };
  assert.equal(canonicalJson(a), canonicalJson(b));
  assert.equal(canonicalJson(a), '{"a":{"c":"é","d":[3,{"x":1,"y":2}]},"b":1}');
  assert.notEqual(canonicalJson([1, 2]), canonicalJson([2, 1]));
  assert.equal(canonicalJson(undefined), 'null');
  assert.equal(canonicalJson([undefined, NaN]), '[null,null]');
  // The same text JSON.stringify gives for a value whose keys are already sorted.
  assert.equal(canonicalJson(b), JSON.stringify({ a: { c: 'é', d: [3, { x: 1, y: 2 }] }, b: 1 }));
});

test('untrusted input nested 100,000 deep, or holding a BigInt, gives undefined', () => {
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = { a: deep };
  assert.equal(canonicalJsonOrUndefined(deep), undefined);
  assert.equal(canonicalJsonOrUndefined({ n: 1n }), undefined);
  assert.equal(canonicalJsonOrUndefined({ b: 2, a: 1 }), '{"a":1,"b":2}');
  assert.equal(canonicalJsonOrUndefined(undefined), 'null');
});
