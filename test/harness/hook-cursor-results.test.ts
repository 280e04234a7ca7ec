// Cursor's after-execution hooks in the flight recorder (POST /hook/cursor/post-tool-use: src/main/mcp/hook-door/cursor.ts,
// src/shared/agents/harnesses/cursor-wire.ts, src/main/hub/features/ledger/cursor-calls.ts): the hook commands
// `perch connect cursor --write` writes (beforeShellExecution / beforeMCPExecution, afterShellExecution /
// afterMCPExecution), run by a real /bin/sh with the key only in the environment against a real `perch serve`, fed
// Cursor's documented inputs (test/fixtures/cursor-hooks.ts). Each result joins the call its permission hook opened,
// once; hostile input is answered and stores nothing. Protocol level only: no real Cursor.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import {
  addAgent,
  cliAsync,
  exitOf,
  ownerOk,
  rawCall,
  rawPost,
  tempDir,
  uniqueName,
  useSharedServe,
  type AgentKey,
  type CliResult,
} from '../support/serve-harness';
import { pendingRequestOf } from '../support/hook-runner';
import { CURSOR_ALLOW, cursorAfterFileEdit, cursorAfterMcp, cursorAfterShell, cursorMcp, cursorShell } from '../fixtures/cursor-hooks';
import { keyEnvVar } from '../../src/shared/agents/snippets';
import { setCursorHooks } from '../../src/shared/agents/harnesses/cursor';

const served = useSharedServe();
const newAgent = (base: string): Promise<AgentKey> => addAgent(served.dataDir, uniqueName(base));
const work = tempDir('perch-cursor-results-');

/** The hook commands Perch writes in Cursor's hooks.json for the agent, by event. */
function written(a: AgentKey): Record<string, string> {
  const hooks = JSON.parse(setCursorHooks(undefined, { agent: a.name, mcpUrl: served.mcpUrl })).hooks as Record<
    string,
    Array<{ command: string }>
  >;
  return Object.fromEntries(Object.entries(hooks).map(([event, list]) => [event, list[0]!.command]));
}

let files = 0;
/** Runs a written hook command as Cursor does (a shell, the input on stdin: here from a file), the key in the environment only. */
async function runHook(command: string, input: unknown, key: AgentKey | { name: string; key: string }): Promise<CliResult> {
  const file = path.join(work, `input-${files++}.json`);
  fs.writeFileSync(file, typeof input === 'string' ? input : JSON.stringify(input));
  const fd = fs.openSync(file, 'r');
  try {
    const child = spawn('/bin/sh', ['-c', command], {
      env: { PATH: process.env.PATH ?? '', HOME: work, [keyEnvVar(key.name)]: key.key },
      stdio: [fd, 'pipe', 'pipe'],
    });
    return await exitOf(child, command, 60_000);
  } finally {
    fs.closeSync(fd);
  }
}

/** The after hook, run as written: Cursor reads nothing back, the door answers {} and the hook exits 0. */
async function after(a: AgentKey, event: 'afterShellExecution' | 'afterMCPExecution' | 'afterFileEdit', input: unknown): Promise<void> {
  const r = await runHook(written(a)[event]!, input, a);
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, '{}', ''], `${event}: ${JSON.stringify(input).slice(0, 200)}`);
}

const calls = async (a: AgentKey, extra: Record<string, unknown> = {}) =>
  (await ownerOk(served, 'ledger.calls', { agent: a.name, ...extra })).calls as any[];

/** The agent's ledger rows of its harness (perch ledger export; Perch's own events, e.g. a rule added, left out). */
async function rows(a: AgentKey): Promise<any[]> {
  const out = await cliAsync(['ledger', 'export', '--since', '2000-01-01', '--agent', a.name, '--data-dir', served.dataDir]);
  assert.equal(out.code, 0, out.stderr);
  return out.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((r) => r.kind !== 'perch_event');
}

async function allowShell(a: AgentKey, prefix = 'npm install'): Promise<void> {
  await ownerOk(served, 'rules.add', { agent: a.name, tool: 'Shell', command_prefix: prefix, behavior: 'allow' });
}

/** The written beforeShellExecution hook, decided by the owner on the card it files. */
async function ownerDecides(a: AgentKey, input: unknown, decision: 'approve' | 'reject'): Promise<CliResult> {
  const run = runHook(written(a).beforeShellExecution!, input, a);
  const req = await pendingRequestOf(served, a, 30_000);
  await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision });
  return run;
}

describe("Cursor's after-execution hooks record each call's result, joined to its permission hook's call", () => {
  test('a shell command: the afterShellExecution result (output, duration) joins the call its beforeShellExecution opened; the same hook again adds nothing', async () => {
    const a = await newAgent('cursor-rec-shell');
    await allowShell(a);
    const before = await runHook(written(a).beforeShellExecution!, cursorShell, a);
    assert.equal(before.stdout, CURSOR_ALLOW, before.stderr);
    await after(a, 'afterShellExecution', cursorAfterShell());
    const [call, ...more] = await calls(a);
    assert.equal(more.length, 0, 'one call');
    assert.match(call.call_id, /^cursor-[0-9a-f-]{36}$/);
    assert.equal(call.harness, 'cursor');
    assert.equal(call.session_id, cursorShell.conversation_id);
    assert.equal(call.tool, 'Shell');
    assert.equal(call.asked, '{"command":"npm install left-pad"}');
    assert.equal(call.perch.by, 'rule');
    assert.equal(call.decision, 'allow');
    assert.deepEqual(call.outcome, {
      success: null, // Cursor does not report a shell command's exit code
      duration_ms: 2340,
      exit_code: null,
      output_head: 'added 1 package in 2s\n\nfound 0 vulnerabilities\n',
      error: null,
    });
    await after(a, 'afterShellExecution', cursorAfterShell());
    const kinds = (await rows(a)).map((r) => r.kind);
    assert.deepEqual(kinds, ['perch_decision', 'tool_result'], 'the repeated hook added no second result');
    assert.equal((await calls(a)).length, 1);
  });

  test('an MCP call: its result (isError) marks it failed, under the tool and server its beforeMCPExecution named (afterMCPExecution names no server)', async () => {
    const a = await newAgent('cursor-rec-mcp');
    const run = runHook(written(a).beforeMCPExecution!, cursorMcp, a);
    const req = await pendingRequestOf(served, a, 30_000);
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
    assert.equal((await run).stdout, CURSOR_ALLOW);
    const failed = JSON.stringify({ content: [{ type: 'text', text: 'permission denied for table users' }], isError: true });
    await after(a, 'afterMCPExecution', cursorAfterMcp({ result_json: failed }));
    const [call, ...more] = await calls(a, { failed_only: true });
    assert.equal(more.length, 0);
    assert.equal(call.tool, 'MCP:query@http://localhost:3000/mcp');
    assert.equal(call.asked, '{"sql":"DELETE FROM users WHERE id = 7"}');
    assert.deepEqual([call.perch.by, call.perch.request_id], ['owner', req.request_id]);
    assert.deepEqual(call.outcome, {
      success: false,
      duration_ms: 250,
      exit_code: null,
      output_head: 'permission denied for table users',
      error: 'permission denied for table users',
    });
    // The approval card links to the call's outcome.
    const linked = await calls(a, { request_id: req.request_id });
    assert.deepEqual(
      linked.map((c) => c.call_id),
      [call.call_id],
    );
    await after(a, 'afterMCPExecution', cursorAfterMcp({ conversation_id: 'conv-other' }));
    const ok = (await calls(a)).find((c) => c.call_id !== call.call_id);
    assert.deepEqual([ok.tool, ok.outcome.success, ok.outcome.output_head], ['MCP:query@(unknown server)', true, '1 row deleted']);
  });

  test("the same command twice in one conversation: a result joins its own generation's call, else the oldest open one; a call Perch denied takes none", async () => {
    const a = await newAgent('cursor-rec-join');
    const cmd = 'npm install left-pad';
    // g1: the owner rejects (it never runs); g2: the owner approves; then a rule allows g3.
    assert.match((await ownerDecides(a, { ...cursorShell, generation_id: 'g1' }, 'reject')).stdout, /"permission":"deny"/);
    assert.equal((await ownerDecides(a, { ...cursorShell, generation_id: 'g2' }, 'approve')).stdout, CURSOR_ALLOW);
    await allowShell(a);
    assert.equal((await runHook(written(a).beforeShellExecution!, { ...cursorShell, generation_id: 'g3' }, a)).stdout, CURSOR_ALLOW);
    await after(a, 'afterShellExecution', cursorAfterShell({ generation_id: 'g3', output: 'third' }));
    await after(a, 'afterShellExecution', cursorAfterShell({ generation_id: 'g-unknown', output: 'second', duration: 5 }));
    const all = await calls(a);
    const by = (f: (c: any) => boolean) => all.filter(f);
    assert.deepEqual(
      by((c) => c.perch?.by === 'rule').map((c) => c.outcome?.output_head),
      ['third'],
      "g3's result joins g3's call",
    );
    const owner = by((c) => c.perch?.by === 'owner');
    assert.deepEqual(
      owner.map((c) => [c.perch.decision, c.outcome?.output_head ?? null]).sort(),
      [
        ['allow', 'second'],
        ['deny', null],
      ],
      "the other result joins the oldest open call: g2's; the denied g1 takes none",
    );
    assert.equal(all.length, 3);
    assert.ok(all.every((c) => c.tool === 'Shell' && JSON.parse(c.asked).command === cmd));
  });

  test('a file edit (afterFileEdit: no permission hook before it) is a call of its own, tool "Edit", what it changed as asked; once', async () => {
    const a = await newAgent('cursor-rec-edit');
    await after(a, 'afterFileEdit', cursorAfterFileEdit);
    await after(a, 'afterFileEdit', cursorAfterFileEdit);
    const [call, ...more] = await calls(a);
    assert.equal(more.length, 0, 'the repeated hook added nothing');
    assert.match(call.call_id, /^cursor-/);
    assert.deepEqual([call.tool, call.session_id, call.perch], ['Edit', cursorAfterFileEdit.conversation_id, null]);
    assert.deepEqual(JSON.parse(call.asked), { file_path: '/home/user/my-project/a.ts', edits: [{ old_string: 'a', new_string: 'b' }] });
    assert.equal(call.outcome.success, true);
  });

  test('a result whose permission hook never reached Perch is a call of its own', async () => {
    const a = await newAgent('cursor-rec-alone');
    await after(a, 'afterShellExecution', cursorAfterShell({ command: 'ls -la', output: 'total 0' }));
    const [call] = await calls(a);
    assert.match(call.call_id, /^cursor-/);
    assert.deepEqual([call.tool, call.perch, call.outcome.output_head], ['Shell', null, 'total 0']);
  });
});

describe('hostile input at the after-execution door: answered, nothing stored, the hub unharmed', () => {
  const door = (a: { name: string }) => `${served.mcpUrl.replace(/\/mcp$/, '')}/hook/cursor/post-tool-use?agent=${a.name}`;
  const depth = 100_000;
  const nested = `${'['.repeat(depth)}1${']'.repeat(depth)}`;
  const cases: Array<[string, string, RegExp]> = [
    ['malformed JSON', '{"hook_event_name": "afterShellExecution", ', /^stdin is not JSON/],
    ['empty', '', /^no input on stdin/],
    ['an array', '[1,2]', /^stdin is not a JSON object/],
    [
      'a permission hook input',
      JSON.stringify(cursorShell),
      /"beforeShellExecution" hook event, not afterShellExecution or afterMCPExecution/,
    ],
    ['another event', JSON.stringify({ ...cursorShell, hook_event_name: 'stop', status: 'completed' }), /"stop" hook event/],
    ['an edit without its file', JSON.stringify({ ...cursorAfterFileEdit, file_path: undefined }), /afterFileEdit input has no file_path/],
    ['edits that are no list', JSON.stringify({ ...cursorAfterFileEdit, edits: 'all of it' }), /edits is not a list/],
    ['a command that is a number', JSON.stringify(cursorAfterShell({ command: 7 })), /command is not a string/],
    ['no command', JSON.stringify(cursorAfterShell({ command: '  ' })), /has no command/],
    ['an output object', JSON.stringify(cursorAfterShell({ output: { a: 1 } })), /output is not a string/],
    ['a duration "slow"', JSON.stringify(cursorAfterShell({ duration: 'slow' })), /duration is not a number/],
    ['a negative duration', JSON.stringify(cursorAfterShell({ duration: -1 })), /duration is not a number/],
    ['a conversation id that is a number', JSON.stringify(cursorAfterShell({ conversation_id: 5 })), /conversation_id is not a string/],
    ['an MCP tool_name list', JSON.stringify(cursorAfterMcp({ tool_name: ['query'] })), /tool_name is not a string/],
    ['a 5 MB output', JSON.stringify(cursorAfterShell({ output: 'x'.repeat(5 * 1024 * 1024) })), /over \d+ bytes/],
    [
      'a deeply nested field',
      `{"hook_event_name":"afterShellExecution","command":"ls","extra":${nested}}`,
      /nests more than 64 levels deep/,
    ],
    ['deeply nested MCP params', JSON.stringify(cursorAfterMcp({ tool_input: nested })), /tool_input nests more than 64 levels deep/],
  ];

  test('each bad body, posted by the written hook from a file: {} and exit 0 (the reason in the note), nothing recorded, the open call left for its real result', async () => {
    const a = await newAgent('cursor-rec-bad');
    await allowShell(a, 'npm');
    assert.equal((await runHook(written(a).beforeShellExecution!, cursorShell, a)).stdout, CURSOR_ALLOW);
    const before = (await rows(a)).length;
    for (const [what, body, note] of cases) {
      await after(a, 'afterShellExecution', body);
      const r = await rawPost(door(a), a.key, body);
      assert.equal(r.status, 200, what);
      assert.equal(r.text, '{}', what);
      const why = decodeURIComponent(r.headers.get('perch-hook-note') ?? '');
      assert.match(why, note, what);
      assert.doesNotMatch(why, /\n/, what);
    }
    assert.equal((await rows(a)).length, before, 'nothing recorded');
    await after(a, 'afterShellExecution', cursorAfterShell());
    const [call] = await calls(a);
    assert.deepEqual(
      [call.perch.by, call.outcome.duration_ms],
      ['rule', 2340],
      'the call its permission hook opened is still there for its result',
    );
  });

  test("another agent's key records for that agent only (never onto this agent's call); a wrong or revoked key gets 401 and the hook stays silent (curl -f), nothing stored", async () => {
    const a = await newAgent('cursor-rec-a');
    const b = await newAgent('cursor-rec-b');
    await allowShell(a);
    assert.equal((await runHook(written(a).beforeShellExecution!, cursorShell, a)).stdout, CURSOR_ALLOW);
    // B's key, in A's hook command (A's URL) and A's conversation.
    const asB = await runHook(written(a).afterShellExecution!, cursorAfterShell({ output: 'from b' }), { name: a.name, key: b.key });
    assert.deepEqual([asB.code, asB.stdout], [0, '{}']);
    assert.deepEqual(
      (await rows(a)).map((r) => r.kind),
      ['perch_decision'],
      "nothing of B's on A",
    );
    assert.deepEqual(
      (await calls(b)).map((c) => [c.perch, c.outcome.output_head]),
      [[null, 'from b']],
      "B's own record",
    );
    for (const [what, key] of [
      ['a wrong key', 'perch_nope'],
      ['no key', ''],
    ] as const) {
      const r = await runHook(written(a).afterShellExecution!, cursorAfterShell({ output: what }), { name: a.name, key });
      assert.deepEqual([r.code, r.stdout], [22, ''], `${what}: curl -f fails quietly (Cursor goes on)`);
    }
    const c = await newAgent('cursor-rec-revoked');
    await ownerOk(served, 'agents.revoke', { agent: c.name });
    const revoked = await rawPost(door(c), c.key, cursorAfterShell());
    assert.equal(revoked.status, 401);
    assert.equal(revoked.json.error.message, 'The agent key is wrong or was revoked.');
    assert.deepEqual((await runHook(written(c).afterShellExecution!, cursorAfterShell(), c)).code, 22);
    assert.equal((await rows(c)).length, 0, 'nothing stored for the revoked agent');
    await after(a, 'afterShellExecution', cursorAfterShell());
    assert.deepEqual(
      (await calls(a)).map((x) => [x.perch.by, x.outcome.output_head]),
      [['rule', 'added 1 package in 2s\n\nfound 0 vulnerabilities\n']],
      "A's own result still joins A's call",
    );
    assert.equal(served.proc.exitCode, null, 'the hub is running');
    assert.equal((await rawCall(served.mcpUrl, a.key, 'whoami')).isError, undefined, 'and answers MCP');
    assert.equal((await cliAsync(['ledger', 'verify', '--data-dir', served.dataDir])).code, 0, 'the chain holds');
  });
});

// Last: connect --write records the connection, after which this agent answers for every folder (one agent per session).
test('`perch connect cursor NAME --write` writes the after-execution hooks, and the one it wrote records a result with the key only in the environment', async () => {
  const a = await newAgent('cursor-rec-connect');
  const home = tempDir('perch-cursor-rec-home-');
  const c = await cliAsync(['connect', 'cursor', a.name, '--write', '--data-dir', served.dataDir], { env: { HOME: home } });
  assert.equal(c.code, 0, c.stderr);
  const hooks = JSON.parse(fs.readFileSync(path.join(home, '.cursor', 'hooks.json'), 'utf8')).hooks;
  const command: string = hooks.afterShellExecution[0].command;
  assert.equal(command, written(a).afterShellExecution);
  assert.ok(!command.includes(a.key));
  assert.deepEqual(hooks.afterMCPExecution, hooks.afterShellExecution);
  const r = await runHook(command, cursorAfterShell({ command: 'make', output: 'ok' }), a);
  assert.deepEqual([r.code, r.stdout], [0, '{}'], r.stderr);
  assert.deepEqual(
    (await calls(a)).map((x) => [x.tool, x.outcome.output_head]),
    [['Shell', 'ok']],
  );
});
