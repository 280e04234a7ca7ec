// The Claude Desktop path end to end: Claude Desktop speaks MCP over stdio only, and reaches Perch through
// mcp-remote (the pinned release the Agents page's snippet names, fetched from npm by npx) bridging stdio to the
// hub's HTTP endpoint with the agent's key in a header taken from the environment, exactly as the snippet
// configures it. The official MCP client drives the stdio side: initialize, tools/list (37 tools), whoami.
// Everything stays on 127.0.0.1; mcp-remote keeps its state in a temporary directory and never needs OAuth.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { addAgent, uniqueName, useSharedServe } from '../support/serve-harness';
import { MCP_REMOTE_VERSION, connectionSnippets } from '../../src/main/owner/snippets';
import { keyEnvVar } from '../../src/shared/agents/snippets';
import { HAS_PROC, allCmdlines, argvHolding, environVar } from '../support/argv-scan';

const served = useSharedServe();

test(
  `Claude Desktop's snippet works: mcp-remote@${MCP_REMOTE_VERSION} bridges stdio to the hub; initialize, tools/list (37 tools) and whoami succeed, with the key in no process's argv`,
  { timeout: 240_000 },
  async () => {
    const agent = await addAgent(served.dataDir, uniqueName('desktop'));
    // The snippet the owner copies, parsed: its command, args and env are what Claude Desktop would run.
    const snippet = JSON.parse(connectionSnippets(served.mcpUrl, agent.name, agent.key).claude_desktop!) as {
      mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
    };
    const server = snippet.mcpServers[`perch-${agent.name}`]!;
    assert.equal(server.command, 'npx');
    assert.ok(server.args.includes(`mcp-remote@${MCP_REMOTE_VERSION}`), 'the snippet pins the mcp-remote release');
    assert.ok(!server.args.join(' ').includes(agent.key), 'the key is not in the process arguments');
    // Claude Desktop reads no shell environment: the snippet holds the variable as a placeholder in its env block, and
    // the owner pastes the key there (the export line beside the one-time key says which).
    const placeholder = `\${${keyEnvVar(agent.name)}}`;
    assert.equal(server.env.PERCH_AUTH, `Bearer ${placeholder}`, 'the snippet holds no key, only the placeholder for it');
    const env = { ...server.env, PERCH_AUTH: server.env.PERCH_AUTH!.replace(placeholder, agent.key) };

    const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-mcp-remote-'));
    const transport = new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: {
        ...(process.env as Record<string, string>),
        ...env,
        MCP_REMOTE_CONFIG_DIR: configDir, // mcp-remote's state (it would keep OAuth tokens there) stays in the temp dir
        NO_PROXY: '127.0.0.1,localhost',
        BROWSER: 'true', // should it ever try to open a browser, it opens none
      },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (b: Buffer) => {
      stderr += b.toString();
    });
    const client = new Client({ name: 'claude-desktop-like', version: '1.0.0' });
    try {
      await client.connect(transport, { timeout: 180_000 }).catch((err: unknown) => {
        throw new Error(`initialize through mcp-remote failed: ${String(err)}\nmcp-remote stderr:\n${stderr.slice(-3000)}`);
      });
      assert.equal(client.getServerVersion()?.name, 'perch', 'initialize reached the Perch hub');
      assert.match(client.getInstructions() ?? '', /Perch/);

      const { tools } = await client.listTools();
      assert.equal(tools.length, 37, 'tools/list through the bridge lists the 37 tools');
      assert.equal(tools[0]!.name, 'whoami');

      const r = (await client.callTool({ name: 'whoami', arguments: {} })) as {
        structuredContent?: Record<string, any>;
        content: Array<{ text?: string }>;
        isError?: boolean;
      };
      assert.ok(!r.isError, `whoami failed: ${JSON.stringify(r)}`);
      const me = r.structuredContent ?? JSON.parse(r.content[0]!.text!);
      assert.equal(me.agent.name, agent.name, 'whoami answers as the agent whose key the snippet carries');
      assert.equal(me.agent.id, agent.id);

      // While the bridge runs, its argv holds the header with ${PERCH_AUTH} unexpanded (mcp-remote expands it from its
      // environment) and no process's argv holds the key: /proc/PID/cmdline is readable by every local user.
      if (HAS_PROC) {
        const bridge = [...allCmdlines()].filter(([, a]) => a.includes('mcp-remote') && a.includes(`Authorization:\${PERCH_AUTH}`));
        assert.ok(bridge.length > 0, 'mcp-remote is running with the header as a reference');
        assert.ok(
          bridge.some(([pid]) => environVar(pid, 'PERCH_AUTH') === `Bearer ${agent.key}`),
          'the key reached mcp-remote through its environment',
        );
        const found = argvHolding([agent.key]);
        assert.deepEqual(found, [], `processes with the key in their argv:\n${found.join('\n')}`);
      }
    } finally {
      await client.close().catch(() => {});
      fs.rmSync(configDir, { recursive: true, force: true });
    }
  },
);
