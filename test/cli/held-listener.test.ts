// The main port of `perch serve` is accepted by a plain node:net listener that holds its connections until the hub's
// HTTP server takes them (src/main/held-listener.ts). The connections it hands over must be as Node's HTTP server
// would have accepted them itself: with Nagle's algorithm off (noDelay), so that an answer written in pieces (an event
// stream, an MCP answer streamed as events) is not held back waiting for the client's delayed acknowledgement.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { holdPort, listenOn } from '../../src/main/held-listener';
import { hubServer, serverLimits } from '../../src/main/hub-server';

/** Records the TCP handles on which setNoDelay(true) is called (Node's net.Server does so as it accepts). */
async function spyNoDelay(): Promise<{ set: WeakSet<object>; restore(): void }> {
  const probe = net.createServer();
  await listenOn(probe, 0, '127.0.0.1');
  const proto = Object.getPrototypeOf((probe as unknown as { _handle: object })._handle) as { setNoDelay(on: boolean): number };
  probe.close();
  const original = proto.setNoDelay;
  const set = new WeakSet<object>();
  proto.setNoDelay = function (this: object, on: boolean) {
    if (on) set.add(this);
    return original.call(this, on);
  };
  return { set, restore: () => void (proto.setNoDelay = original) };
}

/** The handle of the first connection server sees, once a client connects to port. */
async function acceptedHandle(server: net.Server, port: number): Promise<object> {
  const accepted = new Promise<object>((resolve) =>
    server.once('connection', (socket: net.Socket) => resolve((socket as unknown as { _handle: object })._handle)),
  );
  const client = net.connect(port, '127.0.0.1');
  const handle = await accepted;
  client.destroy();
  return handle;
}

test("a connection on perch serve's main port has Nagle's algorithm off (noDelay), as the hub's HTTP server accepting it itself would", async () => {
  const spy = await spyNoDelay();
  try {
    const own = hubServer(serverLimits(), (_req, res) => res.end());
    await listenOn(own, 0, '127.0.0.1');
    const ownHandle = await acceptedHandle(own, (own.address() as net.AddressInfo).port);
    own.closeAllConnections();
    own.close();
    assert.ok(own instanceof http.Server && spy.set.has(ownHandle), "Node's HTTP server turns Nagle off on what it accepts");

    const held = await holdPort(0, '127.0.0.1');
    const server = hubServer(serverLimits(), (_req, res) => res.end());
    held.take(server);
    const heldHandle = await acceptedHandle(server, held.port());
    server.closeAllConnections();
    held.close();
    server.close();
    assert.ok(spy.set.has(heldHandle), 'the held listener hands the hub a connection with Nagle on');
  } finally {
    spy.restore();
  }
});

/** Resolves once listener has accepted n connections (counted from now). */
function accepted(listener: net.Server, n: number): Promise<void> {
  let seen = 0;
  return new Promise((resolve) => {
    const on = () => {
      if (++seen === n) {
        listener.off('connection', on);
        resolve();
      }
    };
    listener.on('connection', on);
  });
}

/** Everything a client receives until the server closes its connection. */
function exchange(port: number, data: string): { socket: net.Socket; answer: Promise<string> } {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write(data);
  let got = '';
  const answer = new Promise<string>((resolve) => {
    socket.setEncoding('latin1').on('data', (c: string) => (got += c));
    socket.on('close', () => resolve(got));
  });
  return { socket, answer };
}

test('connections accepted before the hub takes the port wait unread and are served in the order they came once it does; one whose client left meanwhile harms nothing', async () => {
  const held = await holdPort(0, '127.0.0.1');
  const seen: string[] = [];
  const server = hubServer(serverLimits(), (req, res) => {
    seen.push(req.url ?? '');
    res.setHeader('Connection', 'close');
    res.end(req.url);
  });
  try {
    const waiting = accepted(held.listener, 4);
    const ask = (p: string) => `GET ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
    const a = exchange(held.port(), ask('/a'));
    const gone = exchange(held.port(), ask('/gone'));
    const b = exchange(held.port(), ask('/b1') + ask('/b2'));
    const c = exchange(held.port(), ask('/c').slice(0, 10));
    await waiting;
    gone.socket.destroy();
    await gone.answer;
    held.take(server);
    c.socket.end(ask('/c').slice(10));
    const [ra, rb, rc] = await Promise.all([a.answer, b.answer, c.answer]);
    assert.match(ra, /^HTTP\/1\.1 200 [^]*\/a$/);
    assert.match(rb, /^HTTP\/1\.1 200 [^]*\/b1$/, 'the first of a pipelined pair answered (Connection: close ends the rest)');
    assert.match(rc, /^HTTP\/1\.1 200 [^]*\/c$/);
    // What a client sent before it left is served, as by a server that had read it at once; its answer goes nowhere.
    assert.deepEqual(seen, ['/a', '/gone', '/b1', '/b2', '/c'], 'served in the order the connections came');
  } finally {
    server.closeAllConnections();
    held.close();
    server.close();
  }
});

test('closing a held port before the hub takes it ends the connections that wait', async () => {
  const held = await holdPort(0, '127.0.0.1');
  const waiting = accepted(held.listener, 2);
  const conns = [exchange(held.port(), 'GET / HTTP/1.1\r\n'), exchange(held.port(), '')];
  await waiting;
  held.close();
  assert.deepEqual(await Promise.all(conns.map((c) => c.answer)), ['', '']);
});
