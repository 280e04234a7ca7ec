// Reconnecting tells the truth: when nothing would change, `perch connect` says "already connected, nothing to change"
// (no "added", no backup); a file whose Perch entries say the same with their keys in another order (as Claude Code
// rewrites them) or in another indentation is not a change; and a real change to such a file shows only itself.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addAgent, uniqueName, useSharedServe } from '../support/serve-harness';
import { perchAt, useTempDirs } from '../support/connect-kit';
import { snapshot } from '../support/dir-snapshot';
import { keyEnvVar } from '../../src/shared/agents/snippets';

const served = useSharedServe();
const tempDir = useTempDirs();

const connect = (home: string, args: string[]) => perchAt(served.dataDir, 'connect', home, args);

/** Every object in the value with its keys in reverse order (the same JSON, another key order). */
function reversedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversedKeys);
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v)
      .reverse()
      .map(([k, x]) => [k, reversedKeys(x)]),
  );
}

describe('reconnecting tells the truth', () => {
  test('a second connect --write says "already connected, nothing to change": no "added", no new backup, nothing written', async () => {
    const a = await addAgent(served.dataDir, uniqueName('again'));
    const home = tempDir('perch-again-home-');
    for (const client of ['claude-code', 'codex', 'cursor']) {
      const first = await connect(home, [client, a.name, '--write']);
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /added /);
      const files = snapshot(home);
      const again = await connect(home, [client, a.name, '--write']);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /^Already connected, nothing to change: /m, client);
      assert.doesNotMatch(again.stdout, /: added |would get|backup: /, client);
      assert.deepEqual(snapshot(home), files, `${client}: nothing written, no backup`);
    }
  });

  test('project scope: Perch entries with their keys reordered and the file indented by four are already connected; a real change shows only itself', async () => {
    const a = await addAgent(served.dataDir, uniqueName('order'));
    const home = tempDir('perch-order-home-');
    const repo = tempDir('perch-order-repo-');
    assert.equal((await connect(home, ['claude-code', a.name, '--project', repo, '--write'])).code, 0);
    for (const f of ['.mcp.json', path.join('.claude', 'settings.local.json')]) {
      const file = path.join(repo, f);
      fs.writeFileSync(file, `${JSON.stringify(reversedKeys(JSON.parse(fs.readFileSync(file, 'utf8'))), null, 4)}\n`);
    }
    const rewritten = snapshot(repo);
    const r = await connect(home, ['claude-code', a.name, '--project', repo]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Already connected, nothing to change: /m);
    assert.doesNotMatch(r.stdout, /^[+-] /m, 'no diff');
    const w = await connect(home, ['claude-code', a.name, '--project', repo, '--write']);
    assert.equal(w.code, 0, w.stderr);
    assert.deepEqual(snapshot(repo), rewritten, 'nothing written, no backup');

    // A real change (another server of the user's beside Perch's) in a four-space file: the diff is that change.
    const mcp = path.join(repo, '.mcp.json');
    const servers = JSON.parse(fs.readFileSync(mcp, 'utf8')).mcpServers;
    fs.writeFileSync(mcp, `${JSON.stringify({ mcpServers: { docs: { command: 'docs-mcp' } } }, null, 4)}\n`);
    const d = await connect(home, ['claude-code', a.name, '--project', repo]);
    assert.equal(d.code, 0, d.stderr);
    const minus = d.stdout.split('\n').filter((l) => /^- /.test(l));
    assert.ok(minus.length <= 1, `only the line that gains a comma is taken out:\n${d.stdout}`);
    assert.match(d.stdout, new RegExp(`^\\+ {8}"perch-${a.name}": \\{$`, 'm'), 'added in the file’s own four-space indentation');
    assert.deepEqual(servers[`perch-${a.name}`].headers, { Authorization: `Bearer \${${keyEnvVar(a.name)}}` });
  });
});
