// Baseline 2: the MCP SDK's own stateless example server (@modelcontextprotocol/sdk 1.x,
// examples/server/simpleStatelessStreamableHttp): an Express app from createMcpExpressApp, a new
// McpServer + StreamableHTTPServerTransport per request (sessionIdGenerator undefined,
// enableJsonResponse true), answering an `echo` tool with a zod input schema.
// The example's per-request console.log is left out so the baseline is as fast as it can be.
// Prints one JSON line {port} when listening; exits on SIGTERM.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import * as z from 'zod/v4';

function getServer() {
  const server = new McpServer({ name: 'stateless-echo', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool(
    'echo',
    {
      description: 'Echoes its arguments back',
      inputSchema: { conv_id: z.string(), text: z.string(), to: z.array(z.string()).optional() },
    },
    async (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }], structuredContent: args }),
  );
  return server;
}

const app = createMcpExpressApp();
app.post('/mcp', async (req, res) => {
  const server = getServer();
  try {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
    res.on('close', () => {
      transport.close();
      server.close();
    });
  } catch (error) {
    if (!res.headersSent) {
      res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
    }
  }
});

const httpServer = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: httpServer.address().port })}\n`);
});
httpServer.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
