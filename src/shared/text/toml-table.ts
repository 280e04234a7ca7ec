// Just enough TOML to add or replace one table of a config file the user owns (Codex's ~/.codex/config.toml)
// without a TOML library and without touching anything else: every other line, comment and blank stays
// byte for byte. The table is found by its header line ([a.b] with bare or quoted keys); its lines run to the
// next header that is not one of its own sub-tables. Multi-line strings and multi-line arrays are skipped
// while looking for headers, so a line starting with `[` inside them is not taken for one. When the table is
// defined another way (dotted keys or an inline table), the file is refused rather than guessed at.

/** Thrown when the file defines the table in a way this editor does not rewrite, or is not TOML where it looks. */
export class TomlEditError extends Error {}

/** A TOML basic string for s (quotes, backslashes and control characters escaped). */
export function tomlString(s: string): string {
  return `"${s.replace(/[\\"\u0000-\u001f\u007f]/g, (c) => {
    const named: Record<string, string> = { '\\': '\\\\', '"': '\\"', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r' };
    return named[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  })}"`;
}

/** A header's key path ([a."b.c"] → ['a', 'b.c']), or undefined when the line is not a table header. */
export function headerPath(line: string): { path: string[]; array: boolean } | undefined {
  const m = /^\s*(\[\[?)(.*?)(\]\]?)\s*(#.*)?$/.exec(line);
  if (!m || m[1]!.length !== m[3]!.length) return undefined;
  const keys = splitDotted(m[2]!);
  return keys ? { path: keys, array: m[1] === '[[' } : undefined;
}

/** a . "b.c" . 'd' → ['a', 'b.c', 'd']; undefined if it is not a dotted key. */
function splitDotted(s: string): string[] | undefined {
  const out: string[] = [];
  let i = 0;
  const skipWs = () => {
    while (s[i] === ' ' || s[i] === '\t') i++;
  };
  for (;;) {
    skipWs();
    if (s[i] === '"') {
      let v = '';
      i++;
      while (i < s.length && s[i] !== '"') {
        if (s[i] === '\\') {
          const c = s[i + 1];
          const map: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\' };
          if (c === 'u' || c === 'U') {
            const len = c === 'u' ? 4 : 8;
            const hex = s.slice(i + 2, i + 2 + len);
            const cp = new RegExp(`^[0-9A-Fa-f]{${len}}$`).test(hex) ? parseInt(hex, 16) : -1;
            // TOML allows only Unicode scalar values: no surrogates, nothing past U+10FFFF.
            if (cp < 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
              throw new TomlEditError(`a quoted key has an invalid escape \\${c}${hex}`);
            v += String.fromCodePoint(cp);
            i += 2 + len;
            continue;
          }
          if (c === undefined || !(c in map)) return undefined;
          v += map[c];
          i += 2;
          continue;
        }
        v += s[i++];
      }
      if (s[i] !== '"') return undefined;
      i++;
      out.push(v);
    } else if (s[i] === "'") {
      const end = s.indexOf("'", i + 1);
      if (end < 0) return undefined;
      out.push(s.slice(i + 1, end));
      i = end + 1;
    } else {
      const m = /^[A-Za-z0-9_-]+/.exec(s.slice(i));
      if (!m) return undefined;
      out.push(m[0]);
      i += m[0].length;
    }
    skipWs();
    if (i === s.length) return out;
    if (s[i] !== '.') return undefined;
    i++;
  }
}

interface ScanState {
  /** Inside a multi-line string: its delimiter. */
  ml?: '"""' | "'''";
  /** Open brackets and braces of a value that goes on over lines. */
  depth: number;
}

/** Advances the scan over one line that is not a header: strings, comments, brackets. */
function scanLine(line: string, st: ScanState): void {
  let i = 0;
  while (i < line.length) {
    if (st.ml) {
      const end = line.indexOf(st.ml, i);
      if (end < 0) return;
      i = end + 3;
      // A multi-line string may end with up to two extra quote characters.
      while (line[i] === st.ml[0]) i++;
      st.ml = undefined;
      continue;
    }
    const c = line[i]!;
    if (c === '#') return;
    if (line.startsWith('"""', i) || line.startsWith("'''", i)) {
      st.ml = line.slice(i, i + 3) as '"""' | "'''";
      i += 3;
      continue;
    }
    if (c === '"') {
      i++;
      while (i < line.length && line[i] !== '"') i += line[i] === '\\' ? 2 : 1;
      i++;
      continue;
    }
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      i = end < 0 ? line.length : end + 1;
      continue;
    }
    if (c === '[' || c === '{') st.depth++;
    else if ((c === ']' || c === '}') && st.depth > 0) st.depth--;
    i++;
  }
}

function startsWithPath(p: string[], prefix: string[]): boolean {
  return prefix.length <= p.length && prefix.every((k, i) => p[i] === k);
}

/**
 * The text with table `path` (and its sub-tables) set to `body` (key = value lines): replaced where it is,
 * or appended at the end. Everything else is left as it was. Refuses (TomlEditError) when the table is also
 * given by dotted keys or an inline table, or appears twice.
 */
export function upsertTomlTable(text: string, path: string[], body: string[]): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text === '' ? [] : text.split(/\r?\n/);
  // A trailing newline leaves one empty last element: keep it out of the scan.
  const hadFinalNewline = lines.length > 0 && lines[lines.length - 1] === '';
  if (hadFinalNewline) lines.pop();
  const st: ScanState = { depth: 0 };
  let current: string[] = [];
  let start = -1;
  let end = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const h = !st.ml && st.depth === 0 ? headerPath(line) : undefined;
    if (h) {
      current = h.path;
      const mine = startsWithPath(h.path, path);
      if (mine && h.path.length === path.length) {
        if (start >= 0) throw new TomlEditError(`[${path.join('.')}] appears twice`);
        if (h.array) throw new TomlEditError(`${path.join('.')} is an array of tables ([[${path.join('.')}]])`);
        start = i;
      } else if (start >= 0 && end < 0 && !mine) {
        end = i;
      } else if (mine && start < 0) {
        throw new TomlEditError(`[${h.path.join('.')}] comes before [${path.join('.')}]`);
      }
      continue;
    }
    if (!st.ml && st.depth === 0) {
      // A key = value line: the table may not be given as dotted keys or an inline table from a parent.
      const key = /^\s*([^=#]+?)\s*=/.exec(line);
      const keys = key ? splitDotted(key[1]!) : undefined;
      if (keys) {
        const full = [...current, ...keys];
        if (startsWithPath(path, full) || (startsWithPath(full, path) && !startsWithPath(current, path))) {
          throw new TomlEditError(`${path.join('.')} is set by \`${line.trim()}\`, not as a [${path.join('.')}] table`);
        }
      }
    }
    scanLine(line, st);
  }
  if (st.ml || st.depth > 0) throw new TomlEditError('the file ends inside a string or an array');
  const header = `[${path.map((k) => (/^[A-Za-z0-9_-]+$/.test(k) ? k : tomlString(k))).join('.')}]`;
  const table = [header, ...body];
  let out: string[];
  if (start < 0) {
    // Appended after one blank line.
    const trimmed = [...lines];
    while (trimmed.length && trimmed[trimmed.length - 1]!.trim() === '') trimmed.pop();
    out = trimmed.length ? [...trimmed, '', ...table] : table;
    return `${out.join(eol)}${eol}`;
  }
  let stop = end < 0 ? lines.length : end;
  // Blank lines and comments just before the next header belong to what follows.
  while (stop > start + 1 && (lines[stop - 1]!.trim() === '' || lines[stop - 1]!.trim().startsWith('#'))) stop--;
  out = [...lines.slice(0, start), ...table, ...lines.slice(stop)];
  return `${out.join(eol)}${hadFinalNewline || end >= 0 ? eol : ''}`;
}

/** Each table header of the text (outside strings and arrays) with its line range [start, end): to the next header that is not one of its sub-tables. */
export function tomlTables(text: string): Array<{ path: string[]; start: number; end: number; body: string[] }> {
  const lines = text === '' ? [] : text.split(/\r?\n/);
  const st: ScanState = { depth: 0 };
  const heads: Array<{ path: string[]; line: number }> = [];
  for (let i = 0; i < lines.length; i++) {
    const h = !st.ml && st.depth === 0 ? headerPath(lines[i]!) : undefined;
    if (h) heads.push({ path: h.path, line: i });
    else scanLine(lines[i]!, st);
  }
  return heads.map((h, k) => {
    let end = lines.length;
    for (const next of heads.slice(k + 1)) {
      if (!startsWithPath(next.path, h.path)) {
        end = next.line;
        break;
      }
    }
    return { path: h.path, start: h.line, end, body: lines.slice(h.line + 1, end) };
  });
}

/** The text without table `path` and its sub-tables (and the blank line before it); unchanged when it is not there. */
export function removeTomlTable(text: string, path: string[]): string {
  const t = tomlTables(text).find((x) => x.path.length === path.length && startsWithPath(x.path, path));
  if (!t) return text;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  let start = t.start;
  let stop = t.end;
  // Comments just before the next header belong to what follows.
  while (stop > start + 1 && stop < lines.length && lines[stop - 1]!.trim().startsWith('#')) stop--;
  while (start > 0 && lines[start - 1]!.trim() === '') start--;
  return lines.slice(0, start).concat(lines.slice(stop)).join(eol);
}

/**
 * The text with top-level key `key` set to `value` (a TOML value as written) unless keep(current value) says the
 * one there already does; a new key goes after the last top-level line before the first table.
 */
export function setTomlTopLevel(text: string, key: string, value: string, keep: (current: string) => boolean): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text === '' ? [] : text.split(/\r?\n/);
  const first = tomlTables(text)[0]?.start ?? lines.length;
  const re = new RegExp(`^\\s*${key}\\s*=\\s*(.*?)\\s*(#.*)?$`);
  for (let i = 0; i < first; i++) {
    const m = re.exec(lines[i]!);
    if (!m) continue;
    if (keep(m[1]!)) return text;
    lines[i] = `${key} = ${value}`;
    return lines.join(eol);
  }
  let at = first;
  while (at > 0 && lines[at - 1]!.trim() === '') at--;
  const line = `${key} = ${value}`;
  if (at === first && first < lines.length)
    lines.splice(at, 0, line, ''); // before a table with no blank between
  else lines.splice(at, 0, line);
  const out = lines.join(eol);
  return text === '' ? `${out}${eol}` : out;
}
