// The hub's harness hook doors (POST /hook/<harness>/<event>: src/main/mcp/hook-door.ts) against a real `perch serve`:
// the harness's documented hook input posted as it is (test/fixtures: Claude Code's and Codex's hooks references),
// the documented output JSON answered, one request, no `perch` process. The same request a Claude Code
// HTTP hook makes. The owner decides through the owner API.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { addAgent, eventually, ownerFail, ownerOk, rawPost, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { ALLOW_OUTPUT, claudeCodeBash, codexBash, denyOutput } from '../fixtures/permission-request';
import { claudeCodeNotification, claudeCodePreToolUseBash, claudeCodePreToolUseMcp, preToolUseDeny } from '../fixtures/status-hooks';
import { pendingRequestOf } from '../support/hook-runner';
import { CURSOR_ALLOW, CURSOR_ASK, cursorAfterFileEdit, cursorDeny, cursorMcp, cursorShell } from '../fixtures/cursor-hooks';

const served = useSharedServe();

function door(harness: string, event: string, query = ''): string {
  return `${served.mcpUrl.replace(/\/mcp$/, '')}/hook/${harness}/${event}${query}`;
}

async function newAgent(base: string): Promise<AgentKey> {
  return addAgent(served.dataDir, uniqueName(base));
}

function pendingOf(agent: AgentKey): Promise<any> {
  return pendingRequestOf(served, agent);
}

async function requestsOf(agent: AgentKey): Promise<any[]> {
  const { requests } = await ownerOk(served, 'requests.list', {});
  return requests.filter((r: any) => r.requester?.id === agent.id);
}

describe('POST /hook/<harness>/permission-request answers the harness hook on the hub', () => {
  test('a Claude Code PermissionRequest (its documented input, as an HTTP hook posts it) reaches the Approvals inbox; approve answers the exact allow JSON', async () => {
    const a = await newAgent('door-cc');
    const pending = rawPost(door('claude-code', 'permission-request'), a.key, claudeCodeBash);
    const req = await pendingOf(a);
    assert.equal(req.title, 'Allow Bash: rm -rf node_modules?');
    assert.equal(req.context.source, 'permission_prompt');
    assert.equal(req.context.harness, 'claude-code');
    assert.equal(req.context.session_id, 'abc123');
    assert.equal(req.context.preview, 'Remove node_modules directory\n\n```sh\nrm -rf node_modules\n```');
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
    const r = await pending;
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('content-type'), 'application/json');
    assert.equal(r.text, ALLOW_OUTPUT);
    assert.deepEqual(JSON.parse(r.text), { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
  });

  test('Codex: the owner denies with a comment, the door answers the deny JSON with it', async () => {
    const a = await newAgent('door-codex');
    const pending = rawPost(door('codex', 'permission-request'), a.key, codexBash);
    const req = await pendingOf(a);
    assert.equal(req.context.harness, 'codex');
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'reject', comment: 'keep that file' });
    assert.equal((await pending).text, denyOutput('Denied by the owner in Perch: keep that file'));
  });

  test("no decision within ?timeout: 200 with no decision, only the line the harness shows its user naming the card (the harness dialog decides) and, for Claude Code, the same as its terminal's window title; the prompt leaves the inbox, the reason in the perch-hook-note header", async () => {
    const a = await newAgent('door-timeout');
    const r = await rawPost(door('claude-code', 'permission-request', '?timeout=1'), a.key, claudeCodeBash);
    assert.equal(r.status, 200);
    const line = 'Perch: no decision on "Allow Bash: rm -rf node_modules?": no decision within 1 s; the terminal dialog decides';
    assert.deepEqual(JSON.parse(r.text), { systemMessage: line, terminalSequence: `\u001b]2;${line}\u0007` });
    // Codex's hook output has no terminalSequence: its answer is the line alone.
    const c = await rawPost(door('codex', 'permission-request', '?timeout=1'), a.key, codexBash);
    assert.deepEqual(JSON.parse(c.text), {
      systemMessage: 'Perch: no decision on "Allow Bash: rm -f /tmp/example?": no decision within 1 s; the terminal dialog decides',
    });
    assert.match(decodeURIComponent(r.headers.get('perch-hook-note') ?? ''), /^no decision within 1 s; the terminal dialog decides$/);
    const mine = await requestsOf(a);
    assert.deepEqual(
      mine.map((x) => x.state),
      ['cancelled', 'cancelled'],
    );
  });

  test("the no-decision line names the card as text: the agent's command cannot put control sequences on the harness's terminal", async () => {
    const a = await newAgent('door-timeout-esc');
    const command = 'echo \u001b]0;owned\u0007\u001b[2J\u202egpj.exe';
    const r = await rawPost(door('claude-code', 'permission-request', '?timeout=1'), a.key, { ...claudeCodeBash, tool_input: { command } });
    const answer = JSON.parse(r.text);
    const line = answer.systemMessage as string;
    assert.match(line, /^Perch: no decision on "Allow Bash: echo \]0;owned\[2Jgpj\.exe\?": no decision within 1 s/);
    assert.doesNotMatch(line, /[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/, 'no control or bidi character');
    // The window title is the same line, one OSC 2 around it and nothing else.
    assert.equal(answer.terminalSequence, `\u001b]2;${line}\u0007`);
  });

  test('the caller closes its connection while it waits (the harness answered in its own dialog): the prompt is withdrawn; approving it is refused', async () => {
    const a = await newAgent('door-gone');
    const body = JSON.stringify(claudeCodeBash);
    const req = http.request(door('claude-code', 'permission-request'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${a.key}`, 'Content-Length': Buffer.byteLength(body) },
    });
    req.on('error', () => undefined);
    req.end(body);
    const p = await pendingOf(a);
    req.destroy();
    await eventually(async () => (await requestsOf(a))[0]?.state === 'cancelled', 10_000, 'the prompt withdrawn');
    const refused = await ownerFail(served, 'requests.decide', { request_id: p.request_id, decision: 'approve' }, 409);
    assert.match(refused.message, /withdrawn: the harness stopped waiting/);
  });

  test("two of an agent's hooks for one prompt (the same session and tool call, e.g. its user-scope and project-scope connections) file one card, and the owner's one approve answers both", async () => {
    const kit = await newAgent('door-join-kit');
    const first = rawPost(door('claude-code', 'permission-request'), kit.key, claudeCodeBash);
    const card = await pendingOf(kit);
    const second = rawPost(door('claude-code', 'permission-request'), kit.key, claudeCodeBash);
    // Another prompt of the same session (another command) is a card of its own.
    const other = rawPost(door('claude-code', 'permission-request', '?timeout=2'), kit.key, {
      ...claudeCodeBash,
      tool_input: { command: 'rm -rf dist' },
    });
    await eventually(async () => (await requestsOf(kit)).length === 2, 10_000, "the other command's card");
    const titles = (await requestsOf(kit)).map((r) => r.title).sort();
    assert.deepEqual(titles, ['Allow Bash: rm -rf dist?', 'Allow Bash: rm -rf node_modules?'], 'the same prompt was not filed again');
    await ownerOk(served, 'requests.decide', { request_id: card.request_id, decision: 'approve' });
    assert.equal((await first).text, ALLOW_OUTPUT);
    assert.equal((await second).text, ALLOW_OUTPUT, 'the hook that joined gets the same decision');
    assert.equal(
      JSON.parse((await other).text).systemMessage,
      'Perch: no decision on "Allow Bash: rm -rf dist?": no decision within 2 s; the terminal dialog decides',
    );
  });

  test("another agent's hook naming the same session, tool call and input never joins the first agent's card: a paused one is denied, an unpaused one files its own card, and the first card's approve is not its answer", async () => {
    const kit = await newAgent('door-nojoin-kit');
    const rue = await newAgent('door-nojoin-rue');
    const sid = await newAgent('door-nojoin-sid');
    const first = rawPost(door('claude-code', 'permission-request'), kit.key, claudeCodeBash);
    const card = await pendingOf(kit);
    await ownerOk(served, 'agents.pause', { agent: rue.id, reason: 'hands off' });
    const paused = await rawPost(door('claude-code', 'permission-request'), rue.key, claudeCodeBash);
    assert.equal(paused.text, denyOutput('Paused in Perch by the owner: hands off'), "the paused agent's own pause answers it");
    const copied = rawPost(door('claude-code', 'permission-request', '?timeout=3'), sid.key, claudeCodeBash);
    const own = await pendingOf(sid);
    assert.notEqual(own.request_id, card.request_id, 'its own card');
    await ownerOk(served, 'requests.decide', { request_id: card.request_id, decision: 'approve' });
    assert.equal((await first).text, ALLOW_OUTPUT);
    const r = await copied;
    assert.equal(JSON.parse(r.text).hookSpecificOutput, undefined, "the other agent's prompt was not decided by the first agent's approve");
    assert.match(JSON.parse(r.text).systemMessage, /^Perch: no decision on "Allow Bash: rm -rf node_modules\?": no decision within 3 s/);
    assert.equal((await requestsOf(sid))[0].state, 'cancelled');
  });

  test('a paused agent: its prompt is denied at once with the pause reason, and nothing is filed', async () => {
    const a = await newAgent('door-paused');
    await ownerOk(served, 'agents.pause', { agent: a.id, reason: 'lunch break' });
    const r = await rawPost(door('claude-code', 'permission-request'), a.key, claudeCodeBash);
    assert.equal(r.text, denyOutput('Paused in Perch by the owner: lunch break'));
    assert.equal((await requestsOf(a)).length, 0);
  });

  test('a standing allow rule decides at once: the allow JSON, nobody asked', async () => {
    const a = await newAgent('door-rule');
    await ownerOk(served, 'rules.add', { agent: a.name, tool: 'Bash', command_prefix: 'rm -rf node_modules', behavior: 'allow' });
    const r = await rawPost(door('claude-code', 'permission-request'), a.key, claudeCodeBash);
    assert.equal(r.text, ALLOW_OUTPUT);
    assert.equal((await requestsOf(a))[0]?.state, 'approved');
  });
});

describe("POST /hook/<harness>/<status event>: the harness status, and a paused agent's tools blocked", () => {
  test("a paused agent's PreToolUse is denied with the harness block; Perch get_updates still runs; resumed, {}", async () => {
    const a = await newAgent('door-pre');
    assert.equal((await rawPost(door('claude-code', 'pre-tool-use'), a.key, claudeCodePreToolUseBash)).text, '{}');
    await ownerOk(served, 'agents.pause', { agent: a.id, reason: 'lunch break' });
    const blocked = await rawPost(door('claude-code', 'pre-tool-use'), a.key, claudeCodePreToolUseBash);
    assert.equal(blocked.status, 200);
    assert.equal(
      blocked.text,
      preToolUseDeny(
        "Paused in Perch (the owner paused this agent: lunch break). Do not run tools; stop and wait for the owner to resume this agent (Perch's get_updates with wait_secs returns agent.resumed).",
      ),
    );
    assert.equal((await rawPost(door('claude-code', 'pre-tool-use'), a.key, claudeCodePreToolUseMcp(`perch-${a.name}`))).text, '{}');
    await ownerOk(served, 'agents.resume', { agent: a.id });
    assert.equal((await rawPost(door('claude-code', 'pre-tool-use'), a.key, claudeCodePreToolUseBash)).text, '{}');
  });

  test("paused: only the agent's own Perch server (perch-NAME; for Cursor this hub's MCP URL) keeps get_updates and whoami; another server's tools of those names are blocked", async () => {
    const a = await newAgent('door-exempt');
    const other = await newAgent('door-exempt-other');
    await ownerOk(served, 'agents.pause', { agent: a.id, reason: 'lunch break' });
    const pre = async (tool: string) =>
      (await rawPost(door('claude-code', 'pre-tool-use'), a.key, { ...claudeCodePreToolUseBash, tool_name: tool })).text;
    for (const own of [`mcp__perch-${a.name}__whoami`, `mcp__perch-${a.name}__get_updates`]) assert.equal(await pre(own), '{}', own);
    for (const foreign of [
      'mcp__github__whoami',
      'mcp__evil__exec__whoami',
      'mcp__perch__get_updates',
      `mcp__perch-${other.name}__whoami`,
      `mcp__x__perch-${a.name}__whoami`,
    ])
      assert.match(await pre(foreign), /"permissionDecision":"deny"/, foreign);
    // Cursor files an MCP call as MCP:<tool>@<server url>: this hub's own /mcp is the agent's own server (allowed).
    const cursor = async (url: string) =>
      (
        await rawPost(door('cursor', 'permission-request', '?timeout=1'), a.key, {
          ...cursorMcp,
          tool_name: 'whoami',
          tool_input: '{}',
          url,
        })
      ).text;
    assert.equal(await cursor(served.mcpUrl), CURSOR_ALLOW);
    assert.equal(await cursor('https://evil.example/mcp'), cursorDeny('Paused in Perch by the owner: lunch break'));
    assert.equal((await requestsOf(a)).length, 0, 'nothing filed while paused');
  });

  test("a session in a permission mode that never asks Perch (auto, dontAsk, bypassPermissions) is told to the owner once in the agent's feed; manual and acceptEdits say nothing", async () => {
    const a = await newAgent('door-mode');
    for (const mode of ['default', 'acceptEdits', 'auto', 'auto', 'bypassPermissions'])
      assert.equal(
        (await rawPost(door('claude-code', 'pre-tool-use'), a.key, { ...claudeCodePreToolUseBash, permission_mode: mode })).text,
        '{}',
      );
    const told = (await ownerOk(served, 'progress.list', { agent_id: a.id })).progress
      .filter((p: any) => p.data?.harness?.event === 'permission-mode')
      .map((p: any) => [p.data.harness.permission_mode, p.text]);
    assert.deepEqual(told.map((t: string[]) => t[0]).sort(), ['auto', 'bypassPermissions'], 'once per mode, none for the modes that ask');
    assert.match(
      told.find((t: string[]) => t[0] === 'auto')[1],
      /^Claude Code runs \S+'s session in auto mode, which does not ask through its PermissionRequest hook: its questions do not come to Perch\. To decide its prompts in Perch, start it with --permission-mode manual/,
    );
  });

  test('a Notification becomes the agent\'s harness status ("waiting")', async () => {
    const a = await newAgent('door-note');
    assert.equal((await rawPost(door('claude-code', 'notification'), a.key, claudeCodeNotification)).text, '{}');
    const listed = (await ownerOk(served, 'agents.list')).agents.find((x: any) => x.id === a.id);
    assert.equal(listed.harness.state, 'waiting');
    assert.equal(listed.harness.harness, 'claude-code');
  });

  test("refusals change nothing: no key 401, another event's input 400 with one line, an unknown harness or event 404, a bad ?timeout 400", async () => {
    const a = await newAgent('door-bad');
    const noKey = await rawPost(door('claude-code', 'permission-request', `?agent=${a.name}`), undefined, claudeCodeBash);
    assert.equal(noKey.status, 401);
    assert.match(
      noKey.json.error.message,
      new RegExp(`no key was sent: set PERCH_KEY_${a.name.toUpperCase().replace(/[^A-Z0-9]/g, '_')} in the shell that starts Claude Code`),
    );
    const unexpanded = await rawPost(door('claude-code', 'pre-tool-use'), '${PERCH_KEY_X}', claudeCodePreToolUseBash);
    assert.equal(unexpanded.status, 401, 'an unexpanded ${PERCH_KEY_…} header is no key');
    const wrong = await rawPost(door('claude-code', 'permission-request'), a.key, claudeCodePreToolUseBash);
    assert.equal(wrong.status, 400);
    assert.match(wrong.json.error.message, /^stdin is a "PreToolUse" hook event, not PermissionRequest/);
    assert.doesNotMatch(wrong.json.error.message, /\n/);
    const notJson = await rawPost(door('claude-code', 'stop'), a.key, '{nope');
    assert.equal(notJson.status, 400);
    assert.match(notJson.json.error.message, /not JSON/);
    assert.equal((await rawPost(door('vim', 'stop'), a.key, {})).status, 404);
    assert.equal((await rawPost(door('gemini', 'permission-request'), a.key, {})).status, 404, 'Gemini has no permission door');
    assert.equal((await rawPost(door('cursor', 'stop'), a.key, {})).status, 404, 'Cursor has a permission door only');
    const badTimeout = await rawPost(door('claude-code', 'permission-request', '?timeout=abc'), a.key, claudeCodeBash);
    assert.equal(badTimeout.status, 400);
    assert.match(badTimeout.json.error.message, /timeout must be whole seconds/);
    assert.equal((await requestsOf(a)).length, 0, 'nothing filed');
    const listed = (await ownerOk(served, 'agents.list')).agents.find((x: any) => x.id === a.id);
    assert.equal(listed.harness, null, 'no status noted');
  });
});

describe("POST /hook/cursor/permission-request answers Cursor's beforeShellExecution / beforeMCPExecution hooks on the hub", () => {
  test('a shell command (Cursor\'s documented input, as its hook command posts it) reaches the Approvals inbox as tool "Shell"; approve answers {"permission":"allow"}', async () => {
    const a = await newAgent('door-cursor');
    const pending = rawPost(door('cursor', 'permission-request'), a.key, cursorShell);
    const req = await pendingOf(a);
    assert.equal(req.title, 'Allow Shell: npm install left-pad?');
    assert.equal(req.context.source, 'permission_prompt');
    assert.equal(req.context.harness, 'cursor');
    assert.equal(req.context.session_id, cursorShell.conversation_id);
    assert.equal(req.context.cwd, '/home/user/my-project');
    assert.deepEqual(req.context.tool_input, { command: 'npm install left-pad' });
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
    const r = await pending;
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('content-type'), 'application/json');
    assert.equal(r.text, CURSOR_ALLOW);
  });

  test('an MCP tool call is filed as "MCP:<tool>@<server>" with its params; the owner denies with a comment and the door answers it to the user and the agent', async () => {
    const a = await newAgent('door-cursor-mcp');
    const pending = rawPost(door('cursor', 'permission-request'), a.key, cursorMcp);
    const req = await pendingOf(a);
    assert.equal(req.context.tool_name, 'MCP:query@http://localhost:3000/mcp');
    assert.deepEqual(req.context.tool_input, { sql: 'DELETE FROM users WHERE id = 7' });
    assert.equal(req.context.mcp_server, 'http://localhost:3000/mcp');
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'reject', comment: 'not on prod' });
    const r = await pending;
    assert.equal(r.text, cursorDeny('Denied by the owner in Perch: not on prod'));
    assert.deepEqual(JSON.parse(r.text), {
      permission: 'deny',
      user_message: 'Denied by the owner in Perch: not on prod',
      agent_message: 'Denied by the owner in Perch: not on prod',
    });
  });

  test('no decision within ?timeout: {"permission":"ask"} (Cursor\'s own prompt decides), the reason in the perch-hook-note header, the prompt withdrawn', async () => {
    const a = await newAgent('door-cursor-timeout');
    const r = await rawPost(door('cursor', 'permission-request', '?timeout=1'), a.key, cursorShell);
    assert.equal(r.status, 200);
    assert.equal(r.text, CURSOR_ASK);
    assert.equal(decodeURIComponent(r.headers.get('perch-hook-note') ?? ''), 'no decision within 1 s; the terminal dialog decides');
    assert.deepEqual(
      (await requestsOf(a)).map((x) => x.state),
      ['cancelled'],
    );
  });

  test('a paused agent: denied at once with the pause reason for the user and the agent, nothing filed', async () => {
    const a = await newAgent('door-cursor-paused');
    await ownerOk(served, 'agents.pause', { agent: a.id, reason: 'budget review' });
    const r = await rawPost(door('cursor', 'permission-request'), a.key, cursorShell);
    assert.equal(r.status, 200);
    assert.equal(r.text, cursorDeny('Paused in Perch by the owner: budget review'));
    assert.equal((await requestsOf(a)).length, 0);
  });

  test('a standing rule for a Cursor MCP tool decides at once, and only for its server', async () => {
    const a = await newAgent('door-cursor-rule');
    await ownerOk(served, 'rules.add', { agent: a.name, tool: 'MCP:query@http://localhost:3000/mcp', behavior: 'allow' });
    assert.equal((await rawPost(door('cursor', 'permission-request'), a.key, cursorMcp)).text, CURSOR_ALLOW);
    const other = rawPost(door('cursor', 'permission-request', '?timeout=1'), a.key, { ...cursorMcp, url: 'https://b.example/mcp' });
    assert.equal((await other).text, CURSOR_ASK, 'the same tool of another server is not decided by the rule');
    const long = `node ${'/very/long/path/to/an/mcp/server/'.repeat(5)}`;
    for (const tail of ['a.js', 'b.js'])
      await rawPost(door('cursor', 'permission-request', '?timeout=1'), a.key, { ...cursorMcp, url: undefined, command: long + tail });
    const names = (await requestsOf(a)).map((x) => x.context.tool_name as string).filter((n) => n.startsWith('MCP:query@node '));
    assert.equal(names.length, 2);
    assert.notEqual(names[0], names[1], 'two long server commands that start alike stay apart');
    assert.ok(names.every((n) => n.length <= 200));
  });

  test('refusals change nothing: wrong key 401, no key 401 naming the variable and Cursor, input that is not a Cursor permission hook 400 with one line', async () => {
    const a = await newAgent('door-cursor-bad');
    const wrongKey = await rawPost(door('cursor', 'permission-request'), 'perch_nope', cursorShell);
    assert.equal(wrongKey.status, 401);
    assert.equal(wrongKey.json.error.message, 'The agent key is wrong or was revoked.');
    const noKey = await rawPost(door('cursor', 'permission-request', `?agent=${a.name}`), undefined, cursorShell);
    assert.equal(noKey.status, 401);
    assert.match(noKey.json.error.message, /^no key was sent: set PERCH_KEY_\S+ in the shell that starts Cursor\.$/);
    const bad: Array<[string, unknown, RegExp]> = [
      ['not JSON', '{nope', /^stdin is not JSON/],
      ['empty', '', /^no input on stdin \(Cursor writes one JSON object there\)$/],
      ['another event', cursorAfterFileEdit, /^stdin is a "afterFileEdit" hook event, not beforeShellExecution or beforeMCPExecution/],
      [
        'a Claude Code prompt',
        claudeCodeBash,
        /^stdin is a "PermissionRequest" hook event, not beforeShellExecution or beforeMCPExecution/,
      ],
      ['no command', { ...cursorShell, command: undefined }, /^the beforeShellExecution input has no command$/],
      ['no tool_name', { ...cursorMcp, tool_name: undefined }, /^the beforeMCPExecution input has no tool_name$/],
      ['a cwd that is no string', { ...cursorShell, cwd: 7 }, /^the beforeShellExecution input's cwd is not a string$/],
    ];
    for (const [what, body, expected] of bad) {
      // After the key check Cursor always gets an answer it reads: "ask", the reason in the note header.
      const r = await rawPost(door('cursor', 'permission-request'), a.key, body);
      assert.equal(r.status, 200, what);
      assert.equal(r.text, CURSOR_ASK, what);
      const note = decodeURIComponent(r.headers.get('perch-hook-note') ?? '');
      assert.match(note, expected, what);
      assert.doesNotMatch(note, /\n/, what);
    }
    assert.equal((await requestsOf(a)).length, 0, 'nothing filed');
  });

  test('after the key check every refusal is a 200 {"permission":"ask"} with the reason in the note: deeply nested MCP params, a 5 MB command, another Content-Type, a read-only key, a bad ?timeout', async () => {
    const a = await newAgent('door-cursor-ask');
    const depth = 10_000;
    const nested = `${'['.repeat(depth)}1${']'.repeat(depth)}`;
    const cases: Array<[string, () => Promise<Awaited<ReturnType<typeof rawPost>>>, RegExp]> = [
      [
        'deeply nested MCP params',
        () => rawPost(door('cursor', 'permission-request', '?timeout=1'), a.key, { ...cursorMcp, tool_input: nested }),
        /nests more than 64 levels deep/,
      ],
      [
        'a 5 MB command',
        () => rawPost(door('cursor', 'permission-request'), a.key, { ...cursorShell, command: `echo ${'x'.repeat(5 * 1024 * 1024)}` }),
        /over \d+ bytes/,
      ],
      [
        'another Content-Type',
        () => rawPost(door('cursor', 'permission-request'), a.key, cursorShell, { 'Content-Type': 'text/plain' }),
        /Content-Type/,
      ],
      ['a bad ?timeout', () => rawPost(door('cursor', 'permission-request', '?timeout=0'), a.key, cursorShell), /timeout must be/],
    ];
    for (const [what, post, note] of cases) {
      const r = await post();
      assert.equal(r.status, 200, `${what}: ${r.status} ${r.text.slice(0, 200)}`);
      assert.equal(r.text, CURSOR_ASK, what);
      assert.match(decodeURIComponent(r.headers.get('perch-hook-note') ?? ''), note, what);
    }
    const watcher = await ownerOk(served, 'agents.add_key', { agent: a.id, name: 'watch', scopes: ['read'] });
    const readOnly = await rawPost(door('cursor', 'permission-request'), watcher.secret, cursorShell);
    assert.equal(readOnly.status, 200);
    assert.equal(readOnly.text, CURSOR_ASK, 'a read-only key');
    // Before the key check nothing is answered to a stranger but the refusal.
    assert.equal((await rawPost(door('cursor', 'permission-request'), 'perch_nope', cursorShell)).status, 401);
  });
});

describe('the Claude Code door: input it cannot take whole is no decision, never a 500', () => {
  test('a PermissionRequest with deeply nested tool_input: 200 {} (the harness dialog decides), the reason in the note', async () => {
    const a = await newAgent('door-cc-deep');
    const depth = 10_000;
    const body = `{"session_id":"abc123","cwd":"/w","permission_mode":"default","hook_event_name":"PermissionRequest","tool_name":"mcp__x__y","tool_input":${'['.repeat(depth)}1${']'.repeat(depth)}}`;
    const r = await rawPost(door('claude-code', 'permission-request', '?timeout=1'), a.key, body);
    assert.equal(r.status, 200, `${r.status} ${r.text.slice(0, 200)}`);
    assert.match(
      JSON.parse(r.text).systemMessage,
      /^Perch: the tool input nests more than 64 levels deep/,
      'no decision, the reason shown',
    );
    assert.equal(JSON.parse(r.text).hookSpecificOutput, undefined);
    assert.match(decodeURIComponent(r.headers.get('perch-hook-note') ?? ''), /^the tool input nests more than 64 levels deep/);
  });
});
