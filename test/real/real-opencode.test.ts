// End to end with the REAL OpenCode (pinned, installed on demand: test/support/real-harness.ts) against a real
// `perch serve`. The model is a scripted stand-in for the OpenAI Chat Completions API on 127.0.0.1
// (test/support/model-standin.ts), OpenCode's custom provider (@ai-sdk/openai-compatible, its baseURL) in the test
// HOME's ~/.config/opencode/opencode.json; it makes OpenCode call Perch's whoami and then run
// `touch perch-opencode.marker` with its bash tool. Everything of Perch's is written by the real
// `perch connect opencode NAME --write` (Perch as remote MCP server, the key as {env:PERCH_KEY_NAME}; the plugin
// ~/.config/opencode/plugin/perch.js), the key only in OpenCode's environment, `perch` not on its PATH. The plugin
// also posts each model call's tokens (the stand-in reports 10 prompt and 5 completion tokens per answer) to the cost ledger.
import { test, describe, after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  addAgent,
  cliAsync,
  ensureBuilt,
  ownerOk,
  uniqueName,
  useSharedServe,
  type AgentKey,
  type CliResult,
} from '../support/serve-harness';
import { assertNoPerch, connectWrite, openCode, pathWithoutPerch, runOpenCode, withHubStopped } from '../support/real-harness';
import { chatToolNames, chatToolResult, startChatStandIn, type ChatReply, type ChatRequest } from '../support/model-standin';
import { keyEnvVar } from '../../src/shared/agents/snippets';
import { SHIPPED_PRICES } from '../../src/shared/ledger/prices';

const served = useSharedServe();
const opencode = openCode();
const COMMAND = 'touch perch-opencode.marker';
const MARKER = 'perch-opencode.marker';

/** whoami through Perch's MCP server (perch-NAME_whoami, as OpenCode names it), then bash, then a closing text. */
function script(req: ChatRequest): ChatReply {
  const whoami = chatToolNames(req).find((n) => /^perch-.+_whoami$/.test(n));
  if (chatToolResult(req, 'call_whoami') === undefined && whoami)
    return { type: 'tool_call', id: 'call_whoami', name: whoami, arguments: {} };
  const bash = chatToolResult(req, 'call_bash');
  if (bash === undefined)
    return { type: 'tool_call', id: 'call_bash', name: 'bash', arguments: { command: COMMAND, description: 'Write the marker file' } };
  return { type: 'text', text: `bash said: ${bash}` };
}

let model: Awaited<ReturnType<typeof startChatStandIn>> | undefined;
let root: string | undefined;
before(async () => {
  if (opencode.skip) return;
  ensureBuilt();
  model = await startChatStandIn(script);
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-opencode-home-'));
});
after(async () => {
  await model?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/** A fresh HOME whose OpenCode config names the stand-in as its model MODEL (the user's own setting), nothing of Perch's. */
function freshHome(modelId = 'm1'): string {
  const home = fs.mkdtempSync(path.join(root!, 'home-'));
  fs.mkdirSync(path.join(home, '.config', 'opencode'), { recursive: true });
  const provider = {
    standin: {
      npm: '@ai-sdk/openai-compatible',
      name: 'Stand-in',
      options: { baseURL: model!.url, apiKey: 'dummy' },
      models: { [modelId]: { name: modelId } },
    },
  };
  fs.writeFileSync(
    path.join(home, '.config', 'opencode', 'opencode.json'),
    JSON.stringify({ provider, model: `standin/${modelId}` }, null, 2),
  );
  return home;
}

/** A fresh HOME configured by `perch connect opencode NAME --write`. */
async function configure(agent: AgentKey, dataDir = served.dataDir, modelId?: string): Promise<string> {
  const home = freshHome(modelId);
  await connectWrite('opencode', agent.name, dataDir, home);
  assert.ok(fs.existsSync(path.join(home, '.config', 'opencode', 'plugin', 'perch.js')), 'perch connect wrote the plugin');
  return home;
}

interface Run extends CliResult {
  dir: string;
  /** What OpenCode sent back to the model for a tool call ('' when it sent nothing). */
  result(id: string): string;
}

/** `opencode run` in a fresh project dir (or DIR) as the agent: its key only in the environment, perch not on the PATH (checked). */
async function runAs(agent: AgentKey, home: string, opts: { dir?: string } = {}): Promise<Run> {
  const dir = opts.dir ?? fs.mkdtempSync(path.join(home, 'project-'));
  const first = model!.requests.length;
  assertNoPerch({ PATH: pathWithoutPerch(), HOME: home });
  const r = await runOpenCode(opencode.bin!, ['run', 'Write the marker file.'], {
    cwd: dir,
    home,
    env: { [keyEnvVar(agent.name)]: agent.key },
  });
  const requests = model!.requests.slice(first);
  const result = (id: string) => requests.map((q) => chatToolResult(q, id)).find((x) => x !== undefined) ?? '';
  return { ...r, dir, result };
}

async function agentView(a: AgentKey): Promise<any> {
  const { agents } = await ownerOk(served, 'agents.list', {});
  return agents.find((x: any) => x.id === a.id);
}

describe(
  'the real OpenCode configured by perch connect opencode --write (opencode run, Perch as remote MCP server, its plugin, no perch on its PATH)',
  { skip: opencode.skip },
  () => {
    test("it calls Perch's whoami; the bash call runs; its status is live and the call is in the ledger", async () => {
      const agent = await addAgent(served.dataDir, uniqueName('oc'));
      const home = await configure(agent);
      const run = await runAs(agent, home);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.result('call_whoami'), new RegExp(`"name":"${agent.name}"`), 'whoami through Perch answered as this agent');
      assert.ok(fs.existsSync(path.join(run.dir, MARKER)), 'the command ran');
      assert.doesNotMatch(run.stderr, /perch: /, 'the plugin had nothing to say');
      const v = await agentView(agent);
      assert.equal(v.harness.harness, 'opencode', 'its plugin reported its session');
      assert.equal(v.harness.state, 'turn_ended', 'session.idle was the last event');
      assert.equal(v.harness.cwd, run.dir);
      const { calls } = await ownerOk(served, 'ledger.calls', { agent: agent.name });
      const bash = calls.find((c: any) => c.tool === 'bash');
      assert.ok(bash, `the bash call is in the ledger: ${JSON.stringify(calls)}`);
      assert.equal(bash.harness, 'opencode');
    });

    test("each model call's tokens reach the cost ledger through the plugin (its step-finish), priced by the price table (OpenCode has no price for the stand-in's model)", async () => {
      const agent = await addAgent(served.dataDir, uniqueName('oc-cost'));
      const home = await configure(agent, served.dataDir, 'gpt-4.1');
      const first = model!.requests.length;
      const run = await runAs(agent, home);
      assert.equal(run.code, 0, run.stderr);
      // OpenCode also asks the model for the new session's title, a call of its own that no plugin hook reports (the
      // one request without tools): not in the ledger.
      const calls = model!.requests.slice(first);
      const answers = calls.filter((q) => chatToolNames(q).length > 0).length;
      assert.ok(answers >= 2, `the stand-in answered ${answers} model calls of the session`);
      assert.equal(calls.length - answers, 1, 'and the one for its title');
      const { costs } = await ownerOk(served, 'ledger.costs', { agent: agent.name });
      assert.deepEqual(
        costs.map((c: any) => [c.model, c.cost_source, c.requests, c.input_tokens, c.output_tokens]),
        [['gpt-4.1', 'price_table', answers, 10 * answers, 5 * answers]],
        "one record per model call, the stand-in's usage as OpenCode counted it",
      );
      const p = SHIPPED_PRICES['gpt-4.1']!;
      const expected = (answers * (10 * p.input_per_mtok + 5 * p.output_per_mtok)) / 1e6;
      assert.ok(Math.abs(costs[0].cost_usd - expected) < 1e-12, `${costs[0].cost_usd} = ${expected}`);
    });

    test("paused: the bash call is blocked with Perch's reason and does not run; whoami still answers", async () => {
      const agent = await addAgent(served.dataDir, uniqueName('oc'));
      const home = await configure(agent);
      await ownerOk(served, 'agents.pause', { agent: agent.id, reason: 'budget review' });
      const run = await runAs(agent, home);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(fs.existsSync(path.join(run.dir, MARKER)), false, 'the blocked command did not run');
      assert.match(run.result('call_bash'), /Paused in Perch \(the owner paused this agent: budget review\)/);
      assert.match(run.result('call_whoami'), new RegExp(`"name":"${agent.name}"`), "a paused agent's own Perch whoami runs");
    });

    test("a command the owner's standing rule denies does not run: OpenCode hands the model the rule", async () => {
      const agent = await addAgent(served.dataDir, uniqueName('oc'));
      const home = await configure(agent);
      const { rule } = await ownerOk(served, 'rules.add', { agent: agent.name, tool: 'bash', command_prefix: 'touch', behavior: 'deny' });
      const run = await runAs(agent, home);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(fs.existsSync(path.join(run.dir, MARKER)), false, 'the denied command did not run');
      assert.match(run.result('call_bash'), new RegExp(`Denied by the owner in Perch: standing rule ${rule.rule_id}`));
    });

    test('--project DIR: OpenCode started in DIR reads DIR/opencode.json and DIR/.opencode/plugin/perch.js (nothing of Perch at the user scope): paused, its bash call is blocked', async () => {
      const agent = await addAgent(served.dataDir, uniqueName('oc'));
      const home = freshHome();
      const repo = fs.mkdtempSync(path.join(root!, 'repo-'));
      const c = await cliAsync(['connect', 'opencode', agent.name, '--project', repo, '--write', '--data-dir', served.dataDir], {
        env: { HOME: home, PATH: pathWithoutPerch() },
      });
      assert.equal(c.code, 0, c.stderr);
      assert.deepEqual(fs.readdirSync(path.join(home, '.config', 'opencode')), ['opencode.json'], 'nothing of Perch at the user scope');
      await ownerOk(served, 'agents.pause', { agent: agent.id, reason: 'repo freeze' });
      const run = await runAs(agent, home, { dir: repo });
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.result('call_whoami'), new RegExp(`"name":"${agent.name}"`));
      assert.equal(fs.existsSync(path.join(repo, MARKER)), false);
      assert.match(run.result('call_bash'), /Paused in Perch \(the owner paused this agent: repo freeze\)/);
    });

    test('with the hub stopped the plugin fails open: the command runs, and it says so once on stderr', async () => {
      let home = '';
      await withHubStopped(
        'ocdown',
        async (agent, dataDir) => {
          home = await configure(agent, dataDir);
        },
        async (agent) => {
          const run = await runAs(agent, home);
          assert.equal(run.code, 0, run.stderr);
          assert.ok(fs.existsSync(path.join(run.dir, MARKER)), 'the command ran');
          assert.equal(run.stderr.match(/perch: the Perch hub did not answer/g)?.length, 1, run.stderr);
        },
      );
    });
  },
);
