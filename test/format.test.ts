// The UI's one money formatter (src/renderer/format.ts) and the connection snippets shown again without a key
// (src/shared/snippets.ts): pure functions, imported directly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { money, moneyIn } from '../src/renderer/format';
import { connectionSnippets } from '../src/shared/snippets';

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

test('snippets without a key refer to PERCH_KEY_<AGENT>; Claude Code uses --scope user; Gemini stores the reference; plain perch', () => {
  const url = 'http://127.0.0.1:7457/mcp';
  const withKey = connectionSnippets(url, 'planner', 'perch_secret');
  assert.equal(withKey.claude_code, `claude mcp add --scope user --transport http perch-planner ${url} --header "Authorization: Bearer perch_secret"`);
  assert.match(withKey.gemini!, /--header 'Authorization: Bearer \$\{PERCH_KEY_PLANNER\}'/, 'single quotes: the key stays out of settings.json');
  assert.equal(withKey.perch_call, `PERCH_URL=${url} PERCH_KEY=perch_secret perch call whoami`);

  const again = connectionSnippets(url, 'planner', null);
  for (const [client, text] of Object.entries(again)) {
    assert.doesNotMatch(text, /npx perch/, `${client}: perch from the PATH`);
    assert.doesNotMatch(text, /perch_[A-Za-z0-9]/, `${client}: no key`);
    assert.match(text, /PERCH_KEY_PLANNER/, `${client}: the key's place names the variable`);
  }
  assert.match(again.claude_code!, /--header "Authorization: Bearer \$PERCH_KEY_PLANNER"/);
  assert.match(again.perch_call!, /PERCH_KEY=\$PERCH_KEY_PLANNER perch call whoami$/);
});
