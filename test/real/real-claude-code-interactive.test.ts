// The real Claude Code 2.1.332 in its interactive auto mode (`claude --permission-mode auto PROMPT`, in a detached tmux
// session), as `perch connect claude-code NAME --write` configured it, its model the stand-in (a model endpoint that
// does not pass auto mode's server-side safety check through, as offline or behind a gateway). What happens, checked
// here: its requests never ask for the check; Claude Code first asks in its terminal whether to stay in auto mode
// ("Auto mode can't check actions in this session"), then asks about the action itself ("Auto mode can't check
// actions in this session, so this one needs your approval", defaulting to No). No PermissionRequest hook is asked
// for it (in the 2.1.332 bundle that question is marked for a person only, and the interactive ask skips the hooks
// for such questions), so no card is filed: Perch shows the agent waiting for you (its Notification hook, "Claude
// needs your permission") and its feed says once that the session runs in auto mode, whose questions do not come to
// Perch; the answer in the terminal runs the command. Started with --permission-mode manual instead, the same
// interactive session's prompt is a card and the owner's approve in Perch runs it; when Perch gives up on the card,
// the door's answer sets the terminal's window title (terminalSequence) to the line naming it.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { addAgent, ensureBuilt, eventually, ownerOk, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { pendingRequestOf } from '../support/hook-runner';
import { assertNoPerch, claudeCode, connectWrite, pathWithoutPerch } from '../support/real-harness';
import { asksAutoModeCheck, resultText, startStandIn, toolResults, type StandIn } from '../support/model-standin';
import { keyEnvVar } from '../../src/shared/agents/snippets';
import { endProcesses, processesWithEnv } from '../../scripts/leftovers';

const served = useSharedServe();
const claude = claudeCode();
const hasTmux = spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
const skip = claude.skip ?? (hasTmux ? undefined : 'tmux is not installed (the interactive Claude Code runs in it)');
const SOCKET = `perch-claude-auto-${process.pid}`;
const API_KEY = 'sk-ant-perch-tests-not-a-real-key';
const MARKER = 'auto.marker';
// A command auto mode does not let through by itself (touch alone counts as a file edit in the working folder).
const COMMAND = `curl -s http://127.0.0.1:9/ > /dev/null; touch ${MARKER}`;

let model: StandIn | undefined;
let root = '';
/** The HOMEs the sessions run with: every process still running with one is ended after. */
const homes: string[] = [];
before(async () => {
  if (skip) return;
  ensureBuilt();
  model = await startStandIn((req) => {
    if (!req.tools?.some((t) => t.name === 'Bash')) return [{ type: 'text', text: 'ok' }];
    const done = toolResults(req).find((b) => b.tool_use_id === 'toolu_auto');
    if (done) return [{ type: 'text', text: `bash said: ${resultText(done)}` }];
    return [{ type: 'tool_use', id: 'toolu_auto', name: 'Bash', input: { command: COMMAND, description: 'Write the marker' } }];
  });
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-claude-auto-'));
});
after(async () => {
  if (skip) return;
  spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
  for (const home of homes) await endProcesses(processesWithEnv('HOME', home), 'HOME', home);
  await model?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

function pane(name: string): string {
  return spawnSync('tmux', ['-L', SOCKET, 'capture-pane', '-p', '-t', name], { encoding: 'utf8', timeout: 10_000 }).stdout ?? '';
}
function title(name: string): string {
  return (spawnSync('tmux', ['-L', SOCKET, 'display', '-p', '-t', name, '#{pane_title}'], { encoding: 'utf8' }).stdout ?? '').trim();
}
function keys(name: string, ...k: string[]): void {
  spawnSync('tmux', ['-L', SOCKET, 'send-keys', '-t', name, ...k], { timeout: 10_000 });
}
const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * A fresh HOME (under root) where the person allowed Perch's own tools, finished Claude Code's first-run questions
 * (onboarding, this API key, trust of the project folder), and ran perch connect claude-code NAME --write; then
 * `claude --permission-mode MODE "Write the marker file."` as the agent in tmux. Returns the project dir.
 */
async function start(agent: AgentKey, name: string, mode: string, doorTimeout?: number): Promise<string> {
  const home = path.join(root, name);
  const dir = path.join(home, 'project');
  fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
  fs.mkdirSync(dir);
  homes.push(home);
  fs.writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ permissions: { allow: [`mcp__perch-${agent.name}`] } }));
  await connectWrite('claude-code', agent.name, served.dataDir, home);
  if (doorTimeout !== undefined) {
    const file = path.join(home, '.claude', 'settings.json');
    const settings = JSON.parse(fs.readFileSync(file, 'utf8'));
    settings.hooks.PermissionRequest[0].hooks[0].url += `&timeout=${doorTimeout}`;
    fs.writeFileSync(file, JSON.stringify(settings));
  }
  const file = path.join(home, '.claude.json');
  const state = JSON.parse(fs.readFileSync(file, 'utf8'));
  state.hasCompletedOnboarding = true;
  state.theme = 'dark';
  state.customApiKeyResponses = { approved: [API_KEY.slice(-20)], rejected: [] };
  state.projects = { ...state.projects, [dir]: { ...state.projects?.[dir], hasTrustDialogAccepted: true } };
  fs.writeFileSync(file, JSON.stringify(state));
  const env: Record<string, string> = {
    PATH: pathWithoutPerch(),
    HOME: home,
    TERM: 'xterm-256color',
    ANTHROPIC_API_KEY: API_KEY,
    ANTHROPIC_BASE_URL: model!.url,
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ENABLE_TOOL_SEARCH: 'false',
    [keyEnvVar(agent.name)]: agent.key,
  };
  assertNoPerch(env);
  const cmd = `cd ${sq(dir)} && exec env -i ${Object.entries(env)
    .map(([k, v]) => `${k}=${sq(v)}`)
    .join(' ')} ${sq(claude.bin!)} --permission-mode ${mode} ${sq('Write the marker file.')}`;
  const r = spawnSync('tmux', ['-L', SOCKET, 'new-session', '-d', '-s', name, '-x', '200', '-y', '50', cmd], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return dir;
}

async function harnessOf(a: AgentKey): Promise<any> {
  const { agents } = await ownerOk(served, 'agents.list', {});
  return agents.find((x: any) => x.id === a.id)?.harness;
}
async function cardsOf(a: AgentKey): Promise<any[]> {
  return (await ownerOk(served, 'requests.list', {})).requests.filter((r: any) => r.requester.id === a.id);
}

describe('the real Claude Code in its interactive auto mode, configured by perch connect claude-code --write', { skip }, () => {
  test('its question "Auto mode can\'t check actions in this session, so this one needs your approval" waits in the terminal: no PermissionRequest, no card; Perch shows the agent waiting and says in its feed that auto mode\'s questions do not come to Perch; the answer in the terminal runs it', async () => {
    const agent = await addAgent(served.dataDir, uniqueName('auto'));
    const first = model!.requests.length;
    const dir = await start(agent, 'auto', 'auto');
    // First, about the session: stay in auto mode (Enter) or leave for accept edits.
    await eventually(() => /Enter to stay in auto mode/.test(pane('auto')), 120_000, 'the auto mode notice');
    assert.match(pane('auto'), /Auto mode can't check actions in this session/);
    keys('auto', 'Enter');
    // Under load the notice may take the first Enter before it reads keys: pressed again while the notice alone shows
    // (never once the question is up: Enter there would answer it No).
    const question = /Auto mode can't check actions in this session, so this one needs your approval/;
    let pressed = Date.now();
    await eventually(
      () => {
        const shown = pane('auto');
        if (question.test(shown)) return true;
        if (/Enter to stay in auto mode/.test(shown) && Date.now() - pressed > 10_000) {
          keys('auto', 'Enter');
          pressed = Date.now();
        }
        return false;
      },
      120_000,
      'the question about the action',
    ).catch((e: Error) => {
      throw new Error(`${e.message}; the terminal shows:\n${pane('auto')}`);
    });
    assert.match(pane('auto'), /Do you want to proceed\?\s*\n\s*❯ No\s*\n\s*Yes/, 'its own dialog, No first');
    // The session's Notification hook reaches Perch while the question waits: the agent waits for you.
    await eventually(async () => (await harnessOf(agent))?.state === 'waiting', 60_000, 'the agent shown waiting');
    assert.equal((await harnessOf(agent)).message, 'Claude needs your permission');
    // That notification comes seconds after the dialog opened; a PermissionRequest hook runs as the dialog opens.
    assert.deepEqual(await cardsOf(agent), [], 'no PermissionRequest reached Perch: no card');
    const { progress } = await ownerOk(served, 'progress.list', { agent_id: agent.id });
    const told = progress.filter((p: any) => p.data?.harness?.event === 'permission-mode');
    assert.equal(told.length, 1, 'told once');
    assert.equal(
      told[0].text,
      `Claude Code runs ${agent.name}'s session in auto mode, which does not ask through its PermissionRequest hook: its questions do not come to Perch. To decide its prompts in Perch, start it with --permission-mode manual (or acceptEdits), or set permissions.defaultMode in its settings.`,
    );
    assert.ok(
      progress.some((p: any) => p.text === 'Claude Code: waiting for you — Claude needs your permission'),
      'the waiting shows in the feed',
    );
    const sent = model!.headers.slice(first);
    assert.ok(sent.length > 0 && !sent.some(asksAutoModeCheck), 'no request asked the stand-in for the server-side check');
    assert.equal(fs.existsSync(path.join(dir, MARKER)), false, 'not run before the answer');
    keys('auto', 'Down');
    keys('auto', 'Enter'); // Yes, in the terminal
    await eventually(() => fs.existsSync(path.join(dir, MARKER)), 60_000, 'the command the terminal allowed ran');
    assert.deepEqual(await cardsOf(agent), [], 'still no card');
  });

  test('the same interactive session started with --permission-mode manual: its prompt is a card, and the owner approves in Perch', async () => {
    const agent = await addAgent(served.dataDir, uniqueName('manual'));
    const dir = await start(agent, 'manual', 'manual');
    const req = await pendingRequestOf(served, agent, 120_000);
    assert.equal(req.title, `Allow Bash: ${COMMAND}?`);
    assert.equal(req.context.permission_mode, 'default');
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
    await eventually(() => fs.existsSync(path.join(dir, MARKER)), 60_000, 'the command approved in Perch ran');
  });

  test("manual mode, and Perch gives up (the door's wait shortened to 3 s): the card is withdrawn and the terminal's window title names it, while Claude Code's own dialog asks; its answer there runs the command", async () => {
    const agent = await addAgent(served.dataDir, uniqueName('gaveup'));
    const dir = await start(agent, 'gaveup', 'manual', 3);
    const req = await pendingRequestOf(served, agent, 120_000);
    await eventually(() => /Do you want to proceed\?/.test(pane('gaveup')), 60_000, "Claude Code's own dialog");
    const line = `Perch: no decision on "${req.title}": no decision within 3 s; the terminal dialog decides`;
    await eventually(() => title('gaveup') === line, 60_000, `the title ${JSON.stringify(line)} (now ${JSON.stringify(title('gaveup'))})`);
    const { requests } = await ownerOk(served, 'requests.list', {});
    assert.equal(requests.find((r: any) => r.request_id === req.request_id).state, 'cancelled');
    assert.match(pane('gaveup'), /Do you want to proceed\?/, 'the dialog still asks');
    assert.equal(fs.existsSync(path.join(dir, MARKER)), false);
    keys('gaveup', 'Enter'); // 1. Yes
    await eventually(() => fs.existsSync(path.join(dir, MARKER)), 60_000, 'the command the terminal allowed ran');
  });
});
