// What the `perch channel` tests share (test/harness/channel*.test.ts): one shared `perch serve` per test file, a
// session of the official MCP SDK client over `node bin/perch.js channel` on stdio (as Claude Code starts it), and the
// steps they repeat (agents, direct messages, the prompts filed).
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, ROOT, addAgent, ensureBuilt, eventually, ownerOk, rawCall, uniqueName, useSharedServe, type AgentKey } from './serve-harness';

/** How many of its backlog a new session is pushed (src/main/cli/channel/channel-events.ts BACKLOG_PUSH_MAX). */
export const BACKLOG_PUSH_MAX = 10;

export const served = useSharedServe();

export interface Notice {
  method: string;
  params: any;
  at: number;
}

export interface Session {
  client: Client;
  notices: Notice[];
  stderr: () => string;
  close: () => Promise<void>;
}

export function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('PERCH_KEY') && k !== 'PERCH_URL') env[k] = v;
  return { ...env, ...extra };
}

/** Claude Code's side: spawns the channel with the agent's key in its environment and initializes. */
export async function openSession(agent: AgentKey, args: string[] = []): Promise<Session> {
  ensureBuilt();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'channel', ...args],
    cwd: ROOT,
    env: cleanEnv({ PERCH_URL: served.mcpUrl, PERCH_KEY: agent.key }),
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const client = new Client({ name: 'claude-code-stand-in', version: '0.0.0' });
  const notices: Notice[] = [];
  client.fallbackNotificationHandler = async (n) => void notices.push({ method: n.method, params: n.params, at: Date.now() });
  await client.connect(transport);
  return { client, notices, stderr: () => err, close: () => client.close() };
}

export async function tool(agent: AgentKey, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await rawCall(served.mcpUrl, agent.key, name, args);
  assert.ok(!r.isError, `${name}: ${JSON.stringify(r.structuredContent)}`);
  return r.structuredContent;
}

export async function newAgent(base: string): Promise<AgentKey> {
  return addAgent(served.dataDir, uniqueName(base));
}

/** B sends A a direct message (the other member of a direct conversation is woken); its msg_id and conv_id. */
export async function dm(from: AgentKey, to: AgentKey, text: string): Promise<{ conv_id: string; msg_id: string }> {
  const d = await tool(from, 'open_direct', { user: to.name });
  const sent = await tool(from, 'send_message', { conv_id: d.conversation.conv_id, text });
  return { conv_id: d.conversation.conv_id, msg_id: sent.msg_id };
}

export function channelNotices(s: Session): Notice[] {
  return s.notices.filter((n) => n.method === 'notifications/claude/channel');
}

export async function pendingPromptOf(agent: AgentKey): Promise<any> {
  let found: any;
  await eventually(
    async () => {
      const { requests } = await ownerOk(served, 'requests.list', { state: 'pending' });
      found = requests.find((r: any) => r.requester?.id === agent.id);
      return !!found;
    },
    15_000,
    `a pending prompt of ${agent.name}`,
  );
  return found;
}

export async function requestState(id: string): Promise<string> {
  const { requests } = await ownerOk(served, 'requests.list', {});
  return requests.find((r: any) => r.request_id === id)?.state;
}

export const bashPrompt = (request_id: string, command = 'npm test') => ({
  method: 'notifications/claude/channel/permission_request',
  params: {
    request_id,
    tool_name: 'Bash',
    description: 'Run the tests',
    input_preview: JSON.stringify({ command, description: 'Run the tests' }),
  },
});
