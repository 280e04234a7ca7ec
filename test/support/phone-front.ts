// A phone reaching a real `perch serve` through the owner's HTTPS front, as `tailscale serve` forwards it: the public
// Host and the front's headers (X-Forwarded-For: the phone's tailnet address), raw HTTP (test/support/raw-http.ts) so every
// header is the test's. Pairs devices the way a phone does (claim and wait through the front, start and confirm on
// the laptop with the owner's token).
import assert from 'node:assert/strict';
import http from 'node:http';
import { buildRequest, rawExchange } from './raw-http';
import { runtimeInfo, type Served } from './serve-harness';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type R = any;

export const PUBLIC = 'https://laptop.tail1234.ts.net';
export const PUBLIC_HOST = 'laptop.tail1234.ts.net';
/** The owner's phone's tailnet address (what the front puts in X-Forwarded-For). */
export const PHONE_ADDR = '100.101.102.103';

export interface Answer {
  status: number | null;
  body: R;
  head: string;
}

/** The front's headers for a caller at `addr`, plus extra. */
export const front = (addr = PHONE_ADDR, extra: Array<[string, string]> = []): Array<[string, string]> => [
  ['Host', PUBLIC_HOST],
  ['X-Forwarded-For', addr],
  ['X-Forwarded-Proto', 'https'],
  ['Tailscale-User-Login', 'me@example.com'],
  ...extra,
];
export const bearer = (t: string): [string, string] => ['Authorization', `Bearer ${t}`];

export interface FrontClient {
  /** One raw request to the hub (headers as given, plus Connection: close and, with a body, Content-Type). */
  raw(method: string, target: string, headers: Array<[string, string]>, body?: unknown): Promise<Answer>;
  /** An owner action from the laptop (loopback Host, the owner's token), which must succeed. */
  ownerOk(action: string, input?: unknown): Promise<R>;
  /** An owner action called by a device through the front. */
  deviceCall(token: string, action: string, input?: unknown, addr?: string): Promise<Answer>;
  /** Pairs a phone through the front; answers its credential and device. */
  pair(name: string, scope?: 'approvals' | 'full', addr?: string): Promise<{ token: string; device: R }>;
  /** Opens a device's live event stream through the front; chunks arrive in `text()`. */
  stream(token: string): Promise<{ text(): string; items(): R[]; close(): void }>;
}

export function frontClient(served: Pick<Served, 'dataDir' | 'port'>): FrontClient {
  async function raw(method: string, target: string, headers: Array<[string, string]>, body?: unknown): Promise<Answer> {
    const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
    const h: Array<[string, string]> = [...headers, ['Connection', 'close']];
    if (body !== undefined) h.push(['Content-Type', 'application/json']);
    const a = await rawExchange(served.port, buildRequest(method, target, h, text), { timeoutMs: 40_000 });
    let parsed: R;
    try {
      parsed = JSON.parse(a.body.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    return { status: a.status, body: parsed, head: a.head };
  }
  async function ownerOk(action: string, input: unknown = {}): Promise<R> {
    const a = await raw(
      'POST',
      `/api/owner/${action}`,
      [['Host', `127.0.0.1:${served.port}`], bearer(runtimeInfo(served).owner_token)],
      input,
    );
    assert.equal(a.status, 200, `${action}: ${JSON.stringify(a.body)}`);
    return a.body.value;
  }
  const deviceCall = (token: string, action: string, input: unknown = {}, addr = PHONE_ADDR) =>
    raw('POST', `/api/owner/${action}`, front(addr, [bearer(token)]), input);
  async function pair(name: string, scope: 'approvals' | 'full' = 'approvals', addr = PHONE_ADDR): Promise<{ token: string; device: R }> {
    const start = await ownerOk('devices.pair_start', { name, scope });
    const claim = await raw('POST', '/api/device/pair/claim', front(addr), { code: start.url.split('#')[1], device_name: 'Android phone' });
    assert.equal(claim.status, 200, JSON.stringify(claim.body));
    const waiting = raw('POST', '/api/device/pair/wait', front(addr), {
      pairing_id: claim.body.value.pairing_id,
      claim_secret: claim.body.value.claim_secret,
      wait_secs: 20,
    });
    await ownerOk('devices.pair_confirm', { pairing_id: claim.body.value.pairing_id, phrase: claim.body.value.phrase });
    const got = await waiting;
    assert.equal(got.status, 200, JSON.stringify(got.body));
    return { token: got.body.value.device_token, device: got.body.value.device };
  }
  async function stream(token: string) {
    const chunks: string[] = [];
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const rq = http.request(
        {
          host: '127.0.0.1',
          port: served.port,
          path: '/api/owner/events',
          headers: { Host: PUBLIC_HOST, 'X-Forwarded-For': PHONE_ADDR, Authorization: `Bearer ${token}` },
        },
        resolve,
      );
      rq.on('error', reject);
      rq.end();
    });
    assert.equal(res.statusCode, 200);
    res.setEncoding('utf8').on('data', (c: string) => chunks.push(c));
    const text = () => chunks.join('');
    return {
      text,
      items: () =>
        text()
          .split('\n')
          .filter((l) => l.startsWith('data: '))
          .map((l) => JSON.parse(l.slice(6)) as R),
      close: () => void res.destroy(),
    };
  }
  return { raw, ownerOk, deviceCall, pair, stream };
}
