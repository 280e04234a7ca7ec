// What clients send in the window of `perch serve` between its ready line and its hub (cli/serve-front.ts): keep-alive
// and pipelined requests, a half request, a client that leaves, a body far over the limit, an Upgrade
// header, many connections. Each is answered as by a hub that was up. The window is held open by a preload
// (test/support/serve-window.ts), never by timing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ensureBuilt, removeDataDir, tempDataDir } from '../support/serve-harness';
import { rawConn, startHeldServe, statuses, type HeldServe } from '../support/serve-window';

function ownerToken(dir: string): string {
  return (JSON.parse(fs.readFileSync(path.join(dir, 'runtime.json'), 'utf8')) as { owner_token: string }).owner_token;
}

function info(token: string, close = false): string {
  return `POST /api/owner/hub.info HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n${close ? 'Connection: close\r\n' : ''}\r\n{}`;
}

async function held(fn: (served: HeldServe, token: string) => Promise<void>, args: string[] = []): Promise<void> {
  ensureBuilt();
  const dir = tempDataDir();
  const served = await startHeldServe(dir, { args });
  try {
    assert.ok(await served.heldBack(), 'the hub is held back after its ready line');
    await fn(served, ownerToken(dir));
  } finally {
    assert.equal(await served.cleanup(), 0, served.stderr());
    removeDataDir(dir);
  }
}

test('keep-alive and pipelined requests sent in the window are answered in order on their connection', () =>
  held(async (served, token) => {
    const c = rawConn(served.port, info(token) + info(token) + info(token, true));
    await c.written;
    served.release();
    const e = await c.ended;
    assert.deepEqual(statuses(e.data), [200, 200, 200], e.data);
    assert.equal(e.how, 'end');
  }));

test('a half request sent in the window is answered once its rest arrives; a client that left in the window harms nothing', () =>
  held(async (served, token) => {
    const whole = info(token);
    const cut = whole.length - 2;
    const half = rawConn(served.port, whole.slice(0, cut));
    const gone = rawConn(served.port, 'POST /api/owner/hub.info HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n');
    const probe = rawConn(served.port, info(token, true));
    await Promise.all([half.written, gone.written, probe.written]);
    gone.socket.destroy();
    served.release();
    assert.deepEqual(statuses((await probe.ended).data), [200], 'the hub is up');
    half.socket.end(whole.slice(cut));
    const e = await half.ended;
    assert.deepEqual(statuses(e.data), [200], e.data);
  }));

test('a body far over the limit sent in the window is refused with 413 and the hub serves on', () =>
  held(async (served, token) => {
    const size = 40 * 1024 * 1024;
    const big = rawConn(
      served.port,
      Buffer.concat([
        Buffer.from(
          `POST /api/owner/hub.info HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
        ),
        Buffer.alloc(size, 0x20),
      ]),
    );
    await new Promise<void>((resolve) => big.socket.once('connect', () => resolve()));
    const other = rawConn(served.port, info(token, true));
    await other.written;
    served.release();
    const e = await big.ended;
    assert.equal(statuses(e.data)[0], 413, e.data.slice(0, 300));
    assert.deepEqual(statuses((await other.ended).data), [200]);
  }));

test('the live event stream asked for in the window (with an Upgrade header too) is served as once the hub is up', () =>
  held(async (served, token) => {
    const ask = (upgrade: boolean) =>
      rawConn(
        served.port,
        `GET /api/owner/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n${upgrade ? 'Connection: Upgrade\r\nUpgrade: websocket\r\n' : ''}\r\n`,
      );
    const early = [ask(false), ask(true)];
    await Promise.all(early.map((c) => c.written));
    served.release();
    const firstEvent = (c: ReturnType<typeof ask>) =>
      new Promise<string>((resolve) => {
        let got = '';
        c.socket.on('data', (d: string) => {
          got += d;
          if (got.includes('"connected":true')) resolve(got);
        });
        void c.ended.then(() => resolve(got));
      });
    const windowed = await Promise.all(early.map(firstEvent));
    const late = [ask(false), ask(true)];
    const up = await Promise.all(late.map(firstEvent));
    for (const c of [...early, ...late]) c.socket.destroy();
    const shape = (s: string) => `${statuses(s).join()} ${/text\/event-stream/.test(s)} ${/"connected":true/.test(s)}`;
    assert.deepEqual(windowed.map(shape), up.map(shape));
    assert.deepEqual(up.map(shape), ['200 true true', '200 true true']);
  }));

test('many connections held in the window are each answered once the hub is up', () =>
  held(async (served, token) => {
    const conns = Array.from({ length: 200 }, () => rawConn(served.port, info(token, true)));
    await Promise.all(conns.map((c) => c.written));
    served.release();
    const ends = await Promise.all(conns.map((c) => c.ended));
    assert.deepEqual(
      ends.map((e) => statuses(e.data)[0]),
      conns.map(() => 200),
    );
  }));
