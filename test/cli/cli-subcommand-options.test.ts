// perch rules and perch ledger parse all their subcommands' options with one table: a subcommand given an option (or a
// word) it does not take refuses it in one line, exit 2, and changes nothing — never ignores it silently
// (`perch rules import FILE --agent bot` would import for the file's agents, not bot). On the database file, through
// the built `perch`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { cli, removeDataDir, tempDataDir } from '../support/serve-harness';

test('perch rules and perch ledger refuse an option or a word their subcommand does not take, in one line, exit 2, nothing changed', () => {
  const d = tempDataDir();
  try {
    const ok = (args: string[]) => {
      const r = cli([...args, '--data-dir', d]);
      assert.equal(r.code, 0, `perch ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    };
    ok(['agent', 'add', 'kit']);
    ok(['agent', 'add', 'bot']);
    ok(['rules', 'add', '--agent', 'kit', '--tool', 'Bash', '--deny', '--prefix', 'git push']);
    const file = path.join(d, 'rules.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        perch_rules: 1,
        rules: [{ agent: 'kit', tool: 'Bash', behavior: 'deny', command_prefix: 'rm -rf', scope: 'agent', lifetime: 'always' }],
      }),
    );
    ok(['ledger', 'prices', 'set', 'gpt-x', '--input', '1', '--cached-input', '0.1', '--output', '2']);
    const state = () => ok(['rules', '--json']) + ok(['ledger', 'prices', '--json']);
    const before = state();
    const ruleId = JSON.parse(ok(['rules', '--json'])).rules[0].rule_id as string;
    const out = path.join(d, 'out.json');

    for (const [args, why] of [
      [['rules', 'import', file, '--agent', 'bot'], /^perch: perch rules import takes no --agent\. /],
      [['rules', 'export', '--tool', 'Bash'], /^perch: perch rules export takes no --tool\. /],
      [['rules', 'export', out], /^perch: perch rules export takes no ".*out\.json"\. /],
      [['rules', 'list', '--allow'], /^perch: perch rules list takes no --allow\. /],
      [['rules', '--prefix', 'git'], /^perch: perch rules list takes no --prefix\. /],
      [['rules', 'remove', ruleId, '--scope', 'every'], /^perch: perch rules remove takes no --scope\. /],
      [['ledger', 'export', '--since', '2026-01-01', '--failed'], /^perch: perch ledger export takes no --failed\. /],
      [['ledger', 'costs', '--limit', '5'], /^perch: perch ledger costs takes no --limit\. /],
      [['ledger', 'verify', '--since', '2026-01-01'], /^perch: perch ledger verify takes no --since\. /],
      [['ledger', 'calls', 'kit'], /^perch: perch ledger calls takes no "kit"\. /],
      [['ledger', '--format', 'csv'], /^perch: perch ledger calls takes no --format\. /],
      [['ledger', 'prices', 'remove', 'gpt-x', '--input', '1'], /^perch: perch ledger prices remove takes no --input\. /],
      [
        ['ledger', 'prices', 'set', 'gpt-x', 'gpt-y', '--input', '9', '--cached-input', '9', '--output', '9'],
        /^perch: perch ledger prices set takes no "gpt-y"\. /,
      ],
      [['ledger', 'token', 'kit', '--agent', 'bot'], /^perch: perch ledger token takes no --agent\. /],
    ] as const) {
      const r = cli([...args, '--data-dir', d]);
      const what = `perch ${args.join(' ')}`;
      assert.equal(r.code, 2, `${what}: exit 2 (${r.stderr})`);
      assert.equal(r.stdout, '', `${what}: nothing printed`);
      assert.equal(r.stderr.trim().split('\n').length, 1, `${what}: one line: ${r.stderr}`);
      assert.match(r.stderr, why, what);
    }
    assert.equal(state(), before, 'no rule imported or removed, no price changed');
    assert.ok(!fs.existsSync(out), 'no file written');

    // The same commands without the stray option do their work.
    assert.match(ok(['rules', 'import', file]), /^Imported 1 rule /);
    assert.match(ok(['ledger', 'prices', 'remove', 'gpt-x']), /^Your price of gpt-x removed/);
    assert.match(ok(['rules', 'remove', ruleId]), /^Removed: /);
  } finally {
    removeDataDir(d);
  }
});
