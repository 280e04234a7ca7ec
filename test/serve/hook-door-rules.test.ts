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
