// `perch connect gemini NAME` and `perch disconnect gemini NAME` (src/main/cli/agents/connect.ts, disconnect.ts,
// src/shared/agents/harnesses/gemini.ts): Perch's MCP entry and its command hooks in ~/.gemini/settings.json (the
// shapes of Gemini CLI's settings and hooks references; the real Gemini CLI runs with them in
// test/real/real-gemini.test.ts), on a temporary HOME holding a real-looking settings file: a diff without --write, a
// backup and the rest kept with it, twice in a row without a change, another agent's entry refused without --replace,
// bad files refused with nothing written, --project never through a planted link, the connection recorded, the key
// never on curl's argv, disconnect taking out only Perch's.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
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

/** A user's own settings: auth, a model, an MCP server and a hook of their own. */
const USER_SETTINGS = {
  security: { auth: { selectedType: 'gemini-api-key' } },
  model: { name: 'gemini-2.5-pro' },
  mcpServers: { github: { httpUrl: 'https://api.example/mcp' } },
  hooks: { BeforeTool: [{ matcher: 'write_file', hooks: [{ type: 'command', command: './audit.sh', timeout: 5000 }] }] },
};
const SETTINGS_TEXT = `${JSON.stringify(USER_SETTINGS, null, 2)}\n`;

function homeWithGemini(): string {
  const home = tempDir('perch-connect-gemini-');
  fs.mkdirSync(path.join(home, '.gemini'));
  fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), SETTINGS_TEXT);
  return home;
}

const run = (cmd: 'connect' | 'disconnect', home: string, args: string[], env: Record<string, string> = {}) =>
  cliAsync([cmd, ...args, '--data-dir', served.dataDir], { env: { HOME: home, ...env } });
const newAgent = (): Promise<AgentKey> => addAgent(served.dataDir, uniqueName('conn-gemini'));
const settingsOf = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, '.gemini', 'settings.json'), 'utf8'));

/** The one hook group under each event: [sub, curl --max-time, timeout ms, extra query]. */
function perchHooks(settings: any): Record<string, [string, string, number, string]> {
  const out: Record<string, [string, string, number, string]> = {};
  for (const [event, groups] of Object.entries<any>(settings.hooks)) {
    for (const g of groups)
      for (const h of g.hooks) {
        const m = /--max-time (\d+) .*'http:\/\/[^/]+\/hook\/gemini\/([a-z-]+)\?agent=[^&']+(&[^']*)?'/.exec(h.command);
        if (m) out[event] = [m[2]!, m[1]!, h.timeout, m[3] ?? ''];
      }
  }
  return out;
}

describe('perch connect gemini NAME edits ~/.gemini/settings.json', () => {
  test("without --write: a diff of the file and nothing written; --write: the MCP entry (key by $VAR reference, trusted) and the curl hooks beside the user's, a backup, the key nowhere; twice changes nothing", async () => {
    const a = await newAgent();
    const home = homeWithGemini();
    const before = snapshot(home);
    const dry = await run('connect', home, ['gemini', a.name]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, new RegExp(`settings\\.json would get Perch as the MCP server \`perch-${a.name}\``));
    assert.match(dry.stdout, /Nothing was written/);
    assert.deepEqual(snapshot(home), before);

    const r = await run('connect', home, ['gemini', a.name, '--write', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.start, 'gemini');
    const s = settingsOf(home);
    assert.deepEqual(s.security, USER_SETTINGS.security);
    assert.deepEqual(s.model, USER_SETTINGS.model);
    assert.deepEqual(s.mcpServers, {
      github: USER_SETTINGS.mcpServers.github,
      [`perch-${a.name}`]: { httpUrl: served.mcpUrl, headers: { Authorization: `Bearer $${keyEnvVar(a.name)}` }, trust: true },
    });
    assert.deepEqual(s.hooks.BeforeTool[0], USER_SETTINGS.hooks.BeforeTool[0], "the user's own hook stays first");
    assert.deepEqual(perchHooks(s), {
      BeforeTool: ['pre-tool-use', '10', 10000, ''],
      AfterTool: ['post-tool-use', '10', 10000, ''],
      AfterAgent: ['stop', '10', 10000, ''],
      SessionStart: ['session-start', '10', 10000, ''],
      SessionEnd: ['session-end', '10', 10000, ''],
      Notification: ['notification', '10', 10000, ''],
    });
    assert.ok(out.files[0].backup && fs.readFileSync(out.files[0].backup, 'utf8') === SETTINGS_TEXT, 'a backup of settings.json');
    for (const text of Object.values(snapshot(home))) assert.ok(!text.includes(a.key), 'the key is in no file');

    const files = snapshot(home);
    const again = await run('connect', home, ['gemini', a.name, '--write']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^Already connected, nothing to change: .*settings\.json has /m);
    assert.deepEqual(snapshot(home), files, 'the second run changed nothing and made no new backup');

    // --ask: BeforeTool waits for the owner (curl 590 s, Gemini's timeout 600 000 ms, ask=1), in the same place.
    const ask = await run('connect', home, ['gemini', a.name, '--write', '--ask']);
    assert.equal(ask.code, 0, ask.stderr);
    const asked = settingsOf(home);
    assert.deepEqual(perchHooks(asked).BeforeTool, ['pre-tool-use', '590', 600000, '&ask=1']);
    assert.equal(asked.hooks.BeforeTool.length, 2, 'replaced in place, not added');
  });

  test("the written hook runs the one curl request with the key off its argv: the door gets the harness's input and the key", async () => {
    const a = await newAgent();
    const home = homeWithGemini();
    assert.equal((await run('connect', home, ['gemini', a.name, '--write'])).code, 0);
    const command: string = settingsOf(home).hooks.SessionStart[0].hooks[0].command;
    assert.ok(!command.includes(a.key));
    const input = JSON.stringify({
      session_id: 's-1',
      cwd: home,
      hook_event_name: 'SessionStart',
      timestamp: '2026-12-05T05:22:44.149Z',
      source: 'startup',
    });
    const r = spawnSync('/bin/sh', ['-c', command], {
      input,
      encoding: 'utf8',
      env: { PATH: process.env.PATH!, [keyEnvVar(a.name)]: a.key },
      timeout: 30_000,
    });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, '{}');
  });

  test("another agent's entries are refused without --replace (nothing written) and replaced with it; the connection is recorded", async () => {
    const [a, b] = [await newAgent(), await newAgent()];
    const home = homeWithGemini();
    assert.equal((await run('connect', home, ['gemini', a.name, '--write'])).code, 0);
    const before = snapshot(home);
    const r = await run('connect', home, ['gemini', b.name, '--write']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`connects agent ${a.name} .*Run again with --replace`));
    assert.match(r.stderr, /Nothing was written/);
    assert.deepEqual(snapshot(home), before);
    const replaced = await run('connect', home, ['gemini', b.name, '--write', '--replace']);
    assert.equal(replaced.code, 0, replaced.stderr);
    const s = settingsOf(home);
    assert.deepEqual(Object.keys(s.mcpServers), ['github', `perch-${b.name}`]);
    assert.ok(JSON.stringify(s.hooks).includes(`agent=${b.name}`) && !JSON.stringify(s.hooks).includes(`agent=${a.name}'`));
    assert.match(replaced.stdout, new RegExp(`Gemini CLI sessions will be ${b.name}'s`));
  });

  test('bad files (not JSON, a hook list that is not a list), --hooks and --ask elsewhere: one clear error, nothing written', async () => {
    const a = await newAgent();
    for (const [text, expected] of [
      ['{ "mcpServers": ', /settings\.json is not valid JSON/],
      ['{ "hooks": { "AfterTool": {} } }', /hooks\.AfterTool is not a list/],
    ] as const) {
      const home = homeWithGemini();
      fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), text);
      const before = snapshot(home);
      const r = await run('connect', home, ['gemini', a.name, '--write']);
      assert.equal(r.code, 1, text);
      assert.match(r.stderr, expected);
      assert.match(r.stderr, /Nothing was written/);
      assert.deepEqual(snapshot(home), before, `${text}: nothing written`);
    }
    const home = homeWithGemini();
    const hooks = await run('connect', home, ['gemini', a.name, '--hooks', 'perch', '--write']);
    assert.equal(hooks.code, 2);
    assert.match(hooks.stderr, /--hooks is not for gemini/);
    const ask = await run('connect', home, ['codex', a.name, '--ask']);
    assert.equal(ask.code, 2);
    assert.match(ask.stderr, /--ask is for gemini only/);
  });

  test("--project DIR: DIR/.gemini/settings.json; a planted link (.gemini, or the settings file) is refused and nothing is written through it; disconnect takes out only Perch's", async () => {
    const a = await newAgent();
    const home = tempDir('perch-gemini-home-');
    const repo = tempDir('perch-gemini-repo-');
    const r = await run('connect', home, ['gemini', a.name, '--project', repo, '--write']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(settingsOf(repo).mcpServers[`perch-${a.name}`]);
    assert.deepEqual(fs.readdirSync(home), [], 'nothing at the user scope');
    const gone = await run('disconnect', home, ['gemini', a.name, '--project', repo, '--write']);
    assert.equal(gone.code, 0, gone.stderr);
    assert.equal(fs.existsSync(path.join(repo, '.gemini', 'settings.json')), false, 'a file with only Perch in it is removed');

    const outside = tempDir('perch-gemini-outside-');
    const linked = tempDir('perch-gemini-linked-');
    fs.symlinkSync(outside, path.join(linked, '.gemini'));
    const viaDir = await run('connect', home, ['gemini', a.name, '--project', linked, '--write']);
    assert.equal(viaDir.code, 1);
    assert.match(viaDir.stderr, /\.gemini is a symbolic link: a project's files are read and written only inside/);
    assert.deepEqual(fs.readdirSync(outside), [], 'nothing written through the link');

    const planted = tempDir('perch-gemini-planted-');
    fs.mkdirSync(path.join(planted, '.gemini'));
    const target = path.join(outside, 'victim.json');
    fs.writeFileSync(target, '{"keep": true}');
    fs.symlinkSync(target, path.join(planted, '.gemini', 'settings.json'));
    const viaFile = await run('connect', home, ['gemini', a.name, '--project', planted, '--write']);
    assert.equal(viaFile.code, 1);
    assert.match(viaFile.stderr, /settings\.json is a symbolic link/);
    assert.equal(fs.readFileSync(target, 'utf8'), '{"keep": true}');

    const user = homeWithGemini();
    assert.equal((await run('connect', user, ['gemini', a.name, '--write'])).code, 0);
    const off = await run('disconnect', user, ['gemini', a.name, '--write']);
    assert.equal(off.code, 0, off.stderr);
    assert.deepEqual(settingsOf(user), USER_SETTINGS, "disconnect leaves exactly the user's settings");
  });
});
