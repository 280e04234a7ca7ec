// Gemini CLI's OpenTelemetry in the ledger (POST /otlp/<token>/v1/logs: src/main/mcp/otlp-door.ts,
// src/shared/ledger/harness-events.ts) on a real `perch serve`, fed the log records and metrics Gemini CLI 0.61.0 sent
// in a run against a stand-in model (test/fixtures/gemini-otlp.json: `gemini -p 'say hi' -m gemini-2.5-pro`, one
// model call whose usage said 1000 prompt tokens of which 400 cached, 50 candidate and 20 thinking tokens; its two
// longest texts cut). Gemini's settings can name an endpoint but no header, so its telemetry token is in the path
// (perch connect gemini writes it so). Its gemini_cli.api_response is the cost, priced by the price table; everything
// else it sends (its config, the prompt, the semantic twin of the response) is answered and not kept. The real
// Gemini CLI sends the same through `perch connect gemini --write` in test/real/real-gemini-ledger.test.ts.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addAgent, cliAsync, ownerOk, rawPost, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { SHIPPED_PRICES } from '../../src/shared/ledger/prices';

const served = useSharedServe();
const captured = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'gemini-otlp.json'), 'utf8'));
const SESSION = '18c7e137-7387-4955-b429-952754625b6e';
const base = () => served.mcpUrl.replace(/\/mcp$/, '');
/** The endpoint perch connect gemini writes: the token in the path. */
const at = (token: string, signal: string) => `${base()}/otlp/${token}/v1/${signal}`;

async function perch(...args: string[]): Promise<any> {
  const r = await cliAsync([...args, '--data-dir', served.dataDir, '--json']);
  assert.equal(r.code, 0, `perch ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

async function agentWithToken(): Promise<{ a: AgentKey; token: string }> {
  const a = await addAgent(served.dataDir, uniqueName('otlp-gm'));
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

/** The fixture's api_response record's attributes, to edit a copy. */
function apiResponse(body: any): any[] {
  for (const rl of body.resourceLogs)
    for (const sl of rl.scopeLogs)
      for (const lr of sl.logRecords)
        if (lr.attributes.some((x: any) => x.key === 'event.name' && x.value.stringValue === 'gemini_cli.api_response'))
          return lr.attributes;
  throw new Error('the fixture has an api_response');
}

describe("Gemini CLI's log records in the ledger", () => {
  test('its api_response is one model call: prompt tokens less the cached ones as input, the cached apart, thinking counted as output, priced by the table; its other events and metrics answered, not kept; a resent batch adds nothing', async () => {
    const { a, token } = await agentWithToken();
    const logs = await rawPost(at(token, 'logs'), undefined, captured.logs);
    assert.equal(logs.status, 200, logs.text);
    assert.deepEqual(logs.json, {});
    const metrics = await rawPost(at(token, 'metrics'), undefined, captured.metrics);
    assert.equal(metrics.status, 200, metrics.text);
    assert.equal((await rawPost(at(token, 'logs'), undefined, captured.logs)).status, 200, 'the exporter retries');

    const records = await mine(a);
    assert.deepEqual(
      records.map((r) => [r.kind, r.harness, r.session_id, r.model]),
      [['api_request', 'gemini', SESSION, 'gemini-2.5-pro']],
      'one record, the semantic twin and the other events not kept',
    );
    const { costs } = await perch('ledger', 'costs', '--agent', a.name);
    assert.equal(costs.length, 1, JSON.stringify(costs));
    const c = costs[0];
    assert.equal(c.model, 'gemini-2.5-pro');
    assert.equal(c.cost_source, 'price_table');
    assert.equal(c.requests, 1);
    assert.deepEqual([c.input_tokens, c.cache_read_tokens, c.output_tokens], [600, 400, 70]);
    const p = SHIPPED_PRICES['gemini-2.5-pro']!;
    const expected = (600 * p.input_per_mtok + 400 * p.cached_input_per_mtok + 70 * p.output_per_mtok) / 1e6;
    assert.ok(Math.abs(c.cost_usd - expected) < 1e-12, `${c.cost_usd} = ${expected}`);
  });

  test('a model without a price keeps its tokens, "price unknown"; the Authorization header works as well as the path', async () => {
    const { a, token } = await agentWithToken();
    const body = structuredClone(captured.logs);
    apiResponse(body).find((x: any) => x.key === 'model').value = { stringValue: 'gemini-9-ultra' };
    const r = await rawPost(`${base()}/v1/logs`, token, body);
    assert.equal(r.status, 200, r.text);
    const { costs } = await perch('ledger', 'costs', '--agent', a.name);
    assert.deepEqual(
      costs.map((c: any) => [c.model, c.cost_source, c.cost_usd, c.input_tokens]),
      [['gemini-9-ultra', 'unknown', null, 600]],
    );
  });

  test("hostile: a wrongly typed token count, a body that is not OTLP, a wrong token in the path, the agent's key in the path, a revoked agent's token: each refused in one line, nothing stored", async () => {
    const { a, token } = await agentWithToken();
    const bad = structuredClone(captured.logs);
    apiResponse(bad).find((x: any) => x.key === 'input_token_count').value = { stringValue: 'lots' };
    const typed = await rawPost(at(token, 'logs'), undefined, bad);
    assert.equal(typed.status, 400);
    assert.match(typed.json.message, /^gemini_cli\.api_response: input_token_count must be a number/);
    const negative = structuredClone(captured.logs);
    apiResponse(negative).find((x: any) => x.key === 'cached_content_token_count').value = { intValue: '-5' };
    assert.equal((await rawPost(at(token, 'logs'), undefined, negative)).status, 400, 'a negative count');
    const notOtlp = await rawPost(at(token, 'logs'), undefined, { resourceLogs: 'x' });
    assert.equal(notOtlp.status, 400);
    assert.match(notOtlp.json.message, /resourceLogs must be an array/);
    const wrong = await rawPost(at(`perch_otlp_${'x'.repeat(32)}`, 'logs'), undefined, captured.logs);
    assert.equal(wrong.status, 401);
    assert.match(wrong.json.message, /telemetry token is wrong/);
    assert.equal((await rawPost(at(a.key, 'logs'), undefined, captured.logs)).status, 401, "the agent's key is not a telemetry token");
    assert.equal((await rawPost(`${base()}/otlp/${token}/v1/nothing`, undefined, captured.logs)).status, 404, 'not an OTLP path');
    assert.deepEqual(await mine(a), []);

    await ownerOk(served, 'agents.revoke', { agent: a.name });
    assert.equal((await rawPost(at(token, 'logs'), undefined, captured.logs)).status, 401, "a revoked agent's token");
    assert.deepEqual(await mine(a), []);
  });
});
