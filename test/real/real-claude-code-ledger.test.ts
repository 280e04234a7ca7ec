// The flight recorder and the cost ledger with the REAL Claude Code (pinned, installed on demand:
// test/support/real-harness.ts) against a real `perch serve`, configured only by `perch connect claude-code NAME
// --write` (HOME a temp dir, the key in PERCH_KEY_NAME, perch not on its PATH). The model is the scripted stand-in
// (test/support/model-standin.ts): whoami through Perch, then `touch perch-ledger.marker` with Bash, whose permission
// prompt the owner approves in Perch. Claude Code's own OpenTelemetry (the env block connect wrote) reaches the hub's
// OTLP receiver: the ledger shows the Bash call once, decided through Perch's hook (Perch's own record of it joined
// by the tool_use_id: the owner, on the laptop), with its outcome, and the agent's
// cost is exactly what Claude Code reported for the session (its JSON result's total_cost_usd). And a wake run Perch
// starts with the Claude Code recipe reports the same way, under the woken agent (its run's own telemetry token), even
// where the HOME's settings.json sends another agent's telemetry; its measured cost crosses the agent's daily cap.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addAgent, cliAsync, eventually, ownerOk, uniqueName, useSharedServe } from '../support/serve-harness';
import { wakeRecipes } from '../../src/shared/agents/wake';
import { pendingRequestOf } from '../support/hook-runner';
import { useClaudeSession } from '../support/real-harness';
import { toolResults, type Block, type MessagesRequest } from '../support/model-standin';

const served = useSharedServe();
const COMMAND = 'touch perch-ledger.marker';

function script(req: MessagesRequest): Block[] {
  // A wake run (its MCP server is "perch", from PERCH_MCP_CONFIG): read the updates, then end.
  if (req.tools?.some((t) => t.name === 'mcp__perch__get_updates'))
    return toolResults(req).length
      ? [{ type: 'text', text: 'done' }]
      : [{ type: 'tool_use', id: 'toolu_wake_updates', name: 'mcp__perch__get_updates', input: { limit: 20 } }];
  if (!req.tools?.some((t) => t.name === 'Bash')) return [{ type: 'text', text: 'ok' }];
  const results = toolResults(req);
  const last = results[results.length - 1];
  const whoami = req.tools.find((t) => /^mcp__perch-.+__whoami$/.test(t.name));
  if (!last && whoami) return [{ type: 'tool_use', id: 'toolu_whoami', name: whoami.name, input: {} }];
  if (!last || last.tool_use_id === 'toolu_whoami')
    return [{ type: 'tool_use', id: 'toolu_ledger_bash', name: 'Bash', input: { command: COMMAND, description: 'Write the marker file' } }];
  return [{ type: 'text', text: 'done' }];
}

const session = useClaudeSession('perch-claude-ledger-', script);

async function ledger(...args: string[]): Promise<any> {
  const r = await cliAsync(['ledger', ...args, '--data-dir', served.dataDir, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

describe(
  'the real Claude Code, configured only by perch connect --write, reports its tool calls and cost to the ledger',
  { skip: session.claude.skip },
  () => {
    test('the Bash call is in the ledger once, decided through Perch, with its outcome; the cost is what Claude Code reported', async () => {
      const agent = await addAgent(served.dataDir, uniqueName('cc-ledger'));
      const agentHome = await session.configure(agent, served.dataDir);
      const env0 = JSON.parse(fs.readFileSync(path.join(agentHome, '.claude', 'settings.json'), 'utf8')).env;
      assert.equal(env0.CLAUDE_CODE_ENABLE_TELEMETRY, '1', 'perch connect turned the telemetry on');

      const running = session.run(agent, agentHome, ['-p', 'Write the marker file.', '--output-format', 'json']);
      const req = await pendingRequestOf(served, agent, 120_000);
      assert.equal(req.title, `Allow Bash: ${COMMAND}?`);
      await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
      const run = await running;
      assert.equal(run.code, 0, run.stderr);
      assert.ok(fs.existsSync(path.join(run.dir, 'perch-ledger.marker')), 'the approved command ran');
      const reported = JSON.parse(run.stdout).total_cost_usd as number;
      assert.equal(typeof reported, 'number');

      let bash: any;
      await eventually(
        async () => {
          const { calls } = await ledger('calls', '--agent', agent.name);
          bash = calls.find((c: any) => c.call_id === 'toolu_ledger_bash');
          return !!bash?.outcome && !!bash.decision;
        },
        90_000,
        "Claude Code's telemetry of the Bash call",
      );
      const { calls } = await ledger('calls', '--agent', agent.name, '--tool', 'Bash');
      assert.equal(calls.filter((c: any) => c.call_id === 'toolu_ledger_bash').length, 1, 'once');
      assert.equal(bash.harness, 'claude-code');
      assert.equal(bash.tool, 'Bash');
      assert.equal(bash.decided_by, 'perch', `decided through Perch's PermissionRequest hook: ${JSON.stringify(bash)}`);
      // Perch's own record of the decision joined the call by its tool_use_id (taken from the PreToolUse hook: the
      // PermissionRequest input carries none): the owner decided, on the laptop.
      assert.deepEqual(bash.perch, { decision: 'allow', by: 'owner', on: { via: 'laptop' }, request_id: req.request_id });
      assert.equal(bash.outcome.success, true);
      assert.equal(typeof bash.outcome.duration_ms, 'number');
      assert.match(bash.session_id, /^[0-9a-f-]{36}$/);

      // The session's API requests arrive with its last batch: the ledger's cost is what Claude Code said it spent.
      await eventually(
        async () => {
          const { costs } = await ledger('costs', '--agent', agent.name);
          const total = costs.reduce((s: number, c: any) => s + (c.cost_usd ?? 0), 0);
          return Math.abs(total - reported) < 1e-9;
        },
        60_000,
        `the ledger's cost to reach Claude Code's total_cost_usd ${reported}`,
      );
      const { costs } = await ledger('costs', '--agent', agent.name);
      assert.ok(costs.every((c: any) => c.cost_source === 'harness'));
      assert.ok(costs.reduce((s: number, c: any) => s + c.requests, 0) >= 3, 'one record per API request');

      // Its turn: the prompt's id (prompt.id on its events, prompt_id in its hooks), and the turn's cost summed.
      const turned = (await ledger('calls', '--agent', agent.name)).calls.find((c: any) => c.call_id === 'toolu_ledger_bash');
      assert.match(turned.turn ?? '', /^[0-9a-f-]{36}$/, JSON.stringify(turned));
      assert.ok(turned.turn_usage.requests >= 1, JSON.stringify(turned.turn_usage));
      // One prompt (-p): every API request of the run is of that turn, so the turn's cost is the run's.
      assert.ok(Math.abs(turned.turn_usage.cost_usd - reported) < 1e-9, `${JSON.stringify(turned.turn_usage)} vs ${reported}`);
      assert.equal(
        turned.turn_usage.requests,
        costs.reduce((s: number, c: any) => s + c.requests, 0),
      );
    });
  },
);

describe(
  'a wake run of the real Claude Code (the recipe) reports its cost to the ledger under the woken agent',
  { skip: session.claude.skip },
  () => {
    test("the run's api_request cost is the agent's, not the agent's whose token the HOME's settings.json holds; it crosses the agent's daily cap", async () => {
      const agent = await addAgent(served.dataDir, uniqueName('cc-wake-ledger'));
      const other = await addAgent(served.dataDir, uniqueName('cc-wake-other'));
      const { token: otherToken } = await ledger('token', other.name);
      const runHome = fs.mkdtempSync(path.join(session.home, 'wake-home-'));
      const dir = fs.mkdtempSync(path.join(session.home, 'wake-project-'));
      fs.mkdirSync(path.join(runHome, '.claude'));
      // The user's settings.json sends Claude Code's telemetry to this hub as ANOTHER agent (as perch connect writes it).
      const base = served.mcpUrl.replace(/\/mcp$/, '');
      fs.writeFileSync(
        path.join(runHome, '.claude', 'settings.json'),
        JSON.stringify({
          env: {
            CLAUDE_CODE_ENABLE_TELEMETRY: '1',
            OTEL_METRICS_EXPORTER: 'otlp',
            OTEL_LOGS_EXPORTER: 'otlp',
            OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
            OTEL_EXPORTER_OTLP_ENDPOINT: base,
            OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${otherToken}`,
          },
        }),
      );
      await ownerOk(served, 'agents.set_caps', { agent: agent.id, cost_usd: 0.000001 });
      const recipe = wakeRecipes(agent.name).find((r) => r.id === 'claude-code')!;
      await ownerOk(served, 'wake.set', {
        agent: agent.id,
        shell: recipe.form.shell!.replace(/^claude /, `"${session.claude.bin}" `),
        cwd: dir,
        env: {
          HOME: runHome,
          ANTHROPIC_BASE_URL: session.model.url,
          ANTHROPIC_API_KEY: 'dummy',
          ENABLE_TOOL_SEARCH: 'false',
          DISABLE_AUTOUPDATER: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        },
        timeout_secs: 240,
        max_runs_per_hour: 1,
      });
      const group = await ownerOk(served, 'conversations.create_group', { title: `with ${agent.name}`, members: [agent.id] });
      await ownerOk(served, 'messages.send', { conv_id: group.conversation.conv_id, text: 'have a look', to: [agent.id] });
      let run: any;
      await eventually(
        async () => {
          [run] = (await ownerOk(served, 'wake.runs', { agent: agent.id })).runs;
          return run && run.status !== 'running' && run.status !== 'starting';
        },
        180_000,
        'the wake run to end',
      );
      assert.equal(run.status, 'succeeded', JSON.stringify(run));
      const reported = run.usage?.total_cost_usd as number;
      assert.ok(reported > 0, `the run's JSON result has its cost: ${JSON.stringify(run.usage)}`);

      await eventually(
        async () => {
          const { costs } = await ledger('costs', '--agent', agent.name);
          return Math.abs(costs.reduce((s: number, c: any) => s + (c.cost_usd ?? 0), 0) - reported) < 1e-9;
        },
        60_000,
        `the woken agent's ledger cost to reach the run's total_cost_usd ${reported}`,
      );
      const { costs } = await ledger('costs', '--agent', agent.name);
      assert.ok(
        costs.every((c: any) => c.cost_source === 'harness' && c.harness === 'claude-code'),
        JSON.stringify(costs),
      );
      assert.deepEqual((await ledger('costs', '--agent', other.name)).costs, [], 'nothing under the agent whose token settings.json holds');
      const ctl = (await ownerOk(served, 'agents.controls', {})).agents.find((c: any) => c.agent.id === agent.id);
      assert.equal(ctl.paused?.by, 'budget', JSON.stringify(ctl));
      assert.match(ctl.paused.detail, /measured from the harness's own reports/);
    });
  },
);
