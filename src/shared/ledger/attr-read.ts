// Reading a kept OTLP record's attributes (log records: harness-events.ts; spans: copilot-spans.ts) without trusting
// them: each reader takes one key, gives undefined for a missing or empty value, and throws WrongType for a value of
// the wrong type, which the caller turns into the whole request's refusal (400, nothing stored). Text is cut to a
// bound. One set for every harness; the one rule that differs has its own reader: a count (tokens, a duration) is
// never negative (num), an exit code may be (signedNum: Copilot reports a killed command's as -1). Pure.
import type { FlatValue } from './otlp';

/** How much of a tool's input and output a record keeps. */
export const LEDGER_TEXT = {
  /** What the tool was asked (its command, file, arguments as JSON). */
  askedChars: 2000,
  /** The first lines of its output. */
  outputLines: 10,
  outputChars: 2000,
  /** Any other text field (an error, a decision's source). */
  fieldChars: 500,
  /** Ids and names (session, call, tool, model). */
  idChars: 200,
} as const;

/** A kept record's field has the wrong type (the message names the key). */
export class WrongType extends Error {}

/** A string cut to n characters (its last one an ellipsis when cut). */
export function cut(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}

/** A string field cut to n characters (a number or boolean as its text). */
export function text(a: Map<string, FlatValue>, key: string, n: number): string | undefined {
  const v = a.get(key);
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'string') return cut(v, n);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new WrongType(`${key} must be a string`);
}

/** A number field (a number, or a decimal string as int64 values are sent), within ±1e15. */
function anyNum(a: Map<string, FlatValue>, key: string): number | undefined {
  const v = a.get(key);
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+(\.\d+)?(e[-+]?\d+)?$/i.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isFinite(n) || Math.abs(n) > 1e15) throw new WrongType(`${key} must be a number from 0 to 1e15`);
  return n;
}

/** A count (tokens, a duration, a cost): a number from 0 to 1e15. */
export function num(a: Map<string, FlatValue>, key: string): number | undefined {
  const n = anyNum(a, key);
  if (n !== undefined && n < 0) throw new WrongType(`${key} must be a number from 0 to 1e15`);
  return n;
}

/** A number that may be negative (an exit code), within ±1e15. */
export function signedNum(a: Map<string, FlatValue>, key: string): number | undefined {
  try {
    return anyNum(a, key);
  } catch {
    throw new WrongType(`${key} must be a number`);
  }
}

/** A boolean field (true, false, or their text). */
export function bool(a: Map<string, FlatValue>, key: string): boolean | undefined {
  const v = a.get(key);
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new WrongType(`${key} must be true or false`);
}

/** The first lines of a tool's output, bounded (LEDGER_TEXT). */
export function firstLines(s: string): string {
  return cut(s.split('\n').slice(0, LEDGER_TEXT.outputLines).join('\n'), LEDGER_TEXT.outputChars);
}
