// `perch connect copilot NAME` and `perch disconnect copilot NAME` (src/main/cli/agents/connect.ts, disconnect.ts,
// src/shared/agents/harnesses/copilot.ts): Perch's MCP entry in ~/.copilot/mcp-config.json and Copilot's hooks (two
// fail-open curl commands, the status events as HTTP hooks) in ~/.copilot/hooks/perch.json (the shapes of Copilot's hooks reference; the real Copilot CLI runs with them in
// test/real/real-copilot.test.ts), on a temporary HOME holding real-looking files: a diff without --write, backups
// and the rest kept with it, twice in a row without a change, another agent's entry refused without --replace,
// bad files refused with nothing written, --project never through a planted link, disconnect taking out only Perch's.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addAgent, cliAsync, rawPost, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { keyEnvVar } from '../../src/shared/agents/snippets';
import { copilotFailOpenCommand } from '../../src/shared/agents/harnesses/copilot';
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

const MCP_CONFIG = { mcpServers: { github: { type: 'http', url: 'https://api.example/mcp', tools: ['*'] } } };
const USER_HOOKS = { version: 1, hooks: { preToolUse: [{ type: 'command', bash: './audit.sh', timeoutSec: 5 }] } };

function homeWithCopilot(): string {
  const home = tempDir('perch-connect-copilot-');
  fs.mkdirSync(path.join(home, '.copilot', 'hooks'), { recursive: true });
  fs.writeFileSync(path.join(home, '.copilot', 'mcp-config.json'), `${JSON.stringify(MCP_CONFIG, null, 2)}\n`);
  fs.writeFileSync(path.join(home, '.copilot', 'hooks', 'audit.json'), `${JSON.stringify(USER_HOOKS, null, 2)}\n`);
  return home;
}

const run = (cmd: 'connect' | 'disconnect', home: string, args: string[], env: Record<string, string> = {}) =>
  cliAsync([cmd, ...args, '--data-dir', served.dataDir], { env: { HOME: home, ...env } });
const newAgent = (): Promise<AgentKey> => addAgent(served.dataDir, uniqueName('conn-copilot'));
const base = () => served.mcpUrl.replace(/\/mcp$/, '');

/** The hooks file `perch connect copilot` writes for agent a (before: as connect wrote it until the hooks failed open). */
function expectedHooks(a: AgentKey, before = false): unknown {
  const env = keyEnvVar(a.name);
  const command = (sub: string, timeoutSec: number) =>
    before
      ? entry(sub, timeoutSec)
      : [{ type: 'command', bash: copilotFailOpenCommand({ agent: a.name, mcpUrl: served.mcpUrl }, sub), timeoutSec }];
  const entry = (sub: string, timeoutSec: number) => [
    {
      type: 'http',
      url: `${base()}/hook/copilot/${sub}?agent=${a.name}`,
      headers: { Authorization: `Bearer $${env}` },
      allowedEnvVars: [env],
      timeoutSec,
    },
  ];
  return {
    version: 1,
    hooks: {
      permissionRequest: command('permission-request', 600),
      preToolUse: before ? entry('pre-tool-use', 10) : command('pre-tool-use', 15),
      notification: entry('notification', 10),
      agentStop: entry('stop', 10),
      sessionStart: entry('session-start', 10),
      sessionEnd: entry('session-end', 10),
    },
  };
}

describe('perch connect copilot NAME edits ~/.copilot/mcp-config.json and ~/.copilot/hooks/perch.json', () => {
  test('without --write: a diff of both files, the COPILOT_HOOK_ALLOW_LOCALHOST=1 the plain-http hooks need, and nothing written', async () => {
    const a = await newAgent();
    const home = homeWithCopilot();
    const before = snapshot(home);
    const r = await run('connect', home, ['copilot', a.name]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`mcp-config\\.json would get Perch as the MCP server \`perch-${a.name}\``));
    assert.match(
      r.stdout,
      /perch\.json would get the Perch hooks \(permissionRequest, preToolUse, notification, agentStop, sessionStart, sessionEnd: hooks to .*; preToolUse with curl, letting Copilot carry on when the hub cannot be reached\)/,
    );
    assert.match(r.stdout, /Nothing was written/);
    assert.match(
      r.stdout,
      /export COPILOT_HOOK_ALLOW_LOCALHOST=1 {3}# Copilot calls hooks at a plain-http 127\.0\.0\.1 URL only with it\n {2}export OTEL_EXPORTER_OTLP_ENDPOINT=http:\/\/127\.0\.0\.1:\d+ {3}# Copilot's OpenTelemetry to Perch's ledger \(it reads the endpoint from the environment only\)\n {2}copilot/,
    );
    assert.match(r.stderr, /warning: COPILOT_HOOK_ALLOW_LOCALHOST is not 1 in this shell/);
    assert.deepEqual(snapshot(home), before);
    const set = await run('connect', home, ['copilot', a.name], { COPILOT_HOOK_ALLOW_LOCALHOST: '1' });
    assert.doesNotMatch(set.stderr, /COPILOT_HOOK_ALLOW_LOCALHOST/, 'no warning where it is set');
  });

  test("--write: the MCP entry with the key by ${…} reference beside the user's servers, the HTTP hooks in their own file, backups, the key nowhere; twice changes nothing", async () => {
    const a = await newAgent();
    const home = homeWithCopilot();
    const r = await run('connect', home, ['copilot', a.name, '--write', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.written, true);
    assert.equal(out.start, 'copilot');
    const mcp = JSON.parse(fs.readFileSync(path.join(home, '.copilot', 'mcp-config.json'), 'utf8'));
    assert.deepEqual(mcp, {
      mcpServers: {
        ...MCP_CONFIG.mcpServers,
        [`perch-${a.name}`]: {
          type: 'http',
          url: served.mcpUrl,
          headers: { Authorization: `Bearer \${${keyEnvVar(a.name)}}` },
          tools: ['*'],
        },
      },
    });
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(home, '.copilot', 'hooks', 'perch.json'), 'utf8')), expectedHooks(a));
    assert.deepEqual(
      JSON.parse(fs.readFileSync(path.join(home, '.copilot', 'hooks', 'audit.json'), 'utf8')),
      USER_HOOKS,
      "the user's hooks file untouched",
    );
    const [mcpFile, hooksFile] = out.files;
    assert.ok(
      mcpFile.backup && fs.readFileSync(mcpFile.backup, 'utf8') === `${JSON.stringify(MCP_CONFIG, null, 2)}\n`,
      'a backup of mcp-config.json',
    );
    assert.equal(hooksFile.backup, undefined, 'perch.json is new');
    for (const text of Object.values(snapshot(home))) assert.ok(!text.includes(a.key), 'the key is in no file');

    const files = snapshot(home);
    const again = await run('connect', home, ['copilot', a.name, '--write']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(
      again.stdout,
      /^Already connected, nothing to change: .*mcp-config\.json and .*perch\.json and .*perch-otlp-headers\.json and .*settings\.json have /m,
    );
    assert.deepEqual(snapshot(home), files, 'the second run changed nothing and made no new backup');
  });

  test("--write turns on Copilot's OpenTelemetry for the ledger: the agent's telemetry token in perch-otlp-headers.json (0600), read by settings.json's headersProvider with cat, capture of tool arguments and output on, the user's settings kept; the export line it needs printed and warned about; a headersProvider of the user's own left alone", async () => {
    const a = await newAgent();
    const home = homeWithCopilot();
    const settings = path.join(home, '.copilot', 'settings.json');
    fs.writeFileSync(settings, JSON.stringify({ model: 'gpt-4.1', telemetry: { capture: { prompts: false } } }));
    const r = await run('connect', home, ['copilot', a.name, '--write']);
    assert.equal(r.code, 0, r.stderr);
    const headersFile = path.join(home, '.copilot', 'perch-otlp-headers.json');
    const header = JSON.parse(fs.readFileSync(headersFile, 'utf8'));
    assert.deepEqual(Object.keys(header), ['Authorization']);
    const token = /^Bearer (perch_otlp_\S+)$/.exec(header.Authorization)?.[1];
    assert.ok(token, header.Authorization);
    const otlp = await rawPost(`${base()}/v1/traces`, token, { resourceSpans: [] });
    assert.equal(otlp.status, 200, `the hub takes the token as ${a.name}'s: ${otlp.text}`);
    assert.equal(fs.statSync(headersFile).mode & 0o777, 0o600);
    assert.deepEqual(JSON.parse(fs.readFileSync(settings, 'utf8')), {
      model: 'gpt-4.1',
      telemetry: {
        capture: { prompts: false, toolArguments: true, toolOutput: true },
        headersProvider: { path: 'cat', args: [headersFile] },
      },
    });
    assert.ok(!r.stdout.includes(token), 'the token is not printed');
    assert.match(r.stderr, /warning: OTEL_EXPORTER_OTLP_ENDPOINT is not http:\/\/127\.0\.0\.1:\d+ in this shell/);

    const own = homeWithCopilot();
    const theirs = { telemetry: { headersProvider: { path: 'node', args: ['/opt/otel-auth.js'] } } };
    fs.writeFileSync(path.join(own, '.copilot', 'settings.json'), JSON.stringify(theirs));
    assert.equal((await run('connect', own, ['copilot', a.name, '--write'])).code, 0);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(own, '.copilot', 'settings.json'), 'utf8')), theirs);
  });

  test("an earlier connection's HTTP permissionRequest and preToolUse hooks (which fail closed with the hub down) become the fail-open curl commands on the next --write, in their places, with a backup", async () => {
    const a = await newAgent();
    const home = homeWithCopilot();
    const file = path.join(home, '.copilot', 'hooks', 'perch.json');
    const old = `${JSON.stringify(expectedHooks(a, true), null, 2)}\n`;
    fs.writeFileSync(file, old);
    const r = await run('connect', home, ['copilot', a.name, '--write', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const written = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.equal(written.hooks.preToolUse[0].type, 'command');
    assert.deepEqual(written, expectedHooks(a));
    const hooksFile = JSON.parse(r.stdout).files.find((f: any) => f.file.endsWith('perch.json'));
    assert.equal(fs.readFileSync(hooksFile.backup, 'utf8'), old, 'the earlier file kept as a backup');
  });

  test("another agent's Perch entries are refused without --replace (nothing written) and replaced with it", async () => {
    const [a, b] = [await newAgent(), await newAgent()];
    const home = homeWithCopilot();
    assert.equal((await run('connect', home, ['copilot', a.name, '--write'])).code, 0);
    const before = snapshot(home);
    const r = await run('connect', home, ['copilot', b.name, '--write']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`connects agent ${a.name} .*Run again with --replace`));
    assert.match(r.stderr, /Nothing was written/);
    assert.deepEqual(snapshot(home), before);
    const replaced = await run('connect', home, ['copilot', b.name, '--write', '--replace']);
    assert.equal(replaced.code, 0, replaced.stderr);
    const mcp = JSON.parse(fs.readFileSync(path.join(home, '.copilot', 'mcp-config.json'), 'utf8'));
    assert.deepEqual(Object.keys(mcp.mcpServers), ['github', `perch-${b.name}`]);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(home, '.copilot', 'hooks', 'perch.json'), 'utf8')), expectedHooks(b));
  });

  test('bad files (not JSON, another hooks version, a hook list that is not a list) and --hooks: one clear error, nothing written', async () => {
    const a = await newAgent();
    for (const [file, text, expected] of [
      ['mcp-config.json', '{ "mcpServers": ', /mcp-config\.json is not valid JSON/],
      ['hooks/perch.json', '{ "version": 2, "hooks": {} }', /has "version": 2; Perch writes Copilot's version 1 hooks/],
      ['hooks/perch.json', '{ "version": 1, "hooks": { "preToolUse": {} } }', /hooks\.preToolUse is not a list/],
    ] as const) {
      const home = homeWithCopilot();
      fs.writeFileSync(path.join(home, '.copilot', file), text);
      const before = snapshot(home);
      const r = await run('connect', home, ['copilot', a.name, '--write']);
      assert.equal(r.code, 1, text);
      assert.match(r.stderr, expected);
      assert.match(r.stderr, /Nothing was written/);
      assert.deepEqual(snapshot(home), before, `${text}: nothing written`);
    }
    const home = homeWithCopilot();
    const r = await run('connect', home, ['copilot', a.name, '--hooks', 'perch', '--write']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--hooks is not for copilot/);
  });

  test('--project DIR: DIR/.github/mcp.json and DIR/.github/hooks/perch.json; a planted link (.github, or the hooks file) is refused and nothing is written through it', async () => {
    const a = await newAgent();
    const home = tempDir('perch-copilot-home-');
    const repo = tempDir('perch-copilot-repo-');
    const r = await run('connect', home, ['copilot', a.name, '--project', repo, '--write']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(JSON.parse(fs.readFileSync(path.join(repo, '.github', 'mcp.json'), 'utf8')).mcpServers[`perch-${a.name}`]);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(repo, '.github', 'hooks', 'perch.json'), 'utf8')), expectedHooks(a));
    assert.deepEqual(fs.readdirSync(home), [], 'nothing at the user scope');

    const outside = tempDir('perch-copilot-outside-');
    const linked = tempDir('perch-copilot-linked-');
    fs.symlinkSync(outside, path.join(linked, '.github'));
    const viaDir = await run('connect', home, ['copilot', a.name, '--project', linked, '--write']);
    assert.equal(viaDir.code, 1);
    assert.match(viaDir.stderr, /\.github is a symbolic link: a project's files are read and written only inside/);
    assert.deepEqual(fs.readdirSync(outside), [], 'nothing written through the link');

    const planted = tempDir('perch-copilot-planted-');
    fs.mkdirSync(path.join(planted, '.github', 'hooks'), { recursive: true });
    const target = path.join(outside, 'victim.json');
    fs.writeFileSync(target, '{"keep": true}');
    fs.symlinkSync(target, path.join(planted, '.github', 'hooks', 'perch.json'));
    const viaFile = await run('connect', home, ['copilot', a.name, '--project', planted, '--write']);
    assert.equal(viaFile.code, 1);
    assert.match(viaFile.stderr, /perch\.json is a symbolic link/);
    assert.equal(fs.readFileSync(target, 'utf8'), '{"keep": true}');
    assert.equal(fs.existsSync(path.join(planted, '.github', 'mcp.json')), false, 'not even the other file');
  });
});

describe('perch disconnect copilot NAME', () => {
  test("takes out exactly Perch's server, hooks and telemetry: the user's servers and hooks stay, perch.json and the telemetry files go; a second run changes nothing", async () => {
    const a = await newAgent();
    const home = homeWithCopilot();
    assert.equal((await run('connect', home, ['copilot', a.name, '--write'])).code, 0);
    const dry = await run('disconnect', home, ['copilot', a.name]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, new RegExp(`mcp-config\\.json would lose the MCP server \`perch-${a.name}\``));
    const r = await run('disconnect', home, ['copilot', a.name, '--write']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(home, '.copilot', 'mcp-config.json'), 'utf8')), MCP_CONFIG);
    assert.equal(fs.existsSync(path.join(home, '.copilot', 'hooks', 'perch.json')), false, 'perch.json removed (nothing else was in it)');
    for (const f of ['perch-otlp-headers.json', 'settings.json'])
      assert.equal(fs.existsSync(path.join(home, '.copilot', f)), false, `${f} removed (Perch's telemetry was all it held)`);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(home, '.copilot', 'hooks', 'audit.json'), 'utf8')), USER_HOOKS);
    assert.match(r.stdout, /GitHub Copilot CLI no longer runs/);
    const again = await run('disconnect', home, ['copilot', a.name, '--write']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^Not connected here, nothing to change/);
  });
});
