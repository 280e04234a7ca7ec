// The UI's one money formatter (src/renderer/format.ts) and the connection snippets shown again without a key
// (src/shared/agents/snippets.ts): pure functions, imported directly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { money, moneyIn } from '../../src/renderer/format';
import { connectionSnippets, keyExportLine } from '../../src/shared/agents/snippets';

test('money: two decimals, thousands separated, sub-cent amounts keep up to four decimals, never float noise', () => {
  assert.equal(money(0.1 + 0.2 + 0.29), '$0.59');
  assert.equal(money(0.5), '$0.50');
  assert.equal(money(0), '$0.00');
  assert.equal(money(1204.5), '$1,204.50');
  assert.equal(money(0.004), '$0.004');
  assert.equal(money(0.00012345), '$0.0001');
  assert.equal(money(-2), '-$2.00');
  assert.equal(money(Number.NaN), '$—');
});

test('moneyIn: dollar amounts inside a hub text (a budget pause detail) read as money', () => {
  assert.equal(moneyIn('cost_usd: $0.5900000000000001 of $0.5 today'), 'cost_usd: $0.59 of $0.50 today');
  assert.equal(moneyIn('messages: 50 of 50 today'), 'messages: 50 of 50 today');
});

test('snippets take the key from PERCH_KEY_<AGENT>, with a key or without: one recipe per client (perch connect for Claude Code, Codex, Cursor, Copilot, Gemini); plain perch', () => {
  const url = 'http://127.0.0.1:7457/mcp';
  const withKey = connectionSnippets(url, 'planner', 'perch_secret');
  for (const [client, text] of Object.entries(withKey)) {
    assert.doesNotMatch(text, /perch_secret|Bearer perch_/, `${client}: the key is in no snippet (its export line goes beside it)`);
    assert.match(text, /PERCH_KEY_PLANNER|perch connect/, `${client}: the key from the environment`);
  }
  assert.equal(keyExportLine('planner', 'perch_secret'), 'export PERCH_KEY_PLANNER=perch_secret');
  assert.equal(
    withKey.claude_code,
    'perch connect claude-code planner --write   # ~/.claude.json + ~/.claude/settings.json (--project DIR: that repository only)\nclaude',
  );
  assert.match(withKey.codex!, /^perch connect codex planner --write /);
  assert.match(withKey.cursor!, /^perch connect cursor planner --write /);
  assert.equal(
    withKey.copilot,
    'perch connect copilot planner --write   # ~/.copilot/mcp-config.json + ~/.copilot/hooks/perch.json\nCOPILOT_HOOK_ALLOW_LOCALHOST=1 copilot',
    'the switch Copilot needs for plain-http hooks, on the start line',
  );
  assert.match(withKey.gemini!, /^perch connect gemini planner --write .*\ngemini$/, 'Gemini CLI by perch connect too');
  assert.equal(withKey.perch_call, `PERCH_URL=${url} PERCH_KEY=$PERCH_KEY_PLANNER perch call whoami`);

  const again = connectionSnippets(url, 'planner', null);
  for (const [client, text] of Object.entries(again)) {
    assert.doesNotMatch(text, /npx perch/, `${client}: perch from the PATH`);
    assert.doesNotMatch(text, /perch_[A-Za-z0-9]/, `${client}: no key`);
    assert.doesNotMatch(text, /claude mcp add/, `${client}: Claude Code is connected one way (perch connect)`);
    // Claude Desktop and Zed read no shell environment: the variable marks where the key goes.
    if (client === 'claude_desktop' || client === 'zed') assert.match(text, /\$\{PERCH_KEY_PLANNER\}/, client);
    else assert.match(text, /^export PERCH_KEY_PLANNER=perch_…/, `${client}: starts with where the key comes from`);
  }
  assert.match(again.perch_call!, /PERCH_KEY=\$PERCH_KEY_PLANNER perch call whoami$/);
});
