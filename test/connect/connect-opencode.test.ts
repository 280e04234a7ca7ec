// `perch connect opencode NAME` and `perch disconnect opencode NAME` (src/main/cli/agents/connect.ts, disconnect.ts,
// src/shared/agents/harnesses/opencode.ts): Perch's remote MCP entry in ~/.config/opencode/opencode.json and the
// plugin ~/.config/opencode/plugin/perch.js (the real OpenCode runs with them in test/real/real-opencode.test.ts), on
// a temporary HOME holding a real-looking config: backups and the rest kept, no key in any file, twice in a row
// without a change, another agent's plugin refused without --replace, a plugin file not Perch's refused, --project
// never through a planted link, disconnect taking out only Perch's.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addAgent, cliAsync, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { keyEnvVar } from '../../src/shared/agents/snippets';
import { snapshot } from '../support/dir-snapshot';

const served = useSharedServe();
const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
function tempDir(prefix: string): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
}

const USER_CONFIG = {
  $schema: 'https://opencode.ai/config.json',
  model: 'anthropic/claude-sonnet-4',
  mcp: { github: { type: 'remote', url: 'https://api.example/mcp', enabled: true } },
  permission: { bash: 'ask' },
};

function homeWithOpenCode(): string {
  const home = tempDir('perch-connect-opencode-');
  fs.mkdirSync(path.join(home, '.config', 'opencode', 'plugin'), { recursive: true });
  fs.writeFileSync(path.join(home, '.config', 'opencode', 'opencode.json'), `${JSON.stringify(USER_CONFIG, null, 2)}\n`);
  fs.writeFileSync(path.join(home, '.config', 'opencode', 'plugin', 'notify.js'), 'export const Notify = async () => ({});\n');
  return home;
}

const run = (cmd: 'connect' | 'disconnect', home: string, args: string[]) =>
  cliAsync([cmd, ...args, '--data-dir', served.dataDir], { env: { HOME: home } });
const newAgent = (): Promise<AgentKey> => addAgent(served.dataDir, uniqueName('conn-oc'));
const configOf = (home: string) => JSON.parse(fs.readFileSync(path.join(home, '.config', 'opencode', 'opencode.json'), 'utf8'));
const pluginFile = (home: string) => path.join(home, '.config', 'opencode', 'plugin', 'perch.js');

describe('perch connect opencode NAME --write', () => {
  test('writes the remote MCP entry (the key as {env:PERCH_KEY_NAME}) and the plugin, keeps the rest, backs up, and a second run changes nothing', async () => {
    const a = await newAgent();
    const home = homeWithOpenCode();
    const r = await run('connect', home, ['opencode', a.name, '--write']);
    assert.equal(r.code, 0, r.stderr);
    const cfg = configOf(home);
    assert.deepEqual(cfg.mcp[`perch-${a.name}`], {
      type: 'remote',
      url: served.mcpUrl,
      headers: { Authorization: `Bearer {env:${keyEnvVar(a.name)}}` },
      enabled: true,
    });
    assert.deepEqual({ ...cfg, mcp: { github: cfg.mcp.github } }, USER_CONFIG, 'the rest as it was');
    const plugin = fs.readFileSync(pluginFile(home), 'utf8');
    assert.match(plugin, new RegExp(`const DOOR = "${served.mcpUrl.replace(/\/mcp$/, '')}/hook/opencode/";`));
    assert.match(plugin, new RegExp(`const KEY_ENV = "${keyEnvVar(a.name)}";`));
    assert.doesNotMatch(plugin, /\bimport\b|require\(|child_process|spawn/, 'nothing imported, nothing started');
    for (const f of [path.join(home, '.config', 'opencode', 'opencode.json'), pluginFile(home)])
      assert.ok(!fs.readFileSync(f, 'utf8').includes(a.key), `no key in ${f}`);
    assert.ok(
      fs.readdirSync(path.join(home, '.config', 'opencode')).some((f) => f.startsWith('opencode.json.perch-backup-')),
      'the config was backed up',
    );
    const before = snapshot(home);
    const again = await run('connect', home, ['opencode', a.name, '--write']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /Already connected, nothing to change/);
    assert.deepEqual(snapshot(home), before, 'nothing written, no backup');
  });

  test("another agent's plugin is refused without --replace (nothing written), replaced with it", async () => {
    const a = await newAgent();
    const b = await newAgent();
    const home = homeWithOpenCode();
    assert.equal((await run('connect', home, ['opencode', a.name, '--write'])).code, 0);
    const before = snapshot(home);
    const r = await run('connect', home, ['opencode', b.name, '--write']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`connects agent ${a.name}.* already.*--replace`));
    assert.deepEqual(snapshot(home), before, 'nothing written');
    const rep = await run('connect', home, ['opencode', b.name, '--write', '--replace']);
    assert.equal(rep.code, 0, rep.stderr);
    assert.deepEqual(Object.keys(configOf(home).mcp).sort(), ['github', `perch-${b.name}`]);
    assert.match(fs.readFileSync(pluginFile(home), 'utf8'), new RegExp(`const AGENT = "${b.name}";`));
  });

  test('a plugin/perch.js that Perch did not write is refused, nothing written', async () => {
    const a = await newAgent();
    const home = homeWithOpenCode();
    fs.writeFileSync(pluginFile(home), 'export const Mine = async () => ({});\n');
    const before = snapshot(home);
    const r = await run('connect', home, ['opencode', a.name, '--write']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /perch\.js is not a plugin Perch wrote/);
    assert.deepEqual(snapshot(home), before);
  });

  test('--project DIR writes DIR/opencode.json and DIR/.opencode/plugin/perch.js, never through a planted link', async () => {
    const a = await newAgent();
    const home = homeWithOpenCode();
    const repo = tempDir('perch-oc-repo-');
    const r = await run('connect', home, ['opencode', a.name, '--project', repo, '--write']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(fs.existsSync(path.join(repo, 'opencode.json')));
    assert.ok(fs.existsSync(path.join(repo, '.opencode', 'plugin', 'perch.js')));
    assert.equal(configOf(home).mcp[`perch-${a.name}`], undefined, 'the user scope untouched');
    const planted = tempDir('perch-oc-planted-');
    const elsewhere = tempDir('perch-oc-elsewhere-');
    fs.symlinkSync(elsewhere, path.join(planted, '.opencode'));
    const p = await run('connect', home, ['opencode', a.name, '--project', planted, '--write']);
    assert.equal(p.code, 1);
    assert.deepEqual(fs.readdirSync(elsewhere), [], 'nothing written through the link');
  });

  test('perch disconnect opencode NAME --write takes out its entry and its plugin only', async () => {
    const a = await newAgent();
    const home = homeWithOpenCode();
    assert.equal((await run('connect', home, ['opencode', a.name, '--write'])).code, 0);
    const r = await run('disconnect', home, ['opencode', a.name, '--write']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(configOf(home), USER_CONFIG);
    assert.equal(fs.existsSync(pluginFile(home)), false);
    assert.ok(fs.existsSync(path.join(home, '.config', 'opencode', 'plugin', 'notify.js')), "the user's plugin stays");
  });
});
