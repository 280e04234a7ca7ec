// What a perch command prints for a person holds what agents and harnesses wrote (a tool call's command, a tool's
// name): printed through visibleText, no escape sequence or bidi control in it reaches the owner's terminal; --json
// keeps the text as stored (JSON escapes the controls). A reader that closes the pipe early (`| head`) ends the command
// quietly. Fed through the real OTLP receiver of a real `perch serve`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { BIN, addAgent, cliAsync, exitOf, owner, rawPost, uniqueName, useSharedServe } from '../support/serve-harness';
import { logRecord, logsBody } from '../support/otlp-bodies';

const served = useSharedServe();

test("perch ledger calls prints an agent's command with escape sequences and a bidi override as plain text; --json keeps it as stored", async () => {
  const a = await addAgent(served.dataDir, uniqueName('esc'));
  const tok = await cliAsync(['ledger', 'token', a.name, '--data-dir', served.dataDir, '--json']);
  assert.equal(tok.code, 0, tok.stderr);
  // Set the window title, clear the screen, then turn what follows around ("exe.jpg" shows as "gpj.exe").
  const command = 'echo hi\u001b]0;owned\u0007\u001b[2J\u009b31m\u202egpj.exe';
  const body = logsBody('claude-code', [
    logRecord('claude_code.tool_result', {
      'session.id': 'sess-esc',
      tool_name: 'Bash\u001b[8m',
      tool_use_id: 'toolu_esc',
      success: 'true',
      duration_ms: { int: 10 },
      tool_parameters: JSON.stringify({ bash_command: command }),
    }),
  ]);
  const posted = await rawPost(served.mcpUrl.replace(/\/mcp$/, '/v1/logs'), JSON.parse(tok.stdout).token, body);
  assert.equal(posted.status, 200, posted.text);

  const human = await cliAsync(['ledger', 'calls', '--agent', a.name, '--data-dir', served.dataDir]);
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /  Bash\[8m  .*\[2J31mgpj\.exe"\}\n$/, human.stdout);
  assert.doesNotMatch(human.stdout, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/, JSON.stringify(human.stdout));

  const json = await cliAsync(['ledger', 'calls', '--agent', a.name, '--data-dir', served.dataDir, '--json']);
  assert.equal(json.code, 0, json.stderr);
  assert.doesNotMatch(json.stdout, /[\u0000-\u0009\u000b-\u001f]/, 'JSON escapes the controls');
  const [call] = JSON.parse(json.stdout).calls;
  assert.equal(call.tool, 'Bash\u001b[8m', 'stored as the harness sent it');
  assert.equal(call.asked, JSON.stringify({ bash_command: command }), 'what it was asked, as sent');
});

test('perch ledger export | head: the reader closing the pipe ends the export quietly (exit 141, nothing on stderr), not with an EPIPE stack trace', async () => {
  const a = await addAgent(served.dataDir, uniqueName('pipe'));
  const tok = await cliAsync(['ledger', 'token', a.name, '--data-dir', served.dataDir, '--json']);
  assert.equal(tok.code, 0, tok.stderr);
  // 200 calls of 2,000 characters each: far more than a pipe holds.
  const records = Array.from({ length: 200 }, (_, i) =>
    logRecord('claude_code.tool_result', {
      'session.id': 'sess-pipe',
      tool_name: 'Bash',
      tool_use_id: `toolu_pipe_${i}`,
      success: 'true',
      duration_ms: { int: 1 },
      tool_parameters: JSON.stringify({ bash_command: `echo ${'x'.repeat(2000)}` }),
    }),
  );
  const posted = await rawPost(served.mcpUrl.replace(/\/mcp$/, '/v1/logs'), JSON.parse(tok.stdout).token, logsBody('claude-code', records));
  assert.equal(posted.status, 200, posted.text);

  const p = spawn(process.execPath, [BIN, 'ledger', 'export', '--since', '2000-01-01', '--agent', a.name, '--data-dir', served.dataDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Read the first chunk, then close the pipe as head does.
  p.stdout.once('data', () => p.stdout.destroy());
  const { code, stderr } = await exitOf(p, 'perch ledger export', 30_000);
  assert.equal(stderr, '', 'nothing on stderr');
  assert.equal(code, 141, 'exit 141, as a command ended by SIGPIPE');
});

test('an error quoting what was typed: an agent name with an escape sequence comes back escaped, a 5,000-character one cut to 80 with its length; the owner API says the same (it takes names up to 256)', async () => {
  const esc = await cliAsync(['ledger', 'calls', '--agent', 'a\u001b]0;owned\u0007\u001b[31mred\u202e', '--data-dir', served.dataDir]);
  assert.equal(esc.code, 1);
  assert.doesNotMatch(esc.stderr, /[\u001b\u0007\u202e]/, 'no control reaches the terminal');
  assert.match(esc.stderr, /^perch: No agent named "a\\u001b\]0;owned\\u0007\\u001b\[31mred/);
  const long = await cliAsync(['agent', 'wake', 'x'.repeat(5000), '--show', '--data-dir', served.dataDir]);
  assert.equal(long.code, 1);
  assert.match(long.stderr, /^perch: No agent named "x{80}"… \(5000 characters\)\. List agents with `perch agent list`\.\n$/);
  const api = await owner(served, 'wake.runs', { agent: 'y'.repeat(200) });
  assert.match(api.error?.message ?? '', /^No agent named "y{80}"… \(200 characters\)\.$/);
});
