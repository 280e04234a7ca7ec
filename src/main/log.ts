// The hub log (logs/hub.log): one JSON line per request, for people, not for durability.
// It must never take the hub down nor fill the disk:
//  - Writes are batched (one write per event-loop turn or per 64 KiB) and asynchronous.
//  - A failing write (ENOSPC, EIO, a path that cannot be opened) drops the lines it held and counts
//    them; the next line tries again, and the first line that is written after a failure says how
//    many were dropped. While writing fails, at most MAX_PENDING bytes wait in memory.
//  - The file rotates when it would grow past maxBytes: hub.log → hub.log.1 → … → hub.log.<keep>;
//    the oldest is deleted. The log never takes more than about (keep + 1) × maxBytes.
import fs from 'node:fs';
import path from 'node:path';

export interface LogWriterOptions {
  /** The log file (e.g. <data dir>/logs/hub.log). */
  file: string;
  /** Size at which the file rotates (bytes). Default 10 MiB. */
  maxBytes?: number;
  /** Rotated files kept (hub.log.1 … hub.log.<keep>). Default 4. */
  keep?: number;
  /** While writing fails, try again at most this often (ms). Default 1000. */
  retryMs?: number;
  /** Told once when writing starts failing, and once when it works again. */
  onTrouble?: (message: string) => void;
}

export interface LogStats {
  /** Lines written since start. */
  written: number;
  /** Lines dropped because writing failed. */
  dropped: number;
  /** Whether the last attempt to write failed. */
  failing: boolean;
  /** The error code of the last failure (e.g. ENOSPC). */
  lastError: string | null;
  /** Rotations done since start. */
  rotations: number;
}

export interface LogWriter {
  /** Appends one line (a JSON-serialisable object). Never throws. */
  write(entry: Record<string, unknown>): void;
  stats(): LogStats;
  /** Writes what is buffered (best effort) and closes the file. */
  close(): Promise<void>;
}

export const DEFAULT_LOG_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_LOG_KEEP = 4;
/** Flush at once from this buffer size. */
const FLUSH_BYTES = 64 * 1024;
/** At most this much waits in memory while a write is under way; more is dropped. */
const MAX_PENDING = 4 * 1024 * 1024;
/** While writing fails, it is tried again at most this often (ms); lines in between are dropped. */
const RETRY_MS = 1000;

export function createLogWriter(opts: LogWriterOptions): LogWriter {
  const file = opts.file;
  const maxBytes = Math.max(1, opts.maxBytes ?? DEFAULT_LOG_MAX_BYTES);
  const keep = Math.max(0, Math.floor(opts.keep ?? DEFAULT_LOG_KEEP));
  const retryMs = Math.max(0, opts.retryMs ?? RETRY_MS);
  const stats: LogStats = { written: 0, dropped: 0, failing: false, lastError: null, rotations: 0 };

  let fd: number | undefined;
  let size = 0;
  let lines: string[] = [];
  let pendingBytes = 0;
  let writing = false;
  let scheduled: NodeJS.Immediate | undefined;
  let closed = false;
  /** Dropped lines not yet reported in the log itself. */
  let unreported = 0;
  let closeWaiters: Array<() => void> = [];
  /** While failing, the next attempt to write is not made before this time. */
  let retryAt = 0;

  function fail(err: unknown, lost: number) {
    const code = (err as { code?: string } | undefined)?.code ?? (err instanceof Error ? err.message : String(err));
    stats.dropped += lost;
    unreported += lost;
    stats.lastError = code;
    retryAt = Date.now() + retryMs;
    if (!stats.failing) {
      stats.failing = true;
      opts.onTrouble?.(`the hub log ${file} cannot be written (${code}); log lines are dropped until it can`);
    }
    if (fd !== undefined) {
      const old = fd;
      fd = undefined; // reopen on the next attempt (the file may be gone or replaced)
      fs.close(old, () => undefined);
    }
  }

  function open(): boolean {
    if (fd !== undefined) return true;
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      fd = fs.openSync(file, 'a', 0o600);
      size = fs.fstatSync(fd).size;
      return true;
    } catch (err) {
      fail(err, 0);
      return false;
    }
  }

  /** hub.log.<keep-1> → hub.log.<keep>, …, hub.log → hub.log.1; the file is reopened empty. */
  function rotate(): void {
    if (fd !== undefined) {
      try {
        fs.closeSync(fd);
      } catch {
        /* closing anyway */
      }
      fd = undefined;
    }
    try {
      if (keep === 0) {
        fs.rmSync(file, { force: true });
      } else {
        fs.rmSync(`${file}.${keep}`, { force: true });
        for (let i = keep - 1; i >= 1; i--) {
          try {
            fs.renameSync(`${file}.${i}`, `${file}.${i + 1}`);
          } catch (err) {
            if ((err as { code?: string }).code !== 'ENOENT') throw err;
          }
        }
        fs.renameSync(file, `${file}.1`);
      }
      stats.rotations++;
    } catch {
      // Could not rotate (e.g. a read-only folder): start the file over rather than let it grow.
      try {
        fs.truncateSync(file, 0);
      } catch {
        /* the write below reports the trouble */
      }
    }
    size = 0;
  }

  function flush(): void {
    scheduled = undefined;
    if (writing || lines.length === 0) return;
    if (stats.failing && Date.now() < retryAt) {
      // Still failing a moment ago: drop without touching the disk again yet.
      stats.dropped += lines.length;
      unreported += lines.length;
      lines = [];
      pendingBytes = 0;
      return finishIfClosing();
    }
    if (!open()) {
      stats.dropped += lines.length;
      unreported += lines.length;
      lines = [];
      pendingBytes = 0;
      return finishIfClosing();
    }
    let batch = lines;
    lines = [];
    pendingBytes = 0;
    const reported = unreported;
    if (reported > 0) {
      batch = [`${JSON.stringify({ t: Date.now(), door: 'log', dropped: reported, error: stats.lastError })}\n`, ...batch];
    }
    if (size > 0 && size + Buffer.byteLength(batch[0]!) > maxBytes) rotate();
    if (!open()) {
      const lost = batch.length - (reported > 0 ? 1 : 0);
      stats.dropped += lost;
      unreported += lost;
      return finishIfClosing();
    }
    // Only what fits under the cap goes into this file; the rest waits for the next write (after a rotation).
    // A single line over the cap is written alone into a fresh file.
    let take = 0;
    let bytes = 0;
    while (take < batch.length) {
      const b = Buffer.byteLength(batch[take]!);
      if (take > 0 && size + bytes + b > maxBytes) break;
      bytes += b;
      take++;
    }
    if (take < batch.length) {
      const rest = batch.slice(take);
      lines = rest.concat(lines);
      for (const l of rest) pendingBytes += l.length;
      batch = batch.slice(0, take);
    }
    const text = batch.join('');
    const buf = Buffer.from(text);
    writing = true;
    const target = fd!;
    writeAll(target, buf, 0, (err) => {
      writing = false;
      if (err) {
        fail(err, batch.length - (reported > 0 ? 1 : 0));
      } else {
        size += buf.length;
        stats.written += batch.length - (reported > 0 ? 1 : 0);
        unreported -= reported;
        if (stats.failing) {
          stats.failing = false;
          opts.onTrouble?.(`the hub log ${file} is written again (${stats.dropped} lines were dropped in all)`);
        }
      }
      // Lines that came in meanwhile go out now (after a failure, on the next turn: see retryMs).
      if (lines.length) {
        if (err && !closed) scheduled ??= setImmediate(flush);
        else flush();
      }
      finishIfClosing();
    });
  }

  function finishIfClosing() {
    if (!closed || writing || lines.length) return;
    if (fd !== undefined) {
      try {
        fs.closeSync(fd);
      } catch {
        /* closed */
      }
      fd = undefined;
    }
    const waiters = closeWaiters;
    closeWaiters = [];
    for (const w of waiters) w();
  }

  return {
    write(entry) {
      if (closed) return;
      let line: string;
      try {
        line = `${JSON.stringify(entry)}\n`;
      } catch {
        return;
      }
      if (pendingBytes + line.length > MAX_PENDING) {
        stats.dropped++;
        unreported++;
        return;
      }
      lines.push(line);
      pendingBytes += line.length;
      if (pendingBytes >= FLUSH_BYTES) {
        if (scheduled) clearImmediate(scheduled);
        flush();
      } else {
        scheduled ??= setImmediate(flush);
      }
    },
    stats: () => ({ ...stats }),
    close() {
      closed = true;
      if (scheduled) {
        clearImmediate(scheduled);
        scheduled = undefined;
      }
      return new Promise<void>((resolve) => {
        closeWaiters.push(resolve);
        if (!writing) flush();
        finishIfClosing();
      });
    },
  };
}

function writeAll(fd: number, buf: Buffer, offset: number, done: (err: NodeJS.ErrnoException | null) => void): void {
  fs.write(fd, buf, offset, buf.length - offset, null, (err, n) => {
    if (err) return done(err);
    if (offset + n < buf.length) return writeAll(fd, buf, offset + n, done);
    done(null);
  });
}
