// The flight recorder and the cost ledger with the REAL Claude Code (pinned, installed on demand:
// test/support/real-harness.ts) against a real `perch serve`, configured only by `perch connect claude-code NAME
// --write` (HOME a temp dir, the key in PERCH_KEY_NAME, perch not on its PATH). The model is the scripted stand-in
// (test/support/model-standin.ts): whoami through Perch, then `touch perch-ledger.marker` with Bash, whose permission
// prompt the owner approves in Perch. Claude Code's own OpenTelemetry (the env block connect wrote) reaches the hub's
// OTLP receiver: the ledger shows the Bash call once, decided through Perch's hook (Perch's own record of it joined
// by the tool_use_id: the owner, on the laptop), with its outcome, and the agent's
// cost is exactly what Claude Code reported for the session (its JSON result's total_cost_usd).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addAgent, cliAsync, eventually, ownerOk, uniqueName, useSharedServe } from '../support/serve-harness';
import { pendingRequestOf } from '../support/hook-runner';
import { useClaudeSession } from '../support/real-harness';
import { toolResults, type Block, type MessagesRequest } from '../support/model-standin';

const served = useSharedServe();
const COMMAND = 'touch perch-ledger.marker';

function script(req: MessagesRequest): Block[] {
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
    });
  },
);
