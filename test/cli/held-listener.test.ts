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
