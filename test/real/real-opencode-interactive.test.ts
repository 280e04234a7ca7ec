// The real OpenCode 1.18.33 in its terminal interface (`opencode DIR --prompt …`, in a detached tmux session), as
// `perch connect opencode NAME --write` configured it (test/real/real-opencode.test.ts runs `opencode run`, which
// rejects every permission prompt itself). The user's own OpenCode config marks bash as "ask"
// ("permission": {"bash": "ask"}), so OpenCode asks before the command runs: its prompt is a Perch card (the plugin
// posts the permission.asked event to the hub's door), and the owner's decision in Perch is the plugin's reply to
// OpenCode's prompt through OpenCode's SDK client: approved, the command runs; rejected, it does not.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { addAgent, ensureBuilt, eventually, ownerOk, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { pendingRequestOf } from '../support/hook-runner';
import { assertNoPerch, connectWrite, openCode, pathWithoutPerch } from '../support/real-harness';
import { chatToolNames, chatToolResult, startChatStandIn } from '../support/model-standin';
import { keyEnvVar } from '../../src/shared/agents/snippets';
import { endProcesses, processesWithEnv } from '../../scripts/leftovers';

const served = useSharedServe();
const opencode = openCode();
const hasTmux = spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
const skip = opencode.skip ?? (hasTmux ? undefined : 'tmux is not installed (the interactive OpenCode runs in it)');
const SOCKET = `perch-opencode-${process.pid}`;
const MARKER = 'perch-opencode.marker';

let model: Awaited<ReturnType<typeof startChatStandIn>> | undefined;
let root = '';
/** The HOMEs the sessions run with: every process still running with one is ended after. */
const homes: string[] = [];
before(async () => {
  if (skip) return;
  ensureBuilt();
  model = await startChatStandIn((req) => {
    // OpenCode's title request offers no tools: a title.
    if (!chatToolNames(req).includes('bash')) return { type: 'text', text: 'Marker file' };
    const r = chatToolResult(req, 'call_bash');
    if (r === undefined)
      return {
        type: 'tool_call',
        id: 'call_bash',
        name: 'bash',
        arguments: { command: `touch ${MARKER}`, description: 'Write the marker' },
      };
    return { type: 'text', text: `bash said: ${r}` };
  });
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-opencode-tmux-'));
});
after(async () => {
  if (skip) return;
  spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
  for (const home of homes) await endProcesses(processesWithEnv('HOME', home), 'HOME', home);
  await model?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A fresh HOME (the stand-in as model, bash marked "ask"), perch connect opencode NAME --write, `opencode DIR --prompt` in tmux. */
async function start(agent: AgentKey, name: string): Promise<string> {
  const home = path.join(root, name);
  const dir = path.join(home, 'project');
  fs.mkdirSync(dir, { recursive: true });
  fs.mkdirSync(path.join(home, '.config', 'opencode'), { recursive: true });
  homes.push(home);
  const provider = {
    standin: {
      npm: '@ai-sdk/openai-compatible',
      name: 'Stand-in',
      options: { baseURL: model!.url, apiKey: 'dummy' },
      models: { m1: { name: 'm1' } },
    },
  };
  fs.writeFileSync(
    path.join(home, '.config', 'opencode', 'opencode.json'),
    JSON.stringify({ provider, model: 'standin/m1', permission: { bash: 'ask' } }, null, 2),
  );
  await connectWrite('opencode', agent.name, served.dataDir, home);
  const env: Record<string, string> = {
    PATH: pathWithoutPerch(),
    HOME: home,
    TERM: 'xterm-256color',
    OPENCODE_DISABLE_MODELS_FETCH: 'true',
    OPENCODE_DISABLE_AUTOUPDATE: 'true',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: 'true',
    [keyEnvVar(agent.name)]: agent.key,
  };
  assertNoPerch(env);
  const cmd = `cd ${sq(dir)} && exec env -i ${Object.entries(env)
    .map(([k, v]) => `${k}=${sq(v)}`)
    .join(' ')} ${sq(opencode.bin!)} ${sq(dir)} --prompt ${sq('Write the marker file.')}`;
  const r = spawnSync('tmux', ['-L', SOCKET, 'new-session', '-d', '-s', name, '-x', '200', '-y', '50', cmd], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return dir;
}

/** The card OpenCode's prompt was filed as (its terminal interface may take a minute to start here); failing, with what the terminal shows. */
async function cardOf(agent: AgentKey, name: string): Promise<any> {
  try {
    return await pendingRequestOf(served, agent, 240_000);
  } catch (e) {
    const pane = spawnSync('tmux', ['-L', SOCKET, 'capture-pane', '-p', '-t', name], { encoding: 'utf8' }).stdout;
    throw new Error(`${(e as Error).message}\nthe terminal shows:\n${pane}`);
  }
}

async function agentView(a: AgentKey): Promise<any> {
  const { agents } = await ownerOk(served, 'agents.list', {});
  return agents.find((x: any) => x.id === a.id);
}

describe('the real OpenCode in its terminal interface, configured by perch connect opencode --write, bash marked "ask"', { skip }, () => {
  test('its bash permission prompt is a Perch card; the owner approves in Perch and OpenCode runs the command', async () => {
    const agent = await addAgent(served.dataDir, uniqueName('oci'));
    const dir = await start(agent, 'approve');
    const req = await cardOf(agent, 'approve');
    assert.equal(req.title, `Allow bash: touch ${MARKER}?`);
    assert.equal(req.context.harness, 'opencode');
    assert.equal(req.context.cwd, dir);
    assert.equal(fs.existsSync(path.join(dir, MARKER)), false, 'not before the answer');
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
    await eventually(() => fs.existsSync(path.join(dir, MARKER)), 60_000, 'the approved command ran');
  });

  test("the owner rejects in Perch: OpenCode's prompt is answered with the rejection, the command does not run and the turn ends", async () => {
    const agent = await addAgent(served.dataDir, uniqueName('oci'));
    const dir = await start(agent, 'reject');
    const req = await cardOf(agent, 'reject');
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'reject', comment: 'not here' });
    // OpenCode ends the turn on a rejected prompt (no further model request): its session.idle is the sign.
    await eventually(async () => (await agentView(agent)).harness?.state === 'turn_ended', 120_000, "OpenCode's turn ended");
    assert.equal(fs.existsSync(path.join(dir, MARKER)), false, 'the rejected command did not run');
    // The session.idle that reaches Perch may come before the terminal redraws (CI once read the dialog still drawn):
    // the dialog must go within 20 s; if it stays, the pane is printed.
    const pane = () => spawnSync('tmux', ['-L', SOCKET, 'capture-pane', '-p', '-t', 'reject'], { encoding: 'utf8' }).stdout;
    let last = '';
    await eventually(() => !/Permission required/.test((last = pane())), 20_000, "OpenCode's own dialog to be answered").catch((e) =>
      assert.fail(`${e.message}; its terminal:\n${last}`),
    );
  });
});
