// visibleText: what the owner is shown has no bidi overrides or invisible characters, and keeps
// every script's letters, emoji sequences, tabs and newlines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchVisible, visibleDeep, visibleText } from '../../src/shared/text/text';

test('visibleText removes bidi embeddings, overrides, isolates and marks ("report\\u202Egpj.exe" no longer shows as …exe.jpg)', () => {
  assert.equal(visibleText('Upload report\u202Egpj.exe'), 'Upload reportgpj.exe');
  for (const c of [
    '\u202A',
    '\u202B',
    '\u202C',
    '\u202D',
    '\u202E',
    '\u2066',
    '\u2067',
    '\u2068',
    '\u2069',
    '\u200E',
    '\u200F',
    '\u061C',
  ]) {
    assert.equal(visibleText(`a${c}b`), 'ab', `U+${c.charCodeAt(0).toString(16).toUpperCase()} is removed`);
  }
});

test('visibleText removes C0/C1 controls except tab and newline; CR, CRLF, U+2028 and U+2029 become newlines', () => {
  assert.equal(visibleText('a\u0000b\u0007c\u001Bd\u007Fe\u0085f\u009Fg'), 'abcdefg');
  assert.equal(visibleText('col1\tcol2\nline2'), 'col1\tcol2\nline2');
  assert.equal(visibleText('a\r\nb\rc\u2028d\u2029e'), 'a\nb\nc\nd\ne');
});

test('visibleText removes invisible characters that can split or disguise a word', () => {
  for (const c of [
    '\u00AD',
    '\u180E',
    '\u200B',
    '\u2060',
    '\u2061',
    '\u2064',
    '\u206A',
    '\u206F',
    '\uFEFF',
    '\uFFF9',
    '\uFFFB',
    '\u{E0001}',
    '\u{E0041}',
  ]) {
    assert.equal(visibleText(`pay${c}pal`), 'paypal', `U+${c.codePointAt(0)!.toString(16).toUpperCase()} is removed`);
  }
});

test('visibleText keeps Arabic, Hebrew, CJK, accents, ZWJ/ZWNJ, emoji sequences with variation selectors and tag flags', () => {
  const kept = [
    'مرحبا بالعالم',
    'שלום עולם',
    'mixed שלום and عربي 123',
    '你好，世界',
    'Crème brûlée',
    'می‌خواهم', // ZWNJ in Persian
    '👨‍👩‍👧',
    '❤️',
    '👍🏽',
    '🏴󠁧󠁢󠁳󠁣󠁴󠁿',
    '🇩🇪',
    'plain ASCII !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~',
  ];
  for (const s of kept) assert.equal(visibleText(s), s, `${JSON.stringify(s)} is kept as is`);
});

test('visibleDeep cleans every string and key of a JSON value, shares what is unchanged, and leaves Buffers alone', () => {
  const clean = { a: 'x', list: [1, 'y', { z: true }] };
  assert.equal(visibleDeep(clean), clean, 'nothing to remove: the same object');
  const dirty = {
    title: 'bad\u202Etxt.exe',
    nested: [{ label: 'ok' }, { label: '\u2066x\u2069' }],
    ['k\u200By']: 1,
    n: 5,
    nil: null,
    buf: Buffer.from('\u202E'),
  };
  const out = visibleDeep(dirty);
  assert.deepEqual(
    { ...out, buf: undefined },
    { title: 'badtxt.exe', nested: [{ label: 'ok' }, { label: 'x' }], ky: 1, n: 5, nil: null, buf: undefined },
  );
  assert.equal(out.nested[0], dirty.nested[0], 'an unchanged branch is shared');
  assert.equal(out.buf, dirty.buf, 'a Buffer is not walked');
  assert.equal(dirty.title, 'bad\u202Etxt.exe', 'the input is not changed');
});

test('matchVisible finds the option the owner saw: exact first, else the only one that looks the same', () => {
  const options = ['eu\u202Eexe', 'us'];
  assert.equal(matchVisible(options, 'eu\u202Eexe'), 'eu\u202Eexe');
  assert.equal(matchVisible(options, 'euexe'), 'eu\u202Eexe', 'the shown text names the stored option');
  assert.equal(matchVisible(options, 'us'), 'us');
  assert.equal(matchVisible(options, 'asia'), undefined);
  assert.equal(matchVisible(['a\u200Bb', 'a\u2060b'], 'ab'), undefined, 'two options that look the same: no guess');
});
