// Perch's decision on each tool call, in the flight recorder (hub/features/ledger/decisions.ts), on a real `perch
// serve` with a phone paired through its HTTPS front: Claude Code's PreToolUse (with tool_use_id) then its
// PermissionRequest (without one, as the reference and the real 2.1.332 write it) posted to the hook doors; the
// owner decides on the laptop or on the phone, a standing rule decides, the pause denies, or nobody decides in time.
// The ledger's record of each joins the call by its tool_use_id and says who decided and where, and the harness's
// own telemetry for the same call (OTLP) folds into the same call.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  addAgent,
  cliAsync,
  ownerOk,
  rawCall,
  rawPost,
  startServe,
  tempDataDir,
  uniqueName,
  type AgentKey,
  type Served,
} from '../support/serve-harness';
import { pendingRequestOf } from '../support/hook-runner';
import { frontClient, PUBLIC, type FrontClient } from '../support/phone-front';
import { claudeCodeBash } from '../fixtures/permission-request';
import { claudeCodePreToolUseBash } from '../fixtures/status-hooks';
import { logRecord, logsBody } from '../support/otlp-bodies';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type R = any;

describe("the ledger records Perch's decision on each prompted tool call and who made it", () => {
  let served: Served;
  let phone: FrontClient;
  let device: { token: string; device: R };
  before(async () => {
    served = await startServe(tempDataDir(), { args: ['--public-url', PUBLIC] });
    phone = frontClient(served);
    device = await phone.pair('Pocket', 'approvals');
  });
  after(async () => {
    await served?.stop();
  });

  const door = (event: string, q = '') => `${served.mcpUrl.replace(/\/mcp$/, '')}/hook/claude-code/${event}${q}`;

  /** Claude Code's two hooks for one Bash call: PreToolUse (its tool_use_id), then the PermissionRequest (none). */
  async function prompt(agent: AgentKey, callId: string, command: string, timeout = 60): Promise<Promise<R>> {
    const session = `sess-${agent.name}`;
    const pre = await rawPost(door('pre-tool-use'), agent.key, {
      ...claudeCodePreToolUseBash,
      session_id: session,
      tool_input: { command },
      tool_use_id: callId,
    });
    assert.equal(pre.status, 200, pre.text);
    return rawPost(door('permission-request', `?timeout=${timeout}`), agent.key, {
      ...claudeCodeBash,
      session_id: session,
      tool_input: { command },
    }).then((r) => {
      assert.equal(r.status, 200, r.text);
      return JSON.parse(r.text || '{}');
    });
  }

  async function perch(...args: string[]): Promise<R> {
    const r = await cliAsync([...args, '--data-dir', served.dataDir, '--json']);
    assert.equal(r.code, 0, `perch ${args.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout);
  }

  async function callOf(agent: AgentKey, callId: string): Promise<R> {
    const { calls } = await perch('ledger', 'calls', '--agent', agent.name);
    const c = calls.find((x: R) => x.call_id === callId);
    assert.ok(c, `the call ${callId} is in the ledger: ${JSON.stringify(calls)}`);
    return c;
  }

  test('decided by the owner on the laptop: the record joins the call by its tool_use_id and says so', async () => {
    const a = await addAgent(served.dataDir, uniqueName('led-laptop'));
    const answer = prompt(a, 'toolu_laptop_1', 'make build');
    const req = await pendingRequestOf(served, a);
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
    assert.equal((await await answer).hookSpecificOutput.decision.behavior, 'allow');
    const c = await callOf(a, 'toolu_laptop_1');
    assert.deepEqual(c.perch, { decision: 'allow', by: 'owner', on: { via: 'laptop' }, request_id: req.request_id });
    assert.equal(c.decision, 'allow');
    assert.equal(c.decided_by, 'perch');
    assert.equal(c.tool, 'Bash');
    assert.match(c.asked, /make build/);
    // No view of the request says where it was decided: the owner's list, the agent's get_request and its history.
    assert.equal(JSON.stringify((await ownerOk(served, 'requests.list', { state: 'approved' })).requests).includes('decided_on'), false);
    const asAgent = await rawCall(served.mcpUrl, a.key, 'get_request', { request_id: req.request_id });
    assert.equal(asAgent.structuredContent?.state, 'approved');
    assert.equal(JSON.stringify(asAgent).includes('decided_on'), false, JSON.stringify(asAgent));
    const history = await rawCall(served.mcpUrl, a.key, 'get_history', { conv_id: req.conv_id });
    assert.match(JSON.stringify(history), /state\\?":\\?"approved/);
    assert.equal(JSON.stringify(history).includes('decided_on'), false, "the request message in the agent's history");
  });

  test('decided by the owner on a paired phone: the record names the device', async () => {
    const a = await addAgent(served.dataDir, uniqueName('led-phone'));
    const answer = prompt(a, 'toolu_phone_1', 'make deploy');
    const req = await pendingRequestOf(served, a);
    const d = await phone.deviceCall(device.token, 'requests.decide', { request_id: req.request_id, decision: 'reject' });
    assert.equal(d.status, 200, JSON.stringify(d.body));
    assert.equal((await await answer).hookSpecificOutput.decision.behavior, 'deny');
    const c = await callOf(a, 'toolu_phone_1');
    assert.deepEqual(c.perch, {
      decision: 'deny',
      by: 'owner',
      on: { via: 'device', device_id: device.device.id, name: 'Pocket' },
      request_id: req.request_id,
    });
  });

  test('decided by a standing rule: the record names the rule; denied by the pause; nobody decided in time', async () => {
    const a = await addAgent(served.dataDir, uniqueName('led-rule'));
    const { rule } = await ownerOk(served, 'rules.add', { agent: a.name, tool: 'Bash', command_prefix: 'make lint', behavior: 'allow' });
    assert.equal((await await prompt(a, 'toolu_rule_1', 'make lint')).hookSpecificOutput.decision.behavior, 'allow');
    const byRule = await callOf(a, 'toolu_rule_1');
    assert.equal(byRule.perch.by, 'rule');
    assert.equal(byRule.perch.rule_id, rule.rule_id);
    assert.equal(byRule.perch.decision, 'allow');

    const late = await prompt(a, 'toolu_none_1', 'make clean', 1);
    assert.equal(late.hookSpecificOutput, undefined, 'no decision: the harness decides');
    const none = await callOf(a, 'toolu_none_1');
    assert.equal(none.perch.by, 'nobody');
    assert.equal(none.perch.decision, 'none');
    assert.match(none.perch.why, /no decision within 1 s/);
    assert.equal(none.decided_by, null, 'nobody in Perch decided it');

    await ownerOk(served, 'agents.pause', { agent: a.name, reason: 'lunch' });
    const paused = await prompt(a, 'toolu_pause_1', 'make test');
    assert.equal(paused.hookSpecificOutput.decision.behavior, 'deny');
    const p = await callOf(a, 'toolu_pause_1');
    assert.equal(p.perch.by, 'pause');
    assert.equal(p.perch.decision, 'deny');
    assert.match(p.perch.why, /lunch/);
  });

  test("the harness's own telemetry of the call folds in with Perch's record; export carries the decision and its source", async () => {
    const a = await addAgent(served.dataDir, uniqueName('led-otlp'));
    const answer = prompt(a, 'toolu_otlp_1', 'make docs');
    const req = await pendingRequestOf(served, a);
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
    await answer;
    const { token } = await perch('ledger', 'token', a.name);
    const body = logsBody('claude-code', [
      logRecord('claude_code.tool_decision', {
        'session.id': `sess-${a.name}`,
        tool_name: 'Bash',
        tool_use_id: 'toolu_otlp_1',
        decision: 'accept',
        source: 'hook',
      }),
      logRecord('claude_code.tool_result', {
        'session.id': `sess-${a.name}`,
        tool_name: 'Bash',
        tool_use_id: 'toolu_otlp_1',
        success: 'true',
        duration_ms: 2300,
      }),
    ]);
    const r = await rawPost(served.mcpUrl.replace(/\/mcp$/, '/v1/logs'), token, body);
    assert.equal(r.status, 200, r.text);
    const c = await callOf(a, 'toolu_otlp_1');
    assert.equal(c.record_ids.length, 3, "one call: Perch's record and the harness's two");
    assert.equal(c.decided_by, 'perch');
    assert.equal(c.decision_source, 'hook');
    assert.equal(c.perch.by, 'owner');
    assert.equal(c.outcome.duration_ms, 2300);

    const out = await cliAsync(['ledger', 'export', '--since', '2000-01-01', '--agent', a.name, '--data-dir', served.dataDir]);
    assert.equal(out.code, 0, out.stderr);
    const rows = out.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const mine = rows.find((x: R) => x.kind === 'perch_decision');
    assert.equal(mine.call_id, 'toolu_otlp_1');
    assert.deepEqual(mine.detail.perch, { decision: 'allow', by: 'owner', on: { via: 'laptop' }, request_id: req.request_id });
    const csv = await cliAsync([
      'ledger',
      'export',
      '--since',
      '2000-01-01',
      '--agent',
      a.name,
      '--format',
      'csv',
      '--data-dir',
      served.dataDir,
    ]);
    assert.match(csv.stdout, /perch_decision,[^\n]*toolu_otlp_1[^\n]*""by"":""owner""/);
    const text = await cliAsync(['ledger', 'calls', '--agent', a.name, '--data-dir', served.dataDir]);
    assert.match(text.stdout, /Perch: allowed by you on the laptop/);
    assert.equal((await perch('ledger', 'verify')).ok, true, "the chain holds with Perch's records in it");
  });
});
