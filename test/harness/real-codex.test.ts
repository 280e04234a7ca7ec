// End to end with the REAL Codex CLI (pinned, installed on demand: test/support/real-harness.ts) against a real
// `perch serve`, configured by `perch connect codex NAME --write` (MCP entry, approval_policy "on-request", hooks).
// The model is a scripted stand-in for the Responses API on 127.0.0.1 (test/support/model-standin.ts) that asks to run
// `touch codex.marker` with escalated permissions. `codex exec` never asks (its approval policy is forced to
// never), so Codex runs interactively in a detached tmux session: its permission prompt is a Perch request;
// approve runs the command, reject does not. One run is plain `codex` with only what perch connect wrote, its
// two first-run dialogs (hook trust, model notice) answered in the terminal; the others bypass the hook trust.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, addAgent, cliAsync, eventually, ownerOk, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { codex } from '../support/real-harness';
import { functionOutputs, startResponsesStandIn, type ResponsesRequest } from '../support/model-standin';
import { keyEnvVar } from '../../src/shared/agents/snippets';

const hasTmux = spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
const cli = codex();
const skip = cli.skip ?? (hasTmux ? undefined : 'tmux is not installed (Codex asks only in its interactive mode)');
if (skip && !cli.skip) console.log(`# real Codex tests skipped: ${skip}`);
const served = useSharedServe();
const SOCKET = `perch-codex-test-${process.pid}`;
const MARKER = 'codex.marker';

let model: Awaited<ReturnType<typeof startResponsesStandIn>>;
let home: string;

before(async () => {
  if (skip) return;
  model = await startResponsesStandIn((req: ResponsesRequest) => {
    // Only the turn that offers exec_command is scripted; other requests (titles, summaries) get a text.
    if (!req.tools?.some((t) => t.name === 'exec_command')) return { type: 'message', text: 'ok' };
    if (functionOutputs(req).length) return { type: 'message', text: 'done' };
    return {
      type: 'function_call',
      call_id: 'call_touch',
      name: 'exec_command',
      arguments: { cmd: `touch ${MARKER}`, sandbox_permissions: 'require_escalated', justification: 'Write the marker file' },
    };
  });
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-codex-home-'));
});

after(async () => {
  if (skip) return;
  spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
  await model?.close();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

function tmux(...args: string[]): string {
  return spawnSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8', timeout: 10_000 }).stdout ?? '';
}

function sq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Codex configured for the stand-in model, then `perch connect codex NAME --write`; `perch` on the PATH. */
async function configure(agent: AgentKey): Promise<string> {
  fs.rmSync(path.join(home, '.codex'), { recursive: true, force: true });
  fs.mkdirSync(path.join(home, '.codex'), { recursive: true });
  fs.writeFileSync(
    path.join(home, '.codex', 'config.toml'),
    `# the stand-in model\nmodel = "gpt-5.5"\nmodel_provider = "standin"\n\n[model_providers.standin]\nname = "standin"\nbase_url = "${model.url}"\nwire_api = "responses"\nenv_key = "STANDIN_KEY"\n`,
  );
  const r = await cliAsync(['connect', 'codex', agent.name, '--write', '--data-dir', served.dataDir], { env: { HOME: home } });
  assert.equal(r.code, 0, r.stderr);
  const binDir = path.join(home, 'bin');
  fs.mkdirSync(binDir, { recursive: true });
  fs.writeFileSync(path.join(binDir, 'perch'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
  return binDir;
}

/** Starts interactive Codex on a prompt in a tmux window (flags: besides what perch connect wrote); returns the project dir. */
async function startCodex(
  agent: AgentKey,
  name: string,
  flags = ['--dangerously-bypass-hook-trust', '-a', 'on-request', '-s', 'read-only'],
): Promise<string> {
  const binDir = await configure(agent);
  const dir = fs.mkdtempSync(path.join(home, 'project-'));
  const env = {
    HOME: home,
    PATH: `${binDir}:${process.env.PATH}`,
    STANDIN_KEY: 'dummy',
    [keyEnvVar(agent.name)]: agent.key,
    TERM: 'xterm-256color',
  };
  const cmd = `cd ${sq(dir)} && exec env ${Object.entries(env)
    .map(([k, v]) => `${k}=${sq(v)}`)
    .join(' ')} ${sq(process.execPath)} ${sq(cli.bin!)} ${flags.map(sq).join(' ')} ${sq('Touch the marker file.')}`;
  const r = spawnSync('tmux', ['-L', SOCKET, 'new-session', '-d', '-s', name, '-x', '200', '-y', '50', cmd], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return dir;
}

/** The agent's pending request, answering Codex's first-run dialogs on the way (the hook trust, the model notice). */
async function pendingOf(agent: AgentKey, session: string): Promise<any> {
  let found: any;
  await eventually(
    async () => {
      const pane = tmux('capture-pane', '-p', '-t', session);
      if (/Use existing model/.test(pane)) tmux('send-keys', '-t', session, 'Down', 'Enter');
      else if (/Hooks need review[\s\S]*2\. Trust all and continue/.test(pane)) tmux('send-keys', '-t', session, 'Down', 'Enter');
      const { requests } = await ownerOk(served, 'requests.list', { state: 'pending' });
      found = requests.find((x: any) => x.requester?.id === agent.id);
      return !!found;
    },
    120_000,
    `Codex's prompt as a Perch request of ${agent.name}`,
  );
  return found;
}

describe('the real Codex asks Perch at its permission prompt (interactive, hooks.json and MCP entry from perch connect)', { skip }, () => {
  test('the escalation prompt is a Perch request from Codex; the owner approves and the command runs', async () => {
    const agent = await addAgent(served.dataDir, uniqueName('cx'));
    const dir = await startCodex(agent, 'approve');
    const req = await pendingOf(agent, 'approve');
    assert.equal(req.title, `Allow Bash: touch ${MARKER}?`);
    assert.equal(req.context.harness, 'codex');
    assert.equal(req.context.tool_name, 'Bash');
    assert.equal(req.context.cwd, fs.realpathSync(dir));
    assert.match(req.context.preview, /Write the marker file/);
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
    await eventually(() => fs.existsSync(path.join(dir, MARKER)), 60_000, 'the approved command to run');
  });

  test('with only what perch connect wrote (plain `codex`, no flags: its approval_policy "on-request"; the two first-run dialogs answered), the prompt reaches Perch', async () => {
    const agent = await addAgent(served.dataDir, uniqueName('cx'));
    const dir = await startCodex(agent, 'connect-only', []);
    const req = await pendingOf(agent, 'connect-only');
    assert.equal(req.title, `Allow Bash: touch ${MARKER}?`);
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
    await eventually(() => fs.existsSync(path.join(dir, MARKER)), 60_000, 'the approved command to run');
  });

  test("the owner rejects: the command does not run and Codex hands the owner's denial to the model", async () => {
    const agent = await addAgent(served.dataDir, uniqueName('cx'));
    const before = model.requests.length;
    const dir = await startCodex(agent, 'reject');
    const req = await pendingOf(agent, 'reject');
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'reject', comment: 'not here' });
    let output: any;
    await eventually(
      () => {
        output = model.requests
          .slice(before)
          .flatMap(functionOutputs)
          .find((o) => o.call_id === 'call_touch');
        return !!output;
      },
      60_000,
      "Codex to send the call's output to the model",
    );
    assert.equal(fs.existsSync(path.join(dir, MARKER)), false, 'the rejected command did not run');
    assert.match(String(output.output), /Rejected\(.*Denied by the owner in Perch: not here/);
  });
});
