// The OTLP receiver (POST /v1/logs, /v1/metrics: src/main/mcp/otlp-door.ts) on a real `perch serve`, fed the JSON
// bodies Claude Code and Codex send: behind the agent's telemetry-only token, each tool call kept once with its
// decision and outcome, the cost ledger from the harness's own figures (Claude Code) or the price table (Codex), the
// daily cost cap on the measured figure, and hostile input answered without storing anything or harming the hub.
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import Database from 'better-sqlite3';
import path from 'node:path';
import { addAgent, cliAsync, ownerOk, rawCall, rawPost, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { claudeCodeCall, codexTurn, logRecord, logsBody } from '../support/otlp-bodies';

const served = useSharedServe();

function url(p: string): string {
  return served.mcpUrl.replace(/\/mcp$/, p);
}

async function perch(...args: string[]): Promise<any> {
  const r = await cliAsync([...args, '--data-dir', served.dataDir, '--json']);
  assert.equal(r.code, 0, `perch ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

async function tokenOf(a: AgentKey): Promise<string> {
  const r = await perch('ledger', 'token', a.name);
  assert.match(r.token, /^perch_otlp_/);
  return r.token as string;
}

/** Every ledger record of the hub (perch ledger export, JSON lines). */
async function records(): Promise<any[]> {
  const r = await cliAsync(['ledger', 'export', '--since', '2000-01-01', '--data-dir', served.dataDir]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

function postLogs(token: string | undefined, body: string | Buffer, headers: Record<string, string> = {}) {
  return rawPost(url('/v1/logs'), token, body, headers);
}

describe('the OTLP receiver keeps what the harness reported, once', () => {
  let a: AgentKey;
  let token: string;
  before(async () => {
    a = await addAgent(served.dataDir, uniqueName('otlp-cc'));
    token = await tokenOf(a);
  });

  test('a Claude Code batch (tool_decision, tool_result, api_request) shows its tool call once with decision and outcome; a resent batch adds nothing', async () => {
    const body = claudeCodeCall('sess-1', 'toolu_01', 0.0123);
    const r = await postLogs(token, body);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, {});
    assert.equal((await postLogs(token, body)).status, 200, 'the exporter retries the same batch');
    const { calls } = await perch('ledger', 'calls', '--agent', a.name);
    assert.equal(calls.length, 1, JSON.stringify(calls));
    const c = calls[0];
    assert.equal(c.call_id, 'toolu_01');
    assert.equal(c.harness, 'claude-code');
    assert.equal(c.session_id, 'sess-1');
    assert.equal(c.tool, 'Bash');
    assert.equal(c.decision, 'accept');
    assert.equal(c.decided_by, 'allowlist');
    assert.deepEqual(c.outcome, { success: true, duration_ms: 2300, exit_code: null, output_head: null, error: null });
    assert.match(c.asked, /touch marker/);
    const mine = (await records()).filter((x) => x.agent === a.name);
    assert.equal(mine.length, 3, 'three records, none twice');
    const { costs } = await perch('ledger', 'costs', '--agent', a.name);
    assert.equal(costs.length, 1);
    assert.equal(costs[0].cost_source, 'harness');
    assert.equal(costs[0].cost_usd, 0.0123);
    assert.equal(costs[0].input_tokens, 1200);
  });

  test('gzip bodies are read; metrics are checked and answered 200 without being kept', async () => {
    const before = (await records()).length;
    const gz = zlib.gzipSync(claudeCodeCall('sess-gz', 'toolu_gz', 0.001));
    assert.equal((await postLogs(token, gz, { 'Content-Encoding': 'gzip' })).status, 200);
    assert.equal((await records()).length, before + 3);
    const metrics = {
      resourceMetrics: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'claude-code' } }] },
          scopeMetrics: [{ metrics: [{ name: 'claude_code.cost.usage', sum: { dataPoints: [{ asDouble: 0.5, attributes: [] }] } }] }],
        },
      ],
    };
    const m = await rawPost(url('/v1/metrics'), token, metrics);
    assert.equal(m.status, 200, m.text);
    assert.equal((await records()).length, before + 3, 'a metric adds no record (the cost is the log events)');
  });

  test("Codex's tokens are priced by the table: a shipped model's price; a model without one is 'price unknown'", async () => {
    const b = await addAgent(served.dataDir, uniqueName('otlp-codex'));
    const t = await tokenOf(b);
    assert.equal(
      (await postLogs(t, codexTurn('conv-1', 'call_1', 'gpt-5-codex', { input: 10_000, cached: 4_000, output: 2_000 }))).status,
      200,
    );
    assert.equal((await postLogs(t, codexTurn('conv-1', 'call_2', 'some-new-model', { input: 100, cached: 0, output: 10 }))).status, 200);
    const { costs } = await perch('ledger', 'costs', '--agent', b.name);
    const priced = costs.find((c: any) => c.model === 'gpt-5-codex');
    assert.equal(priced.cost_source, 'price_table');
    // (6000 × 1.25 + 4000 × 0.125 + 2000 × 10) / 1e6
    assert.ok(Math.abs(priced.cost_usd - 0.028) < 1e-12, String(priced.cost_usd));
    const unknown = costs.find((c: any) => c.model === 'some-new-model');
    assert.equal(unknown.cost_source, 'unknown');
    assert.equal(unknown.cost_usd, null);
    const { calls } = await perch('ledger', 'calls', '--agent', b.name, '--harness', 'codex');
    const shell = calls.find((c: any) => c.call_id === 'call_1');
    assert.equal(shell.outcome.exit_code, 0);
    assert.equal(shell.outcome.output_head, 'Exit code: 0\nWall time: 0.1 seconds\nOutput:\na\nb');
    const { calls: found } = await perch('ledger', 'calls', '--search', 'bash -lc');
    assert.ok(
      found.some((c: any) => c.call_id === 'call_1'),
      'search finds the call by what it was asked',
    );
  });

  test('a daily cost cap counts the measured cost: a report crossing it pauses the agent at once and says the source', async () => {
    const c = await addAgent(served.dataDir, uniqueName('otlp-cap'));
    const t = await tokenOf(c);
    await ownerOk(served, 'agents.set_caps', { agent: c.name, cost_usd: 0.05 });
    assert.equal((await postLogs(t, claudeCodeCall('s', 'toolu_a', 0.03))).status, 200);
    let fleet = await ownerOk(served, 'agents.controls', {});
    assert.equal(fleet.agents.find((x: any) => x.agent.id === c.id).paused, null, 'under the cap');
    assert.equal((await postLogs(t, claudeCodeCall('s', 'toolu_b', 0.03))).status, 200);
    fleet = await ownerOk(served, 'agents.controls', {});
    const row = fleet.agents.find((x: any) => x.agent.id === c.id);
    assert.equal(row.paused?.by, 'budget');
    assert.match(row.paused.detail, /cost_usd: \$0\.06 of \$0\.05 today, measured from the harness's own reports/);
  });

  test("the day's first measured report counts once: $0.03, then a $0.05 cap leaves the agent running", async () => {
    const c = await addAgent(served.dataDir, uniqueName('otlp-first'));
    const t = await tokenOf(c);
    assert.equal((await postLogs(t, claudeCodeCall('s', 'toolu_first', 0.03))).status, 200);
    const set = await ownerOk(served, 'agents.set_caps', { agent: c.name, cost_usd: 0.05 });
    assert.equal(set.paused, null, JSON.stringify(set.paused));
    assert.equal((await postLogs(t, claudeCodeCall('s', 'toolu_second', 0.01))).status, 200);
    const fleet = await ownerOk(served, 'agents.controls', {});
    assert.equal(fleet.agents.find((x: any) => x.agent.id === c.id).paused, null, '$0.04 of $0.05');
  });
});

describe('hostile input: answered as OTLP expects, nothing stored, the hub unharmed', () => {
  let a: AgentKey;
  let token: string;
  before(async () => {
    a = await addAgent(served.dataDir, uniqueName('otlp-hostile'));
    token = await tokenOf(a);
  });

  const deep = (n: number) => {
    let v: any = { stringValue: 'x' };
    for (let i = 0; i < n; i++) v = { kvlistValue: { values: [{ key: 'k', value: v }] } };
    return logsBody('claude-code', [
      {
        attributes: [
          { key: 'event.name', value: { stringValue: 'tool_result' } },
          { key: 'deep', value: v },
        ],
      },
    ]);
  };

  const cases: Array<[string, () => Promise<{ status: number; json: any; text: string }>, number]> = [
    ['malformed JSON', () => postLogs(token, '{"resourceLogs": [ {'), 400],
    ['not an object', () => postLogs(token, '[1,2,3]'), 400],
    ['resourceLogs of the wrong type', () => postLogs(token, '{"resourceLogs": "many"}'), 400],
    ['a record of the wrong type', () => postLogs(token, logsBody('claude-code', ['not a record' as any])), 400],
    [
      'a kept event with a wrongly typed cost',
      () => postLogs(token, logsBody('claude-code', [logRecord('claude_code.api_request', { cost_usd: 'lots', 'session.id': 's' })])),
      400,
    ],
    [
      'an intValue that is no integer',
      () => postLogs(token, logsBody('claude-code', [{ attributes: [{ key: 'n', value: { intValue: '12abc' } }] }])),
      400,
    ],
    ['values nested 40 deep', () => postLogs(token, deep(40)), 400],
    ['JSON nested 100,000 deep', () => postLogs(token, `${'['.repeat(100_000)}${']'.repeat(100_000)}`), 400],
    ['a body over 4 MiB', () => postLogs(token, `{"resourceLogs": [], "pad": "${'x'.repeat(4 * 1024 * 1024)}"}`), 413],
    ['protobuf', () => postLogs(token, Buffer.from([0x0a, 0x00]), { 'Content-Type': 'application/x-protobuf' }), 415],
    ['a gzip bomb', () => postLogs(token, zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20)), { 'Content-Encoding': 'gzip' }), 400],
    ['no token', () => postLogs(undefined, claudeCodeCall('s', 'toolu_x', 1)), 401],
    ["the agent's own key (not a telemetry token)", () => postLogs(a.key, claudeCodeCall('s', 'toolu_x', 1)), 401],
    ['a made-up token', () => postLogs('perch_otlp_' + 'A'.repeat(32), claudeCodeCall('s', 'toolu_x', 1)), 401],
    ['a web page (Origin)', () => postLogs(token, claudeCodeCall('s', 'toolu_x', 1), { Origin: 'https://evil.example' }), 403],
  ];

  for (const [what, send, want] of cases) {
    test(`${what}: ${want}, nothing stored`, async () => {
      const before = (await records()).length;
      const r = await send();
      assert.equal(r.status, want, r.text.slice(0, 300));
      assert.equal(typeof r.json?.code, 'number', `an OTLP Status body: ${r.text.slice(0, 200)}`);
      assert.equal(typeof r.json?.message, 'string');
      assert.equal((await records()).length, before, 'nothing stored');
    });
  }

  test('a body nested as deep as 4 MiB allows (2,000,000 levels) is refused by its nesting before it is parsed, on each path', async () => {
    // Parsed, such a body held the hub's one thread about 2 s and took some 300 MB, 20 times a second per token.
    const n = 2 * 1024 * 1024 - 16;
    const body = `${'['.repeat(n)}${']'.repeat(n)}`;
    for (const p of ['/v1/logs', '/v1/metrics', '/v1/traces']) {
      const before = (await records()).length;
      const r = await rawPost(url(p), token, body);
      assert.equal(r.status, 400, r.text.slice(0, 300));
      assert.match(r.json?.message ?? '', /^the body nests deeper than 64 levels/, `${p}: ${r.text.slice(0, 200)}`);
      assert.equal((await records()).length, before, 'nothing stored');
    }
  });

  test('a telemetry token is no agent key: /mcp refuses it', async () => {
    const r = await rawPost(
      served.mcpUrl,
      token,
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { 'MCP-Protocol-Version': '2025-11-25' },
    );
    assert.equal(r.status, 401);
  });

  test("another agent's token records for that agent only; a replaced token, a rotated key's token and a revoked agent's token are refused", async () => {
    const b = await addAgent(served.dataDir, uniqueName('otlp-other'));
    const tb = await tokenOf(b);
    assert.equal((await postLogs(tb, claudeCodeCall('sb', 'toolu_other', 0.5))).status, 200);
    const { calls } = await perch('ledger', 'calls', '--agent', a.name);
    assert.ok(!calls.some((c: any) => c.call_id === 'toolu_other'), "B's token never records for A");

    const replaced = tb;
    const tb2 = await tokenOf(b);
    assert.equal((await postLogs(replaced, claudeCodeCall('sb', 'toolu_r', 1))).status, 401, 'a replaced token');
    await ownerOk(served, 'agents.rotate_key', { agent: b.name });
    assert.equal((await postLogs(tb2, claudeCodeCall('sb', 'toolu_r', 1))).status, 401, "rotating the agent's key drops its token");
    const tb3 = await tokenOf(b);
    await ownerOk(served, 'agents.revoke', { agent: b.name });
    const before = (await records()).length;
    const r = await postLogs(tb3, claudeCodeCall('sb', 'toolu_r', 1));
    assert.equal(r.status, 401, "a revoked agent's token");
    assert.equal((await records()).length, before);
  });

  test('after all of it the hub still answers: a valid batch is kept and an MCP call works', async () => {
    assert.equal(served.proc.exitCode, null, 'the hub is running');
    assert.equal((await postLogs(token, claudeCodeCall('s-ok', 'toolu_ok', 0.001))).status, 200);
    const { calls } = await perch('ledger', 'calls', '--agent', a.name);
    assert.deepEqual(
      calls.map((c: any) => c.call_id),
      ['toolu_ok'],
    );
    const me = await rawCall(served.mcpUrl, a.key, 'whoami');
    assert.equal(me.isError, undefined);
  });
});

describe('the owner API reads the ledger', () => {
  test('ledger.calls (filters: agent, tool, failed_only, search) and ledger.costs answer what the CLI shows', async () => {
    const a = await addAgent(served.dataDir, uniqueName('otlp-owner'));
    const t = await tokenOf(a);
    assert.equal((await postLogs(t, claudeCodeCall('so', 'toolu_ok1', 0.25))).status, 200);
    const failed = logsBody('claude-code', [
      logRecord('claude_code.tool_result', {
        'session.id': 'so',
        tool_name: 'Edit',
        tool_use_id: 'toolu_bad',
        success: 'false',
        error: 'file not found',
      }),
    ]);
    assert.equal((await postLogs(t, failed)).status, 200);
    const all = await ownerOk(served, 'ledger.calls', { agent: a.name });
    assert.deepEqual(
      all.calls.map((c: any) => c.call_id),
      ['toolu_bad', 'toolu_ok1'],
    );
    const bad = await ownerOk(served, 'ledger.calls', { agent: a.name, failed_only: true });
    assert.deepEqual(
      bad.calls.map((c: any) => [c.call_id, c.outcome.error]),
      [['toolu_bad', 'file not found']],
    );
    assert.deepEqual(
      (await ownerOk(served, 'ledger.calls', { agent: a.name, tool: 'Bash' })).calls.map((c: any) => c.call_id),
      ['toolu_ok1'],
    );
    assert.deepEqual(
      (await ownerOk(served, 'ledger.calls', { agent: a.name, search: 'not found' })).calls.map((c: any) => c.call_id),
      ['toolu_bad'],
    );
    const costs = await ownerOk(served, 'ledger.costs', { agent: a.name });
    assert.equal(costs.costs.length, 1);
    assert.equal(costs.costs[0].cost_usd, 0.25);
    assert.equal(costs.costs[0].day, costs.today);
  });
});

describe('perch ledger verify', () => {
  test('finds a record edited in the SQLite file and names it', async () => {
    const a = await addAgent(served.dataDir, uniqueName('otlp-verify'));
    const t = await tokenOf(a);
    assert.equal((await postLogs(t, claudeCodeCall('sv', 'toolu_v', 0.2))).status, 200);
    const ok = await perch('ledger', 'verify');
    assert.equal(ok.ok, true, JSON.stringify(ok));
    const mine = (await records()).filter((x) => x.agent === a.name && x.kind === 'api_request');
    assert.equal(mine.length, 1);
    const db = new Database(path.join(served.dataDir, 'perch.sqlite'));
    try {
      db.pragma('busy_timeout = 5000');
      assert.equal(db.prepare('UPDATE ledger_records SET cost_usd = 0.0001 WHERE id = ?').run(mine[0].id).changes, 1);
    } finally {
      db.close();
    }
    const r = await cliAsync(['ledger', 'verify', '--data-dir', served.dataDir]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, new RegExp(`broken at record ${mine[0].id} \\(day ${mine[0].day}\\)`));
  });
});
