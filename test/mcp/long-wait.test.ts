// The longest wait the contract accepts (wait_secs: 60) answers before an MCP client's usual 60 s call timeout:
// Claude Code and the official SDKs give up on a call after 60 s, so a wait that lasted the full 60 s ended in
// their "timed out" error instead of an answer. Driven by the OFFICIAL MCP client with its default call timeout
// (no timeout option given) against a real `perch serve`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { addAgent, ownerOk, uniqueName, useSharedServe, type ToolResult } from '../support/serve-harness';

const served = useSharedServe();

/** An official v1 client as a new agent, left at the SDK's default request timeout (60 s, as Claude Code). */
async function plainClient(base: string): Promise<Client> {
  const a = await addAgent(served.dataDir, uniqueName(base));
  const client = new Client({ name: 'perch-long-wait', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(served.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${a.key}` } } }),
  );
  return client;
}

async function timedCall(client: Client, name: string, args: Record<string, unknown>): Promise<{ r: ToolResult; secs: number }> {
  const started = performance.now();
  const r = (await client.callTool({ name, arguments: args })) as ToolResult;
  return { r, secs: (performance.now() - started) / 1000 };
}

test(
  "get_updates and get_request with wait_secs: 60 answer with nothing new before a client's 60 s call timeout",
  { timeout: 120_000 },
  async () => {
    const reader = await plainClient('waiter');
    const asker = await plainClient('asker');
    try {
      const ownerName = (await ownerOk(served, 'hub.info')).owner.name as string;
      // Nothing left to read for the reader; a pending request for the asker.
      for (
        let i = 0;
        i < 20 &&
        ((await reader.callTool({ name: 'get_updates', arguments: {} })).structuredContent as { events: unknown[] }).events.length > 0;
        i++
      );
      const conv = (
        (await asker.callTool({ name: 'open_direct', arguments: { user: ownerName } })).structuredContent as {
          conversation: { conv_id: string };
        }
      ).conversation.conv_id;
      const req = (await asker.callTool({ name: 'request_human', arguments: { conv_id: conv, kind: 'approve', title: 'Ship it?' } }))
        .structuredContent as { request_id: string };
      assert.equal(typeof req.request_id, 'string', 'request_human answered a request_id');

      // Both waits at once (so the test takes one wait, not two), each with the SDK's default timeout.
      const [updates, request] = await Promise.all([
        timedCall(reader, 'get_updates', { wait_secs: 60 }),
        timedCall(asker, 'get_request', { request_id: req.request_id, wait_secs: 60 }),
      ]);

      assert.ok(!updates.r.isError, `get_updates(wait_secs: 60) answered an error: ${JSON.stringify(updates.r.content)}`);
      assert.deepEqual(updates.r.structuredContent?.events, [], 'get_updates answered with nothing new');
      assert.ok(
        updates.secs < 57,
        `get_updates(wait_secs: 60) answered after ${updates.secs.toFixed(1)} s, not before a client's 60 s timeout`,
      );

      assert.ok(!request.r.isError, `get_request(wait_secs: 60) answered an error: ${JSON.stringify(request.r.content)}`);
      assert.equal(request.r.structuredContent?.state, 'pending', 'get_request answered the request still pending');
      assert.ok(
        request.secs < 57,
        `get_request(wait_secs: 60) answered after ${request.secs.toFixed(1)} s, not before a client's 60 s timeout`,
      );
    } finally {
      await reader.close().catch(() => {});
      await asker.close().catch(() => {});
    }
  },
);

test('the agent guide and the server instructions say which wait to use (wait_secs: 50, answered within 50 s)', async () => {
  const client = await plainClient('reader');
  try {
    assert.match(client.getInstructions() ?? '', /wait_secs \(50; a wait answers within 50 s\)/, 'the instructions name the wait to use');
    const guide = (await client.readResource({ uri: 'perch://guide' })).contents[0] as { text?: string };
    assert.match(guide.text ?? '', /`get_updates` with `wait_secs: 50`/, 'the guide names the wait to use');
    assert.match(guide.text ?? '', /after at most 50 s \(even if you ask for up to 60\)/, 'the guide says a longer wait answers early');
  } finally {
    await client.close().catch(() => {});
  }
});
