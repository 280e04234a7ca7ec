// Baseline 1: the floor of this machine. A raw node:http JSON-RPC server that answers every
// tools/call with an MCP-shaped echo result. No framework, no validation beyond JSON.parse.
// Prints one JSON line {port} when listening; exits on SIGTERM.
import http from 'node:http';

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let msg;
    try {
      msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400, { 'Content-Type': 'application/json' });
      res.end('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
      return;
    }
    const args = msg?.params?.arguments ?? {};
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: msg?.id ?? null,
      result: { content: [{ type: 'text', text: JSON.stringify(args) }], structuredContent: args },
    });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
