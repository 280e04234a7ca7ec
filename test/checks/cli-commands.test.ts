// The perch command as command families (src/main/cli: one module each, dispatched by cli/index.ts): `perch --help`
// is assembled from every family and each listed command has its own help; only real command names are commands;
// and the CLI opens no SQLite file itself (SQL lives only in src/main/store), which lint enforces.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { cli, tempDataDir } from '../support/serve-harness';

const ROOT = path.resolve(__dirname, '..', '..');

describe('perch command families', () => {
  test('perch --help lists every command family (agent config too), and each listed command has a help of its own', () => {
    const dir = tempDataDir();
    const top = cli(['--help'], { env: { PERCH_DATA_DIR: dir } });
    assert.equal(top.code, 0, top.stderr);
    const listed = [...new Set([...top.stdout.matchAll(/^ {2}perch ([a-z-]+)/gm)].map((m) => m[1]!))];
    assert.deepEqual(listed, [
      'serve',
      'agent',
      'device',
      'call',
      'owner',
      'conv',
      'retention',
      'ledger',
      'rules',
      'wake',
      'hook',
      'channel',
      'connect',
      'disconnect',
      'backup',
      'restore',
      'export',
      'import',
      'help',
    ]);
    assert.match(top.stdout, /^ {2}perch agent config NAME \['\{json patch\}' \| @FILE \| -\]/m);
    for (const name of listed) {
      const r = cli(['help', name], { env: { PERCH_DATA_DIR: dir } });
      assert.equal(r.code, 0, `perch help ${name}: ${r.stderr}`);
      assert.match(r.stdout, new RegExp(`^perch ${name}\\b`), `perch help ${name}`);
    }
    assert.deepEqual(fs.readdirSync(dir), [], 'asking for help touches no data');
  });

  test('perch serve --help documents --durability', () => {
    const r = cli(['serve', '--help'], { env: { PERCH_DATA_DIR: tempDataDir() } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^perch serve .*\[--durability normal\|full\]/);
    assert.match(r.stdout, /^ {2}--durability normal\|full .*PERCH_DURABILITY/m);
  });

  test('names every object inherits (constructor, toString, __proto__) are unknown commands and subcommands, not help texts', () => {
    const dir = tempDataDir();
    const cases: Array<[string[], RegExp]> = [
      [['constructor', '--help'], /^perch: unknown command "constructor"\. Run `perch --help`/],
      [['help', 'toString'], /^perch: unknown command "toString"\. Run `perch --help`/],
      [['help', '__proto__'], /^perch: unknown command "__proto__"\. Run `perch --help`/],
      [['help', 'agent', 'constructor'], /^perch: unknown agent command "constructor".*Run `perch agent --help`/],
      [['agent', 'toString', '--help'], /^perch: unknown agent command "toString".*Run `perch agent --help`/],
    ];
    for (const [args, message] of cases) {
      const r = cli(args, { env: { PERCH_DATA_DIR: dir } });
      assert.equal(r.code, 2, `perch ${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.equal(r.stdout, '', `perch ${args.join(' ')} prints no help`);
      assert.match(r.stderr, message);
    }
    assert.deepEqual(fs.readdirSync(dir), []);
  });

  test('the CLI opens no SQLite file: lint refuses better-sqlite3 in src/main/cli (not in src/main/store), and no CLI module imports it', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    const text = "import Database from 'better-sqlite3';\nexport const open = (f: string) => new Database(f);\n";
    const [inCli] = await eslint.lintText(text, { filePath: path.join(ROOT, 'src/main/cli/opens-sqlite.ts') });
    assert.ok(
      inCli!.messages.some((m) => m.ruleId === 'no-restricted-imports' && /SQL lives only in src\/main\/store/.test(m.message)),
      JSON.stringify(inCli!.messages),
    );
    const [inStore] = await eslint.lintText(text, { filePath: path.join(ROOT, 'src/main/store/opens-sqlite.ts') });
    assert.deepEqual(inStore!.messages, []);
    const cliDir = path.join(ROOT, 'src', 'main', 'cli');
    for (const f of (fs.readdirSync(cliDir, { recursive: true }) as string[]).filter((n) => n.endsWith('.ts'))) {
      assert.doesNotMatch(fs.readFileSync(path.join(cliDir, f), 'utf8'), /from 'better-sqlite3'|require\('better-sqlite3'\)/, f);
    }
  });
});
