// A wake run's OpenTelemetry goes to the hub under the run's agent (shared/agents/run-telemetry.ts): real `perch serve`,
// real processes (test/fixtures/wake-agent.mjs posts an OTLP body as a harness's exporter does, from the environment
// the run was given). The run's telemetry token is its own (telemetry only, its agent only, while the run lives), in
// the environment and the Claude Code settings only; a daily cost cap crossed by the run's measured cost pauses the
// agent; telemetry the owner set in the run's environment wins. The real Claude Code does the same in
// test/real/real-claude-code-ledger.test.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, addAgent, cliAsync, eventually, ownerOk, rawPost, uniqueName, useSharedServe } from '../support/serve-harness';
import { claudeCodeCall } from '../support/otlp-bodies';

const AGENT_SCRIPT = path.join(ROOT, 'test', 'fixtures', 'wake-agent.mjs');
const served = useSharedServe({ env: { PERCH_WAKE_BACKOFF_MS: '300', PERCH_WAKE_KILL_GRACE_MS: '300' } });
const base = () => served.mcpUrl.replace(/\/mcp$/, '');

async function perch(...args: string[]): Promise<any> {
  const r = await cliAsync([...args, '--data-dir', served.dataDir, '--json']);
  assert.equal(r.code, 0, `perch ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

interface Handed {
  env: Record<string, string>;
  claude_settings_text: string;
}

/**
 * An agent woken once with the fixture (extra --env; `first` done before it is woken), posting BODY (unless null) as
 * its harness's telemetry; what it was handed and its run.
 */
async function wakeOnce(
  name: string,
  body: string | null,
  o: { env?: string[]; first?: (a: { id: string }) => Promise<void>; command?: (dir: string) => string[] } = {},
): Promise<{ agent: { id: string; name: string }; handed: Handed; run: any }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-wake-otlp-'));
  const handedFile = path.join(dir, 'handed.json');
  const bodyFile = path.join(dir, 'body.json');
  if (body !== null) fs.writeFileSync(bodyFile, body);
  try {
    const a = await addAgent(served.dataDir, uniqueName(name));
    const flags = ['--env', `WAKE_AGENT_ENV_FILE=${handedFile}`];
    if (body !== null) flags.push('--env', `WAKE_AGENT_OTLP_BODY_FILE=${bodyFile}`);
    for (const e of o.env ?? []) flags.push('--env', e);
    await o.first?.(a);
    const set = await cliAsync([
      'agent',
      'wake',
      a.name,
      '--data-dir',
      served.dataDir,
      ...flags,
      '--',
      ...(o.command?.(dir) ?? [process.execPath, AGENT_SCRIPT]),
    ]);
    assert.equal(set.code, 0, set.stderr);
    const g = await ownerOk(served, 'conversations.create_group', { title: `with ${a.name}`, members: [a.id] });
    await ownerOk(served, 'messages.send', { conv_id: g.conversation.conv_id, text: 'have a look', to: [a.id] });
    let run: any;
    await eventually(
      async () => {
        [run] = (await ownerOk(served, 'wake.runs', { agent: a.id })).runs;
        return run && run.status !== 'running' && run.status !== 'starting';
      },
      30_000,
      `the wake run of ${a.name} to end`,
    );
    const handed = JSON.parse(fs.readFileSync(handedFile, 'utf8')) as Handed;
    return { agent: a, handed, run };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("a wake run's OpenTelemetry", () => {
  test("goes to this hub with a telemetry token of the run's own: the run's cost is in the ledger under its agent; the token is in its environment and Claude Code settings only, reaches nothing else and ends with the run", async () => {
    const session = `wake-${crypto.randomUUID()}`;
    const { agent, handed, run } = await wakeOnce('otlp-wake', claudeCodeCall(session, 'toolu_wake_1', 0.0456));
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    const env = handed.env;
    assert.equal(env.CLAUDE_CODE_ENABLE_TELEMETRY, '1');
    assert.equal(env.OTEL_EXPORTER_OTLP_ENDPOINT, base());
    assert.equal(env.OTEL_EXPORTER_OTLP_PROTOCOL, 'http/json');
    assert.equal(env.OTEL_LOGS_EXPORTER, 'otlp');
    assert.equal(env.OTEL_METRICS_EXPORTER, 'otlp');
    assert.equal(env.PERCH_OTLP_LOGS_URL, `${base()}/v1/logs`, "where the Codex recipe's -c sends its logs");
    const token = /^Authorization=Bearer (perch_otlp_run_[A-Za-z0-9_-]{32})$/.exec(env.OTEL_EXPORTER_OTLP_HEADERS ?? '')?.[1];
    assert.ok(token, `a run telemetry token in the header: ${env.OTEL_EXPORTER_OTLP_HEADERS}`);
    // The Claude Code settings (--settings "$PERCH_CLAUDE_SETTINGS") carry the same, so they win over a settings.json's.
    const settings = JSON.parse(handed.claude_settings_text);
    assert.equal(settings.env.OTEL_EXPORTER_OTLP_HEADERS, `Authorization=Bearer ${token}`);
    assert.equal(settings.env.OTEL_EXPORTER_OTLP_ENDPOINT, base());

    // What the run reported is the agent's, once, from the harness.
    const { calls } = await perch('ledger', 'calls', '--agent', agent.name);
    assert.deepEqual(
      calls.map((c: any) => [c.call_id, c.session_id, c.harness]),
      [['toolu_wake_1', session, 'claude-code']],
    );
    const { costs } = await perch('ledger', 'costs', '--agent', agent.name);
    assert.deepEqual(
      costs.map((c: any) => [c.cost_usd, c.cost_source]),
      [[0.0456, 'harness']],
    );

    const { tail } = await ownerOk(served, 'wake.log', { run_id: run.id });
    assert.match(tail, /OTLP answered 200/);
    assert.ok(!tail.includes(token), `the token is not in the run's log: ${tail}`);
    assert.match(tail, /\[run key redacted\]/);

    // Ended with the run; and never a key: not at /mcp, not at the hook door.
    const after = await rawPost(`${base()}/v1/logs`, token, claudeCodeCall(session, 'toolu_wake_2', 1), {});
    assert.equal(after.status, 401, 'the run telemetry token stops working once the run ended');
    const mcp = await rawPost(
      served.mcpUrl,
      token,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
      { 'MCP-Protocol-Version': '2025-11-25' },
    );
    assert.equal(mcp.status, 401);
    const hook = await rawPost(`${base()}/hook/claude-code/permission-request?agent=${agent.name}`, token, { tool_name: 'Bash' }, {});
    assert.equal(hook.status, 401);
    const again = await perch('ledger', 'costs', '--agent', agent.name);
    assert.equal(again.costs.length, 1, 'nothing was added after the run');
  });

  test("a daily cost cap crossed by a run's measured cost pauses its agent, saying it used the harness's figure", async () => {
    const { agent, run } = await wakeOnce('otlp-wake-cap', claudeCodeCall(`cap-${crypto.randomUUID()}`, 'toolu_cap', 0.0789), {
      first: async (a) => void (await ownerOk(served, 'agents.set_caps', { agent: a.id, cost_usd: 0.05 })),
    });
    // Paused before it replied: its send_message is refused (a paused agent reads and reports only) and the run fails.
    assert.notEqual(run.status, 'running');
    const ctl = (await ownerOk(served, 'agents.controls', {})).agents.find((c: any) => c.agent.id === agent.id);
    assert.equal(ctl.paused?.by, 'budget', JSON.stringify(ctl));
    assert.match(ctl.paused.detail, /cost_usd: \$0\.0789 of \$0\.05 today, measured from the harness's own reports/);
  });

  test("a run whose command is Gemini CLI also gets Gemini's telemetry switch and OTLP/HTTP (so it reports without perch connect); another run does not", async () => {
    // The command is named gemini: a shell script that execs the fixture (what matters is the command Perch sees).
    const asGemini = (dir: string) => {
      const file = path.join(dir, 'gemini');
      fs.writeFileSync(file, `#!/bin/sh\nexec "${process.execPath}" "${AGENT_SCRIPT}" "$@"\n`, { mode: 0o700 });
      return [file, '-p', 'You were woken in Perch', '--yolo'];
    };
    const session = `gemini-${crypto.randomUUID()}`;
    const { handed, run, agent } = await wakeOnce('otlp-wake-gemini', claudeCodeCall(session, 'toolu_gem_1', 0.01), { command: asGemini });
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    assert.equal(handed.env.GEMINI_TELEMETRY_ENABLED, 'true');
    assert.equal(handed.env.GEMINI_TELEMETRY_OTLP_PROTOCOL, 'http');
    assert.equal(handed.env.OTEL_EXPORTER_OTLP_ENDPOINT, base());
    assert.match(handed.env.OTEL_EXPORTER_OTLP_HEADERS ?? '', /^Authorization=Bearer perch_otlp_run_/);
    const { costs } = await perch('ledger', 'costs', '--agent', agent.name);
    assert.equal(costs.length, 1, 'what the run reported is under the woken agent');
    // The owner's own Gemini switch wins: Perch adds none, and the log says which.
    const own = await wakeOnce('otlp-wake-gemini-own', null, { command: asGemini, env: ['GEMINI_TELEMETRY_ENABLED=false'] });
    assert.equal(own.handed.env.GEMINI_TELEMETRY_ENABLED, 'false');
    assert.equal(own.handed.env.OTEL_EXPORTER_OTLP_HEADERS, undefined);
    const { tail } = await ownerOk(served, 'wake.log', { run_id: own.run.id });
    assert.match(tail, /this run's OpenTelemetry is yours \(GEMINI_TELEMETRY_ENABLED switches it off\)/);
    // A run of another command is not given Gemini's variables.
    const other = await wakeOnce('otlp-wake-not-gemini', null);
    assert.equal(other.handed.env.GEMINI_TELEMETRY_ENABLED, undefined);
  });

  test("telemetry the owner set in the run's environment wins: Perch adds none of its own, and the run's log says why", async () => {
    const { handed, run, agent } = await wakeOnce('otlp-wake-own', null, { env: ['OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:9'] });
    assert.equal(handed.env.OTEL_EXPORTER_OTLP_ENDPOINT, 'http://127.0.0.1:9', "the owner's endpoint, as set");
    assert.equal(handed.env.OTEL_EXPORTER_OTLP_HEADERS, undefined, 'no token of Perch goes to their endpoint');
    assert.equal(handed.env.CLAUDE_CODE_ENABLE_TELEMETRY, undefined);
    assert.equal(JSON.parse(handed.claude_settings_text).env, undefined, 'nor into the Claude Code settings');
    const { tail } = await ownerOk(served, 'wake.log', { run_id: run.id });
    assert.match(tail, /this run's OpenTelemetry is yours \(OTEL_EXPORTER_OTLP_ENDPOINT sends it to http:\/\/127\.0\.0\.1:9\)/);
    const { costs } = await perch('ledger', 'costs', '--agent', agent.name);
    assert.deepEqual(costs, []);
  });
});
