// A sample of the standing-rules table (test/unit/shell-rules-table.ts) through the live hook door of a real
// `perch serve`: the rules added with rules.add, each command posted as Claude Code's PermissionRequest hook; an allow
// or a deny comes back at once, and a prompt for the owner waits (?timeout=1) and answers {} (the harness decides).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addAgent, ownerOk, rawPost, uniqueName, useSharedServe } from '../support/serve-harness';
import { claudeCodeBash } from '../fixtures/permission-request';
import { RULE_SETS, TABLE } from '../unit/shell-rules-table';

const served = useSharedServe();

test('a sample of the rule table gets the same allow / deny / owner answer through the live hook door', async () => {
  const agents: Record<string, { key: string }> = {};
  for (const [set, rules] of Object.entries(RULE_SETS)) {
    const a = await addAgent(served.dataDir, uniqueName(`rules-${set.toLowerCase()}`));
    agents[set] = a;
    for (const r of rules) {
      await ownerOk(served, 'rules.add', {
        agent: a.name,
        tool: r.tool,
        behavior: r.behavior,
        ...(r.command_prefix !== null ? { command_prefix: r.command_prefix } : {}),
        ...(r.any_options ? { any_options: true } : {}),
      });
    }
  }
  // The review's bypasses (the first rows) and every fifth row after them.
  const sample = TABLE.filter((_, i) => i < 12 || i % 5 === 0);
  const url = `${served.mcpUrl.replace(/\/mcp$/, '')}/hook/claude-code/permission-request?timeout=1`;
  const wrong: string[] = [];
  for (const [set, command, expected] of sample) {
    let r = await rawPost(url, agents[set]!.key, { ...claudeCodeBash, tool_input: { command } });
    // The door limits an agent's prompts per second: wait as it says, a bounded number of times.
    for (let tries = 0; r.status === 429 && tries < 20; tries++) {
      await new Promise((done) => setTimeout(done, 1000 * Number(r.headers.get('retry-after') ?? 1)));
      r = await rawPost(url, agents[set]!.key, { ...claudeCodeBash, tool_input: { command } });
    }
    assert.equal(r.status, 200, r.text);
    const body = JSON.parse(r.text || '{}');
    const got = body.hookSpecificOutput?.decision?.behavior ?? 'owner';
    if (got !== expected) wrong.push(`${set}: ${JSON.stringify(command)} → ${got}, expected ${expected}`);
  }
  assert.ok(sample.length >= 60, `${sample.length} commands`);
  assert.deepEqual(wrong, []);
});

test("a rule's scope (this agent, every agent in a folder, every agent) and lifetime (session, today) decide whose prompts it decides; its uses are counted", async () => {
  const url = `${served.mcpUrl.replace(/\/mcp$/, '')}/hook/claude-code/permission-request?timeout=1`;
  const [a, b] = [await addAgent(served.dataDir, uniqueName('scope-a')), await addAgent(served.dataDir, uniqueName('scope-b'))];
  const ask = async (agent: { key: string }, command: string, extra: Record<string, unknown> = {}) => {
    const r = await rawPost(url, agent.key, { ...claudeCodeBash, ...extra, tool_input: { command } });
    assert.equal(r.status, 200, r.text);
    return (JSON.parse(r.text || '{}').hookSpecificOutput?.decision?.behavior as string | undefined) ?? 'owner';
  };
  await ownerOk(served, 'rules.add', { agent: a.name, tool: 'Bash', command_prefix: 'make lint', behavior: 'allow' });
  assert.equal(await ask(a, 'make lint'), 'allow');
  assert.equal(await ask(b, 'make lint'), 'owner', 'scope agent: only that agent');

  const folder = claudeCodeBash.cwd;
  await ownerOk(served, 'rules.add', {
    agent: a.name,
    tool: 'Bash',
    command_prefix: 'make docs',
    behavior: 'allow',
    scope: 'folder',
    folder,
  });
  assert.equal(await ask(b, 'make docs'), 'allow', 'scope folder: every agent working there');
  assert.equal(await ask(b, 'make docs', { cwd: `${folder}/sub` }), 'allow', 'and below it');
  assert.equal(await ask(b, 'make docs', { cwd: `${folder}-other` }), 'owner', 'not a folder that only starts the same');
  assert.equal(await ask(b, 'make docs', { cwd: `${folder}/../elsewhere` }), 'owner', 'not a way out with ..');

  await ownerOk(served, 'rules.add', { agent: a.name, tool: 'Bash', command_prefix: 'make dist', behavior: 'deny', scope: 'every' });
  assert.equal(await ask(b, 'make dist'), 'deny', 'scope every: every agent');

  // lifetime session: from a prompt answered "always" (it knows the harness session).
  const pending = rawPost(`${url.replace('timeout=1', 'timeout=20')}`, a.key, {
    ...claudeCodeBash,
    session_id: 's-1',
    tool_input: { command: 'make test' },
  });
  let req: { request_id: string } | undefined;
  for (let i = 0; i < 100 && !req; i++) {
    const { requests } = await ownerOk(served, 'requests.list', { state: 'pending' });
    req = requests.find(
      (r: { title: string; requester: { name: string } }) => r.title === 'Allow Bash: make test?' && r.requester.name === a.name,
    );
    if (!req) await new Promise((done) => setTimeout(done, 100));
  }
  const added = await ownerOk(served, 'rules.add', {
    request_id: req!.request_id,
    command_prefix: 'make test',
    behavior: 'allow',
    lifetime: 'session',
  });
  assert.equal(JSON.parse((await pending).text).hookSpecificOutput.decision.behavior, 'allow');
  assert.deepEqual([added.rule.lifetime, added.rule.from_request_id], ['session', req!.request_id]);
  assert.equal(await ask(a, 'make test', { session_id: 's-1' }), 'allow', 'the same session');
  assert.equal(await ask(a, 'make test', { session_id: 's-2' }), 'owner', 'another session');

  const today = await ownerOk(served, 'rules.add', {
    agent: a.name,
    tool: 'Bash',
    command_prefix: 'make clean',
    behavior: 'allow',
    lifetime: 'today',
  });
  assert.ok(today.rule.expires_at > Date.now() && today.rule.expires_at <= Date.now() + 24 * 3600 * 1000);
  assert.equal(await ask(a, 'make clean'), 'allow');

  const listed = (await ownerOk(served, 'rules.list', { agent: a.name })).rules as {
    command_prefix: string;
    decided_count: number;
    last_used_at: number | null;
  }[];
  const used = Object.fromEntries(listed.map((r) => [r.command_prefix, r.decided_count]));
  assert.deepEqual(used, { 'make lint': 1, 'make docs': 2, 'make dist': 1, 'make test': 2, 'make clean': 1 });
  assert.equal(listed[0]!.command_prefix, 'make clean', 'the most recently used first');
});
