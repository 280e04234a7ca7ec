// The flight recorder and the cost ledger with the REAL GitHub Copilot CLI (pinned, installed on demand:
// test/support/real-harness.ts) against a real `perch serve`, configured only by `perch connect copilot NAME --write`
// (HOME a temp dir, perch not on its PATH) and the environment that command tells the user to export: the key,
// COPILOT_HOOK_ALLOW_LOCALHOST=1 and OTEL_EXPORTER_OTLP_ENDPOINT (Copilot takes its telemetry endpoint from the
// environment only; the telemetry token comes from the headers file connect wrote, through its settings.json). The
// model is the scripted OpenAI Chat Completions stand-in (10 prompt and 5 completion tokens per answer): Copilot runs
// `touch perch-ledger.marker` with its bash tool, whose permission prompt the owner approves in Perch. Its spans reach
// the hub's OTLP door: the bash call is in the ledger once, joined to Perch's record of the owner's decision, with its
// outcome; its tokens are the stand-in's, priced by the price table (Copilot's own cost attribute counts premium
// requests, 0 with a provider of your own).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addAgent, cliAsync, ensureBuilt, eventually, ownerOk, uniqueName, useSharedServe } from '../support/serve-harness';
import { pendingRequestOf } from '../support/hook-runner';
import { assertNoPerch, connectWrite, copilotCli, pathWithoutPerch, runCopilot } from '../support/real-harness';
import { chatToolResult, startChatStandIn, type ChatReply, type ChatRequest } from '../support/model-standin';
import { keyEnvVar } from '../../src/shared/agents/snippets';
import { SHIPPED_PRICES } from '../../src/shared/ledger/prices';

const served = useSharedServe();
const copilot = copilotCli();
const COMMAND = 'touch perch-ledger.marker';

function script(req: ChatRequest): ChatReply {
  const bash = chatToolResult(req, 'call_ledger_bash');
  if (bash === undefined)
    return {
      type: 'tool_call',
      id: 'call_ledger_bash',
      name: 'bash',
      arguments: { command: COMMAND, description: 'Write the marker file' },
    };
  return { type: 'text', text: 'done' };
}

let model: Awaited<ReturnType<typeof startChatStandIn>> | undefined;
let root: string | undefined;
before(async () => {
  if (copilot.skip) return;
  ensureBuilt();
  model = await startChatStandIn(script);
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-copilot-ledger-'));
});
after(async () => {
  await model?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

async function ledger(...args: string[]): Promise<any> {
  const r = await cliAsync(['ledger', ...args, '--data-dir', served.dataDir, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

describe(
  'the real GitHub Copilot CLI, configured only by perch connect copilot --write, reports its tool calls and tokens to the ledger',
  { skip: copilot.skip },
  () => {
    test("its bash call is in perch ledger calls once, joined to the owner's decision on its prompt, with its outcome; its cost is its tokens priced by the table", async () => {
      const agent = await addAgent(served.dataDir, uniqueName('cp-ledger'));
      const home = fs.mkdtempSync(path.join(root!, 'home-'));
      const connect = await connectWrite('copilot', agent.name, served.dataDir, home);
      const endpoint = /export OTEL_EXPORTER_OTLP_ENDPOINT=(\S+)/.exec(connect.stdout)?.[1];
      assert.ok(endpoint, `perch connect printed the export line: ${connect.stdout}`);
      const dir = fs.mkdtempSync(path.join(home, 'project-'));
      const first = model!.requests.length;
      assertNoPerch({ PATH: pathWithoutPerch(), HOME: home });
      const running = runCopilot(copilot.bin!, ['-p', 'Write the marker file.'], {
        cwd: dir,
        home,
        env: { COPILOT_PROVIDER_BASE_URL: model!.url, [keyEnvVar(agent.name)]: agent.key, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
      });
      const req = await pendingRequestOf(served, agent, 120_000);
      assert.equal(req.title, `Allow bash: ${COMMAND}?`);
      await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
      const run = await running;
      assert.equal(run.code, 0, run.stderr);
      assert.ok(fs.existsSync(path.join(dir, 'perch-ledger.marker')), 'the approved command ran');
      const answers = model!.requests.length - first;
      assert.ok(answers >= 2, `the stand-in answered ${answers} model calls`);

      let bash: any;
      await eventually(
        async () => {
          const { calls } = await ledger('calls', '--agent', agent.name);
          bash = calls.find((c: any) => c.tool === 'bash' && c.outcome);
          return !!bash;
        },
        60_000,
        "Copilot's span of the bash call",
      );
      const { calls } = await ledger('calls', '--agent', agent.name, '--tool', 'bash');
      assert.equal(calls.length, 1, `once: ${JSON.stringify(calls)}`);
      assert.equal(bash.harness, 'copilot');
      assert.match(bash.session_id, /^[0-9a-f-]{36}$/);
      assert.equal(bash.decided_by, 'perch');
      assert.deepEqual(bash.perch, { decision: 'allow', by: 'owner', on: { via: 'laptop' }, request_id: req.request_id });
      assert.equal(bash.outcome.success, true);
      assert.equal(bash.outcome.exit_code, 0);
      assert.equal(typeof bash.outcome.duration_ms, 'number');
      assert.match(bash.asked, /touch perch-ledger\.marker/, 'what it was asked (capture on)');

      const { costs } = await ledger('costs', '--agent', agent.name);
      assert.equal(costs.length, 1, JSON.stringify(costs));
      const c = costs[0];
      assert.equal(c.model, 'gpt-4.1');
      assert.equal(c.cost_source, 'price_table');
      assert.equal(c.requests, answers, 'one record per model call');
      assert.deepEqual([c.input_tokens, c.output_tokens], [10 * answers, 5 * answers], "the stand-in's usage, as Copilot reported it");
      const p = SHIPPED_PRICES['gpt-4.1']!;
      const expected = (10 * answers * p.input_per_mtok + 5 * answers * p.output_per_mtok) / 1e6;
      assert.ok(c.cost_usd > 0 && Math.abs(c.cost_usd - expected) < 1e-12, `${c.cost_usd} = ${expected}`);
    });
  },
);
