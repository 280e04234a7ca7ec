// OpenCode's doors, POST /hook/opencode/<event> (src/main/mcp/hook-door/opencode.ts, harness-door.ts), driven by the
// very plugin file `perch connect opencode NAME --write` writes, imported in Node and called as OpenCode 1.18.33 calls
// its hooks (the inputs below are those the real OpenCode passed: test/real/real-opencode.test.ts), against a real
// `perch serve`: a paused agent's bash call throws Perch's reason while its own whoami runs; a standing deny rule's
// command throws; session events are its live status; a tool result is in the ledger; each model call's tokens are
// in the cost ledger; a permission.asked is a card
// whose decision the plugin replies through the client OpenCode hands it; with the hub gone it fails open, saying so once.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { addAgent, cliAsync, eventually, ownerOk, rawPost, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { pendingRequestOf } from '../support/hook-runner';
import { keyEnvVar } from '../../src/shared/agents/snippets';
import { SHIPPED_PRICES } from '../../src/shared/ledger/prices';

const served = useSharedServe();
const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

type Hooks = {
  'tool.execute.before': (input: unknown, output: unknown) => Promise<void>;
  'tool.execute.after': (input: unknown, output: unknown) => Promise<void>;
  event: (e: { event: unknown }) => Promise<void>;
};

/** The replies the plugin gives through OpenCode's SDK client (a recording stand-in for the client OpenCode hands its plugins). */
const replies: unknown[] = [];
const client = {
  postSessionIdPermissionsPermissionId: async (o: unknown) => {
    replies.push(o);
    return {};
  },
};

/** perch connect opencode NAME --write into a fresh HOME; the written plugin imported, its key in this process's environment. */
async function pluginOf(a: AgentKey, cwd: string, edit?: (text: string) => string): Promise<Hooks> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-oc-plugin-'));
  dirs.push(home);
  const r = await cliAsync(['connect', 'opencode', a.name, '--write', '--data-dir', served.dataDir], { env: { HOME: home } });
  assert.equal(r.code, 0, r.stderr);
  const text = fs.readFileSync(path.join(home, '.config', 'opencode', 'plugin', 'perch.js'), 'utf8');
  const file = path.join(home, 'perch.mjs');
  fs.writeFileSync(file, edit ? edit(text) : text);
  process.env[keyEnvVar(a.name)] = a.key;
  const mod = await import(pathToFileURL(file).href);
  return mod.PerchPlugin({ client, directory: cwd, worktree: '/', project: {}, $: undefined });
}

const bash = (command: string) => [
  { tool: 'bash', sessionID: 'ses_test1', callID: 'call_bash' },
  { args: { command, description: 'Write the marker' } },
];

async function agentView(a: AgentKey): Promise<any> {
  const { agents } = await ownerOk(served, 'agents.list', {});
  return agents.find((x: any) => x.id === a.id);
}

describe('the plugin perch connect opencode writes, run in Node against a real hub', () => {
  test("paused: a bash call throws Perch's reason; the agent's own whoami goes on", async () => {
    const a = await addAgent(served.dataDir, uniqueName('oc-hook'));
    const p = await pluginOf(a, '/tmp/project');
    await ownerOk(served, 'agents.pause', { agent: a.id, reason: 'budget review' });
    await assert.rejects(
      p['tool.execute.before'](...(bash('touch m') as [unknown, unknown])),
      /Paused in Perch \(the owner paused this agent: budget review\)/,
    );
    await p['tool.execute.before']({ tool: `perch-${a.name}_whoami`, sessionID: 'ses_test1', callID: 'call_w' }, { args: {} });
    await p['tool.execute.before']({ tool: `perch-${a.name}x_whoami`, sessionID: 'ses_test1', callID: 'call_w' }, { args: {} }).then(
      () => assert.fail("another server's whoami is not exempt"),
      (e: Error) => assert.match(e.message, /Paused in Perch/),
    );
  });

  test("a command the owner's standing rule denies throws the rule; another command goes on", async () => {
    const a = await addAgent(served.dataDir, uniqueName('oc-hook'));
    const p = await pluginOf(a, '/tmp/project');
    const { rule } = await ownerOk(served, 'rules.add', { agent: a.name, tool: 'bash', command_prefix: 'rm', behavior: 'deny' });
    await assert.rejects(
      p['tool.execute.before'](...(bash('cd /tmp && rm -rf build') as [unknown, unknown])),
      new RegExp(`Denied by the owner in Perch: standing rule ${rule.rule_id}`),
    );
    await p['tool.execute.before'](...(bash('ls -la') as [unknown, unknown]));
  });

  test('session events are its live status, and a tool result is in the ledger', async () => {
    const a = await addAgent(served.dataDir, uniqueName('oc-hook'));
    const p = await pluginOf(a, '/tmp/project-oc');
    await p.event({ event: { type: 'session.created', properties: { sessionID: 'ses_s1', info: { id: 'ses_s1' } } } });
    assert.deepEqual((({ state, harness, session_id, cwd }) => ({ state, harness, session_id, cwd }))((await agentView(a)).harness), {
      state: 'started',
      harness: 'opencode',
      session_id: 'ses_s1',
      cwd: '/tmp/project-oc',
    });
    await p['tool.execute.before']({ tool: 'bash', sessionID: 'ses_s1', callID: 'call_1' }, { args: { command: 'npm test' } });
    assert.equal((await agentView(a)).harness.state, 'working');
    await p['tool.execute.after'](
      { tool: 'bash', sessionID: 'ses_s1', callID: 'call_1', args: { command: 'npm test' } },
      { title: 'npm test', output: '2 passing', metadata: { output: '2 passing', exit: 0, truncated: false } },
    );
    await p.event({ event: { type: 'session.idle', properties: { sessionID: 'ses_s1' } } });
    assert.equal((await agentView(a)).harness.state, 'turn_ended');
    const { calls } = await ownerOk(served, 'ledger.calls', { agent: a.name });
    const call = calls.find((c: any) => c.tool === 'bash');
    assert.ok(call, JSON.stringify(calls));
    assert.equal(call.harness, 'opencode');
  });

  test("a permission.asked is a card; the owner's approve is the plugin's reply 'once' to OpenCode's prompt", async () => {
    const a = await addAgent(served.dataDir, uniqueName('oc-hook'));
    const p = await pluginOf(a, '/tmp/project-ask');
    replies.length = 0;
    const asked = {
      id: 'per_1',
      sessionID: 'ses_a1',
      permission: 'bash',
      patterns: ['touch marker.txt'],
      metadata: { command: 'touch marker.txt' },
      always: ['touch *'],
      tool: { messageID: 'msg_1', callID: 'call_bash' },
    };
    await p.event({ event: { type: 'permission.asked', properties: asked } });
    const req = await pendingRequestOf(served, a);
    assert.equal(req.title, 'Allow bash: touch marker.txt?');
    assert.equal(req.context.harness, 'opencode');
    assert.equal((await agentView(a)).harness.state, 'waiting', 'OpenCode waits for its user');
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
    await eventually(() => replies.length === 1, 10_000, 'the plugin replied');
    assert.deepEqual(replies, [{ path: { id: 'ses_a1', permissionID: 'per_1' }, body: { response: 'once' } }]);
  });

  test("OpenCode's own dialog answers first (permission.replied): the card is withdrawn and the plugin replies nothing", async () => {
    const a = await addAgent(served.dataDir, uniqueName('oc-hook'));
    const p = await pluginOf(a, '/tmp/project-ask2');
    replies.length = 0;
    const asked = {
      id: 'per_2',
      sessionID: 'ses_a2',
      permission: 'bash',
      patterns: ['ls'],
      metadata: { command: 'ls' },
      tool: { callID: 'c' },
    };
    await p.event({ event: { type: 'permission.asked', properties: asked } });
    const req = await pendingRequestOf(served, a);
    await p.event({ event: { type: 'permission.replied', properties: { sessionID: 'ses_a2', requestID: 'per_2', reply: 'reject' } } });
    await eventually(
      async () =>
        (await ownerOk(served, 'requests.list', {})).requests.find((r: any) => r.request_id === req.request_id)?.state === 'cancelled',
      10_000,
      'the card withdrawn',
    );
    assert.deepEqual(replies, []);
  });

  test('the hub unreachable: every hook goes on (fail open) and the plugin says so once', async () => {
    const a = await addAgent(served.dataDir, uniqueName('oc-hook'));
    const said: string[] = [];
    const was = console.error;
    console.error = (...m: unknown[]) => void said.push(m.join(' '));
    try {
      // The door at a port nothing listens on (port 9 of this computer: discard, closed here).
      const p = await pluginOf(a, '/tmp/p', (t) => t.replace(/^const DOOR = ".*";$/m, 'const DOOR = "http://127.0.0.1:9/hook/opencode/";'));
      await p['tool.execute.before'](...(bash('touch m') as [unknown, unknown]));
      await p['tool.execute.before'](...(bash('touch n') as [unknown, unknown]));
      await p.event({ event: { type: 'session.idle', properties: { sessionID: 's' } } });
    } finally {
      console.error = was;
    }
    assert.equal(said.length, 1, said.join('\n'));
    assert.match(said[0]!, /^perch: the Perch hub did not answer .*; OpenCode goes on without Perch/);
  });

  test("each model call (a step-finish) is an API request in the cost ledger, once, its model from its assistant message: OpenCode's own cost kept, or its tokens priced by the table; a wrongly typed report stores nothing", async () => {
    const a = await addAgent(served.dataDir, uniqueName('oc-usage'));
    const p = await pluginOf(a, '/tmp/project-usage');
    // As OpenCode 1.18.33 sends them: the assistant message (its model), then its step-finish part (the call's tokens:
    // input without the cached, output without the reasoning tokens), with OpenCode's cost (0: it knows no price).
    const message = (id: string, modelID: string) => ({
      type: 'message.updated',
      properties: { info: { id, role: 'assistant', modelID, providerID: 'openai', sessionID: 'ses_u1', time: { created: 1 } } },
    });
    const step = (id: string, messageID: string, cost: number) => ({
      type: 'message.part.updated',
      properties: {
        sessionID: 'ses_u1',
        part: {
          id,
          messageID,
          sessionID: 'ses_u1',
          type: 'step-finish',
          reason: 'stop',
          tokens: { total: 1170, input: 600, output: 50, reasoning: 20, cache: { read: 400, write: 100 } },
          cost,
        },
        time: 2,
      },
    });
    await p.event({ event: message('msg_1', 'gpt-4.1') });
    await p.event({ event: step('prt_1', 'msg_1', 0) });
    await p.event({ event: step('prt_1', 'msg_1', 0) }); // the same part updated again
    await p.event({ event: message('msg_2', 'claude-sonnet-4-5') });
    await p.event({ event: step('prt_2', 'msg_2', 0.0123) });
    const { costs } = await ownerOk(served, 'ledger.costs', { agent: a.name });
    const by = (m: string) => costs.find((c: any) => c.model === m);
    const gpt = by('gpt-4.1');
    assert.deepEqual(
      [gpt.cost_source, gpt.requests, gpt.input_tokens, gpt.output_tokens, gpt.cache_read_tokens, gpt.cache_write_tokens],
      ['price_table', 1, 600, 70, 400, 100],
      'once, reasoning counted as output',
    );
    const pr = SHIPPED_PRICES['gpt-4.1']!;
    assert.ok(Math.abs(gpt.cost_usd - (600 * pr.input_per_mtok + 400 * pr.cached_input_per_mtok + 70 * pr.output_per_mtok) / 1e6) < 1e-12);
    assert.deepEqual([by('claude-sonnet-4-5').cost_source, by('claude-sonnet-4-5').cost_usd], ['harness', 0.0123], "OpenCode's own figure");

    const base = served.mcpUrl.replace(/\/mcp$/, '');
    const before = JSON.stringify((await ownerOk(served, 'ledger.costs', { agent: a.name })).costs);
    for (const body of [
      { session_id: 'ses_u1', step_id: 'prt_9', tokens: { input: 'lots' } },
      { session_id: 'ses_u1', step_id: 'prt_9', tokens: { input: -1 } },
      { session_id: 'ses_u1', step_id: 'prt_9', tokens: { input: 1 }, cost: 'free' },
      { session_id: 'ses_u1', tokens: { input: 1 } },
      { session_id: 'ses_u1', step_id: 'prt_9', tokens: [] },
    ]) {
      const r = await rawPost(`${base}/hook/opencode/usage?agent=${a.name}`, a.key, JSON.stringify(body));
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
    }
    assert.equal(JSON.stringify((await ownerOk(served, 'ledger.costs', { agent: a.name })).costs), before, 'nothing stored');
  });

  test("the door refuses what is not the plugin's input (400, one line), and the key is checked as on every door (401)", async () => {
    const a = await addAgent(served.dataDir, uniqueName('oc-hook'));
    await pluginOf(a, '/tmp/p7'); // connected: one agent answers for a session (the door's connections)
    const base = served.mcpUrl.replace(/\/mcp$/, '');
    const bad = await rawPost(
      `${base}/hook/opencode/tool-before?agent=${a.name}`,
      a.key,
      JSON.stringify({ cwd: '/tmp/nowhere-oc', args: {} }),
    );
    assert.equal(bad.status, 400);
    assert.match(bad.text, /the tool call has no tool/);
    const nokey = await rawPost(`${base}/hook/opencode/tool-before?agent=${a.name}`, '', JSON.stringify({ tool: 'bash', args: {} }));
    assert.equal(nokey.status, 401);
  });
});
