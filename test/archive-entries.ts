// Reads a Perch archive (a gzip-compressed tar, store/archive-tar.ts) whole, for tests that look inside one.
import fs from 'node:fs';
import zlib from 'node:zlib';
import { Readable } from 'node:stream';
import { readTar } from '../src/main/store/archive-tar';

/** The archive's entries, by name, in the order they are in the file. */
export async function archiveEntries(file: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for await (const e of readTar(Readable.from(zlib.gunzipSync(fs.readFileSync(file))))) {
    const chunks: Buffer[] = [];
    for await (const c of e.body) chunks.push(c);
    out.set(e.name, Buffer.concat(chunks));
  }
  return out;
}
