// JSON in one spelling: object keys sorted (by UTF-16 code units) at every level, undefined members left out, so two
// values that differ only in key order give the same text (a fingerprint, a retried call's arguments, a hook's input
// matched to its call).

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** canonicalJson, or undefined for a value it cannot spell (nested too deep for the stack, a BigInt): untrusted input. */
export function canonicalJsonOrUndefined(value: unknown): string | undefined {
  try {
    return canonicalJson(value ?? null);
  } catch {
    return undefined;
  }
}
