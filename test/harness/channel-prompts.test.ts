// `perch channel` relays a Claude Code session's permission prompts to the owner (claude/channel/permission): one Perch
// request each, decided by the owner or a standing rule, the verdict sent back; paused agents denied; no ghost cards.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, ownerFail, ownerOk } from '../support/serve-harness';
import { served, openSession, newAgent, channelNotices, pendingPromptOf, requestState, bashPrompt } from '../support/channel-kit';
describe('perch channel relays permission prompts to the owner', () => {
  test("a permission_request becomes one Perch request (the owner's Approvals inbox); the owner's approval comes back as the allow verdict, a rejection as deny", async () => {
    const a = await newAgent('ch-perm');
    const s = await openSession(a);
    try {
      await s.client.notification(bashPrompt('abcde'));
      const req = await pendingPromptOf(a);
      assert.equal(req.kind, 'approve');
      assert.equal(req.title, 'Allow Bash: npm test?');
      assert.equal(req.context.source, 'permission_prompt');
      assert.equal(req.context.via, 'channel');
      assert.equal(req.context.channel_request_id, 'abcde');
      assert.equal(req.context.tool_name, 'Bash');
      assert.deepEqual(req.context.tool_input, { command: 'npm test', description: 'Run the tests' });
      await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
      await eventually(() => s.notices.some((n) => n.method === 'notifications/claude/channel/permission'), 10_000, 'the verdict');
      assert.deepEqual(s.notices.find((n) => n.method === 'notifications/claude/channel/permission')!.params, {
        request_id: 'abcde',
        behavior: 'allow',
      });

      await s.client.notification(bashPrompt('fghij', 'rm -rf build'));
      const req2 = await pendingPromptOf(a);
      await ownerOk(served, 'requests.decide', { request_id: req2.request_id, decision: 'reject' });
      await eventually(
        () => s.notices.filter((n) => n.method === 'notifications/claude/channel/permission').length === 2,
        10_000,
        'the second verdict',
      );
      assert.deepEqual(s.notices.filter((n) => n.method === 'notifications/claude/channel/permission')[1]!.params, {
        request_id: 'fghij',
        behavior: 'deny',
      });
    } finally {
      await s.close();
    }
  });

  test('a prompt with a huge description and input_preview (2 MB each) still reaches the Approvals inbox, its preview cut short', async () => {
    const a = await newAgent('ch-huge');
    const s = await openSession(a);
    try {
      const big = 'y'.repeat(2 * 1024 * 1024);
      await s.client.notification({
        method: 'notifications/claude/channel/permission_request',
        params: { request_id: 'hugee', tool_name: 'Bash', description: big, input_preview: big },
      });
      const req = await pendingPromptOf(a);
      assert.equal(req.context.channel_request_id, 'hugee');
      assert.ok(Buffer.byteLength(JSON.stringify(req.context)) <= 30 * 1024, 'the context stays small');
    } finally {
      await s.close();
    }
  });

  test('a standing rule decides a relayed prompt at once, without the owner', async () => {
    const a = await newAgent('ch-rule');
    await ownerOk(served, 'rules.add', { agent: a.name, tool: 'Bash', command_prefix: 'npm test', behavior: 'allow' });
    const s = await openSession(a);
    try {
      await s.client.notification(bashPrompt('kmnop'));
      await eventually(
        () => s.notices.some((n) => n.method === 'notifications/claude/channel/permission'),
        10_000,
        'the verdict by the rule',
      );
      assert.deepEqual(s.notices.find((n) => n.method === 'notifications/claude/channel/permission')!.params, {
        request_id: 'kmnop',
        behavior: 'allow',
      });
    } finally {
      await s.close();
    }
  });

  test('a paused agent: the pause is pushed into the session, and its prompts are denied at once', async () => {
    const a = await newAgent('ch-paused');
    const s = await openSession(a);
    try {
      await ownerOk(served, 'agents.pause', { agent: a.name, reason: 'budget review' });
      await eventually(() => channelNotices(s).some((n) => n.params.meta.event === 'agent.paused'), 10_000, 'the pause pushed');
      assert.match(channelNotices(s).find((n) => n.params.meta.event === 'agent.paused')!.params.content, /paused in Perch: budget review/);
      await s.client.notification(bashPrompt('abcdf'));
      await eventually(() => s.notices.some((n) => n.method === 'notifications/claude/channel/permission'), 10_000, 'the verdict');
      assert.deepEqual(s.notices.find((n) => n.method === 'notifications/claude/channel/permission')!.params, {
        request_id: 'abcdf',
        behavior: 'deny',
      });
    } finally {
      await s.close();
      await ownerOk(served, 'agents.resume', { agent: a.name });
    }
  });

  test("no ghost cards: a later prompt closes the earlier one, shown as answered in the terminal (not withdrawn), and the session's end closes the last", async () => {
    const a = await newAgent('ch-ghost');
    const s = await openSession(a);
    await s.client.notification(bashPrompt('qrstu', 'make one'));
    const first = await pendingPromptOf(a);
    await s.client.notification(bashPrompt('vwxyz', 'make two'));
    await eventually(async () => (await requestState(first.request_id)) === 'cancelled', 10_000, 'the first prompt closed');
    // it shows as answered in the terminal, not as withdrawn; deciding it afterwards says so
    const closed = (await ownerOk(served, 'requests.list', {})).requests.find((r: any) => r.request_id === first.request_id);
    assert.equal(closed.answered_in, 'terminal');
    assert.equal(closed.withdrawn, undefined);
    const late = await ownerFail(served, 'requests.decide', { request_id: first.request_id, decision: 'approve' }, 409);
    assert.match(late.message, /was answered in the terminal/);
    const second = await pendingPromptOf(a);
    assert.equal(second.title, 'Allow Bash: make two?');
    await s.close();
    await eventually(
      async () => (await requestState(second.request_id)) === 'cancelled',
      10_000,
      'the last prompt closed when the session ended',
    );
    const { requests } = await ownerOk(served, 'requests.list', { state: 'pending' });
    assert.equal(requests.filter((r: any) => r.requester?.id === a.id).length, 0, 'nothing of the agent is left in the Approvals inbox');
  });
});
