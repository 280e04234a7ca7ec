// Reads a Perch archive (a gzip-compressed tar, store/export/tar.ts) whole, for tests that look inside one, and
// writes a changed copy of one (a damaged or crafted archive, with a manifest that matches it).
import crypto from 'node:crypto';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { Readable } from 'node:stream';
import { once } from 'node:events';
import { readTar, TarWriter } from '../../src/main/store/export/tar';
import type { Db } from '../../src/main/store/db/db';

/** The archive's entries, by name, in the order they are in the file. */
export async function exportEntries(file: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for await (const e of readTar(Readable.from(zlib.gunzipSync(fs.readFileSync(file))))) {
    const chunks: Buffer[] = [];
    for await (const c of e.body) chunks.push(c);
    out.set(e.name, Buffer.concat(chunks));
  }
  return out;
}

/** Rewrites an archive: entries changed by `edit` (manifest last, as JSON), written with gzip. */
export async function rewrite(
  src: Map<string, Buffer>,
  dest: string,
  edit: (e: Array<[string, Buffer]>, manifest: Record<string, any>) => void,
): Promise<void> {
  const list = [...src].filter(([n]) => n !== 'manifest.json');
  const manifest = JSON.parse(src.get('manifest.json')!.toString('utf8'));
  edit(list, manifest);
  const gz = zlib.createGzip();
  const chunks: Buffer[] = [];
  gz.on('data', (c: Buffer) => chunks.push(c));
  // Its last bytes are read out after the writer's 'finish': wait for the end of what gzip gives, not only that.
  const ended = once(gz, 'end');
  const tar = new TarWriter(gz);
  const mb = Buffer.from(JSON.stringify(manifest));
  await tar.add('manifest.json', mb.length, mb);
  for (const [n, b] of list) await tar.add(n, b.length, b);
  await tar.finish();
  await ended;
  fs.writeFileSync(dest, Buffer.concat(chunks));
}

/** Replaces an entry's bytes and its size and sha256 in the manifest (and its rows, when given). */
export function replaceEntry(
  list: Array<[string, Buffer]>,
  manifest: Record<string, any>,
  name: string,
  body: Buffer,
  rows?: number,
): void {
  const i = list.findIndex(([n]) => n === name);
  list[i] = [name, body];
  const e = manifest.entries.find((x: { name: string }) => x.name === name);
  e.size = body.length;
  e.sha256 = crypto.createHash('sha256').update(body).digest('hex');
  if (rows !== undefined) e.rows = rows;
}

/** Every table's row count: equal before and after means nothing was written. */
export function fingerprint(db: Db): string {
  const tables = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
  return JSON.stringify(tables.map((n) => [n, db.prepare(`SELECT count(*) FROM "${n}"`).pluck().get()]));
}

export type Row = Record<string, unknown>;

/** The rows of one kind of an archive read with exportEntries. */
export function rowsOf(src: Map<string, Buffer>, kind: string): Row[] {
  return src
    .get(`${kind}.jsonl`)!
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Row);
}

export function jsonl(rows: Row[]): Buffer {
  return Buffer.from(rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
}

/** A copy of the archive with rows of some kinds changed by `edit` (its manifest made to match). */
export async function withRows(src: Map<string, Buffer>, dest: string, edit: Record<string, (rows: Row[]) => Row[]>): Promise<string> {
  await rewrite(src, dest, (list, manifest) => {
    for (const [kind, fn] of Object.entries(edit)) {
      const rows = fn(rowsOf(src, kind));
      replaceEntry(list, manifest, `${kind}.jsonl`, jsonl(rows), rows.length);
    }
  });
  return dest;
}
