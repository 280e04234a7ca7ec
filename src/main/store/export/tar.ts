// The container of a Perch export: a POSIX ustar file (512-byte header, the bytes, padding to 512, two zero
// blocks at the end), gzip-compressed. Written and read here with Node's own streams, in bounded memory: the
// writer waits for the stream to drain, the reader pulls the bytes it needs and nothing more.
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';

const BLOCK = 512;
/** Entry names are ASCII, at most 100 bytes (the ustar name field, no prefix field used). */
export const MAX_NAME = 100;

function octal(n: number, width: number): string {
  return `${n.toString(8).padStart(width - 1, '0')}\0`;
}

/** The 512-byte ustar header of a regular file. */
export function tarHeader(name: string, size: number, mtimeSec: number): Buffer {
  if (!/^[\x21-\x7e]+$/.test(name) || name.length > MAX_NAME)
    throw new Error(`archive entry name ${JSON.stringify(name)} is not 1..${MAX_NAME} printable ASCII characters`);
  const h = Buffer.alloc(BLOCK, 0);
  h.write(name, 0, 'ascii');
  h.write(octal(0o644, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(size, 12), 124, 'ascii');
  h.write(octal(mtimeSec, 12), 136, 'ascii');
  h.write('        ', 148, 'ascii'); // the checksum counts its own field as spaces
  h.write('0', 156, 'ascii');
  h.write('ustar\x0000', 257, 'ascii');
  h.write('perch', 265, 'ascii');
  h.write('perch', 297, 'ascii');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}

/** Writes entries into a stream (a gzip stream in front of a file), waiting whenever it is full. */
export class TarWriter {
  constructor(
    private readonly out: Writable,
    private readonly mtimeSec = Math.floor(Date.now() / 1000),
  ) {}

  /** Writes a chunk, waiting when the stream is full; fails (never waits forever) when the stream errs or closes. */
  private async write(chunk: Buffer): Promise<void> {
    if (this.out.errored) throw this.out.errored;
    if (this.out.write(chunk)) return;
    const ac = new AbortController();
    try {
      await Promise.race([
        once(this.out, 'drain', { signal: ac.signal }),
        once(this.out, 'close', { signal: ac.signal }).then(() => {
          throw this.out.errored ?? new Error('the archive stream closed while it was written');
        }),
      ]);
    } finally {
      ac.abort();
    }
  }

  /** One file entry of exactly `size` bytes, from a buffer or a stream of them. */
  async add(name: string, size: number, body: Buffer | AsyncIterable<Buffer>): Promise<void> {
    await this.write(tarHeader(name, size, this.mtimeSec));
    let written = 0;
    if (Buffer.isBuffer(body)) {
      if (body.length) await this.write(body);
      written = body.length;
    } else {
      for await (const chunk of body) {
        written += chunk.length;
        if (written > size) break;
        await this.write(chunk);
      }
    }
    if (written !== size) throw new Error(`archive entry ${name} changed while it was written (${written} bytes, expected ${size})`);
    const pad = (BLOCK - (size % BLOCK)) % BLOCK;
    if (pad) await this.write(Buffer.alloc(pad, 0));
  }

  /** The two zero blocks that end a tar file; ends the stream. */
  async finish(): Promise<void> {
    await this.write(Buffer.alloc(BLOCK * 2, 0));
    if (this.out.errored) throw this.out.errored;
    this.out.end();
    await once(this.out, 'finish');
  }
}

/** A problem with the export's bytes or structure: the importer refuses the export with it. */
export class ExportFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExportFileError';
  }
}

/** Pulls exact byte counts out of a stream. */
class ByteSource {
  private buf: Buffer = Buffer.alloc(0);
  private readonly it: AsyncIterator<Buffer>;
  private done = false;
  constructor(src: Readable) {
    this.it = src[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  }

  /** Up to n bytes (fewer only at the end of the stream). */
  async take(n: number): Promise<Buffer> {
    while (this.buf.length < n && !this.done) {
      const r = await this.it.next();
      if (r.done) this.done = true;
      else this.buf = this.buf.length ? Buffer.concat([this.buf, r.value]) : r.value;
    }
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(out.length);
    return out;
  }

  async exact(n: number, what: string): Promise<Buffer> {
    const b = await this.take(n);
    if (b.length !== n) throw new ExportFileError(`the archive is truncated (it ends inside ${what})`);
    return b;
  }
}

export interface TarEntry {
  name: string;
  size: number;
  /** The entry's bytes in chunks of at most 64 KiB; must be read to the end before the next entry. */
  body: AsyncIterable<Buffer>;
}

function field(h: Buffer, start: number, len: number): string {
  const s = h.subarray(start, start + len);
  const z = s.indexOf(0);
  return s.subarray(0, z < 0 ? len : z).toString('latin1');
}

/**
 * The entries of a tar stream, in order. Only regular files are accepted; a header whose checksum does not
 * match, a size that is not octal, a stream that ends early: ExportFileError.
 */
export async function* readTar(src: Readable): AsyncGenerator<TarEntry> {
  const bytes = new ByteSource(src);
  for (;;) {
    const h = await bytes.take(BLOCK);
    if (h.length === 0) throw new ExportFileError('the archive is truncated (no end-of-archive blocks)');
    if (h.length < BLOCK) throw new ExportFileError('the archive is truncated (it ends inside an entry header)');
    if (h.every((b) => b === 0)) return;
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
    const stored = parseInt(field(h, 148, 8).trim(), 8);
    if (stored !== sum) throw new ExportFileError('an entry header of the archive is damaged (its checksum does not match)');
    const name = field(h, 0, 100);
    const sizeText = field(h, 124, 12).trim();
    if (!/^[0-7]+$/.test(sizeText)) throw new ExportFileError(`the size of archive entry ${JSON.stringify(name)} is not a number`);
    const size = parseInt(sizeText, 8);
    const type = field(h, 156, 1) || '0';
    if (type !== '0')
      throw new ExportFileError(
        `archive entry ${JSON.stringify(name)} is not a regular file (type ${JSON.stringify(type)}); a Perch archive holds only files`,
      );
    if (field(h, 345, 155)) throw new ExportFileError(`archive entry ${JSON.stringify(name)} uses a name prefix; a Perch archive does not`);
    let left = size;
    const body = (async function* () {
      while (left > 0) {
        const chunk = await bytes.exact(Math.min(left, 65536), `entry ${name}`);
        left -= chunk.length;
        yield chunk;
      }
    })();
    yield { name, size, body };
    while (left > 0) left -= (await bytes.exact(Math.min(left, 65536), `entry ${name}`)).length; // what the reader left
    const pad = (BLOCK - (size % BLOCK)) % BLOCK;
    if (pad) await bytes.exact(pad, `the padding of entry ${name}`);
  }
}
