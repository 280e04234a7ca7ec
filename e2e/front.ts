// A stand-in for the HTTPS front the owner runs (`tailscale serve`): a reverse proxy on loopback that forwards
// every request to the hub as tailscale serve does — the Host the phone asked for is kept, and it adds the
// X-Forwarded-* and Tailscale-User-* headers. Chromium reaches it under the tailnet name through
// --host-resolver-rules (see frontBrowserArgs). Plain HTTP here (no certificate authority on this machine), so
// Chromium is told to treat that one origin as secure, as it treats the real front's https origin.
import http from 'node:http';
import https from 'node:https';

export const FRONT_HOST = 'laptop.tail1234.ts.net';

export interface Front {
  /** The public URL the hub is told about (`perch serve --public-url`). */
  url: string;
  port: number;
  /** Where the hub listens (set once perch serve printed its port). */
  setTarget(port: number): void;
  /** Requests forwarded so far (method and path), to show that the phone went through the front. */
  seen: string[];
  close(): Promise<void>;
}

/** tls: serve HTTPS with this key and certificate (the front as agents reach it, https://127.0.0.1:PORT). */
export async function startFront(opts: { funnel?: boolean; tls?: { key: Buffer; cert: Buffer } } = {}): Promise<Front> {
  let target = 0;
  const seen: string[] = [];
  const handler: http.RequestListener = (req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (!target) {
      res.writeHead(502).end('no hub yet');
      return;
    }
    const headers: http.OutgoingHttpHeaders = {
      ...req.headers,
      'x-forwarded-for': '100.101.102.103',
      'x-forwarded-proto': 'https',
      'tailscale-user-login': 'owner@example.com',
      'tailscale-user-name': 'The Owner',
      ...(opts.funnel ? { 'tailscale-funnel-request': '?1' } : {}),
    };
    const upstream = http.request({ host: '127.0.0.1', port: target, method: req.method, path: req.url, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  };
  const server = opts.tls ? https.createServer(opts.tls, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: opts.tls ? `https://127.0.0.1:${port}` : `http://${FRONT_HOST}:${port}`,
    port,
    seen,
    setTarget(p) {
      target = p;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Chromium flags so the "phone" reaches the front under its tailnet name, as a secure origin. */
export function frontBrowserArgs(front: Front): string[] {
  return [`--host-resolver-rules=MAP ${FRONT_HOST} 127.0.0.1`, `--unsafely-treat-insecure-origin-as-secure=${front.url}`];
}
