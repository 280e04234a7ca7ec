// Standing rules decide on what a command runs, read from a real Bash parser's tree (shared/shell/rules.ts,
// shared/shell/commands.ts on tree-sitter-bash): the table of command shapes (test/unit/shell-rules-table.ts) with
// the answer each must get, and a fuzz run proving that reading and deciding never throws.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadShellParser, parseShell } from '../../src/main/hub/features/rules/shell-parser';
import { decideByRules } from '../../src/shared/shell/rules';
import { readCommands } from '../../src/shared/shell/commands';
import { promptShape } from '../../src/shared/shell/shapes';
import { RULE_SETS, TABLE } from './shell-rules-table';
import { Rng } from '../support/rng';

before(loadShellParser);

test('the table of command shapes gets its expected allow / deny / owner answer from the matcher', () => {
  assert.ok(TABLE.length >= 200, `${TABLE.length} shapes`);
  const wrong: string[] = [];
  for (const [set, command, expected] of TABLE) {
    const got = decideByRules(RULE_SETS[set]!, 'Bash', command, parseShell).decision;
    if (got !== expected) wrong.push(`${set}: ${JSON.stringify(command)} → ${got}, expected ${expected}`);
  }
  assert.deepEqual(wrong, []);
});

test('a command Perch cannot read says why, and the owner decides it while a deny rule exists', () => {
  const d = decideByRules(RULE_SETS.all!, 'Bash', 'git pu${x}sh', parseShell);
  assert.equal(d.decision, 'owner');
  assert.match(d.decision === 'owner' ? (d.unresolved ?? '') : '', /could run `git push` \(denied\): a word of it is not literal/);
  assert.match(readCommands('echo x | base64 -d | sh', parseShell).unresolved[0]!, /sh runs commands from its input/);
  assert.match(readCommands('f() { git push; }; f', parseShell).unresolved[0]!, /defines a function/);
});

test('a prompt without a command is decided only by a rule for its whole tool', () => {
  assert.equal(decideByRules(RULE_SETS.all!, 'Edit', undefined, parseShell).decision, 'owner');
  assert.equal(decideByRules([{ tool: 'Edit', behavior: 'allow', command_prefix: null }], 'Edit', undefined, parseShell).decision, 'allow');
  assert.equal(decideByRules(RULE_SETS.prefix!, 'Bash', undefined, parseShell).decision, 'owner');
});

test('before the parser has loaded nothing is read, so nothing is allowed past a deny', () => {
  const none = <T>(_c: string, use: (r: undefined) => T) => use(undefined);
  assert.equal(decideByRules(RULE_SETS.all!, 'Bash', 'git status', none).decision, 'owner');
  assert.equal(decideByRules(RULE_SETS.prefix!, 'Bash', 'git status', none).decision, 'owner');
});

test('reading and deciding never throw, whatever the input (fuzz)', () => {
  const rand = new Rng(37);
  const r = () => rand.next();
  const pieces = [
    'git',
    'push',
    ' ',
    ';',
    '&&',
    '|',
    '$(',
    ')',
    '`',
    "'",
    '"',
    '\\',
    "$'",
    '${',
    '}',
    '{',
    '(',
    '<<',
    'EOF\n',
    '\n',
    '#',
    '*',
    '[',
    ']',
    '=',
    'bash -c',
    'eval',
    'sudo',
    'xargs',
    '((',
    '))',
    '<(',
    '>',
    '&',
    '\0',
    '\u00e9',
    '\ud800',
    'if',
    'then',
    'fi',
    'case',
    'esac',
    'do',
    'done',
    'for',
  ];
  let n = 0;
  for (let i = 0; i < 3000; i++) {
    let s = '';
    const len = Math.floor(r() * 30);
    for (let k = 0; k < len; k++) s += r() < 0.1 ? String.fromCharCode(Math.floor(r() * 0x3000)) : pieces[Math.floor(r() * pieces.length)]!;
    for (const set of Object.values(RULE_SETS)) decideByRules(set, 'Bash', s, parseShell);
    n++;
  }
  // Deep nesting and a long line.
  decideByRules(RULE_SETS.all!, 'Bash', '('.repeat(5000) + 'git push' + ')'.repeat(5000), parseShell);
  decideByRules(RULE_SETS.all!, 'Bash', '$('.repeat(3000) + ')'.repeat(3000), parseShell);
  decideByRules(RULE_SETS.all!, 'Bash', "bash -c '".repeat(50), parseShell);
  decideByRules(RULE_SETS.all!, 'Bash', 'x'.repeat(100_000), parseShell);
  assert.equal(n, 3000);
});

test("a prompt's shape is the command as it runs, whole, only for one literal simple command; its rule covers it", () => {
  const shape = (c: string) => promptShape(readCommands(c, parseShell));
  assert.equal(shape('npm test'), 'npm test');
  assert.equal(shape('git "status"'), 'git status');
  assert.equal(shape('rm -rf node_modules'), 'rm -rf node_modules', 'never shortened to a wider rule');
  for (const c of [
    'npm test && ls',
    'FOO=1 npm test',
    'sudo npm test',
    'npm test > out',
    'git $x',
    "bash -c 'ls'",
    'env ls',
    'echo "a b"',
    '',
  ]) {
    assert.equal(shape(c), undefined, c);
  }
});

test('an exact allow (an accepted suggestion) covers its command and nothing after it', () => {
  const exact = [{ tool: 'Bash', command_prefix: 'rm -rf build', behavior: 'allow' as const, exact: true }];
  assert.equal(decideByRules(exact, 'Bash', 'rm -rf build', parseShell).decision, 'allow');
  assert.equal(decideByRules(exact, 'Bash', "rm -rf 'build'", parseShell).decision, 'allow');
  for (const c of ['rm -rf build /', 'rm -rf build --no-preserve-root', 'rm -rf build && ls']) {
    assert.equal(decideByRules(exact, 'Bash', c, parseShell).decision, 'owner', c);
  }
});
