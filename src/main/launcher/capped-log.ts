// Wake runs, a run's captured output on disk: 0600, cut at a size (the run key is redacted before: redact.ts). A full
// disk drops log lines, never the run.
import fs from 'node:fs';

/** A run's output on disk (0600), cut at maxBytes (the run key is redacted before: wake/redact.ts). */
export class CappedLog {
  private fd: number | null;
  private written = 0;
  private cut = false;
  constructor(
    file: string,
    private readonly maxBytes: number,
  ) {
    this.fd = fs.openSync(file, 'a', 0o600);
    try {
      fs.fchmodSync(this.fd, 0o600);
    } catch {
      /* best effort */
    }
  }

  write(data: Buffer): void {
    if (this.fd === null || this.cut || data.length === 0) return;
    const room = this.maxBytes - this.written;
    try {
      if (data.length > room) {
        fs.writeSync(this.fd, data.subarray(0, Math.max(0, room)));
        fs.writeSync(this.fd, `\n[perch: output cut at ${this.maxBytes} bytes]\n`);
        this.cut = true;
      } else {
        fs.writeSync(this.fd, data);
      }
      this.written += data.length;
    } catch {
      /* a full disk drops log lines, never the run */
    }
  }

  close(): void {
    if (this.fd === null) return;
    try {
      fs.closeSync(this.fd);
    } catch {
      /* gone */
    }
    this.fd = null;
  }
}
