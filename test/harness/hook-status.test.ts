// `perch hook pre-tool-use | notification | stop | session-start | session-end` (src/main/cli/hook/hook.ts, posting to POST /hook/<harness>/<event>) and the
// hook door they post to (POST /hook, src/main/mcp/hook-door.ts): a real `perch serve`, the real CLI process fed the
// harnesses' documented stdin (test/fixtures/status-hooks.ts), the owner pausing and reading through the owner API.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { addAgent, eventually, ownerOk, rawCall, rawPost, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { runHook, type HookRun } from '../support/hook-runner';
import {
  claudeCodeNotification,
  claudeCodePreToolUseBash,
  claudeCodePreToolUseMcp,
  claudeCodeSessionEnd,
  claudeCodeSessionStart,
  claudeCodeStop,
  codexPreToolUse,
  codexSessionStart,
  preToolUseDeny,
} from '../fixtures/status-hooks';
import { claudeCodeBash } from '../fixtures/permission-request';

const served = useSharedServe();

function envFor(agent: AgentKey): Record<string, string> {
  return { PERCH_URL: served.mcpUrl, PERCH_KEY: agent.key };
}

async function agentView(a: AgentKey): Promise<any> {
  const { agents } = await ownerOk(served, 'agents.list', {});
  return agents.find((x: any) => x.id === a.id);
}

/** Nothing decided: exit 0, nothing on stdout or stderr. */
function assertNothing(r: HookRun, what: string): void {
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', ''], what);
}

describe('perch hook pre-tool-use: the kill switch reaches the harness', () => {
  test('an agent that runs: Claude Code and Codex tool calls are not touched (exit 0, nothing printed)', async () => {
    const a = await addAgent(served.dataDir, uniqueName('pre-run'));
    assertNothing(await runHook(['pre-tool-use'], claudeCodePreToolUseBash, envFor(a)), 'Claude Code Bash');
    assertNothing(await runHook(['pre-tool-use'], codexPreToolUse, envFor(a)), 'Codex Bash');
    const v = await agentView(a);
    assert.equal(v.harness.state, 'working', 'a tool call shows the session working');
    assert.equal(v.harness.harness, 'codex', 'told by turn_id');
  });

  test('paused by the owner: every tool call is blocked with the harness PreToolUse deny, the reason and the instruction to wait; Perch get_updates still runs; resumed, nothing is blocked', async () => {
    const a = await addAgent(served.dataDir, uniqueName('pre-paused'));
    await ownerOk(served, 'agents.pause', { agent: a.id, reason: 'lunch break' });
    const expected = `${preToolUseDeny("Paused in Perch (the owner paused this agent: lunch break). Do not run tools; stop and wait for the owner to resume this agent (Perch's get_updates with wait_secs returns agent.resumed).")}\n`;
    const cc = await runHook(['pre-tool-use'], claudeCodePreToolUseBash, envFor(a));
    assert.deepEqual([cc.code, cc.stdout, cc.stderr], [0, expected, '']);
    const cx = await runHook(['pre-tool-use'], codexPreToolUse, envFor(a));
    assert.deepEqual([cx.code, cx.stdout, cx.stderr], [0, expected, '']);
    assertNothing(
      await runHook(['pre-tool-use'], claudeCodePreToolUseMcp(`perch-${a.name}`), envFor(a)),
      'the paused agent waits with get_updates',
    );
    await ownerOk(served, 'agents.resume', { agent: a.id });
    assertNothing(await runHook(['pre-tool-use'], claudeCodePreToolUseBash, envFor(a)), 'resumed');
  });

  test('pause all (the kill switch) blocks every agent; resume all lifts it', async () => {
    const a = await addAgent(served.dataDir, uniqueName('pre-all'));
    await ownerOk(served, 'agents.pause_all', { reason: 'stop everything' });
    try {
      const r = await runHook(['pre-tool-use'], claudeCodePreToolUseBash, envFor(a));
      assert.equal(r.code, 0);
      const out = JSON.parse(r.stdout);
      assert.equal(out.hookSpecificOutput.hookEventName, 'PreToolUse');
      assert.equal(out.hookSpecificOutput.permissionDecision, 'deny');
      assert.match(out.hookSpecificOutput.permissionDecisionReason, /stop everything/);
    } finally {
      await ownerOk(served, 'agents.resume_all', {});
    }
    assertNothing(await runHook(['pre-tool-use'], claudeCodePreToolUseBash, envFor(a)), 'resumed');
  });

  test('paused by a daily cap: blocked with the cap named', async () => {
    const a = await addAgent(served.dataDir, uniqueName('pre-cap'));
    await ownerOk(served, 'agents.set_caps', { agent: a.id, tool_calls: 1 });
    await rawCall(served.mcpUrl, a.key, 'whoami');
    await rawCall(served.mcpUrl, a.key, 'whoami');
    await eventually(async () => (await agentView(a)).paused?.by === 'budget', 10_000, 'the cap pauses the agent');
    const r = await runHook(['pre-tool-use'], claudeCodePreToolUseBash, envFor(a));
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      JSON.parse(r.stdout).hookSpecificOutput.permissionDecisionReason,
      /^Paused in Perch \(a daily cap was reached \(.*tool.*\)\)\. Do not run tools/,
    );
  });

  test('the hub is down: decides nothing, exit 0, one stderr line', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const r = await runHook(
      ['pre-tool-use'],
      claudeCodePreToolUseBash,
      { PERCH_URL: `http://127.0.0.1:${port}/mcp`, PERCH_KEY: 'perch_whatever' },
      5_000,
    );
    assert.deepEqual([r.code, r.stdout], [0, '']);
    assert.match(r.stderr, /^perch hook: cannot reach the Perch hub at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\).*Deciding nothing\n$/);
  });

  test('a hub that accepts the connection but never answers: decides nothing within the bound, exit 0', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const port = (silent.address() as net.AddressInfo).port;
      const r = await runHook(
        ['pre-tool-use'],
        claudeCodePreToolUseBash,
        { PERCH_URL: `http://127.0.0.1:${port}/mcp`, PERCH_KEY: 'perch_whatever' },
        5_000,
      );
      assert.deepEqual([r.code, r.stdout], [0, '']);
      assert.match(r.stderr, /no answer from the Perch hub .* within 1500 ms; deciding nothing/);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  test('bad or foreign stdin, a bad flag, no key: one clear stderr line, nothing on stdout, exit 0', async () => {
    const a = await addAgent(served.dataDir, uniqueName('pre-bad'));
    const cases: Array<[string, string[], unknown, Record<string, string>, RegExp]> = [
      ['not JSON', ['pre-tool-use'], 'npm test', envFor(a), /^perch hook: stdin is not JSON/],
      [
        'another event',
        ['pre-tool-use'],
        claudeCodeBash,
        envFor(a),
        /^perch hook: stdin is a "PermissionRequest" hook event, not PreToolUse: configure this command under hooks\.PreToolUse/,
      ],
      [
        'a Stop input to notification',
        ['notification'],
        claudeCodeStop,
        envFor(a),
        /^perch hook: stdin is a "Stop" hook event, not Notification/,
      ],
      [
        'a bad --harness',
        ['stop', '--harness', 'vim'],
        claudeCodeStop,
        envFor(a),
        /^perch hook: --harness must be claude-code, codex or cursor/,
      ],
      [
        'no key',
        ['pre-tool-use'],
        claudeCodePreToolUseBash,
        { PERCH_URL: served.mcpUrl },
        /^perch hook: no key was sent: set PERCH_KEY in the shell that starts Claude Code/,
      ],
      [
        'a wrong key',
        ['pre-tool-use'],
        claudeCodePreToolUseBash,
        { PERCH_URL: served.mcpUrl, PERCH_KEY: 'perch_nope' },
        /^perch hook: the Perch hub at .* refused the agent key \(HTTP 401\)/,
      ],
    ];
    for (const [what, args, stdin, env, expected] of cases) {
      const r = await runHook(args, stdin, env);
      assert.deepEqual([r.code, r.stdout], [0, ''], what);
      assert.match(r.stderr, expected, what);
      assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, `${what}: one stderr line: ${r.stderr}`);
    }
    assert.equal((await agentView(a)).harness, null, 'nothing reached the hub');
  });
});

describe('perch hook notification | stop | session-start | session-end: the agent live status and feed', () => {
  test('each event becomes the agent harness status (agents.list) and a row of the progress feed; a tool call ends the wait', async () => {
    const a = await addAgent(served.dataDir, uniqueName('status'));
    const steps: Array<[string, unknown, string, string]> = [
      ['session-start', claudeCodeSessionStart, 'started', 'Claude Code: session started in /home/user/my-project'],
      ['notification', claudeCodeNotification, 'waiting', 'Claude Code: waiting for you — Claude needs your permission to use Bash'],
      ['stop', claudeCodeStop, 'turn_ended', 'Claude Code: turn ended'],
      ['session-end', claudeCodeSessionEnd, 'ended', 'Claude Code: session ended in /home/user/my-project'],
    ];
    for (const [sub, input, state, line] of steps) {
      assertNothing(await runHook([sub], input, envFor(a)), sub);
      const v = await agentView(a);
      assert.equal(v.harness.state, state, sub);
      assert.equal(v.harness.session_id, 'abc123');
      assert.equal(v.harness.cwd, '/home/user/my-project');
      assert.equal(v.harness.harness, 'claude-code');
      const { progress } = await ownerOk(served, 'progress.list', { agent_id: a.id, limit: 1 });
      assert.equal(progress[0].text, line, sub);
      assert.equal(progress[0].data.harness.event, sub);
    }
    const { progress } = await ownerOk(served, 'progress.list', { agent_id: a.id });
    assert.equal(progress.find((p: any) => p.data.harness.event === 'session-end').data.harness.reason, 'prompt_input_exit');
    assert.equal(progress.find((p: any) => p.data.harness.event === 'notification').data.harness.notification_type, 'permission_prompt');

    assertNothing(await runHook(['notification'], claudeCodeNotification, envFor(a)), 'waiting again');
    assertNothing(await runHook(['pre-tool-use'], claudeCodePreToolUseBash, envFor(a)), 'a tool call');
    assert.equal((await agentView(a)).harness.state, 'working', 'the wait ended');
    const after = await ownerOk(served, 'progress.list', { agent_id: a.id });
    assert.equal(after.progress.length, progress.length + 2, 'the tool call is one feed row of its own');
    assert.equal(after.progress[0].text, 'Claude Code: Bash — npm test', 'the tool and its command in one line');
    assert.equal(after.progress[0].kind, 'tool_call');
  });

  test('a Notification with long fields full of characters JSON escapes (6 bytes each) is still noted, cut to what the hub keeps', async () => {
    const a = await addAgent(served.dataDir, uniqueName('status-long'));
    const escaped = '\u0001'.repeat(3000);
    const input = { ...(claudeCodeNotification as object), message: escaped, notification_type: escaped, cwd: '\\'.repeat(3000) };
    assertNothing(await runHook(['notification'], input, envFor(a)), 'long fields');
    const v = await agentView(a);
    assert.equal(v.harness.state, 'waiting');
    assert.equal(v.harness.cwd, '\\'.repeat(500));
  });

  test('Codex SessionStart is told apart by its transcript path, or by --harness', async () => {
    const a = await addAgent(served.dataDir, uniqueName('status-codex'));
    assertNothing(await runHook(['session-start'], codexSessionStart, envFor(a)), 'codex');
    assert.equal((await agentView(a)).harness.harness, 'codex');
    assertNothing(await runHook(['session-start', '--harness', 'claude-code'], codexSessionStart, envFor(a)), '--harness');
    assert.equal((await agentView(a)).harness.harness, 'claude-code');
  });
});

describe('the hook door (POST /hook)', () => {
  const hookUrl = () => served.mcpUrl.replace(/\/mcp$/, '/hook');

  test('refuses a missing key (401), another method (405) and a body that is no report (400), and changes nothing', async () => {
    const a = await addAgent(served.dataDir, uniqueName('door'));
    assert.equal((await rawPost(hookUrl(), undefined, { event: 'stop', harness: 'codex' })).status, 401);
    const get = await fetch(hookUrl(), { headers: { Authorization: `Bearer ${a.key}` } });
    assert.equal(get.status, 405);
    const bad: Array<[unknown, RegExp]> = [
      ['{', /not JSON/],
      [{ event: 'pre-compact', harness: 'codex' }, /event must be one of/],
      [{ event: 'stop', harness: 'cursor' }, /harness must be one of/],
      [{ event: 'stop', harness: 'codex', cwd: 7 }, /cwd must be a string/],
    ];
    for (const [body, msg] of bad) {
      const r = await rawPost(hookUrl(), a.key, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match(r.json.error.message, msg);
    }
    assert.equal((await agentView(a)).harness, null);
    const ok = await rawPost(hookUrl(), a.key, { event: 'pre-tool-use', harness: 'codex' });
    assert.deepEqual(ok.json, { ok: true, paused: false });
  });

  test('refuses a body that is not sent as application/json (415, one line saying so) and notes nothing; a charset parameter is fine', async () => {
    const a = await addAgent(served.dataDir, uniqueName('door-ct'));
    const report = JSON.stringify({ event: 'stop', harness: 'codex' });
    for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp']) {
      const r = await rawPost(hookUrl(), a.key, report, { 'Content-Type': ct });
      assert.equal(r.status, 415, ct);
      assert.equal(r.json.error.code, 'unsupported_media_type');
      assert.match(r.json.error.message, /^Send the hook report with "Content-Type: application\/json" \(got "[^"\n]+"\)\.$/);
    }
    const none = await fetch(hookUrl(), {
      method: 'POST',
      headers: { Authorization: `Bearer ${a.key}` },
      body: new TextEncoder().encode(report),
    });
    assert.equal(none.status, 415, 'no Content-Type at all');
    assert.match(((await none.json()) as { error: { message: string } }).error.message, /\(got none\)/);
    assert.equal((await agentView(a)).harness, null, 'a refused report changes nothing');
    const ok = await rawPost(hookUrl(), a.key, report, { 'Content-Type': 'Application/JSON; charset=utf-8' });
    assert.deepEqual([ok.status, ok.json], [200, { ok: true, paused: false }]);
    assert.equal((await agentView(a)).harness.state, 'turn_ended');
  });
});
