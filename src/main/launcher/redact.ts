// A wake run's key never reaches its log, however the process prints it: in one piece, split over several writes
// (the pipe delivers them as separate chunks), or in pieces of its own (`cut -c1-12`, then the rest on another
// line). A stream's output is scanned for any run of at least MIN_FRAGMENT characters of the key (the whole key
// being the longest); such a run is replaced by REDACTED. Output that could still grow into such a run (a tail
// that is part of the key) is held back until the next chunk shows how it goes on, or the stream ends: so not even
// the first characters of a key split over two writes are written. Works on bytes (latin1), so any output passes
// through unchanged, multi-byte characters included. RedactorChain does the same for the run's telemetry token.

export const REDACTED = '[run key redacted]';

/**
 * Characters of the key in a row that count as a piece of it: long enough that ordinary output never matches by
 * chance, and longer than the key's public prefix (perch_run_, 10 characters).
 */
export const MIN_FRAGMENT = 12;

export class KeyRedactor {
  private held = '';
  private readonly chars: Set<string>;

  constructor(private readonly key: string) {
    this.chars = new Set(key);
  }

  /** What of this chunk (and what was held) may be written now, with any piece of the key redacted. */
  push(chunk: Buffer): Buffer {
    return this.scan(this.held + chunk.toString('latin1'), false);
  }

  /** The end of the stream: what was held back, redacted if it is a piece of the key. */
  end(): Buffer {
    return this.scan(this.held, true);
  }

  private scan(text: string, final: boolean): Buffer {
    let out = '';
    let plain = 0; // start of the text not yet copied to out
    this.held = '';
    for (let i = 0; i < text.length;) {
      if (!this.chars.has(text[i]!)) {
        i++;
        continue;
      }
      const len = this.keyRunAt(text, i);
      if (!final && i + len === text.length && len < this.key.length) {
        this.held = text.slice(i); // may go on in the next chunk
        text = text.slice(0, i);
        break;
      }
      if (len >= MIN_FRAGMENT) {
        out += text.slice(plain, i) + REDACTED;
        i += len;
        plain = i;
      } else {
        i++;
      }
    }
    out += text.slice(plain);
    return Buffer.from(out, 'latin1');
  }

  /** How many characters from i on are, in a row, a piece of the key. */
  private keyRunAt(text: string, i: number): number {
    let len = 0;
    while (len < this.key.length && i + len < text.length && this.key.includes(text.slice(i, i + len + 1))) len++;
    return len;
  }
}

/** Several secrets redacted from one stream (a run's key and its telemetry token): each chunk passes through each. */
export class RedactorChain {
  private readonly parts: KeyRedactor[];

  constructor(secrets: readonly string[]) {
    this.parts = secrets.map((s) => new KeyRedactor(s));
  }

  push(chunk: Buffer): Buffer {
    return this.parts.reduce((c, r) => r.push(c), chunk);
  }

  /** The end of the stream: each redactor's held tail goes through the ones after it. */
  end(): Buffer {
    let out = Buffer.alloc(0);
    for (const r of this.parts) out = Buffer.concat([r.push(out), r.end()]);
    return out;
  }
}
