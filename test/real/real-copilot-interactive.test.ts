// The real GitHub Copilot CLI 1.0.102 in its interactive mode (`copilot -i PROMPT`, in a detached tmux session), as
// `perch connect copilot NAME --write` configured it (test/real/real-copilot.test.ts runs `copilot -p`): its bash
// permission prompt is a Perch card, and the owner's approve answers the live session, whose own dialog never shows;
// with no decision in time the card is withdrawn and Copilot's own dialog ("Do you want to run this command?") asks in
// the terminal, its notification hook making the agent "waiting for you" in Perch, and the answer there runs it. The
// folder is trusted beforehand in ~/.copilot/config.json, as the user's answer to Copilot's folder-trust prompt.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { addAgent, ensureBuilt, eventually, ownerOk, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { pendingRequestOf } from '../support/hook-runner';
import { assertNoPerch, connectWrite, copilotCli, pathWithoutPerch } from '../support/real-harness';
import { chatToolResult, startChatStandIn } from '../support/model-standin';
import { keyEnvVar } from '../../src/shared/agents/snippets';
import { endProcesses, processesWithEnv } from '../../scripts/leftovers';

const served = useSharedServe();
const copilot = copilotCli();
const hasTmux = spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
const skip = copilot.skip ?? (hasTmux ? undefined : 'tmux is not installed (the interactive Copilot runs in it)');
const SOCKET = `perch-copilot-${process.pid}`;
const MARKER = 'perch-approved.marker';

let model: Awaited<ReturnType<typeof startChatStandIn>> | undefined;
let root = '';
/** The HOMEs the sessions run with: every process still running with one is ended after (Copilot outlives tmux). */
const homes: string[] = [];
before(async () => {
  if (skip) return;
  ensureBuilt();
  model = await startChatStandIn((req) => {
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
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-copilot-tmux-'));
});
after(async () => {
  if (skip) return;
  spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
  for (const home of homes) await endProcesses(processesWithEnv('HOME', home), 'HOME', home);
  await model?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

function tmux(...args: string[]): string {
  return spawnSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8', timeout: 10_000 }).stdout ?? '';
}
const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** perch connect copilot NAME --write into a fresh HOME (under root), the project trusted; `copilot -i` started in tmux. */
async function start(agent: AgentKey, name: string, tweak?: (hooks: any) => void): Promise<string> {
  const home = path.join(root, name);
  const dir = path.join(home, 'project');
  fs.mkdirSync(dir, { recursive: true });
  homes.push(home);
  await connectWrite('copilot', agent.name, served.dataDir, home);
  if (tweak) {
    const file = path.join(home, '.copilot', 'hooks', 'perch.json');
    const hooks = JSON.parse(fs.readFileSync(file, 'utf8'));
    tweak(hooks);
    fs.writeFileSync(file, JSON.stringify(hooks));
  }
  fs.writeFileSync(path.join(home, '.copilot', 'config.json'), JSON.stringify({ trusted_folders: [dir] }));
  const bin = copilot.bin!;
  const env: Record<string, string> = {
    PATH: pathWithoutPerch(),
    HOME: home,
    TERM: 'xterm-256color',
    XDG_CACHE_HOME: path.join(bin.slice(0, bin.lastIndexOf(`${path.sep}node_modules${path.sep}`)), 'xdg-cache'),
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: model!.url,
    COPILOT_PROVIDER_API_KEY: 'dummy',
    COPILOT_MODEL: 'gpt-4.1',
    COPILOT_HOOK_ALLOW_LOCALHOST: '1',
    [keyEnvVar(agent.name)]: agent.key,
  };
  assertNoPerch(env);
  const cmd = `cd ${sq(dir)} && exec env -i ${Object.entries(env)
    .map(([k, v]) => `${k}=${sq(v)}`)
    .join(' ')} ${sq(bin)} -i ${sq('Write the marker file.')}`;
  const r = spawnSync('tmux', ['-L', SOCKET, 'new-session', '-d', '-s', name, '-x', '200', '-y', '50', cmd], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return dir;
}

async function agentView(a: AgentKey): Promise<any> {
  const { agents } = await ownerOk(served, 'agents.list', {});
  return agents.find((x: any) => x.id === a.id);
}

describe('the real GitHub Copilot CLI in its interactive mode, configured by perch connect copilot --write', { skip }, () => {
  test('its bash prompt is a Perch card; the owner approves in Perch and the live session runs the command, its own dialog never shown', async () => {
    const agent = await addAgent(served.dataDir, uniqueName('cpi'));
    const dir = await start(agent, 'approve');
    const req = await pendingRequestOf(served, agent, 120_000);
    assert.equal(req.title, `Allow bash: touch ${MARKER}?`);
    assert.doesNotMatch(
      tmux('capture-pane', '-p', '-t', 'approve'),
      /Do you want to run this command\?/,
      'Copilot waits for the hook, no dialog',
    );
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
    await eventually(() => fs.existsSync(path.join(dir, MARKER)), 60_000, 'the approved command ran');
  });

  test("no decision in time (the door's wait shortened to 2 s): the card is withdrawn, Copilot's own dialog asks in the terminal, Perch shows the agent waiting, and the answer there runs the command", async () => {
    const agent = await addAgent(served.dataDir, uniqueName('cpi'));
    const dir = await start(agent, 'own', (hooks) => {
      hooks.hooks.permissionRequest[0].bash = hooks.hooks.permissionRequest[0].bash.replace('?agent=', '?timeout=2&agent=');
    });
    const req = await pendingRequestOf(served, agent, 120_000);
    await eventually(
      () => /Do you want to run this command\?/.test(tmux('capture-pane', '-p', '-t', 'own')),
      60_000,
      "Copilot's own dialog",
    );
    const { requests } = await ownerOk(served, 'requests.list', {});
    assert.equal(requests.find((r: any) => r.request_id === req.request_id).state, 'cancelled');
    await eventually(async () => (await agentView(agent)).harness?.state === 'waiting', 30_000, 'the notification hook: waiting for you');
    assert.equal((await agentView(agent)).harness.message, `Run command: touch ${MARKER}`);
    assert.equal(fs.existsSync(path.join(dir, MARKER)), false, 'not before the answer');
    tmux('send-keys', '-t', 'own', 'Enter'); // 1. Yes
    await eventually(() => fs.existsSync(path.join(dir, MARKER)), 60_000, 'the command the terminal allowed ran');
  });
});
