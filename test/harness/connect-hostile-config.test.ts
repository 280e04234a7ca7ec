// A config file connect must edit that is hostile (a TOML key with an escape that names no character, JSON nested
// past any real config): one line naming the file, exit 1, no stack trace, nothing written.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addAgent, cliAsync, uniqueName, useSharedServe, tempDir } from '../support/serve-harness';
import { snapshot } from '../support/dir-snapshot';

const served = useSharedServe();

function home(): string {
  return tempDir('perch-hostile-home-');
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
});
