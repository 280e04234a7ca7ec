// End to end with the REAL GitHub Copilot CLI (pinned, installed on demand: test/support/real-harness.ts) against a
// real `perch serve`. The model is a scripted stand-in for the OpenAI Chat Completions API on 127.0.0.1
// (test/support/model-standin.ts) that makes Copilot call Perch's whoami and then run `touch perch-approved.marker`
// with its bash tool. Copilot runs offline (COPILOT_OFFLINE, no GitHub login) and is configured only by the real
// `perch connect copilot NAME --write` (HOME a temp dir, the key in PERCH_KEY_NAME in its environment,
// COPILOT_HOOK_ALLOW_LOCALHOST=1 as the guide says, `perch` not on its PATH): Perch as its MCP server in
// ~/.copilot/mcp-config.json and its HTTP hooks in ~/.copilot/hooks/perch.json posting to the hub's doors. In
// `copilot -p` there is no terminal dialog, so the permissionRequest hook is what decides the bash call: the owner's
// approve runs it, a reject does not; a paused agent's bash call is blocked at preToolUse with Perch's reason.
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
import { assertNoPerch, connectWrite, copilotCli, pathWithoutPerch, runCopilot, withHubStopped } from '../support/real-harness';
import { chatToolNames, chatToolResult, startChatStandIn, type ChatReply, type ChatRequest } from '../support/model-standin';
import { keyEnvVar } from '../../src/shared/agents/snippets';

const served = useSharedServe();
const copilot = copilotCli();
const COMMAND = 'touch perch-approved.marker';
const MARKER = 'perch-approved.marker';

/** whoami through Perch's MCP server (perch-NAME-whoami, as Copilot names it), then bash, then a closing text. */
function script(req: ChatRequest): ChatReply {
  const whoami = chatToolNames(req).find((n) => /^perch-.+-whoami$/.test(n));
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
  if (copilot.skip) return;
  ensureBuilt();
  model = await startChatStandIn(script);
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-copilot-home-'));
});
after(async () => {
  await model?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

interface Run extends CliResult {
  dir: string;
  requests: ChatRequest[];
  /** What Copilot sent back to the model for a tool call ('' when it sent nothing). */
  result(id: string): string;
}

/** A fresh HOME configured by `perch connect copilot NAME --write` (nothing else written there). */
async function configure(agent: AgentKey, dataDir = served.dataDir): Promise<string> {
  const home = fs.mkdtempSync(path.join(root!, 'home-'));
  await connectWrite('copilot', agent.name, dataDir, home);
  const hooks = JSON.parse(fs.readFileSync(path.join(home, '.copilot', 'hooks', 'perch.json'), 'utf8'));
  assert.equal(hooks.hooks.permissionRequest[0].type, 'command', 'perch connect wrote a command permissionRequest hook');
  return home;
}

/** `copilot -p` in a fresh project dir as the agent: its key only in the environment, perch not on the PATH (checked). */
async function runAs(
  agent: AgentKey,
  home: string,
  opts: { dir?: string; env?: Record<string, string>; args?: string[] } = {},
): Promise<Run> {
  const dir = opts.dir ?? fs.mkdtempSync(path.join(home, 'project-'));
  const first = model!.requests.length;
  const env = { COPILOT_PROVIDER_BASE_URL: model!.url, [keyEnvVar(agent.name)]: agent.key, ...opts.env };
  assertNoPerch({ PATH: pathWithoutPerch(), HOME: home });
  const r = await runCopilot(copilot.bin!, ['-p', 'Write the marker file.', ...(opts.args ?? [])], { cwd: dir, home, env });
  const requests = model!.requests.slice(first);
  const result = (id: string) => requests.map((q) => chatToolResult(q, id)).find((x) => x !== undefined) ?? '';
  return { ...r, dir, requests, result };
}

async function agentView(a: AgentKey): Promise<any> {
  const { agents } = await ownerOk(served, 'agents.list', {});
  return agents.find((x: any) => x.id === a.id);
}

describe(
  'the real GitHub Copilot CLI configured by perch connect copilot --write asks Perch at its permission prompt (copilot -p, HTTP hooks, Perch as MCP server, no perch on its PATH)',
  { skip: copilot.skip },
  () => {
    test("it calls Perch's whoami; its bash permission prompt is a Perch request; the owner approves and the command runs; its status is live", async () => {
      const agent = await addAgent(served.dataDir, uniqueName('cp'));
      const home = await configure(agent);
      const running = runAs(agent, home);
      const req = await pendingRequestOf(served, agent, 120_000);
      assert.equal(req.kind, 'approve');
      assert.equal(req.title, `Allow bash: ${COMMAND}?`);
      assert.equal(req.context.source, 'permission_prompt');
      assert.equal(req.context.harness, 'copilot');
      assert.equal(req.context.tool_name, 'bash');
      assert.match(req.context.session_id, /^[0-9a-f-]{36}$/, "Copilot's session id");
      assert.match(req.context.preview, /touch perch-approved\.marker/);
      await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
      const run = await running;
      assert.equal(run.code, 0, run.stderr);
      assert.equal(req.context.cwd, fs.realpathSync(run.dir));
      assert.match(run.result('call_whoami'), new RegExp(`"name":"${agent.name}"`), 'whoami through Perch answered as this agent');
      assert.ok(fs.existsSync(path.join(run.dir, MARKER)), 'the approved command ran');
      const v = await agentView(agent);
      assert.equal(v.harness.harness, 'copilot', 'its hooks reported its session');
      assert.equal(v.harness.state, 'ended', 'sessionEnd was the last event');
    });

    test("the owner rejects: the command does not run and Copilot hands the model the owner's comment", async () => {
      const agent = await addAgent(served.dataDir, uniqueName('cp'));
      const home = await configure(agent);
      const running = runAs(agent, home);
      const req = await pendingRequestOf(served, agent, 120_000);
      await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'reject', comment: 'not in this repo' });
      const run = await running;
      assert.equal(run.code, 0, run.stderr);
      assert.equal(fs.existsSync(path.join(run.dir, MARKER)), false, 'the rejected command did not run');
      assert.match(run.result('call_bash'), /Denied by the owner in Perch: not in this repo/);
    });

    test("paused: the bash call is blocked at preToolUse with Perch's reason, nothing is filed, whoami still answers", async () => {
      const agent = await addAgent(served.dataDir, uniqueName('cp'));
      const home = await configure(agent);
      await ownerOk(served, 'agents.pause', { agent: agent.id, reason: 'budget review' });
      const run = await runAs(agent, home);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(fs.existsSync(path.join(run.dir, MARKER)), false, 'the blocked command did not run');
      assert.match(run.result('call_bash'), /Paused in Perch \(the owner paused this agent: budget review\)/);
      assert.match(run.result('call_whoami'), new RegExp(`"name":"${agent.name}"`), "a paused agent's own Perch whoami runs");
      const { requests } = await ownerOk(served, 'requests.list', {});
      assert.equal(requests.filter((r: any) => r.requester?.id === agent.id).length, 0, 'nothing was filed');
    });

    test('--project DIR: once the folder is trusted, Copilot started in DIR reads DIR/.github/mcp.json and DIR/.github/hooks/perch.json (nothing at the user scope): whoami answers and the approved command runs; untrusted, neither is read', async () => {
      const agent = await addAgent(served.dataDir, uniqueName('cp'));
      const home = fs.mkdtempSync(path.join(root!, 'home-'));
      const repo = fs.mkdtempSync(path.join(root!, 'repo-'));
      const c = await cliAsync(['connect', 'copilot', agent.name, '--project', repo, '--write', '--data-dir', served.dataDir], {
        env: { HOME: home, PATH: pathWithoutPerch() },
      });
      assert.equal(c.code, 0, c.stderr);
      assert.deepEqual(fs.readdirSync(home), [], 'nothing at the user scope');
      // Copilot reads a repository's files only in a folder its user trusted: untrusted, nothing of them runs.
      const untrusted = await runAs(agent, home, { dir: repo });
      assert.equal(untrusted.code, 0, untrusted.stderr);
      assert.equal(untrusted.result('call_whoami'), '', 'no Perch tools were offered');
      assert.equal(fs.existsSync(path.join(repo, MARKER)), false);
      assert.equal((await agentView(agent)).harness, null, 'no hook reached the hub');
      // The user's answer to Copilot's folder-trust prompt, as Copilot keeps it.
      // (The config.json Copilot wrote in the first run, JSON with comments, is written anew: this HOME is the test's.)
      fs.writeFileSync(path.join(home, '.copilot', 'config.json'), JSON.stringify({ trusted_folders: [repo] }));
      const running = runAs(agent, home, { dir: repo });
      const req = await pendingRequestOf(served, agent, 120_000);
      assert.equal(req.title, `Allow bash: ${COMMAND}?`);
      await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
      const run = await running;
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.result('call_whoami'), new RegExp(`"name":"${agent.name}"`));
      assert.ok(fs.existsSync(path.join(repo, MARKER)), 'the approved command ran');
    });

    test("without COPILOT_HOOK_ALLOW_LOCALHOST=1 Copilot runs none of the plain-http status hooks, while the two command hooks (permissionRequest, preToolUse) still ask Perch: the owner's approve runs the command", async () => {
      const agent = await addAgent(served.dataDir, uniqueName('cp'));
      const home = await configure(agent);
      const running = runAs(agent, home, { env: { COPILOT_HOOK_ALLOW_LOCALHOST: '0' } });
      const req = await pendingRequestOf(served, agent, 120_000);
      assert.equal(req.title, `Allow bash: ${COMMAND}?`);
      await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
      const run = await running;
      assert.equal(run.code, 0, run.stderr);
      assert.ok(fs.existsSync(path.join(run.dir, MARKER)), 'the approved command ran');
      const v = await agentView(agent);
      assert.notEqual(v.harness?.state, 'ended', 'sessionEnd (an HTTP hook) did not reach the hub');
    });

    test("with the hub stopped Copilot carries on without Perch: its preToolUse hook lets the call through (the command runs where Copilot's own rules allow it), and its permission prompt falls to Copilot's own flow (copilot -p refuses for want of a user)", async () => {
      let home = '';
      await withHubStopped(
        'cpdown',
        async (agent, dataDir) => {
          home = await configure(agent, dataDir);
        },
        async (agent) => {
          const allowed = await runAs(agent, home, { args: ['--allow-tool', 'shell(touch)'] });
          assert.equal(allowed.code, 0, allowed.stderr);
          assert.ok(fs.existsSync(path.join(allowed.dir, MARKER)), `the command ran: ${allowed.result('call_bash')}`);
          const asked = await runAs(agent, home);
          assert.equal(asked.code, 0, asked.stderr);
          assert.equal(fs.existsSync(path.join(asked.dir, MARKER)), false, 'nobody allowed it');
          assert.match(asked.result('call_bash'), /no interactive user response was available/);
        },
      );
    });

    test("no decision in time: the card is withdrawn and Copilot's own flow decides (copilot -p refuses for want of a user); the door's wait shortened to 2 s in the written hook's URL", async () => {
      const agent = await addAgent(served.dataDir, uniqueName('cp'));
      const home = await configure(agent);
      const file = path.join(home, '.copilot', 'hooks', 'perch.json');
      const hooks = JSON.parse(fs.readFileSync(file, 'utf8'));
      hooks.hooks.permissionRequest[0].bash = hooks.hooks.permissionRequest[0].bash.replace('?agent=', '?timeout=2&agent=');
      fs.writeFileSync(file, JSON.stringify(hooks));
      const run = await runAs(agent, home);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(fs.existsSync(path.join(run.dir, MARKER)), false);
      assert.match(run.result('call_bash'), /no interactive user response was available/);
      const { requests } = await ownerOk(served, 'requests.list', {});
      assert.deepEqual(
        requests.filter((r: any) => r.requester?.id === agent.id).map((r: any) => [r.title, r.state]),
        [[`Allow bash: ${COMMAND}?`, 'cancelled']],
      );
    });
  },
);
