// Text as the owner sees it: without the invisible characters that can disguise what is shown.
//
// Agents write titles, options, card labels, names, notes and messages; a bidi override can make
// "Upload report\u202Egpj.exe" show as "Upload reportexe.jpg", and invisible characters can make two
// different strings look the same. Everything the owner reads (owner API results, the live stream,
// OS notifications) passes through visibleText once; what is stored, and what agents read, stays
// byte-exact.
//
// Removed:
//   - C0 controls except \t and \n, DEL, C1 controls (U+0080–U+009F); \r\n and a lone \r become \n
//   - bidi embeddings/overrides U+202A–U+202E, isolates U+2066–U+2069, marks U+200E, U+200F, U+061C
//   - invisible characters that can split or hide a word: U+00AD soft hyphen, U+180E, U+200B zero
//     width space, U+2060–U+2064 (word joiner, invisible operators), U+206A–U+206F (deprecated
//     format), U+FEFF (BOM / zero width no-break space), U+FFF9–U+FFFB (interlinear annotation)
//   - tag characters U+E0000–U+E007F, except inside an emoji tag sequence (🏴 + tags + U+E007F, the
//     flags of England, Scotland, Wales)
// Changed: U+2028 line separator and U+2029 paragraph separator become \n.
// Kept: every letter of every script (Arabic, Hebrew, … keep their natural direction), U+200C and
// U+200D (zero width non-joiner / joiner: Persian and Indic spelling, emoji sequences such as
// 👨‍👩‍👧), variation selectors (emoji presentation), \t and \n.

const INVISIBLE =
  // eslint-disable-next-line no-control-regex
  /\r\n?|[\u2028\u2029]|\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F}|[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u00AD\u061C\u180E\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\uFFF9-\uFFFB\u{E0000}-\u{E007F}]/gu;

/** s without bidi controls and other invisible characters (see above); unchanged when it has none. */
export function visibleText(s: string): string {
  return s.replace(INVISIBLE, (c) => {
    if (c.length > 2) return c; // an emoji tag sequence
    if (c === '\r' || c === '\r\n' || c === '\u2028' || c === '\u2029') return '\n';
    return '';
  });
}

/**
 * A copy of a JSON-like value with visibleText applied to every string in it, keys included
 * (values that are not plain objects, arrays or strings are kept as they are). Unchanged parts are
 * shared, and a value with nothing to remove comes back as is.
 */
export function visibleDeep<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return visibleText(value) as T;
  if (value === null || typeof value !== 'object' || depth > 200) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((v, i) => {
      const w = visibleDeep(v, depth + 1);
      if (w !== v) (out ??= value.slice())[i] = w;
    });
    return (out ?? value) as T;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value; // Buffers, Dates, class instances
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(value)) {
    const key = visibleText(k);
    const w = visibleDeep(v, depth + 1);
    if (w !== v || key !== k) {
      if (!out) out = { ...(value as Record<string, unknown>) };
      if (key !== k) delete out[k];
      out[key] = w;
    }
  }
  return (out ?? value) as T;
}

/**
 * The one of `options` that `given` names: exactly, or else the only option that looks the same
 * once invisible characters are removed (the owner picks from what was shown to them).
 */
export function matchVisible(options: readonly string[], given: string): string | undefined {
  if (options.includes(given)) return given;
  const shown = visibleText(given);
  const found = options.filter((o) => visibleText(o) === shown);
  return found.length === 1 ? found[0] : undefined;
}

/** A name someone typed, as an error quotes it back: JSON-quoted (controls escaped), at most max characters of it. */
export function quotedInput(s: string, max = 80): string {
  const chars = [...s];
  return chars.length <= max ? JSON.stringify(s) : `${JSON.stringify(chars.slice(0, max).join(''))}… (${chars.length} characters)`;
}
