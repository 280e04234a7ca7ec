// How deeply arrays and objects nest in a parsed JSON value, found without recursion (a value nested
// 100,000 levels deep must not overflow the stack of whatever walks it first).

/**
 * The path to the first array or object nested deeper than maxDepth (the value itself being depth 1),
 * e.g. "value[0][0]…" shortened, or undefined when the value is within the limit. Iterative; stops at
 * the first too-deep container.
 */
export function tooDeep(value: unknown, maxDepth: number): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const stack: Array<{ v: object; depth: number; path: string }> = [{ v: value, depth: 1, path: '' }];
  while (stack.length) {
    const { v, depth, path } = stack.pop()!;
    if (depth > maxDepth) return path || '(arguments)';
    if (Array.isArray(v)) {
      v.forEach((child, i) => {
        if (child !== null && typeof child === 'object') stack.push({ v: child, depth: depth + 1, path: shorten(`${path}[${i}]`) });
      });
    } else {
      for (const [k, child] of Object.entries(v)) {
        if (child !== null && typeof child === 'object')
          stack.push({ v: child, depth: depth + 1, path: shorten(path ? `${path}.${k}` : k) });
      }
    }
  }
  return undefined;
}

/** Paths of deep values are long: keep the start and say how deep it goes. */
function shorten(path: string): string {
  return path.length > 80 ? `${path.slice(0, 60)}…` : path;
}

/**
 * Whether JSON text opens arrays and objects more than maxDepth deep, read from the text itself before any parse (a
 * body of a few MiB nested millions deep takes JSON.parse seconds and hundreds of MB). Brackets inside strings are not
 * counted; text that is not JSON is left to the parser to refuse.
 */
export function textNestsDeeper(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
