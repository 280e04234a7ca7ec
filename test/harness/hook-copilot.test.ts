// GitHub Copilot CLI's HTTP hooks at the hub's doors POST /hook/copilot/<event> (src/main/mcp/hook-door.ts,
// src/shared/agents/harnesses/copilot-wire.ts): a real `perch serve`, Copilot's own hook inputs (test/fixtures/copilot-hooks.ts)
// posted as its HTTP hooks post them, the owner deciding and pausing through the owner API. Protocol level; the real
// Copilot CLI runs against the same doors in test/real/real-copilot.test.ts.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { addAgent, cliAsync, eventually, ownerOk, rawPost, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import {
  copilotAgentStop,
  copilotNotification,
  copilotPermissionBash,
  copilotPermissionMcp,
  copilotPreToolUseBash,
  copilotPreToolUseMcp,
  copilotSessionEnd,
  copilotSessionStart,
} from '../fixtures/copilot-hooks';

const served = useSharedServe();
const newAgent = (base: string): Promise<AgentKey> => addAgent(served.dataDir, uniqueName(base));
const door = (event: string, a: AgentKey, q = '') =>
  `${served.mcpUrl.replace(/\/mcp$/, '')}/hook/copilot/${event}?agent=${encodeURIComponent(a.name)}${q}`;
const mine = async (a: AgentKey) => (await ownerOk(served, 'requests.list', {})).requests.filter((x: any) => x.requester?.id === a.id);

async function pendingOf(a: AgentKey): Promise<any> {
  let found: any;
  await eventually(
    async () => {
      const { requests } = await ownerOk(served, 'requests.list', { state: 'pending' });
      found = requests.find((r: any) => r.requester?.id === a.id);
      return !!found;
    },
    15_000,
    `a pending request from ${a.name}`,
  );
  return found;
}

async function agentView(a: AgentKey): Promise<any> {
  const { agents } = await ownerOk(served, 'agents.list', {});
  return agents.find((x: any) => x.id === a.id);
}

describe('GitHub Copilot CLI permissionRequest → the owner inbox and standing rules', () => {
  test('a shell command becomes a card (harness copilot, tool bash, the command); approve answers {"behavior":"allow"}', async () => {
    const a = await newAgent('copilot-allow');
    const answer = rawPost(door('permission-request', a), a.key, copilotPermissionBash);
    const req = await pendingOf(a);
    assert.equal(req.kind, 'approve');
    assert.equal(req.title, 'Allow bash: npm test?');
    assert.equal(req.context.source, 'permission_prompt');
    assert.equal(req.context.harness, 'copilot');
    assert.equal(req.context.session_id, copilotPermissionBash.sessionId);
    assert.equal(req.context.cwd, '/home/user/my-project');
    assert.deepEqual(req.context.tool_input, { command: 'npm test' });
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
    const r = await answer;
    assert.equal(r.status, 200, r.text);
    assert.equal(r.text, '{"behavior":"allow"}');
    // The flight recorder keeps Perch's decision on the prompt (kind perch_decision, harness copilot).
    const out = await cliAsync(['ledger', 'export', '--since', '2000-01-01', '--agent', a.name, '--data-dir', served.dataDir]);
    assert.equal(out.code, 0, out.stderr);
    const rows = out.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const mine = rows.find((x: any) => x.kind === 'perch_decision');
    assert.equal(mine?.harness, 'copilot', out.stdout);
    assert.equal(mine.tool, 'bash');
    assert.deepEqual(mine.detail.perch, { decision: 'allow', by: 'owner', on: { via: 'laptop' }, request_id: req.request_id });
  });

  test('reject with a comment answers {"behavior":"deny","message":…} with the owner\'s words', async () => {
    const a = await newAgent('copilot-deny');
    const answer = rawPost(door('permission-request', a), a.key, copilotPermissionBash);
    const req = await pendingOf(a);
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'reject', comment: 'not now' });
    const r = await answer;
    assert.equal(r.text, JSON.stringify({ behavior: 'deny', message: 'Denied by the owner in Perch: not now' }));
  });

  test("no decision within ?timeout: {} (Copilot's own permission flow decides), the reason in the note header, the card withdrawn", async () => {
    const a = await newAgent('copilot-timeout');
    const r = await rawPost(door('permission-request', a, '&timeout=1'), a.key, copilotPermissionBash);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.text, '{}');
    assert.match(decodeURIComponent(r.headers.get('perch-hook-note') ?? ''), /no decision within 1 s/);
    assert.deepEqual(
      (await mine(a)).map((x: any) => x.state),
      ['cancelled'],
    );
  });

  test("a standing rule decides at once, as for Claude Code's prompts: allow for npm test, deny for rm", async () => {
    const a = await newAgent('copilot-rules');
    await ownerOk(served, 'rules.add', { agent: a.name, tool: 'bash', command_prefix: 'npm test', behavior: 'allow' });
    await ownerOk(served, 'rules.add', { agent: a.name, tool: 'bash', command_prefix: 'rm', behavior: 'deny' });
    const allow = await rawPost(door('permission-request', a), a.key, copilotPermissionBash);
    assert.equal(allow.text, '{"behavior":"allow"}');
    const deny = await rawPost(door('permission-request', a), a.key, { ...copilotPermissionBash, toolInput: { command: 'rm -rf build' } });
    assert.equal(JSON.parse(deny.text).behavior, 'deny');
    assert.equal((await mine(a)).filter((x: any) => x.state === 'pending').length, 0);
  });

  test("the agent's own Perch tools (perch-NAME/<tool>) are allowed at once with nothing filed, as Claude Code's mcp__perch-NAME rule does; another server's tool of the same name is the owner's", async () => {
    const a = await newAgent('copilot-own');
    for (const tool of ['whoami', 'send_message']) {
      const r = await rawPost(door('permission-request', a), a.key, copilotPermissionMcp(`perch-${a.name}`, tool));
      assert.equal(r.text, '{"behavior":"allow"}', tool);
    }
    assert.equal((await mine(a)).length, 0, 'nothing filed');
    for (const server of ['github', `perch-${a.name}-evil`, `perch-${a.name}/x`]) {
      const r = await rawPost(door('permission-request', a, '&timeout=1'), a.key, copilotPermissionMcp(server, 'whoami'));
      assert.equal(r.text, '{}', `${server}/whoami waited for the owner`);
    }
    assert.equal((await mine(a)).length, 3, "each other server's prompt was filed");
  });

  test('a body that is not a permissionRequest (a preToolUse input, no toolName, not JSON): 400 with one line, nothing filed', async () => {
    const a = await newAgent('copilot-bad');
    const cases: Array<[unknown, RegExp]> = [
      [{ ...copilotPermissionBash, hookName: 'preToolUse' }, /"preToolUse" hook input, not permissionRequest/],
      [{ ...copilotPermissionBash, toolName: undefined }, /has no toolName/],
      ['{not json', /not JSON/],
    ];
    for (const [body, why] of cases) {
      const r = await rawPost(door('permission-request', a), a.key, body as any);
      assert.equal(r.status, 400, r.text);
      assert.match(r.json.error.message, why);
    }
    assert.equal((await mine(a)).length, 0);
  });
});

describe('GitHub Copilot CLI preToolUse and the status events', () => {
  test("paused: a shell call is denied with permissionDecision deny and Perch's reason, its own Perch whoami / get_updates are not, the prompt is denied; resumed, nothing is blocked", async () => {
    const a = await newAgent('copilot-paused');
    await ownerOk(served, 'agents.pause', { agent: a.id, reason: 'lunch break' });
    const r = await rawPost(door('pre-tool-use', a), a.key, copilotPreToolUseBash);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(JSON.parse(r.text), {
      permissionDecision: 'deny',
      permissionDecisionReason:
        "Paused in Perch (the owner paused this agent: lunch break). Do not run tools; stop and wait for the owner to resume this agent (Perch's get_updates with wait_secs returns agent.resumed).",
    });
    for (const tool of ['whoami', 'get_updates']) {
      const own = await rawPost(door('pre-tool-use', a), a.key, copilotPreToolUseMcp(`perch-${a.name}`, tool));
      assert.equal(own.text, '{}', `perch-${a.name}-${tool}`);
    }
    const other = await rawPost(door('pre-tool-use', a), a.key, copilotPreToolUseMcp('github', 'whoami'));
    assert.equal(JSON.parse(other.text).permissionDecision, 'deny', "another server's whoami is no way to wait");
    const prompt = await rawPost(door('permission-request', a), a.key, copilotPermissionBash);
    assert.deepEqual(JSON.parse(prompt.text), { behavior: 'deny', message: 'Paused in Perch by the owner: lunch break' });
    const ownPrompt = await rawPost(door('permission-request', a), a.key, copilotPermissionMcp(`perch-${a.name}`, 'get_updates'));
    assert.equal(ownPrompt.text, '{"behavior":"allow"}', 'its own get_updates is how it waits');
    await ownerOk(served, 'agents.resume', { agent: a.id });
    assert.equal((await rawPost(door('pre-tool-use', a), a.key, copilotPreToolUseBash)).text, '{}');
  });

  test('sessionStart, notification, agentStop, sessionEnd and a tool call become the live status and the feed ("GitHub Copilot CLI: …")', async () => {
    const a = await newAgent('copilot-status');
    const steps: Array<[string, unknown, string, string]> = [
      ['session-start', copilotSessionStart, 'started', 'GitHub Copilot CLI: session started in /home/user/my-project'],
      ['notification', copilotNotification, 'waiting', 'GitHub Copilot CLI: waiting for you — Run command: npm test'],
      ['pre-tool-use', copilotPreToolUseBash, 'working', 'GitHub Copilot CLI: bash — npm test'],
      ['stop', copilotAgentStop, 'turn_ended', 'GitHub Copilot CLI: turn ended'],
      ['session-end', copilotSessionEnd, 'ended', 'GitHub Copilot CLI: session ended in /home/user/my-project'],
    ];
    for (const [event, input, state, line] of steps) {
      const r = await rawPost(door(event, a), a.key, input as Record<string, unknown>);
      assert.equal(r.status, 200, `${event}: ${r.text}`);
      assert.equal(r.text, '{}', event);
      const v = await agentView(a);
      assert.equal(v.harness.state, state, event);
      assert.equal(v.harness.harness, 'copilot', event);
      assert.equal(v.harness.session_id, copilotSessionStart.sessionId, event);
      assert.equal(v.harness.cwd, '/home/user/my-project', event);
      const { progress } = await ownerOk(served, 'progress.list', { agent_id: a.id, limit: 1 });
      assert.equal(progress[0].text, line, event);
    }
  });

  test("an input posted to another event's door is refused with one line (400), and nothing is noted", async () => {
    const a = await newAgent('copilot-wrong-door');
    const r = await rawPost(door('notification', a), a.key, { ...copilotPermissionBash });
    assert.equal(r.status, 400, r.text);
    assert.match(r.json.error.message, /"permissionRequest" hook input, not notification/);
    assert.equal((await agentView(a)).harness, null);
  });
});
