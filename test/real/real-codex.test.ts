// End to end with the REAL Codex CLI (pinned, installed on demand: test/support/real-harness.ts) against a real
// `perch serve`, configured by `perch connect codex NAME --write` (MCP entry, approval_policy "on-request", hooks that
// post to the hub's harness doors with curl; `perch` is not on Codex's PATH).
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
import { addAgent, eventually, ownerOk, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { assertNoPerch, codex, connectWrite, pathWithoutPerch, withHubStopped } from '../support/real-harness';
import { functionOutputs, startResponsesStandIn, type ResponsesRequest } from '../support/model-standin';
import { keyEnvVar } from '../../src/shared/agents/snippets';
import { endProcesses, processesWithEnv } from '../../scripts/leftovers';

const hasTmux = spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
const cli = codex();
const skip = cli.skip ?? (hasTmux ? undefined : 'tmux is not installed (Codex asks only in its interactive mode)');
if (skip && !cli.skip) console.log(`# real Codex tests skipped: ${skip}`);
const served = useSharedServe();
const SOCKET = `perch-codex-test-${process.pid}`;
const MARKER = 'codex.marker';
/** The flags of most runs: the hook trust dialog skipped, Codex asking before escalations. */
const BYPASS_TRUST = ['--dangerously-bypass-hook-trust', '-a', 'on-request', '-s', 'read-only'];

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
  // Interactive Codex starts `codex app-server` daemons of its own (their own session, re-parented to PID 1): the
  // tmux server's end does not reach them, and left running they recreate the deleted home. Every process that runs
  // with this test's HOME is ended first.
  if (home) await endProcesses(processesWithEnv('HOME', home), 'HOME', home);
  await model?.close();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

function tmux(...args: string[]): string {
  return spawnSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8', timeout: 10_000 }).stdout ?? '';
}

function sq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Codex configured for the stand-in model, then `perch connect codex NAME --write`: its hooks are curl commands. */
async function configure(agent: AgentKey, dataDir: string): Promise<void> {
  fs.rmSync(path.join(home, '.codex'), { recursive: true, force: true });
  fs.mkdirSync(path.join(home, '.codex'), { recursive: true });
  fs.writeFileSync(
    path.join(home, '.codex', 'config.toml'),
    `# the stand-in model\nmodel = "gpt-5.5"\nmodel_provider = "standin"\n\n[model_providers.standin]\nname = "standin"\nbase_url = "${model.url}"\nwire_api = "responses"\nenv_key = "STANDIN_KEY"\n`,
  );
  await connectWrite('codex', agent.name, dataDir, home);
  const hooks = JSON.parse(fs.readFileSync(path.join(home, '.codex', 'hooks.json'), 'utf8'));
  const command = hooks.hooks.PermissionRequest[0].hooks[0].command as string;
  assert.match(
    command,
    /\|\s*curl .* -K - /,
    'perch connect wrote a curl PermissionRequest hook, its header handed over as a config on a pipe',
  );
  assert.doesNotMatch(command, /-H\s*['"]?Authorization/, "the key is not on curl's command line");
  assert.ok(command.includes(`/hook/codex/permission-request?agent=${agent.name}'`), command);
}

/** Starts interactive Codex on a prompt in a tmux window (flags: besides what perch connect wrote); returns the project dir. */
async function startCodex(agent: AgentKey, name: string, flags = BYPASS_TRUST, dataDir = served.dataDir): Promise<string> {
  await configure(agent, dataDir);
  return launch(agent, name, flags);
}

/** Starts interactive Codex, configured already, on a prompt in a tmux window; returns the project dir. */
function launch(agent: AgentKey, name: string, flags: string[]): string {
  const dir = fs.mkdtempSync(path.join(home, 'project-'));
  const env = {
    HOME: home,
    PATH: pathWithoutPerch(),
    STANDIN_KEY: 'dummy',
    [keyEnvVar(agent.name)]: agent.key,
    TERM: 'xterm-256color',
  };
  assertNoPerch(env);
  const cmd = `cd ${sq(dir)} && exec env ${Object.entries(env)
    .map(([k, v]) => `${k}=${sq(v)}`)
    .join(' ')} ${sq(process.execPath)} ${sq(cli.bin!)} ${flags.map(sq).join(' ')} ${sq('Touch the marker file.')}`;
  const r = spawnSync('tmux', ['-L', SOCKET, 'new-session', '-d', '-s', name, '-x', '200', '-y', '50', cmd], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return dir;
}

/** Codex's terminal now, its first-run dialogs (the model notice, the hook trust) answered on the way. */
function paneOf(session: string): string {
  const pane = tmux('capture-pane', '-p', '-t', session);
  if (/Use existing model/.test(pane)) tmux('send-keys', '-t', session, 'Down', 'Enter');
  else if (/Hooks need review[\s\S]*2\. Trust all and continue/.test(pane)) tmux('send-keys', '-t', session, 'Down', 'Enter');
  return pane;
}

/** The output Codex sent the model for the scripted call (after request index FROM) in SESSION. */
async function callOutput(from: number, session: string): Promise<any> {
  let output: any;
  await eventually(
    () => {
      paneOf(session);
      output = model.requests
        .slice(from)
        .flatMap(functionOutputs)
        .find((o) => o.call_id === 'call_touch');
      return !!output;
    },
    60_000,
    "Codex to send the call's output to the model",
  );
  return output;
}

/** The agent's pending request, answering Codex's first-run dialogs on the way (the hook trust, the model notice). */
async function pendingOf(agent: AgentKey, session: string): Promise<any> {
  let found: any;
  await eventually(
    async () => {
      paneOf(session);
      const { requests } = await ownerOk(served, 'requests.list', { state: 'pending' });
      found = requests.find((x: any) => x.requester?.id === agent.id);
      return !!found;
    },
    120_000,
    `Codex's prompt as a Perch request of ${agent.name}`,
  );
  return found;
}

describe(
  'the real Codex asks Perch at its permission prompt (interactive, the curl hooks and MCP entry from perch connect, no perch on its PATH)',
  { skip },
  () => {
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
      const output = await callOutput(before, 'reject');
      assert.equal(fs.existsSync(path.join(dir, MARKER)), false, 'the rejected command did not run');
      assert.match(String(output.output), /Rejected\(.*Denied by the owner in Perch: not here/);
    });

    test("a paused agent's command is blocked by the PreToolUse hook with the pause reason: it does not run, nothing is filed", async () => {
      const agent = await addAgent(served.dataDir, uniqueName('cx'));
      await ownerOk(served, 'agents.pause', { agent: agent.id, reason: 'stop touching files' });
      const before = model.requests.length;
      const dir = await startCodex(agent, 'paused');
      const output = await callOutput(before, 'paused');
      assert.equal(fs.existsSync(path.join(dir, MARKER)), false, "the paused agent's command did not run");
      assert.match(
        String(output.output),
        /^Command blocked by PreToolUse hook: Paused in Perch \(the owner paused this agent: stop touching files\)/,
      );
      const { requests } = await ownerOk(served, 'requests.list', {});
      assert.equal(requests.filter((r: any) => r.requester?.id === agent.id).length, 0, 'no prompt was filed');
    });

    test('no decision from the owner in time: Codex shows the line naming the card and why, then asks in its own dialog; nobody approved, the command does not run', async () => {
      const agent = await addAgent(served.dataDir, uniqueName('cx'));
      await configure(agent, served.dataDir);
      // The door waits 2 s instead of its 540 (the URL's ?timeout=, as `perch hook --timeout` sends it).
      const file = path.join(home, '.codex', 'hooks.json');
      const written = fs.readFileSync(file, 'utf8');
      const shortened = written.replace(
        `/hook/codex/permission-request?agent=${agent.name}'`,
        `/hook/codex/permission-request?agent=${agent.name}&timeout=2'`,
      );
      assert.notEqual(shortened, written, 'the hook URL was found');
      fs.writeFileSync(file, shortened);
      const dir = launch(agent, 'undecided', BYPASS_TRUST);
      let pane = '';
      await eventually(
        () => {
          pane = paneOf('undecided');
          return /Yes, proceed/.test(pane);
        },
        120_000,
        "Codex's own approval dialog",
      );
      assert.match(
        pane.replace(/\s+/g, ' '),
        /Perch: no decision on "Allow Bash: touch codex\.marker\?": no decision within 2 s; the terminal dialog decides/,
        pane,
      );
      assert.equal(fs.existsSync(path.join(dir, MARKER)), false, 'nobody approved: the command did not run');
      const mine = (await ownerOk(served, 'requests.list', {})).requests.filter((r: any) => r.requester?.id === agent.id);
      assert.equal(mine.length, 1);
      assert.equal(mine[0].state, 'cancelled', 'the card was withdrawn');
    });

    test("with the hub stopped, the curl hooks fail without blocking (Codex shows 'Hook failed') and Codex asks in its own dialog; nobody approved, the command does not run", async () => {
      await withHubStopped('cxdown', configure, async (agent) => {
        const dir = launch(agent, 'down', BYPASS_TRUST);
        let pane = '';
        await eventually(
          () => {
            pane = paneOf('down');
            return /touch codex\.marker/.test(pane) && /Yes, proceed/.test(pane);
          },
          60_000,
          "Codex's own approval dialog",
        );
        assert.match(pane, /Hook failed/, 'the failed curl hook is shown, not waited on');
        assert.equal(fs.existsSync(path.join(dir, MARKER)), false, 'nobody approved: the command did not run');
      });
    });
  },
);
