// A config file connect must edit that is hostile (a TOML key with an escape that names no character, JSON nested
// past any real config, a FIFO or a folder in its place, a file of gigabytes, terminal escapes in a file that is not
// JSON): one line naming the file, exit 1, no stack trace, no hang, nothing written.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { addAgent, cliAsync, uniqueName, useSharedServe } from '../support/serve-harness';
import { snapshot } from '../support/dir-snapshot';

const served = useSharedServe();
const homes: string[] = [];
after(() => {
  for (const h of homes) fs.rmSync(h, { recursive: true, force: true });
});

function home(): string {
  const h = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-hostile-home-'));
  homes.push(h);
  return h;
}

describe('perch connect on a hostile config file', () => {
  test('a config.toml header ["\\uZZZZ"] or ["\\U0011FFFF"] (or a lone surrogate) is refused in one line, no RangeError, nothing written', async () => {
    const a = await addAgent(served.dataDir, uniqueName('hostile'));
    for (const header of ['["\\uZZZZ"]', '["\\U0011FFFF"]', '[a."\\uD800"]']) {
      const h = home();
      fs.mkdirSync(path.join(h, '.codex'));
      fs.writeFileSync(path.join(h, '.codex', 'config.toml'), `model = "gpt-5.5"\n\n${header}\nx = 1\n`);
      const before = snapshot(h);
      const r = await cliAsync(['connect', 'codex', a.name, '--write', '--data-dir', served.dataDir], { env: { HOME: h } });
      assert.equal(r.code, 1, `${header}: ${r.stdout}`);
      assert.match(
        r.stderr,
        /^perch: cannot add \[mcp_servers\.perch-[^\]]+\] to .*config\.toml: a quoted key has an invalid escape \\[uU][0-9A-Za-z]+\. Nothing was written\./,
      );
      assert.doesNotMatch(r.stderr, /RangeError|\n\s+at /, 'no stack trace');
      assert.deepEqual(snapshot(h), before, header);
    }
  });

  test('a settings.json nested 100,000 levels deep is refused in one line, nothing written', async () => {
    const a = await addAgent(served.dataDir, uniqueName('hostile'));
    const h = home();
    fs.mkdirSync(path.join(h, '.claude'));
    fs.writeFileSync(path.join(h, '.claude', 'settings.json'), `{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    const before = snapshot(h);
    const r = await cliAsync(['connect', 'claude-code', a.name, '--write', '--data-dir', served.dataDir], { env: { HOME: h } });
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stderr, /^perch: .*settings\.json nests deeper than 200 levels\. Nothing was written\.\n$/);
    assert.deepEqual(snapshot(h), before);
  });

  test('a FIFO or a folder where ~/.claude/settings.json goes (user scope) is refused in one line at once, nothing written; the FIFO is never opened for reading', async () => {
    const a = await addAgent(served.dataDir, uniqueName('hostile'));
    for (const plant of ['fifo', 'folder'] as const) {
      const h = home();
      fs.mkdirSync(path.join(h, '.claude'));
      const settings = path.join(h, '.claude', 'settings.json');
      if (plant === 'fifo') execFileSync('mkfifo', [settings]);
      else fs.mkdirSync(settings);
      const r = await cliAsync(['connect', 'claude-code', a.name, '--write', '--data-dir', served.dataDir], {
        env: { HOME: h },
        timeoutMs: 15_000,
      });
      assert.equal(r.code, 1, `${plant}: ${r.stdout}`);
      assert.match(r.stderr, /^perch: .*settings\.json is not a regular file: .*Nothing was written\.\n$/, plant);
      assert.deepEqual(fs.readdirSync(h).sort(), ['.claude'], `${plant}: no ~/.claude.json written`);
      assert.deepEqual(fs.readdirSync(path.join(h, '.claude')), ['settings.json'], `${plant}: no backup, no temporary file`);
    }
  });

  test('a settings file larger than any config (a sparse 3 GiB ~/.claude.json) is refused in one line from its size, not read', async () => {
    const a = await addAgent(served.dataDir, uniqueName('hostile'));
    const h = home();
    fs.writeFileSync(path.join(h, '.claude.json'), '');
    fs.truncateSync(path.join(h, '.claude.json'), 3 * 1024 ** 3);
    const r = await cliAsync(['connect', 'claude-code', a.name, '--write', '--data-dir', served.dataDir], {
      env: { HOME: h },
      timeoutMs: 15_000,
    });
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stderr, /^perch: .*\.claude\.json is larger than \d+ MiB: .*Nothing was written\.\n$/);
    assert.deepEqual(fs.readdirSync(h), ['.claude.json']);
  });

  test("a project's .mcp.json that is not JSON and holds terminal escapes: the one line names it with the escapes shown, never sent to the terminal", async () => {
    const a = await addAgent(served.dataDir, uniqueName('hostile'));
    const h = home();
    const repo = home();
    fs.writeFileSync(path.join(repo, '.mcp.json'), '\u001b]0;pwned\u0007\u001b[2J{not json\r\n');
    const before = snapshot(repo);
    const r = await cliAsync(['connect', 'claude-code', a.name, '--project', repo, '--write', '--data-dir', served.dataDir], {
      env: { HOME: h },
    });
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stderr, /^perch: .*\.mcp\.json is not valid JSON .*Nothing was written\.\n$/);
    assert.doesNotMatch(r.stderr.slice(0, -1), /[\u0000-\u001f\u007f-\u009f]/, 'no control character in the line');
    assert.deepEqual(snapshot(repo), before);
  });

  test('a file that cannot be written midway (an immutable ~/.claude) ends in one line naming what was written already, no stack trace', async (t) => {
    const a = await addAgent(served.dataDir, uniqueName('hostile'));
    const h = home();
    fs.mkdirSync(path.join(h, '.claude'));
    fs.writeFileSync(path.join(h, '.claude', 'settings.json'), '{}\n');
    if (spawnSync('chattr', ['+i', path.join(h, '.claude')]).status !== 0)
      return t.skip('chattr +i needs root and a file system that has it');
    try {
      const r = await cliAsync(['connect', 'claude-code', a.name, '--write', '--data-dir', served.dataDir], { env: { HOME: h } });
      assert.equal(r.code, 1, r.stdout);
      assert.match(
        r.stderr,
        /^perch: cannot write \S+\/\.claude\/settings\.json: .*Already written: \S+\/\.claude\.json; \S+\/settings\.json was not changed\.\n$/,
      );
      assert.equal(fs.readFileSync(path.join(h, '.claude', 'settings.json'), 'utf8'), '{}\n');
    } finally {
      spawnSync('chattr', ['-i', path.join(h, '.claude')]);
    }
  });

  test('a config.toml that is not UTF-8 (a Latin-1 comment) is refused in one line: its bytes are never rewritten as U+FFFD', async () => {
    const a = await addAgent(served.dataDir, uniqueName('hostile'));
    const h = home();
    fs.mkdirSync(path.join(h, '.codex'));
    const bytes = Buffer.from('# caf\xe9, my Latin-1 comment\nmodel = "gpt-5.5"\n', 'latin1');
    fs.writeFileSync(path.join(h, '.codex', 'config.toml'), bytes);
    const r = await cliAsync(['connect', 'codex', a.name, '--write', '--data-dir', served.dataDir], { env: { HOME: h } });
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stderr, /^perch: \S+\/\.codex\/config\.toml is not UTF-8 text: .*Nothing was written\.\n$/);
    assert.deepEqual(fs.readFileSync(path.join(h, '.codex', 'config.toml')), bytes);
    assert.deepEqual(fs.readdirSync(path.join(h, '.codex')), ['config.toml']);
  });
});
