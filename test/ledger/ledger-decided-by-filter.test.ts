// The ledger's tool calls filtered by their decision's maker (decided_by: allowlist, perch, user, harness), beside the
// agent, harness, tool and failed-only filters: the owner API's ledger.calls and `perch ledger calls --decided-by`.
// A value that is none of them is refused in one line and lists nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addAgent, cliAsync, owner, ownerOk, rawPost, uniqueName, useSharedServe } from '../support/serve-harness';
import { logRecord, logsBody } from '../support/otlp-bodies';

const served = useSharedServe();

/** A Claude Code tool call decided by `source` (its tool_decision event), and its result. */
function call(id: string, source: string): string {
  return logsBody('claude-code', [
    logRecord('claude_code.tool_decision', { 'session.id': 's', tool_name: 'Bash', tool_use_id: id, decision: 'accept', source }),
    logRecord('claude_code.tool_result', { 'session.id': 's', tool_name: 'Bash', tool_use_id: id, success: 'true' }),
  ]);
}

test("the ledger's calls filter by who decided them (owner API decided_by, perch ledger --decided-by); an unknown value is refused", async () => {
  const a = await addAgent(served.dataDir, uniqueName('decided'));
  const tok = await cliAsync(['ledger', 'token', a.name, '--data-dir', served.dataDir, '--json']);
  const token = JSON.parse(tok.stdout).token as string;
  const url = served.mcpUrl.replace(/\/mcp$/, '/v1/logs');
  for (const [id, source] of [
    ['toolu_by_config', 'config'],
    ['toolu_by_user', 'user_temporary'],
  ])
    assert.equal((await rawPost(url, token, call(id, source))).status, 200);

  const all = await ownerOk(served, 'ledger.calls', { agent: a.name });
  assert.deepEqual(all.calls.map((c: any) => c.call_id).sort(), ['toolu_by_config', 'toolu_by_user']);
  const byUser = await ownerOk(served, 'ledger.calls', { agent: a.name, decided_by: 'user' });
  assert.deepEqual(
    byUser.calls.map((c: any) => c.call_id),
    ['toolu_by_user'],
  );

  const cli = await cliAsync(['ledger', 'calls', '--agent', a.name, '--decided-by', 'allowlist', '--json', '--data-dir', served.dataDir]);
  assert.equal(cli.code, 0, cli.stderr);
  assert.deepEqual(
    JSON.parse(cli.stdout).calls.map((c: any) => c.call_id),
    ['toolu_by_config'],
  );

  const bad = await cliAsync(['ledger', 'calls', '--decided-by', 'nobody', '--data-dir', served.dataDir]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--decided-by takes allowlist, perch, user, harness/);
  assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);
  const refused = await owner(served, 'ledger.calls', { decided_by: 'nobody' });
  assert.equal(refused.status, 400);
});
