// Gemini CLI's command hooks at the hub's doors POST /hook/gemini/<event> (src/main/mcp/hook-door/gemini.ts,
// src/shared/agents/harnesses/gemini-wire.ts): a real `perch serve`, Gemini's own hook inputs (test/fixtures/gemini-hooks.ts)
// posted as its curl hooks post them, the owner deciding, pausing and adding rules through the owner API. Protocol
// level; the real Gemini CLI runs against the same doors in test/real/real-gemini.test.ts.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { addAgent, cliAsync, exitOf, ownerOk, rawPost, tempDir, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { pendingRequestOf } from '../support/hook-runner';
import {
  geminiAfterAgent,
  geminiAfterShell,
  geminiBeforeMcp,
  geminiBeforeRead,
  geminiBeforeShell,
  geminiNotification,
  geminiSessionEnd,
  geminiSessionStart,
} from '../fixtures/gemini-hooks';
import { keyEnvVar } from '../../src/shared/agents/snippets';

const served = useSharedServe();
const newAgent = (base: string): Promise<AgentKey> => addAgent(served.dataDir, uniqueName(base));
const door = (event: string, a: AgentKey, q = '') =>
  `${served.mcpUrl.replace(/\/mcp$/, '')}/hook/gemini/${event}?agent=${encodeURIComponent(a.name)}${q}`;
const mine = async (a: AgentKey) => (await ownerOk(served, 'requests.list', {})).requests.filter((x: any) => x.requester?.id === a.id);

async function agentView(a: AgentKey): Promise<any> {
  const { agents } = await ownerOk(served, 'agents.list', {});
  return agents.find((x: any) => x.id === a.id);
}

/** The agent's ledger rows (perch ledger export). */
async function ledgerRows(a: AgentKey): Promise<any[]> {
  const out = await cliAsync(['ledger', 'export', '--since', '2000-01-01', '--agent', a.name, '--data-dir', served.dataDir]);
  assert.equal(out.code, 0, out.stderr);
  return out.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe('Gemini CLI BeforeTool: pause, standing rules, and with ask=1 the owner', () => {
  test('no rule, no ask: {} (Gemini decides), nothing filed; the status follows SessionStart, BeforeTool, Notification, AfterAgent, SessionEnd', async () => {
    const a = await newAgent('gemini-status');
    for (const [event, body, state] of [
      ['session-start', geminiSessionStart, 'started'],
      ['pre-tool-use', geminiBeforeShell(), 'working'],
      ['notification', geminiNotification, 'waiting'],
      ['stop', geminiAfterAgent, 'turn_ended'],
      ['session-end', geminiSessionEnd, 'ended'],
    ] as const) {
      const r = await rawPost(door(event, a), a.key, body);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.text, '{}', event);
      const v = await agentView(a);
      assert.deepEqual([v.harness.harness, v.harness.state], ['gemini', state], event);
    }
    assert.equal((await agentView(a)).harness.session_id, geminiSessionStart.session_id);
    assert.deepEqual(await mine(a), [], 'nothing was filed');
  });

  test("paused: a shell call is denied with Perch's reason; the agent's own whoami goes on; another server's whoami is denied", async () => {
    const a = await newAgent('gemini-pause');
    await ownerOk(served, 'agents.pause', { agent: a.id, reason: 'budget review' });
    const shell = await rawPost(door('pre-tool-use', a), a.key, geminiBeforeShell());
    assert.equal(shell.status, 200, shell.text);
    assert.equal(shell.json.decision, 'deny');
    assert.match(shell.json.reason, /^Paused in Perch \(the owner paused this agent: budget review\)/);
    const own = await rawPost(door('pre-tool-use', a), a.key, geminiBeforeMcp(`perch-${a.name}`, 'whoami'));
    assert.equal(own.text, '{}');
    const other = await rawPost(door('pre-tool-use', a), a.key, geminiBeforeMcp('github', 'whoami'));
    assert.equal(other.json.decision, 'deny');
    const rows = await ledgerRows(a);
    assert.deepEqual(
      rows.filter((x) => x.kind === 'perch_decision').map((x) => [x.harness, x.tool, x.detail.perch.by, x.detail.perch.decision]),
      [
        ['gemini', 'run_shell_command', 'pause', 'deny'],
        ['gemini', 'mcp_github_whoami', 'pause', 'deny'],
      ],
    );
  });

  test('standing rules on the shell command: a deny rule denies with the rule, an allow rule lets it go on; the AfterTool result joins the call in the ledger', async () => {
    const a = await newAgent('gemini-rules');
    const { rule: deny } = await ownerOk(served, 'rules.add', {
      agent: a.name,
      tool: 'run_shell_command',
      command_prefix: 'rm',
      behavior: 'deny',
    });
    await ownerOk(served, 'rules.add', { agent: a.name, tool: 'run_shell_command', command_prefix: 'npm test', behavior: 'allow' });
    const denied = await rawPost(door('pre-tool-use', a), a.key, geminiBeforeShell('rm -rf build'));
    assert.equal(denied.json.decision, 'deny');
    assert.equal(
      denied.json.reason,
      `Denied in Perch by the owner's standing rule ${deny.rule_id}: always deny run_shell_command \`rm\` wherever it runs`,
    );
    const allowed = await rawPost(door('pre-tool-use', a, '&ask=1'), a.key, geminiBeforeShell('npm test'));
    assert.equal(allowed.text, '{}', 'an allow rule decides before the owner would be asked');
    const after = await rawPost(door('post-tool-use', a), a.key, geminiAfterShell('npm test'));
    assert.equal(after.text, '{}');
    assert.deepEqual(await mine(a), [], 'nothing was filed');
    const { calls } = await ownerOk(served, 'ledger.calls', { agent: a.name, tool: 'run_shell_command' });
    const run = calls.find((c: any) => c.asked?.includes('npm test'));
    assert.equal(run.harness, 'gemini');
    assert.deepEqual([run.perch.by, run.perch.decision], ['rule', 'allow'], "Perch's decision and the result are one call");
    assert.equal(run.outcome.success, true);
    assert.match(run.outcome.output_head, /Output: \(empty\)/);
  });

  test('ask=1: a shell command no rule decides is a card (harness gemini); approved → {}, rejected → deny with the comment; a file read is not asked about', async () => {
    const a = await newAgent('gemini-ask');
    const answer = rawPost(door('pre-tool-use', a, '&ask=1'), a.key, geminiBeforeShell('npm publish'));
    const req = await pendingRequestOf(served, a);
    assert.equal(req.title, 'Allow run_shell_command: npm publish?');
    assert.equal(req.context.harness, 'gemini');
    assert.equal(req.context.session_id, geminiSessionStart.session_id);
    assert.equal(req.context.cwd, '/home/user/my-project');
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
    assert.equal((await answer).text, '{}');

    const second = rawPost(door('pre-tool-use', a, '&ask=1'), a.key, geminiBeforeShell('npm publish --force'));
    const req2 = await pendingRequestOf(served, a);
    await ownerOk(served, 'requests.decide', { request_id: req2.request_id, decision: 'reject', comment: 'not today' });
    const no = await second;
    assert.deepEqual(no.json, { decision: 'deny', reason: 'Denied by the owner in Perch: not today' });

    const read = await rawPost(door('pre-tool-use', a, '&ask=1'), a.key, geminiBeforeRead);
    assert.equal(read.text, '{}');
    assert.equal((await mine(a)).length, 2, 'the read filed nothing');
  });

  test('ask=1 with no decision in time: the card is withdrawn and the call is denied (under --yolo nothing else would stop it)', async () => {
    const a = await newAgent('gemini-ask-timeout');
    const r = await rawPost(door('pre-tool-use', a, '&ask=1&timeout=1'), a.key, geminiBeforeShell('make deploy'));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.decision, 'deny');
    assert.match(r.json.reason, /^Not run: the owner's approval in Perch is needed, and no decision within 1 s/);
    assert.deepEqual(
      (await mine(a)).map((x: any) => [x.title, x.state]),
      [['Allow run_shell_command: make deploy?', 'cancelled']],
    );
  });

  test("input that is not the event's: 400 with one line, nothing noted", async () => {
    const a = await newAgent('gemini-bad');
    const wrong = await rawPost(door('pre-tool-use', a), a.key, geminiAfterAgent);
    assert.equal(wrong.status, 400);
    assert.match(
      wrong.json.error.message,
      /the body is a "AfterAgent" hook input, not BeforeTool: configure this URL under hooks\.BeforeTool/,
    );
    const noTool = await rawPost(door('post-tool-use', a), a.key, { ...geminiAfterShell(), tool_name: undefined });
    assert.equal(noTool.status, 400);
    assert.match(noTool.json.error.message, /AfterTool input has no tool_name/);
    assert.equal((await agentView(a)).harness, null);
  });
  // Last: connect --write records the connection, after which this agent answers for every folder (one agent per session).
  test("the written --ask BeforeTool hook waits on a card with the key in no process argv, and prints the owner's answer", async () => {
    const a = await newAgent('gemini-argv');
    const home = tempDir('perch-gemini-argv-');
    const c = await cliAsync(['connect', 'gemini', a.name, '--write', '--ask', '--data-dir', served.dataDir], { env: { HOME: home } });
    assert.equal(c.code, 0, c.stderr);
    const command: string = JSON.parse(fs.readFileSync(`${home}/.gemini/settings.json`, 'utf8')).hooks.BeforeTool[0].hooks[0].command;
    const child = spawn('/bin/sh', ['-c', command], { env: { PATH: process.env.PATH ?? '', HOME: home, [keyEnvVar(a.name)]: a.key } });
    child.stdin.end(JSON.stringify(geminiBeforeShell('npm run build')));
    const done = exitOf(child, command, 60_000);
    const req = await pendingRequestOf(served, a, 30_000);
    const leaks = fs
      .readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .filter((pid) => {
        try {
          return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(a.key);
        } catch {
          return false;
        }
      });
    assert.deepEqual(leaks, [], 'no process shows the key in its argv');
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'reject', comment: 'no' });
    const r = await done;
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { decision: 'deny', reason: 'Denied by the owner in Perch: no' });
  });
});
