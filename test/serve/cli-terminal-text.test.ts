// What a perch command prints for a person holds what agents and harnesses wrote (a tool call's command, a tool's
// name): printed through visibleText, no escape sequence or bidi control in it reaches the owner's terminal; --json
// keeps the text as stored (JSON escapes the controls). Fed through the real OTLP receiver of a real `perch serve`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addAgent, cliAsync, rawPost, uniqueName, useSharedServe } from '../support/serve-harness';
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
