// perch rules: list, add, remove, export and import the standing rules from a shell, with the same checks as the
// window (plain-word prefixes, no allow of a wrapper); bad input gets one line and changes nothing; an import with
// one bad rule imports none. On the database file (no hub running), through the built `perch`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { cli, removeDataDir, tempDataDir } from '../support/serve-harness';

test('perch rules adds, lists (with what a rule covers), exports, removes and imports rules, and refuses bad ones in one line changing nothing', () => {
  const d = tempDataDir();
  try {
    assert.equal(cli(['agent', 'add', 'kit', '--data-dir', d]).code, 0);
    const add = cli(['rules', 'add', '--agent', 'kit', '--tool', 'Bash', '--allow', '--prefix', 'npm  test', '--data-dir', d, '--json']);
    assert.equal(add.code, 0, add.stderr);
    const rule = JSON.parse(add.stdout).rule;
    assert.deepEqual(
      [rule.command_prefix, rule.behavior, rule.any_options, rule.scope, rule.lifetime],
      ['npm test', 'allow', false, 'agent', 'always'],
    );
    assert.equal(
      cli(['rules', 'add', '--agent', 'kit', '--tool', 'Bash', '--deny', '--prefix', 'git push', '--scope', 'every', '--data-dir', d]).code,
      0,
    );

    for (const [args, message] of [
      [['--allow', '--prefix', 'npm test && curl x'], /^perch: command_prefix: a prefix is plain words/],
      [['--allow', '--prefix', 'sudo npm test'], /^perch: command_prefix: sudo runs another command/],
      [['--deny', '--prefix', 'git "push"'], /^perch: command_prefix: a prefix is plain words/],
      [['--deny', '--any-options', '--prefix', 'git push'], /^perch: any_options: only an allow rule/],
      [['--allow', '--deny'], /^perch: say --allow or --deny/],
      [['--allow', '--scope', 'world'], /^perch: --scope takes agent, folder or every/],
      [['--allow', '--scope', 'folder', '--folder', 'rel/dir'], /^perch: folder: the absolute folder/],
    ] as const) {
      const r = cli(['rules', 'add', '--agent', 'kit', '--tool', 'Bash', ...args, '--data-dir', d]);
      assert.notEqual(r.code, 0, args.join(' '));
      assert.match(r.stderr, message);
      assert.equal(r.stderr.trim().split('\n').length <= 2, true, `one clear error: ${r.stderr}`);
    }

    const list = cli(['rules', '--data-dir', d]);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /kit: always allow Bash `npm test` and arguments after it that are not options — never used/);
    assert.match(list.stdout, /covers: `npm test`; `npm test src\/file.txt`/);
    assert.match(list.stdout, /not: `npm test --option` \(options it does not name\)/);
    assert.match(list.stdout, /every agent: always deny Bash `git push` wherever it runs/);
    assert.equal(JSON.parse(cli(['rules', '--json', '--data-dir', d]).stdout).rules.length, 2, 'the refused rules changed nothing');

    const exported = cli(['rules', 'export', '--data-dir', d]);
    assert.equal(exported.code, 0, exported.stderr);
    const doc = JSON.parse(exported.stdout);
    assert.equal(doc.perch_rules, 1);
    assert.deepEqual(
      doc.rules.map((r: { command_prefix: string; behavior: string; scope: string }) => [r.command_prefix, r.behavior, r.scope]).sort(),
      [
        ['git push', 'deny', 'every'],
        ['npm test', 'allow', 'agent'],
      ],
    );
    const file = path.join(d, 'rules.json');
    fs.writeFileSync(file, exported.stdout);
    for (const r of JSON.parse(cli(['rules', '--json', '--data-dir', d]).stdout).rules) {
      assert.equal(cli(['rules', 'remove', r.rule_id, '--data-dir', d]).code, 0);
    }
    assert.match(cli(['rules', '--data-dir', d]).stdout, /^No standing rules\./);

    const bad = path.join(d, 'bad.json');
    fs.writeFileSync(
      bad,
      JSON.stringify({ perch_rules: 1, rules: [...doc.rules, { ...doc.rules[0], command_prefix: 'env ls', behavior: 'allow' }] }),
    );
    const refused = cli(['rules', 'import', bad, '--data-dir', d]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /^perch: rules\[2\]: command_prefix: env runs another command.*Nothing was imported\./);
    assert.match(cli(['rules', '--data-dir', d]).stdout, /^No standing rules\./, 'one bad rule imports none');
    const notExport = path.join(d, 'x.json');
    fs.writeFileSync(notExport, '{"rules": []}');
    assert.match(cli(['rules', 'import', notExport, '--data-dir', d]).stderr, /^perch: .*x\.json is not a perch rules export/);

    const imported = cli(['rules', 'import', file, '--data-dir', d]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /^Imported 2 rules \(0 already there\)\./);
    assert.match(cli(['rules', 'import', file, '--data-dir', d]).stdout, /^Imported 0 rules \(2 already there\)\./);
  } finally {
    removeDataDir(d);
  }
});
