// Raw HTTP/1.1 over node:net, for requests no HTTP client would send: malformed request lines and
// headers, lying Content-Lengths, bodies sent in pieces. Bounded in time; never throws.
import net from 'node:net';

export interface RawAnswer {
  /** The status of the first response, or null when the hub closed without answering. */
  status: number | null;
  /** The response head (status line and headers), '' when there was none. */
  head: string;
  /** Body bytes received before the exchange ended (all of them for a Content-Length response). */
  body: Buffer;
  /** The hub closed (or reset) the connection. */
  closed: boolean;
  /** Neither an answer nor a close came within the timeout: the hub hung on this request. */
  hung: boolean;
  ms: number;
}

export interface RawOptions {
  /** The request in pieces, written pieceDelayMs apart (to dribble headers or a body). */
  pieces?: Array<string | Buffer>;
  pieceDelayMs?: number;
  /** Give up (hung) after this long without a complete answer or a close. */
  timeoutMs?: number;
  /** The address to connect to (default 127.0.0.1; e.g. 127.0.0.2 for the hub's container listener). */
  host?: string;
}

/**
 * Sends bytes to 127.0.0.1:port and waits for one response head (and its Content-Length body, when it has
 * one), or for the hub to close the connection. An event stream or chunked answer is done at its head.
 */
export function rawExchange(port: number, data: string | Buffer, opts: RawOptions = {}): Promise<RawAnswer> {
  const started = Date.now();
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const pieces = opts.pieces ?? [data];
  const isHead = String(pieces[0] ?? '').startsWith('HEAD ');
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    let done = false;
    const timers: NodeJS.Timeout[] = [];
    const socket = net.connect(port, opts.host ?? '127.0.0.1');
    const finish = (closed: boolean, hung = false) => {
      if (done) return;
      done = true;
      for (const t of timers) clearTimeout(t);
      const end = buf.indexOf('\r\n\r\n');
      const head = end >= 0 ? buf.subarray(0, end).toString('latin1') : '';
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(head);
      socket.destroy();
      resolve({
        status: m ? Number(m[1]) : null,
        head,
        body: end >= 0 ? buf.subarray(end + 4) : Buffer.alloc(0),
        closed,
        hung,
        ms: Date.now() - started,
      });
    };
    const complete = () => {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return false;
      const head = buf.subarray(0, end).toString('latin1');
      if (/^HTTP\/1\.[01] 1\d\d/.test(head)) {
        buf = buf.subarray(end + 4); // 100 Continue: the real answer follows
        return complete();
      }
      if (isHead || /^HTTP\/1\.[01] (204|304)/.test(head)) return true; // no body follows
      const len = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      if (len) return buf.length - (end + 4) >= Number(len[1]);
      // Chunked or an event stream: the head is the answer (a stream goes on as long as it is open).
      return /\r\ntransfer-encoding:\s*chunked/i.test(head) || /\r\ncontent-type:\s*text\/event-stream/i.test(head);
    };
    socket.on('data', (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      if (complete()) finish(false);
    });
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
    timers.push(setTimeout(() => finish(false, true), timeoutMs));
    socket.on('connect', () => {
      pieces.forEach((p, i) => {
        timers.push(
          setTimeout(
            () => {
              if (!done && socket.writable) socket.write(p);
            },
            i * (opts.pieceDelayMs ?? 0),
          ),
        );
      });
    });
  });
}

/** A request head plus body, Content-Length filled in unless headers set one (or contentLength: null). */
export function buildRequest(
  method: string,
  target: string,
  headers: Array<[string, string]>,
  body: string | Buffer = '',
  contentLength: number | null | 'auto' = 'auto',
): Buffer {
  const b = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const lines = [`${method} ${target} HTTP/1.1`, ...headers.map(([k, v]) => `${k}: ${v}`)];
  if (contentLength === 'auto' && (b.length > 0 || method === 'POST')) lines.push(`Content-Length: ${b.length}`);
  else if (typeof contentLength === 'number') lines.push(`Content-Length: ${contentLength}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), b]);
}
