// GitHub Copilot CLI's OpenTelemetry in the ledger (POST /v1/traces: src/main/mcp/otlp-door.ts,
// src/shared/ledger/copilot-spans.ts) on a real `perch serve`, fed the spans and metrics Copilot CLI 1.0.102 sent in
// a run against a stand-in model (test/fixtures/copilot-otlp.json: a bash call `touch m.marker` and two model calls
// of gpt-4.1, 10 input and 5 output tokens each; only its tool definitions cut). Its execute_tool span is the call's
// record, joined to Perch's decision on the call's permission prompt through the hooks that came before it; its chat
// spans are the cost, its tokens priced by the price table (Copilot's own github.copilot.cost counts premium
// requests). The real Copilot CLI sends the same through `perch connect copilot --write` in
// test/real/real-copilot-ledger.test.ts.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addAgent, cliAsync, ownerOk, rawPost, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { pendingRequestOf } from '../support/hook-runner';

const served = useSharedServe();
const captured = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'copilot-otlp.json'), 'utf8'));
const SESSION = 'b63516bb-09d8-4b9d-acc5-5f3381f8d37a';
const base = () => served.mcpUrl.replace(/\/mcp$/, '');

async function perch(...args: string[]): Promise<any> {
  const r = await cliAsync([...args, '--data-dir', served.dataDir, '--json']);
  assert.equal(r.code, 0, `perch ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

async function agentWithToken(): Promise<{ a: AgentKey; token: string }> {
  const a = await addAgent(served.dataDir, uniqueName('otlp-cp'));
  const { token } = await perch('ledger', 'token', a.name);
  return { a, token };
}

async function mine(a: AgentKey): Promise<any[]> {
  const r = await cliAsync(['ledger', 'export', '--since', '2000-01-01', '--agent', a.name, '--data-dir', served.dataDir]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

const hook = (a: AgentKey, sub: string, body: unknown) => rawPost(`${base()}/hook/copilot/${sub}?agent=${a.name}`, a.key, body);

describe("GitHub Copilot CLI's spans in the ledger", () => {
  test("its execute_tool span is the bash call, once, joined to the owner's decision on its prompt; its chat spans are the cost (tokens priced by the table); metrics answered, not kept; a resent batch adds nothing", async () => {
    const { a, token } = await agentWithToken();
    // The hooks as Copilot sent them for this call: preToolUse (every call), then its permission prompt.
    const args = { command: 'touch m.marker', description: 'marker' };
    const pre = await hook(a, 'pre-tool-use', { sessionId: SESSION, timestamp: 1, cwd: '/tmp/p', toolName: 'bash', toolArgs: args });
    assert.equal(pre.status, 200, pre.text);
    const asked = hook(a, 'permission-request', {
      hookName: 'permissionRequest',
      sessionId: SESSION,
      timestamp: 2,
      cwd: '/tmp/p',
      toolName: 'bash',
      toolInput: { command: 'touch m.marker' },
      permissionSuggestions: [],
    });
    const req = await pendingRequestOf(served, a, 30_000);
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
    assert.deepEqual((await asked).json, { behavior: 'allow' });

    const traces = await rawPost(`${base()}/v1/traces`, token, captured.traces);
    assert.equal(traces.status, 200, traces.text);
    assert.deepEqual(traces.json, {});
    const metrics = await rawPost(`${base()}/v1/metrics`, token, captured.metrics);
    assert.equal(metrics.status, 200, metrics.text);
    assert.equal((await rawPost(`${base()}/v1/traces`, token, captured.traces)).status, 200, 'the exporter retries');

    const { calls } = await perch('ledger', 'calls', '--agent', a.name);
    assert.equal(calls.length, 1, JSON.stringify(calls));
    const c = calls[0];
    assert.equal(c.harness, 'copilot');
    assert.equal((await perch('ledger', 'calls', '--agent', a.name, '--harness', 'copilot')).calls.length, 1, 'filtered by its harness');
    assert.equal((await perch('ledger', 'calls', '--agent', a.name, '--harness', 'codex')).calls.length, 0);
    assert.equal((await ownerOk(served, 'ledger.calls', { agent: a.id, harness: 'copilot' })).calls.length, 1, 'the owner API too');
    assert.equal(c.session_id, SESSION);
    assert.equal(c.tool, 'bash');
    assert.match(c.call_id, /^copilot-[0-9a-f-]{36}$/, "Perch's id of the call, opened by its preToolUse");
    assert.equal(c.decision, 'allow');
    assert.equal(c.perch.by, 'owner');
    assert.equal(c.perch.request_id, req.request_id);
    assert.equal(c.outcome.success, true);
    assert.equal(c.outcome.exit_code, 0);
    const span = captured.traces.resourceSpans[0].scopeSpans[0].spans.find((x: any) => x.name.startsWith('execute_tool'));
    const ms = (Number(span.endTimeUnixNano) - Number(span.startTimeUnixNano)) / 1e6;
    assert.ok(Math.abs(c.outcome.duration_ms - ms) <= 1, `its span's end minus its start: ${c.outcome.duration_ms} ≈ ${ms}`);
    assert.match(c.outcome.output_head, /completed with exit code 0/);
    const records = await mine(a);
    assert.deepEqual(
      records.map((r) => r.kind).sort(),
      ['api_request', 'api_request', 'perch_decision', 'tool_result'],
      'each span once, the invoke_agent sum not kept',
    );

    const { costs } = await perch('ledger', 'costs', '--agent', a.name);
    assert.equal(costs.length, 1, JSON.stringify(costs));
    assert.equal(costs[0].model, 'gpt-4.1');
    assert.equal(costs[0].cost_source, 'price_table');
    assert.equal(costs[0].input_tokens, 20);
    assert.equal(costs[0].output_tokens, 10);
    assert.ok(Math.abs(costs[0].cost_usd - (20 * 2 + 10 * 8) / 1e6) < 1e-12, String(costs[0].cost_usd));
  });

  test("without its hooks (telemetry only) the call is recorded under Copilot's own call id", async () => {
    const { a, token } = await agentWithToken();
    assert.equal((await rawPost(`${base()}/v1/traces`, token, captured.traces)).status, 200);
    const { calls } = await perch('ledger', 'calls', '--agent', a.name);
    assert.deepEqual(
      calls.map((c: any) => [c.call_id, c.tool, c.decision]),
      [['call_bash', 'bash', null]],
    );
  });

  test('a kept span with a wrong type, a body that is not OTLP, no token: refused with one line, nothing stored', async () => {
    const { a, token } = await agentWithToken();
    const bad = structuredClone(captured.traces);
    const chat = bad.resourceSpans[0].scopeSpans[0].spans.find((s: any) => s.name.startsWith('chat '));
    chat.attributes.find((x: any) => x.key === 'gen_ai.usage.input_tokens').value = { stringValue: 'lots' };
    const r = await rawPost(`${base()}/v1/traces`, token, bad);
    assert.equal(r.status, 400);
    assert.match(r.json.message, /gen_ai\.usage\.input_tokens must be a number/);
    const notOtlp = await rawPost(`${base()}/v1/traces`, token, { resourceSpans: 'x' });
    assert.equal(notOtlp.status, 400);
    assert.match(notOtlp.json.message, /resourceSpans must be an array/);
    assert.equal((await rawPost(`${base()}/v1/traces`, undefined, captured.traces)).status, 401);
    assert.equal((await rawPost(`${base()}/v1/traces`, a.key, captured.traces)).status, 401, "the agent's key is not a telemetry token");
    assert.deepEqual(await mine(a), []);
  });
});
