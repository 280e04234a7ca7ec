// `perch disconnect CLIENT NAME [--project DIR]` (src/main/cli/agents/disconnect.ts): takes out exactly what
// `perch connect` wrote for that agent and keeps everything else, with the same diff, backup and dry run: connect then
// disconnect leaves the user's own settings files byte for byte as they were; another agent's entries stay.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addAgent, uniqueName, useSharedServe } from '../support/serve-harness';
import { CODEX_TOML, SETTINGS, homeWithConfigs, perchAt, useTempDirs } from '../support/connect-kit';
import { snapshot } from '../support/dir-snapshot';

const served = useSharedServe();
const tempDir = useTempDirs();

/** The files under dir without the backups connect and disconnect made. */
function ownFiles(dir: string): Record<string, string> {
  return Object.fromEntries(Object.entries(snapshot(dir)).filter(([f]) => !f.includes('.perch-backup-')));
}

const run = (cmd: 'connect' | 'disconnect', home: string, args: string[]) => perchAt(served.dataDir, cmd, home, args);

describe('perch disconnect CLIENT NAME', () => {
  test("connect then disconnect (claude-code, codex, cursor) leaves the user's own settings files byte-identical; without --write only a diff", async () => {
    const a = await addAgent(served.dataDir, uniqueName('gone'));
    const home = homeWithConfigs(tempDir, 'perch-disconnect-home-');
    const before = ownFiles(home);
    for (const client of ['claude-code', 'codex', 'cursor'])
      assert.equal((await run('connect', home, [client, a.name, '--write'])).code, 0);
    const connected = snapshot(home);
    assert.notDeepEqual(ownFiles(home), before);

    const dry = await run('disconnect', home, ['claude-code', a.name]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, new RegExp(`\\.claude\\.json would lose the MCP server \`perch-${a.name}\``));
    assert.match(dry.stdout, new RegExp(`^- {4}"perch-${a.name}": \\{$`, 'm'));
    assert.match(dry.stdout, /Nothing was written\. Run again with --write/);
    assert.deepEqual(snapshot(home), connected, 'a dry run writes nothing');

    for (const client of ['claude-code', 'codex', 'cursor']) {
      const r = await run('disconnect', home, [client, a.name, '--write', '--json']);
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      for (const f of out.files.filter((x: any) => x.changed)) assert.ok(fs.existsSync(f.backup), `a backup of ${f.file}`);
    }
    assert.deepEqual(ownFiles(home), before, 'byte for byte what the user had; the hooks files connect made are gone');
    const again = await run('disconnect', home, ['claude-code', a.name, '--write']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^Not connected here, nothing to change: /);
  });

  test("the user's own telemetry settings stay: only Perch's otlp exporter, endpoint and token go (claude-code, codex)", async () => {
    const a = await addAgent(served.dataDir, uniqueName('otel'));
    const home = homeWithConfigs(tempDir, 'perch-disconnect-home-');
    const settings = { ...SETTINGS, env: { CLAUDE_CODE_ENABLE_TELEMETRY: '1', OTEL_METRICS_EXPORTER: 'console', MY_VAR: 'x' } };
    fs.writeFileSync(path.join(home, '.claude', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
    fs.writeFileSync(path.join(home, '.codex', 'config.toml'), `${CODEX_TOML}\n[otel]\nlog_user_prompt = false\n`);
    const before = ownFiles(home);
    for (const client of ['claude-code', 'codex']) assert.equal((await run('connect', home, [client, a.name, '--write'])).code, 0);
    const connected = ownFiles(home);
    assert.match(connected['.claude/settings.json']!, /"OTEL_METRICS_EXPORTER": "console,otlp"/);
    assert.match(connected['.codex/config.toml']!, /\[otel\]\nlog_user_prompt = false\nexporter = \{ otlp-http = .*perch_otlp_/);
    for (const client of ['claude-code', 'codex']) {
      const r = await run('disconnect', home, [client, a.name, '--write']);
      assert.equal(r.code, 0, r.stderr);
    }
    assert.deepEqual(ownFiles(home), before, "the user's env and [otel] as they were, byte for byte");
  });

  test("disconnecting rue's project keeps kit (user scope) untouched, and kit's files are not rue's to change", async () => {
    const kit = await addAgent(served.dataDir, uniqueName('kit'));
    const rue = await addAgent(served.dataDir, uniqueName('rue'));
    const home = homeWithConfigs(tempDir, 'perch-disconnect-home-');
    const repo = tempDir('perch-disconnect-repo-');
    fs.writeFileSync(path.join(repo, 'README.md'), '# app\n');
    assert.equal((await run('connect', home, ['claude-code', kit.name, '--write'])).code, 0);
    const userFiles = snapshot(home);
    assert.equal((await run('connect', home, ['claude-code', rue.name, '--project', repo, '--write'])).code, 0);
    const notHere = await run('disconnect', home, ['claude-code', rue.name, '--write']);
    assert.equal(notHere.code, 0, notHere.stderr);
    assert.match(notHere.stdout, /^Not connected here, nothing to change/);
    assert.deepEqual(snapshot(home), userFiles, "kit's user scope untouched");
    const r = await run('disconnect', home, ['claude-code', rue.name, '--project', repo, '--write']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(ownFiles(repo), { 'README.md': '# app\n' }, 'the project holds nothing of rue any more');
    assert.deepEqual(snapshot(home), userFiles);
    const bad = await run('disconnect', home, ['vscode', rue.name]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /perch disconnect is for claude-code, codex, cursor, copilot, gemini, opencode, not "vscode"/);
  });
});
