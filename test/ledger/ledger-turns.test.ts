// Each tool call's turn (the user prompt it belongs to) and the turn's tokens and cost, on a real `perch serve`
// (shared/ledger/harness-events.ts, copilot-spans.ts, hub/features/ledger/calls.ts addTurnUsage), per harness as it
// names its turns: Claude Code's prompt.id on every event (2.1.332 writes it on its OTLP events and as prompt_id in
// its hook inputs), GitHub Copilot CLI's trace (one per user prompt: test/fixtures/copilot-otlp.json, as 1.0.102
// sent it), Gemini CLI's prompt_id (test/fixtures/gemini-otlp.json, as 0.61.0 sent it), Cursor's generation_id in its
// hooks. Codex 0.171.0's log events name no turn: its calls' turn stays unknown (null), none is made up.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addAgent, cliAsync, ownerOk, rawPost, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { codexTurn, logRecord, logsBody } from '../support/otlp-bodies';
import { cursorAfterShell, cursorShell, CURSOR_ALLOW } from '../fixtures/cursor-hooks';
import { codexPreToolUse, claudeCodePreToolUseBash } from '../fixtures/status-hooks';
import { codexBash, claudeCodeBash } from '../fixtures/permission-request';

const served = useSharedServe();
const base = () => served.mcpUrl.replace(/\/mcp$/, '');
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'fixtures', name), 'utf8'));

async function agentWithToken(prefix: string): Promise<{ a: AgentKey; token: string }> {
  const a = await addAgent(served.dataDir, uniqueName(prefix));
  const r = await cliAsync(['ledger', 'token', a.name, '--data-dir', served.dataDir, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return { a, token: JSON.parse(r.stdout).token };
}

const calls = async (a: AgentKey) => (await ownerOk(served, 'ledger.calls', { agent: a.name })).calls as any[];
const byId = async (a: AgentKey) => Object.fromEntries((await calls(a)).map((c) => [c.call_id, c]));

async function postLogs(token: string, body: string): Promise<void> {
  const r = await rawPost(`${base()}/v1/logs`, token, body);
  assert.equal(r.status, 200, r.text);
}

/** One Claude Code call (decision and result) and its turn's API requests, each event with the turn's prompt.id. */
function claudeTurn(session: string, prompt: string, callId: string, costs: number[], t: number): string {
  const common = { 'session.id': session, 'prompt.id': prompt };
  return logsBody('claude-code', [
    logRecord('claude_code.tool_decision', { ...common, tool_name: 'Bash', tool_use_id: callId, decision: 'accept', source: 'config' }, t),
    logRecord(
      'claude_code.tool_result',
      { ...common, tool_name: 'Bash', tool_use_id: callId, success: 'true', duration_ms: { int: 5 } },
      t + 1,
    ),
    ...costs.map((cost, i) =>
      logRecord(
        'claude_code.api_request',
        {
          ...common,
          model: 'claude-sonnet-4-5',
          cost_usd: cost,
          input_tokens: { int: 1000 },
          output_tokens: { int: 100 },
          cache_read_tokens: { int: 10 },
          cache_creation_tokens: { int: 1 },
        },
        t + 2 + i,
      ),
    ),
  ]);
}

describe("each tool call's turn and the turn's tokens and cost", () => {
  test("Claude Code: a call's turn is its prompt.id; the turn's usage sums that session's API requests of that turn only", async () => {
    const { a, token } = await agentWithToken('turn-cc');
    const t = 1_760_000_000_000;
    await postLogs(token, claudeTurn('s-1', 'prompt-a', 'toolu_a', [0.25, 0.1], t));
    await postLogs(token, claudeTurn('s-1', 'prompt-b', 'toolu_b', [0.05], t + 100));
    // The same prompt id in another session is another turn.
    await postLogs(token, claudeTurn('s-2', 'prompt-a', 'toolu_c', [1], t + 200));
    const c = await byId(a);
    assert.equal(c.toolu_a.turn, 'prompt-a');
    assert.deepEqual(c.toolu_a.turn_usage, {
      requests: 2,
      input_tokens: 2000,
      output_tokens: 200,
      cache_read_tokens: 20,
      cache_write_tokens: 2,
      cost_usd: 0.35,
      unpriced: 0,
    });
    assert.equal(c.toolu_b.turn, 'prompt-b');
    assert.equal(c.toolu_b.turn_usage.cost_usd, 0.05);
    assert.equal(c.toolu_b.turn_usage.requests, 1);
    assert.equal(c.toolu_c.turn_usage.cost_usd, 1);
    // perch ledger names each call's turn and the turn's cost.
    const text = await cliAsync(['ledger', 'calls', '--agent', a.name, '--data-dir', served.dataDir]);
    assert.match(text.stdout, /\[toolu_a\]  turn prompt-a \(\$0\.3500\)/);
  });

  test("GitHub Copilot CLI: the trace of a user prompt is the turn; its chat spans' tokens priced by the table", async () => {
    const { a, token } = await agentWithToken('turn-cp');
    const r = await rawPost(`${base()}/v1/traces`, token, fixture('copilot-otlp.json').traces);
    assert.equal(r.status, 200, r.text);
    const [call] = await calls(a);
    assert.equal(call.turn, '8b65d27026507b1cf0c8717dfd8fc8ac');
    assert.equal(call.turn_usage.requests, 2);
    assert.equal(call.turn_usage.input_tokens, 20);
    assert.equal(call.turn_usage.output_tokens, 10);
    assert.ok(call.turn_usage.cost_usd > 0, JSON.stringify(call.turn_usage));
  });

  test('Gemini CLI: its API responses keep their prompt_id as the turn', async () => {
    const { a, token } = await agentWithToken('turn-gm');
    const r = await rawPost(`${base()}/otlp/${token}/v1/logs`, undefined, fixture('gemini-otlp.json').logs);
    assert.equal(r.status, 200, r.text);
    const out = await cliAsync(['ledger', 'export', '--since', '2000-01-01', '--agent', a.name, '--data-dir', served.dataDir]);
    const rows = out.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const api = rows.filter((x) => x.kind === 'api_request');
    assert.ok(api.length > 0);
    for (const x of api) assert.equal(x.detail.turn, '18c7e137-7387-4955-b429-952754625b6e');
  });

  test("Cursor: the call's turn is the generation_id its hooks carry", async () => {
    const a = await addAgent(served.dataDir, uniqueName('turn-cur'));
    await ownerOk(served, 'rules.add', { agent: a.name, tool: 'Shell', command_prefix: 'npm install', behavior: 'allow' });
    const before = await rawPost(`${base()}/hook/cursor/permission-request`, a.key, cursorShell);
    assert.equal(before.text, CURSOR_ALLOW);
    const after = await rawPost(`${base()}/hook/cursor/post-tool-use`, a.key, cursorAfterShell());
    assert.equal(after.status, 200, after.text);
    const [call, ...more] = await calls(a);
    assert.equal(more.length, 0);
    assert.equal(call.turn, cursorShell.generation_id);
    assert.equal(call.turn_usage, null, 'Cursor reports no tokens');
  });

  test("Codex's hooks name the turn (turn_id): a prompted call's turn is it; its telemetry names none, so no usage is summed", async () => {
    const a = await addAgent(served.dataDir, uniqueName('turn-cxh'));
    await ownerOk(served, 'rules.add', { agent: a.name, tool: 'Bash', command_prefix: 'rm -f /tmp/example', behavior: 'allow' });
    const door = (event: string) => `${base()}/hook/codex/${event}`;
    const input = codexBash.tool_input;
    assert.equal(
      (await rawPost(door('pre-tool-use'), a.key, { ...codexPreToolUse, tool_input: input, tool_use_id: 'call_t1' })).status,
      200,
    );
    const asked = await rawPost(door('permission-request'), a.key, codexBash);
    assert.equal(asked.status, 200, asked.text);
    const c = await byId(a);
    assert.equal(c.call_t1?.turn, codexBash.turn_id, JSON.stringify(c));
    assert.equal(c.call_t1.turn_usage, null);
  });

  test("Claude Code's hook input names the turn too (prompt_id): a prompted call has it without telemetry", async () => {
    const a = await addAgent(served.dataDir, uniqueName('turn-cch'));
    await ownerOk(served, 'rules.add', { agent: a.name, tool: 'Bash', command_prefix: 'npm test', behavior: 'allow' });
    const door = (event: string) => `${base()}/hook/claude-code/${event}`;
    const common = { session_id: 'cc-h', prompt_id: 'prompt-h', tool_input: { command: 'npm test' } };
    assert.equal(
      (await rawPost(door('pre-tool-use'), a.key, { ...claudeCodePreToolUseBash, ...common, tool_use_id: 'toolu_h' })).status,
      200,
    );
    const asked = await rawPost(door('permission-request'), a.key, { ...claudeCodeBash, ...common });
    assert.equal(asked.status, 200, asked.text);
    assert.equal((await byId(a)).toolu_h.turn, 'prompt-h');
  });

  test('Codex: its events name no turn, so its calls have none (null), and no usage is made up', async () => {
    const { a, token } = await agentWithToken('turn-cx');
    await postLogs(token, codexTurn('cx-1', 'call_x', 'gpt-5', { input: 100, cached: 0, output: 10 }));
    const [call] = await calls(a);
    assert.equal(call.call_id, 'call_x');
    assert.equal(call.turn, null);
    assert.equal(call.turn_usage, null);
  });
});
