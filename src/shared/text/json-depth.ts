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
