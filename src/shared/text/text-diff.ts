// A unified diff of two small texts (config files), line by line, with three lines of context: what
// `perch connect` shows before (or instead of) changing a client's config file.

const CONTEXT = 3;
/** Beyond this many lines on a side, the diff is the whole old text removed and the new one added. */
const MAX_LINES = 5000;

type Op = { kind: ' ' | '-' | '+'; line: string };

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The edit script from a to b (longest common subsequence). */
function ops(a: string[], b: string[]): Op[] {
  if (a.length > MAX_LINES || b.length > MAX_LINES)
    return [...a.map((line) => ({ kind: '-' as const, line })), ...b.map((line) => ({ kind: '+' as const, line }))];
  const n = a.length;
  const m = b.length;
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push({ kind: ' ', line: a[i]! });
      i++;
      j++;
    } else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      out.push({ kind: '-', line: a[i++]! });
    } else {
      out.push({ kind: '+', line: b[j++]! });
    }
  }
  return out;
}

/** `--- a/FILE`, `+++ b/FILE` and the hunks; '' when the texts have the same lines. */
export function unifiedDiff(oldText: string, newText: string, file: string, oldLabel = file): string {
  const script = ops(splitLines(oldText), splitLines(newText));
  if (script.every((o) => o.kind === ' ')) return '';
  const hunks: string[] = [];
  let k = 0;
  while (k < script.length) {
    if (script[k]!.kind === ' ') {
      k++;
      continue;
    }
    // A hunk: CONTEXT lines before the change, then on until CONTEXT*2 unchanged lines in a row (or the end).
    const from = Math.max(0, k - CONTEXT);
    let to = k;
    let same = 0;
    while (to < script.length && same <= CONTEXT * 2) {
      same = script[to]!.kind === ' ' ? same + 1 : 0;
      to++;
    }
    if (same > CONTEXT) to -= same - CONTEXT;
    // Line numbers: count the old and new lines before `from`.
    let oldStart = 1;
    let newStart = 1;
    for (let x = 0; x < from; x++) {
      if (script[x]!.kind !== '+') oldStart++;
      if (script[x]!.kind !== '-') newStart++;
    }
    const body = script.slice(from, to);
    const oldLen = body.filter((o) => o.kind !== '+').length;
    const newLen = body.filter((o) => o.kind !== '-').length;
    hunks.push(`@@ -${oldLen ? oldStart : oldStart - 1},${oldLen} +${newLen ? newStart : newStart - 1},${newLen} @@`);
    for (const o of body) hunks.push(`${o.kind}${o.line}`);
    k = to;
  }
  return [`--- ${oldLabel}`, `+++ ${file}`, ...hunks].join('\n');
}
