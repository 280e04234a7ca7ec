// The window of `perch serve` between its ready line and its hub (cli/serve-front.ts), held open without timing: a
// preload (NODE_OPTIONS --require) blocks the read of the hub's bundle (dist/serve-hub.js), as a slow load would,
// until the test says so. In that window node runs no JavaScript: connections wait in the kernel's backlog, signals
// wait to be delivered. PERCH_TEST_HUB_FAILS=1 makes the bundle unreadable once released (a hub that fails to load).
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { sleep, startServe, tempDir, type Served, type ServeOptions } from './serve-harness';

const HOLD_PRELOAD = `
const fs = require('node:fs');
const out = process.env.PERCH_TEST_AT_READY;
const readFileSync = fs.readFileSync;
fs.readFileSync = function (file, ...rest) {
  if (typeof file === 'string' && file.endsWith('serve-hub.js')) {
    if (!fs.existsSync(out + '.held')) {
      fs.writeFileSync(out + '.held', '');
      const pause = new Int32Array(new SharedArrayBuffer(4));
      for (let i = 0; i < 300 && !fs.existsSync(out + '.sent'); i++) Atomics.wait(pause, 0, 0, 100);
    }
    if (process.env.PERCH_TEST_HUB_FAILS === '1') {
      const err = new Error('EIO: i/o error, read (the hub bundle, made unreadable by the test)');
      err.code = 'EIO';
      throw err;
    }
  }
  return readFileSync.call(this, file, ...rest);
};
`;

export interface HeldServe extends Served {
  /** Resolves once the hub's bundle is being held back (right after the ready line; a bounded wait, not a timing). */
  heldBack(): Promise<boolean>;
  /** Lets the hub's bundle load. */
  release(): void;
  /** Releases, stops (SIGTERM) and removes the temporary files of the preload. */
  cleanup(): Promise<number | null>;
}

/** `perch serve` on dataDir whose hub is held back after its ready line until release(). */
export async function startHeldServe(dataDir: string, opts: ServeOptions & { hubFails?: boolean } = {}): Promise<HeldServe> {
  const tmp = tempDir('perch-window-');
  const preload = path.join(tmp, 'hold.cjs');
  fs.writeFileSync(preload, HOLD_PRELOAD);
  const at = path.join(tmp, 'at-ready');
  const served = await startServe(dataDir, {
    ...opts,
    env: {
      ...opts.env,
      NODE_OPTIONS: `--require ${preload}`,
      PERCH_TEST_AT_READY: at,
      ...(opts.hubFails ? { PERCH_TEST_HUB_FAILS: '1' } : {}),
    },
  });
  const release = () => fs.writeFileSync(`${at}.sent`, '');
  return Object.assign(served, {
    async heldBack() {
      for (let i = 0; i < 200 && !fs.existsSync(`${at}.held`); i++) await sleep(50);
      return fs.existsSync(`${at}.held`);
    },
    release,
    async cleanup() {
      release();
      const code = await served.stop();
      fs.rmSync(tmp, { recursive: true, force: true });
      return code;
    },
  });
}

/** A raw TCP exchange with the hub: the bytes written at once, everything read until the hub closes (bounded). */
export interface RawConn {
  socket: net.Socket;
  /** Resolves once connected and written. */
  written: Promise<void>;
  /** Everything received, and how the connection ended ('end': the hub closed it; 'reset'; 'hung': not within ms). */
  ended: Promise<{ data: string; how: 'end' | 'reset' | 'hung' }>;
}

export function rawConn(port: number, data: string | Buffer | null, opts: { timeoutMs?: number; endAfterWrite?: boolean } = {}): RawConn {
  const socket = net.connect(port, '127.0.0.1');
  let got = '';
  socket.setEncoding('latin1').on('data', (c: string) => (got += c));
  const written = new Promise<void>((resolve, reject) => {
    socket.once('connect', () => {
      if (data === null) return resolve();
      socket.write(data, () => {
        if (opts.endAfterWrite) socket.end();
        resolve();
      });
    });
    socket.once('error', reject);
  });
  written.catch(() => undefined);
  const ended = new Promise<{ data: string; how: 'end' | 'reset' | 'hung' }>((resolve) => {
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ data: got, how: 'hung' });
    }, opts.timeoutMs ?? 20_000);
    socket.on('error', () => {
      clearTimeout(timer);
      resolve({ data: got, how: 'reset' });
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ data: got, how: 'end' });
    });
  });
  return { socket, written, ended };
}

/** The statuses of the HTTP responses in what a connection received, in order. */
export function statuses(data: string): number[] {
  return [...data.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
}

/** Whether something accepts connections on 127.0.0.1:port. */
export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
