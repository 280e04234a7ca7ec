// Small HTTP helpers shared by the doors (MCP endpoint, owner API, files). No framework on the hot path.
import type { IncomingMessage, ServerResponse } from 'node:http';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** Host header names a loopback host (any port). Guards against DNS rebinding. */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const h = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!;
  return LOOPBACK_HOSTS.has(h.toLowerCase());
}

/** Origin (when sent) is a loopback http(s) origin. */
export function isLoopbackOrigin(origin: string): boolean {
  const m = /^https?:\/\/([^/:]+|\[[^\]]+\])(:\d+)?$/i.exec(origin);
  return !!m && LOOPBACK_HOSTS.has(m[1]!.toLowerCase());
}

export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`body over ${limit} bytes`);
  }
}

/** Reads the request body up to limit bytes; rejects with BodyTooLarge beyond it (and stops reading). */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? -1);
  if (declared > limit) {
    req.resume();
    return Promise.reject(new BodyTooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new BodyTooLarge(limit));
        req.removeAllListeners('data');
        req.resume();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
