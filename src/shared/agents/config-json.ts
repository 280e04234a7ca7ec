// The JSON config files of the harnesses as `perch connect` and `perch disconnect` edit them (pure): parsed as one
// object, bounded in depth, written back in the file's own indentation and final newline, and left byte for byte as
// they were when what they say did not change (a key order or a layout is not a change, so a run that changes
// nothing writes nothing and shows no diff).
import { tooDeep } from '../text/json-depth';

export type Json = Record<string, unknown>;

/** A problem with a config file that is there (not JSON, an unexpected shape): nothing is written. */
export class ConfigFileError extends Error {}

/** How deeply a client's JSON config may nest (real ones: under ten levels). */
const MAX_CONFIG_DEPTH = 200;

export function parseObject(text: string | undefined, file: string): Json {
  if (text === undefined || text.trim() === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new ConfigFileError(`${file} is not valid JSON (${(e as Error).message}); fix or move it, then run again`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new ConfigFileError(`${file} is not a JSON object`);
  // Written back with JSON.stringify, which recurses: a file nested past any real config's depth is refused first.
  if (tooDeep(v, MAX_CONFIG_DEPTH) !== undefined) throw new ConfigFileError(`${file} nests deeper than ${MAX_CONFIG_DEPTH} levels`);
  return v as Json;
}

export function objectAt(o: Json, key: string, file: string): Json {
  const v = o[key];
  if (v === undefined) return (o[key] = {});
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new ConfigFileError(`${file}: "${key}" is not an object`);
  return v as Json;
}

/** Whether two JSON values say the same: objects with the same keys in any order, arrays in the same order. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((x, i) => sameJson(x, (b as unknown[])[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameJson((a as Json)[k], (b as Json)[k]));
}

/**
 * The file's new text: its old text when it says the same as root (nothing written, no diff), else root as JSON in the
 * old text's indentation (two spaces for a new file, as both harnesses write theirs) and with its final newline.
 */
export function jsonText(root: Json, old?: string): string {
  if (old !== undefined && old.trim() !== '') {
    let before: unknown;
    try {
      before = JSON.parse(old);
    } catch {
      before = undefined;
    }
    if (sameJson(before, root)) return old;
  }
  const indent = (old !== undefined ? /^\{\r?\n([ \t]+)"/.exec(old)?.[1] : undefined) ?? 2;
  const eol = old?.includes('\r\n') ? '\r\n' : '\n';
  const text = JSON.stringify(root, null, indent).replace(/\n/g, eol);
  return old !== undefined && old !== '' && !old.endsWith('\n') ? text : `${text}${eol}`;
}
