// A real Web Push endpoint on loopback for tests, standing in for FCM / Mozilla / Apple: an HTTPS server with the
// self-signed certificate of test/fixtures/push-tls (made once with openssl for 127.0.0.1 and localhost, valid to
// 2059; the hub trusts it through NODE_EXTRA_CA_CERTS), plus what a browser does with a push: a subscription's
// keys (an ECDH P-256 key pair and a 16-byte auth secret), the RFC 8291 / RFC 8188 aes128gcm decryption of the
// body with them, and the check of the VAPID Authorization header (RFC 8292) against the server's public key.
// Written here with node:crypto only, so the hub's encryption (the web-push package) is checked by an
// independent implementation, not by itself.
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { openDatabase, DB_FILE_NAME } from '../../src/main/store/db/db';
import { createHub } from '../../src/main/hub-services';
import { createDevice } from '../../src/main/hub/phone/devices';

export const PUSH_TLS_DIR = path.join(__dirname, '..', 'fixtures', 'push-tls');
export const PUSH_CERT_FILE = path.join(PUSH_TLS_DIR, 'cert.pem');
/**
 * What a `perch serve` needs to push to this endpoint: trust its certificate, and accept a loopback push service
 * (PERCH_TEST_LOOPBACK_PUSH: without it the hub takes only the known Web Push services' hosts).
 */
export const PUSH_TEST_ENV: Readonly<Record<string, string>> = { NODE_EXTRA_CA_CERTS: PUSH_CERT_FILE, PERCH_TEST_LOOPBACK_PUSH: '1' };

/** What a browser keeps for one push subscription: the private key and the public values it sends the server. */
export interface TestSubscriptionKeys {
  ecdh: crypto.ECDH;
  /** The uncompressed public point (65 bytes), base64url: what the browser sends as keys.p256dh. */
  p256dh: string;
  /** 16 random bytes, base64url: keys.auth. */
  auth: string;
}

export function makeSubscriptionKeys(): TestSubscriptionKeys {
  const ecdh = crypto.createECDH('prime256v1');
  ecdh.generateKeys();
  return { ecdh, p256dh: ecdh.getPublicKey().toString('base64url'), auth: crypto.randomBytes(16).toString('base64url') };
}

/** RFC 8291 (Message Encryption for Web Push) over RFC 8188 aes128gcm: the plaintext the push service never saw. */
export function decryptPush(body: Buffer, keys: TestSubscriptionKeys): string {
  if (body.length < 21 + 65 + 16) throw new Error(`push body too short (${body.length} bytes)`);
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20]!;
  if (idlen !== 65) throw new Error(`keyid length ${idlen}: aes128gcm for Web Push carries the 65-byte sender key`);
  const asPublic = body.subarray(21, 21 + idlen);
  const records = body.subarray(21 + idlen);
  if (records.length > rs) throw new Error('more than one record: a Web Push message is one record');
  const uaPublic = keys.ecdh.getPublicKey();
  const ecdhSecret = keys.ecdh.computeSecret(asPublic);
  const authSecret = Buffer.from(keys.auth, 'base64url');
  // RFC 8291 §3.4: IKM = HKDF(auth_secret, ecdh_secret, "WebPush: info" 0x00 ua_public as_public, 32)
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]);
  const ikm = Buffer.from(crypto.hkdfSync('sha256', ecdhSecret, authSecret, keyInfo, 32));
  // RFC 8188 §2.2-2.3: CEK and NONCE from HKDF(salt, IKM)
  const cek = Buffer.from(crypto.hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(crypto.hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12)); // record 0: nonce XOR 0
  const tag = records.subarray(records.length - 16);
  const decipher = crypto.createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(tag);
  const padded = Buffer.concat([decipher.update(records.subarray(0, records.length - 16)), decipher.final()]);
  let end = padded.length;
  while (end > 0 && padded[end - 1] === 0) end--;
  if (end === 0 || padded[end - 1] !== 2) throw new Error('the last record does not end with the 0x02 delimiter');
  return padded.subarray(0, end - 1).toString('utf8');
}

export interface VapidClaims {
  aud: string;
  exp: number;
  sub: string;
}

/**
 * Checks `Authorization: vapid t=<JWT>, k=<public key>` (RFC 8292): k is the expected server key, the JWT is ES256
 * signed by it, aud is the endpoint's origin and exp lies in the next 24 hours. Returns the claims; throws otherwise.
 */
export function verifyVapid(header: string | undefined, expectedPublicKey: string, endpointOrigin: string): VapidClaims {
  const m = /^vapid t=([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+), k=([A-Za-z0-9_-]+)$/.exec(header ?? '');
  if (!m) throw new Error(`Authorization is not "vapid t=…, k=…": ${header}`);
  const [, jwt, k] = m as unknown as [string, string, string];
  if (k !== expectedPublicKey) throw new Error("k is not the hub's VAPID public key");
  const [h, p, s] = jwt.split('.') as [string, string, string];
  const headerJson = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as { alg?: string };
  if (headerJson.alg !== 'ES256') throw new Error(`JWT alg ${headerJson.alg}, not ES256`);
  const point = Buffer.from(k, 'base64url');
  if (point.length !== 65 || point[0] !== 4) throw new Error('k is not an uncompressed P-256 point');
  const key = crypto.createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
    format: 'jwk',
  });
  const ok = crypto.verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'));
  if (!ok) throw new Error('the VAPID JWT signature does not verify with k');
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as VapidClaims;
  if (claims.aud !== endpointOrigin) throw new Error(`aud ${claims.aud} is not ${endpointOrigin}`);
  const now = Date.now() / 1000;
  if (!(claims.exp > now && claims.exp <= now + 24 * 3600 + 60)) throw new Error(`exp ${claims.exp} is not within the next 24 hours`);
  if (!/^(mailto:|https:)/.test(claims.sub)) throw new Error(`sub ${claims.sub} is not a mailto: or https: URL`);
  return claims;
}

export interface ReceivedPush {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface PushEndpoint {
  origin: string;
  /** A fresh endpoint URL of this server (one per subscription). */
  endpointUrl(name: string): string;
  received: ReceivedPush[];
  /** The status the next pushes to this path get (default 201). */
  answer(pathname: string, status: number): void;
  /** Waits (bounded) for a push to this path matching pred, beyond the first `after` ones received there. */
  next(pathname: string, pred: (p: ReceivedPush) => boolean, timeoutMs?: number): Promise<ReceivedPush>;
  close(): Promise<void>;
}

export async function startPushEndpoint(): Promise<PushEndpoint> {
  const received: ReceivedPush[] = [];
  const statuses = new Map<string, number>();
  const listeners = new Set<() => void>();
  const server = https.createServer(
    { key: fs.readFileSync(path.join(PUSH_TLS_DIR, 'key.pem')), cert: fs.readFileSync(PUSH_CERT_FILE) },
    (req, res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= 64 * 1024) chunks.push(c);
      });
      req.on('end', () => {
        const p = new URL(req.url ?? '/', 'https://127.0.0.1').pathname;
        received.push({ path: p, headers: req.headers, body: Buffer.concat(chunks) });
        const status = statuses.get(p) ?? 201;
        res.writeHead(status, { 'Content-Type': 'text/plain' }).end(status === 201 ? '' : 'gone');
        for (const l of [...listeners]) l();
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    origin,
    endpointUrl: (name) => `${origin}/push/${name}`,
    received,
    answer: (p, status) => void statuses.set(p, status),
    next(pathname, pred, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = received.find((r) => r.path === pathname && pred(r));
          if (!hit) return false;
          received.splice(received.indexOf(hit), 1);
          clearTimeout(timer);
          listeners.delete(onPush);
          resolve(hit);
          return true;
        };
        const onPush = () => void check();
        const timer = setTimeout(() => {
          listeners.delete(onPush);
          reject(
            new Error(`no push to ${pathname} within ${timeoutMs} ms (received: ${received.map((r) => r.path).join(', ') || 'none'})`),
          );
        }, timeoutMs);
        listeners.add(onPush);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Pairs an approvals device straight on a hub's database file (another connection, as the CLI writes): {id, token}. */
export function pairDeviceOnFile(dataDir: string, name: string): { id: string; token: string } {
  const db = openDatabase(path.join(dataDir, DB_FILE_NAME));
  const hub = createHub({ db });
  try {
    const { device, token } = createDevice(hub, { name, scope: 'approvals' });
    return { id: device.id, token };
  } finally {
    hub.close();
    db.close();
  }
}
