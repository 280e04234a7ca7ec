// End to end with the REAL Gemini CLI (pinned, installed on demand: test/support/real-harness.ts) against a real
// `perch serve`. The model is a scripted stand-in for the Gemini API on 127.0.0.1 (test/support/model-standin.ts,
// streamGenerateContent as SSE) that makes Gemini call Perch's whoami and then run `touch perch-gemini.marker` with
// its run_shell_command tool. Gemini runs headless (`gemini -p … --yolo`: without --yolo headless mode offers no shell
// tool) with API-key auth against the stand-in and is configured only by the real `perch connect gemini NAME --write`
// (HOME a temp dir whose settings.json chose API-key auth, the key in PERCH_KEY_NAME in its environment, `perch` not on
// its PATH): Perch as its MCP server and its command hooks (curl) to the hub's doors in ~/.gemini/settings.json.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
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
import { pendingRequestOf } from '../support/hook-runner';
import { assertNoPerch, geminiCli, pathWithoutPerch, runGemini } from '../support/real-harness';
import { geminiFunctionResult, geminiToolNames, startGeminiStandIn, type GeminiPart, type GeminiRequest } from '../support/model-standin';
import { keyEnvVar } from '../../src/shared/agents/snippets';

const served = useSharedServe();
const gemini = geminiCli();
const COMMAND = 'touch perch-gemini.marker';
const MARKER = 'perch-gemini.marker';
const SHELL = 'run_shell_command';

/** whoami through Perch's MCP server (mcp_perch-NAME_whoami, as Gemini names it), then the shell, then a closing text. */
function script(req: GeminiRequest): GeminiPart[] {
  const whoami = geminiToolNames(req).find((n) => /^mcp_perch-.+_whoami$/.test(n));
  if (whoami && geminiFunctionResult(req, whoami) === undefined) return [{ functionCall: { name: whoami, args: {} } }];
  const shell = geminiFunctionResult(req, SHELL);
  if (shell === undefined) return [{ functionCall: { name: SHELL, args: { command: COMMAND, description: 'Write the marker file' } } }];
  return [{ text: `the shell said: ${shell}` }];
}

let model: Awaited<ReturnType<typeof startGeminiStandIn>> | undefined;
let root: string | undefined;
before(async () => {
  if (gemini.skip) return;
  ensureBuilt();
  model = await startGeminiStandIn(script);
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-gemini-home-'));
});
after(async () => {
  await model?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

interface Run extends CliResult {
  dir: string;
  /** What Gemini sent back to the model for a function ('' when it sent nothing). */
  result(name: string): string;
}

/**
 * A fresh HOME whose ~/.gemini/settings.json chose API-key auth (the user's own setting), then `perch connect gemini
 * NAME --write [ARGS]` as a person runs it.
 */
async function configure(agent: AgentKey, args: string[] = []): Promise<string> {
  const home = fs.mkdtempSync(path.join(root!, 'home-'));
  fs.mkdirSync(path.join(home, '.gemini'));
  fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
  const c = await cliAsync(['connect', 'gemini', agent.name, '--write', ...args, '--data-dir', served.dataDir], {
    env: { HOME: home, PATH: pathWithoutPerch() },
  });
  assert.equal(c.code, 0, c.stderr);
  const settings = JSON.parse(fs.readFileSync(path.join(home, '.gemini', 'settings.json'), 'utf8'));
  assert.equal(settings.security.auth.selectedType, 'gemini-api-key', "the user's own settings stay");
  assert.ok(!JSON.stringify(settings).includes(agent.key), 'the key is not in the file');
  return home;
}

/** `gemini -p … --yolo` in a fresh project dir as the agent: its key only in the environment, perch not on the PATH (checked). */
async function runAs(agent: AgentKey, home: string): Promise<Run> {
  const dir = fs.mkdtempSync(path.join(home, 'project-'));
  const first = model!.requests.length;
  const env = { GOOGLE_GEMINI_BASE_URL: model!.url, [keyEnvVar(agent.name)]: agent.key };
  assertNoPerch({ PATH: pathWithoutPerch(), HOME: home });
  const r = await runGemini(gemini.bin!, ['-p', 'Write the marker file.', '--yolo', '-m', 'gemini-2.5-pro'], { cwd: dir, home, env });
  const requests = model!.requests.slice(first);
  const result = (name: string) => requests.map((q) => geminiFunctionResult(q, name)).find((x) => x !== undefined) ?? '';
  return { ...r, dir, result };
}

async function agentView(a: AgentKey): Promise<any> {
  const { agents } = await ownerOk(served, 'agents.list', {});
  return agents.find((x: any) => x.id === a.id);
}

const whoamiOf = (a: AgentKey) => `mcp_perch-${a.name}_whoami`;

describe(
  'the real Gemini CLI configured by perch connect gemini --write (gemini -p --yolo, command hooks with curl, Perch as MCP server, no perch on its PATH)',
  { skip: gemini.skip },
  () => {
    test("it calls Perch's whoami and its shell command runs (no rule, no --ask: nothing filed); its status is live", async () => {
      const agent = await addAgent(served.dataDir, uniqueName('gm'));
      const home = await configure(agent);
      const run = await runAs(agent, home);
      assert.equal(run.code, 0, run.stderr);
      assert.match(
        run.result(whoamiOf(agent)),
        new RegExp(`\\\\"name\\\\":\\\\"${agent.name}\\\\"`),
        'whoami through Perch answered as this agent',
      );
      assert.ok(fs.existsSync(path.join(run.dir, MARKER)), 'the command ran');
      const v = await agentView(agent);
      assert.equal(v.harness.harness, 'gemini', 'its hooks reported its session');
      assert.equal(v.harness.state, 'ended', 'SessionEnd was the last event');
      const { requests } = await ownerOk(served, 'requests.list', {});
      assert.equal(requests.filter((r: any) => r.requester?.id === agent.id).length, 0, 'nothing was filed');
    });

    test("paused: the shell call is blocked at BeforeTool with Perch's reason, whoami still answers", async () => {
      const agent = await addAgent(served.dataDir, uniqueName('gm'));
      const home = await configure(agent);
      await ownerOk(served, 'agents.pause', { agent: agent.id, reason: 'budget review' });
      const run = await runAs(agent, home);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(fs.existsSync(path.join(run.dir, MARKER)), false, 'the blocked command did not run');
      assert.match(run.result(SHELL), /Paused in Perch \(the owner paused this agent: budget review\)/);
      assert.match(
        run.result(whoamiOf(agent)),
        new RegExp(`\\\\"name\\\\":\\\\"${agent.name}\\\\"`),
        "a paused agent's own Perch whoami runs",
      );
    });

    test('a standing deny rule on the command: it does not run, and Gemini hands the model the rule', async () => {
      const agent = await addAgent(served.dataDir, uniqueName('gm'));
      const home = await configure(agent);
      const { rule } = await ownerOk(served, 'rules.add', { agent: agent.name, tool: SHELL, command_prefix: 'touch', behavior: 'deny' });
      const run = await runAs(agent, home);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(fs.existsSync(path.join(run.dir, MARKER)), false, 'the denied command did not run');
      assert.match(run.result(SHELL), new RegExp(`Denied in Perch by the owner's standing rule ${rule.rule_id}`));
    });

    test('--ask: the shell command is a card in the Approvals inbox; approved, it runs', async () => {
      const agent = await addAgent(served.dataDir, uniqueName('gm'));
      const home = await configure(agent, ['--ask']);
      const running = runAs(agent, home);
      const req = await pendingRequestOf(served, agent, 120_000);
      assert.equal(req.title, `Allow ${SHELL}: ${COMMAND}?`);
      assert.equal(req.context.harness, 'gemini');
      assert.match(req.context.session_id, /^[0-9a-f-]{36}$/, "Gemini's session id");
      await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
      const run = await running;
      assert.equal(run.code, 0, run.stderr);
      assert.equal(req.context.cwd, fs.realpathSync(run.dir));
      assert.ok(fs.existsSync(path.join(run.dir, MARKER)), 'the approved command ran');
    });

    test("--ask: rejected from the inbox, the command does not run and the model gets the owner's comment", async () => {
      const agent = await addAgent(served.dataDir, uniqueName('gm'));
      const home = await configure(agent, ['--ask']);
      const running = runAs(agent, home);
      const req = await pendingRequestOf(served, agent, 120_000);
      await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'reject', comment: 'not in this repo' });
      const run = await running;
      assert.equal(run.code, 0, run.stderr);
      assert.equal(fs.existsSync(path.join(run.dir, MARKER)), false, 'the rejected command did not run');
      assert.match(run.result(SHELL), /Denied by the owner in Perch: not in this repo/);
    });
  },
);
