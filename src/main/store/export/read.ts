// Reading a Perch export with every check (docs/archive-format.md): the manifest first (format, version, entry
// names, sizes), then each entry against it (same order, same size, same sha256), every JSON line an object of
// its kind's fields and types, nested no deeper than a small limit, each value as the live API would take it
// (store/export/rows.ts). Memory and time are bounded before the rows are read: every JSON-lines entry says how
// many rows it has, the export at most MAX_ROWS in all (the ledger's records apart: MAX_LEDGER_ROWS), a line at most MAX_LINE characters; every entry's size is
// bounded from the manifest (JSON lines by their rows, files and thumbnails by what the hub stores, one file's bytes
// per file row, the transcripts by the rows they are written from). perch import walks an
// export twice with this: once only checking (nothing is written unless the whole export passes), once writing
// the rows it reads.
import crypto from 'node:crypto';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { Readable } from 'node:stream';
import { tooDeep } from '../../../shared/text/json-depth';
import {
  EXPORT_FORMAT,
  EXPORT_MIN_VERSION,
  EXPORT_VERSION,
  KIND_BY_NAME,
  KIND_SINCE,
  SAFE_ID,
  type ExportKind,
  type Manifest,
  type ManifestEntry,
} from './kinds';
import { ExportFileError, readTar } from './tar';
import { checkRowValues } from './rows';

export { ExportFileError };

const MAX_MANIFEST = 64 * 1024 * 1024;
/** One JSON line (a checkpoint value of 1 MiB, escaped, fits; more is not a Perch row). */
export const MAX_LINE = 8 * 1024 * 1024;
/**
 * Rows in one export, all kinds together but the ledger's: what the importer's checks keep in memory is bounded by
 * it (a few entries per row: ids, sequence numbers).
 */
export const MAX_ROWS = 2_000_000;
/**
 * The flight recorder's records in one export. Checking them keeps one chain head per day, nothing per record, so
 * they are not counted in MAX_ROWS (a busy fleet's ledger passes two million records long before its conversations
 * do); this bounds the time an import may take.
 */
export const MAX_LEDGER_ROWS = 100_000_000;
/**
 * What an export's author must know when perch import would refuse what was just written: rows beyond MAX_ROWS (the
 * hub holds more than one archive may); undefined when the archive is importable as it is.
 */
export function importLimitNote(counts: Readonly<Record<string, number>>): string | undefined {
  const rows = Object.entries(counts).reduce((n, [k, v]) => (k === 'ledger_records' ? n : n + v), 0);
  const ledger = counts.ledger_records ?? 0;
  if (rows > MAX_ROWS)
    return `This archive holds ${rows} rows besides the ledger's; perch import takes at most ${MAX_ROWS}: export it in parts (--conv, --agent or --since) to import it elsewhere.`;
  if (ledger > MAX_LEDGER_ROWS) return `This archive holds ${ledger} ledger records; perch import takes at most ${MAX_LEDGER_ROWS}.`;
  return undefined;
}

/** Rows nest JSON only in their text columns; the rows themselves are flat objects. */
const MAX_DEPTH = 4;
/** A file's bytes (the hub keeps at most 16 MiB per file). */
const MAX_FILE = 64 * 1024 * 1024;
/** A file's thumbnail (the hub makes them to fit a small box: a few KiB). */
const MAX_THUMB = 4 * 1024 * 1024;
/**
 * The transcripts are written from the rows, one line per event: all of them together are at most this many times
 * the JSON-lines entries' bytes (plus a little per transcript for its heading). A 1 MB archive cannot unpack to a
 * GiB of "transcript" that every import would have to read and hash.
 */
const TRANSCRIPT_GROWTH = 4;
const TRANSCRIPT_HEADING = 4 * 1024;

/** The entry name is one a Perch export may have; never absolute, never with .. or a backslash. */
export function checkEntryName(name: string): void {
  const shown = JSON.stringify(name.length > 120 ? `${name.slice(0, 120)}…` : name);
  if (
    name.startsWith('/') ||
    /^[A-Za-z]:/.test(name) ||
    name.includes('\\') ||
    name.split('/').some((p) => p === '..' || p === '.' || p === '')
  ) {
    throw new ExportFileError(`entry name ${shown} points outside the archive (absolute, .., or a backslash)`);
  }
  if (name === 'manifest.json') return;
  const jsonl = /^([a-z_]+)\.jsonl$/.exec(name);
  if (jsonl && KIND_BY_NAME.has(jsonl[1]!)) return;
  const file = /^files\/([^/]+?)(\.thumb)?$/.exec(name);
  if (file && SAFE_ID.test(file[1]!)) return;
  const transcript = /^transcripts\/([^/]+)\.md$/.exec(name);
  if (transcript && SAFE_ID.test(transcript[1]!)) return;
  throw new ExportFileError(`entry name ${shown} is not one a Perch archive has`);
}

function checkManifest(value: unknown): Manifest {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ExportFileError('manifest.json is not a JSON object');
  const m = value as Record<string, unknown>;
  if (m.format !== EXPORT_FORMAT)
    throw new ExportFileError(
      `this is not a Perch archive (manifest format ${JSON.stringify(m.format)}, expected ${JSON.stringify(EXPORT_FORMAT)})`,
    );
  if (typeof m.version !== 'number' || !Number.isInteger(m.version)) throw new ExportFileError('the manifest has no format version');
  if (m.version > EXPORT_VERSION)
    throw new ExportFileError(
      `the archive has format version ${m.version}, newer than this Perch reads (${EXPORT_VERSION}); update Perch to import it`,
    );
  if (m.version < EXPORT_MIN_VERSION)
    throw new ExportFileError(
      `the archive has format version ${m.version}; this Perch reads versions ${EXPORT_MIN_VERSION} to ${EXPORT_VERSION}`,
    );
  if (!Array.isArray(m.entries)) throw new ExportFileError('the manifest lists no entries');
  const seen = new Set<string>();
  for (const e of m.entries as unknown[]) {
    const x = e as Partial<ManifestEntry> | null;
    if (
      !x ||
      typeof x !== 'object' ||
      typeof x.name !== 'string' ||
      typeof x.size !== 'number' ||
      !Number.isSafeInteger(x.size) ||
      x.size < 0 ||
      typeof x.sha256 !== 'string' ||
      !/^[0-9a-f]{64}$/.test(x.sha256) ||
      (x.rows !== undefined && (typeof x.rows !== 'number' || !Number.isSafeInteger(x.rows)))
    ) {
      throw new ExportFileError('a manifest entry is not {name, size, sha256[, rows]}');
    }
    checkEntryName(x.name);
    if (x.name === 'manifest.json' || seen.has(x.name)) throw new ExportFileError(`the manifest lists ${JSON.stringify(x.name)} twice`);
    const since = KIND_SINCE[x.name.replace(/\.jsonl$/, '')];
    if (since !== undefined && m.version < since)
      throw new ExportFileError(`${x.name} is not in an archive of format version ${m.version} (it came with version ${since})`);
    seen.add(x.name);
    if (x.name.startsWith('files/') && x.size > (x.name.endsWith('.thumb') ? MAX_THUMB : MAX_FILE))
      throw new ExportFileError(
        `${x.name} is ${x.size} bytes, more than a Perch ${x.name.endsWith('.thumb') ? 'thumbnail' : 'file'} can be`,
      );
    if (x.name.endsWith('.jsonl') && x.rows === undefined)
      throw new ExportFileError(`the manifest does not say how many rows ${x.name} has`);
    if (x.name.endsWith('.jsonl') && x.size > x.rows! * (MAX_LINE + 1))
      throw new ExportFileError(`${x.name} is ${x.size} bytes, more than its ${x.rows!} rows of at most ${MAX_LINE} characters can be`);
  }
  // Bounds from the manifest alone, before any row is read: every row is counted against them as it is read.
  const entries = m.entries as ManifestEntry[];
  const fileRows = entries.find((e) => e.name === 'files.jsonl')?.rows ?? 0;
  const fileEntries = entries.filter((e) => e.name.startsWith('files/') && !e.name.endsWith('.thumb')).length;
  const thumbEntries = entries.filter((e) => e.name.startsWith('files/') && e.name.endsWith('.thumb')).length;
  if (fileRows !== fileEntries || thumbEntries > fileRows)
    throw new ExportFileError(
      `files.jsonl lists ${fileRows} files but the archive holds the bytes of ${fileEntries}${thumbEntries > fileRows ? ` and ${thumbEntries} thumbnails` : ''}`,
    );
  const ledgerRows = entries.find((e) => e.name === 'ledger_records.jsonl')?.rows ?? 0;
  const rows = entries.reduce((n, e) => n + (e.rows ?? 0), 0) - ledgerRows;
  const transcripts = entries.filter((e) => e.name.startsWith('transcripts/'));
  const conversations = entries.find((e) => e.name === 'conversations.jsonl')?.rows ?? 0;
  if (transcripts.length > conversations)
    throw new ExportFileError(`the archive has ${transcripts.length} transcripts for ${conversations} conversations`);
  const rowBytes = entries.filter((e) => e.name.endsWith('.jsonl')).reduce((n, e) => n + e.size, 0);
  const transcriptBytes = transcripts.reduce((n, e) => n + e.size, 0);
  const transcriptBound = TRANSCRIPT_GROWTH * rowBytes + TRANSCRIPT_HEADING * transcripts.length;
  if (transcriptBytes > transcriptBound)
    throw new ExportFileError(
      `the transcripts are ${transcriptBytes} bytes, more than transcripts of the archive's rows can be (${transcriptBound}); it is not an archive Perch wrote`,
    );
  if (rows > MAX_ROWS)
    throw new ExportFileError(
      `the manifest lists ${rows} rows besides the ledger's, more than an archive may hold (${MAX_ROWS}); split the export (perch export --conv or --since)`,
    );
  if (ledgerRows > MAX_LEDGER_ROWS)
    throw new ExportFileError(`the manifest lists ${ledgerRows} ledger records, more than an archive may hold (${MAX_LEDGER_ROWS})`);
  return m as unknown as Manifest;
}

function typeOk(v: unknown, t: string): boolean {
  switch (t) {
    case 's':
      return typeof v === 'string';
    case 'S':
      return v === null || typeof v === 'string';
    case 'i':
      return typeof v === 'number' && Number.isSafeInteger(v);
    case 'N':
      return v === null || (typeof v === 'number' && Number.isFinite(v));
    default:
      return v === null || (typeof v === 'number' && Number.isSafeInteger(v));
  }
}

/** One JSON line of a kind: an object with exactly the kind's fields, each of its type (its optional fields may be absent: null). */
export function checkRow(kind: ExportKind, line: string, where: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (err) {
    throw new ExportFileError(`${where} is not JSON (${(err as Error).message})`);
  }
  const deep = tooDeep(v, MAX_DEPTH);
  if (deep !== undefined) throw new ExportFileError(`${where} nests deeper than ${MAX_DEPTH} levels (at ${deep})`);
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new ExportFileError(`${where} is not a JSON object`);
  const row = v as Record<string, unknown>;
  for (const [f, t] of Object.entries(kind.fields)) {
    if (!Object.hasOwn(row, f)) throw new ExportFileError(`${where} has no field ${f}`);
    if (!typeOk(row[f], t))
      throw new ExportFileError(
        `${where}: field ${f} is not ${t === 's' ? 'a string' : t === 'S' ? 'a string or null' : t === 'i' ? 'an integer' : t === 'N' ? 'a number or null' : 'an integer or null'}`,
      );
  }
  for (const [f, t] of Object.entries(kind.optional ?? {})) {
    if (!Object.hasOwn(row, f)) row[f] = null;
    else if (!typeOk(row[f], t))
      throw new ExportFileError(`${where}: field ${f} is not ${t === 'S' ? 'a string or null' : 'an integer or null'}`);
  }
  for (const f of Object.keys(row))
    if (!Object.hasOwn(kind.fields, f) && !Object.hasOwn(kind.optional ?? {}, f))
      throw new ExportFileError(`${where} has an unknown field ${JSON.stringify(f.slice(0, 40))}`);
  checkRowValues(kind, row, where);
  return row;
}

export interface ExportVisitor {
  /** A checked row of a kind, in the export's order; `where` names it ("messages.jsonl line 7") for errors. */
  row?(kind: ExportKind, row: Record<string, unknown>, where: string): void;
  /** A file's bytes (files/<id>) or its thumbnail (files/<id>.thumb), checked against the manifest. */
  file?(id: string, thumb: boolean, bytes: Buffer): void | Promise<void>;
  /** A finished entry. */
  entry?(e: ManifestEntry): void;
}

function openStream(file: string): Readable {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    throw new ExportFileError(`cannot read ${file} (${(err as Error).message})`);
  }
  const head = Buffer.alloc(2);
  const n = fs.readSync(fd, head, 0, 2, 0);
  const raw = fs.createReadStream('', { fd, start: 0 });
  if (n === 2 && head[0] === 0x1f && head[1] === 0x8b) {
    const gunzip = zlib.createGunzip();
    raw.on('error', (err) => gunzip.destroy(err));
    return raw.pipe(gunzip);
  }
  return raw;
}

/**
 * Walks the export in `file`, checking everything, and hands checked rows and bytes to `visit`. Throws
 * ExportFileError at the first problem (visit may have seen rows before it: the caller writes in a transaction).
 */
export async function walkExport(file: string, visit: ExportVisitor = {}): Promise<Manifest> {
  const src = openStream(file);
  try {
    return await walk(src, visit);
  } catch (err) {
    if (err instanceof ExportFileError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'Z_BUF_ERROR' || /unexpected end of file/i.test((err as Error).message))
      throw new ExportFileError('the archive is truncated (its compressed stream ends early)');
    if (code?.startsWith('Z_')) throw new ExportFileError(`the archive's compressed stream is damaged (${(err as Error).message})`);
    throw err;
  } finally {
    src.destroy();
  }
}

async function walk(src: Readable, visit: ExportVisitor): Promise<Manifest> {
  let manifest: Manifest | undefined;
  let index = 0;
  for await (const entry of readTar(src)) {
    checkEntryName(entry.name);
    if (!manifest) {
      if (entry.name !== 'manifest.json')
        throw new ExportFileError(
          `the archive does not start with manifest.json (it starts with ${JSON.stringify(entry.name)}); it is not a Perch archive`,
        );
      if (entry.size > MAX_MANIFEST) throw new ExportFileError('manifest.json is too large');
      const chunks: Buffer[] = [];
      for await (const c of entry.body) chunks.push(c);
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch (err) {
        throw new ExportFileError(`manifest.json is not JSON (${(err as Error).message})`);
      }
      const deep = tooDeep(parsed, 8);
      if (deep !== undefined) throw new ExportFileError(`manifest.json nests too deeply (at ${deep})`);
      manifest = checkManifest(parsed);
      continue;
    }
    const expected = manifest.entries[index++];
    if (!expected) throw new ExportFileError(`entry ${JSON.stringify(entry.name)} is not listed in the manifest`);
    if (expected.name !== entry.name)
      throw new ExportFileError(
        `entry ${JSON.stringify(entry.name)} is not where the manifest lists it (expected ${JSON.stringify(expected.name)})`,
      );
    if (expected.size !== entry.size)
      throw new ExportFileError(`entry ${entry.name} is ${entry.size} bytes; the manifest says ${expected.size}`);
    const hash = crypto.createHash('sha256');
    const kind = entry.name.endsWith('.jsonl') ? KIND_BY_NAME.get(entry.name.slice(0, -'.jsonl'.length)) : undefined;
    if (kind) {
      // The unfinished line is kept in pieces and joined once it ends: each chunk is scanned once, however long the line.
      let rest: string[] = [];
      let restLength = 0;
      let lineNo = 0;
      const decoder = new TextDecoder('utf-8', { fatal: true });
      const take = (line: string) => {
        lineNo++;
        const where = `${entry.name} line ${lineNo}`;
        if (lineNo > expected.rows!)
          throw new ExportFileError(`${where}: ${entry.name} has more rows than the manifest says (${expected.rows!})`);
        const row = checkRow(kind, line, where);
        visit.row?.(kind, row, where);
      };
      for await (const chunk of entry.body) {
        hash.update(chunk);
        let text: string;
        try {
          text = decoder.decode(chunk, { stream: true });
        } catch {
          throw new ExportFileError(`${entry.name} is not UTF-8 text`);
        }
        let from = 0;
        for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
          if (restLength + nl - from > MAX_LINE)
            throw new ExportFileError(`${entry.name} line ${lineNo + 1} is longer than ${MAX_LINE} characters`);
          rest.push(text.slice(from, nl));
          take(rest.join(''));
          rest = [];
          restLength = 0;
          from = nl + 1;
        }
        if (from < text.length) {
          rest.push(text.slice(from));
          restLength += text.length - from;
        }
        if (restLength > MAX_LINE) throw new ExportFileError(`${entry.name} line ${lineNo + 1} is longer than ${MAX_LINE} characters`);
      }
      try {
        decoder.decode();
      } catch {
        throw new ExportFileError(`${entry.name} is not UTF-8 text`);
      }
      if (restLength > 0) throw new ExportFileError(`${entry.name} does not end with a newline (its last line is cut)`);
      if (expected.rows !== lineNo) throw new ExportFileError(`${entry.name} has ${lineNo} rows; the manifest says ${expected.rows!}`);
    } else if (entry.name.startsWith('files/')) {
      const chunks: Buffer[] = [];
      for await (const c of entry.body) {
        hash.update(c);
        chunks.push(c);
      }
      const digest = hash.copy().digest('hex');
      if (digest !== expected.sha256)
        throw new ExportFileError(`${entry.name} does not match its sha256 in the manifest (damaged or changed)`);
      const thumb = entry.name.endsWith('.thumb');
      await visit.file?.(entry.name.slice('files/'.length, thumb ? -'.thumb'.length : undefined), thumb, Buffer.concat(chunks));
    } else {
      for await (const c of entry.body) hash.update(c);
    }
    if (hash.digest('hex') !== expected.sha256)
      throw new ExportFileError(`${entry.name} does not match its sha256 in the manifest (damaged or changed)`);
    visit.entry?.(expected);
  }
  if (!manifest) throw new ExportFileError('the archive is empty');
  if (index !== manifest.entries.length)
    throw new ExportFileError(
      `the archive is truncated: ${manifest.entries.length - index} of the manifest's entries are missing (first: ${manifest.entries[index]!.name})`,
    );
  return manifest;
}
