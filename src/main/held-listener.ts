// The hub's main port bound before the hub exists (`perch serve`'s ready line comes first: cli/serve-front.ts): a plain
// TCP listener whose connections wait unread, in order, until the hub's HTTP server takes them (app.ts startHub), and
// every later one with them. Only node:net here: node:http is the hub's to load, after the ready line.
import net from 'node:net';

export interface HeldListener {
  /** The bound listener. */
  listener: net.Server;
  /** Its port. */
  port(): number;
  /** From now on connections go to server (an HTTP server that does not listen itself); those that came before first. */
  take(server: net.Server): void;
  /** Stops listening and ends the connections still held. */
  close(): void;
}

/** A listener on address:port whose connections are held until take(). Rejects as listen does (EADDRINUSE …). */
export async function holdPort(port: number, address: string): Promise<HeldListener> {
  const waiting: net.Socket[] = [];
  let target: net.Server | undefined;
  // pauseOnConnect: nothing of a held connection is read until its server has it. noDelay: Nagle's algorithm off, as
  // node:http's own server sets it on what it accepts (an answer written in pieces is not held back).
  const listener = net.createServer({ pauseOnConnect: true, noDelay: true }, (socket) => {
    if (target) return handTo(target, socket);
    socket.on('error', () => undefined);
    waiting.push(socket);
  });
  await listenOn(listener, port, address);
  return {
    listener,
    port: () => (listener.address() as net.AddressInfo).port,
    take(server) {
      target = server;
      // node:http tracks its connections (the header and request timeouts, closeAllConnections) from its 'listening'
      // event on: this server listens through the held listener.
      server.emit('listening');
      for (const socket of waiting.splice(0)) handTo(server, socket);
    },
    close() {
      listener.close();
      for (const socket of waiting.splice(0)) socket.destroy();
    },
  };
}

function handTo(server: net.Server, socket: net.Socket): void {
  if (socket.destroyed) return;
  server.emit('connection', socket);
  socket.resume();
}

/** Listens on address:port; resolves when listening. */
export function listenOn(server: net.Server, port: number, address: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
