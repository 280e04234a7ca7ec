// `perch connect CLIENT NAME` (src/main/cli/agents/connect.ts) on a temporary HOME holding real-looking config
// files: without --write it shows a diff and writes nothing; with --write it edits the files (backup first,
// other settings kept, the key never written), twice in a row without duplicates; bad input changes nothing.
// With the real Claude Code (test/support/real-harness.ts) the written config is the one it runs with: `claude mcp
// list` connects to Perch, and `claude -p` sends its Bash prompt to the owner through the written hook.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, addAgent, cliAsync, eventually, exitOf, ownerOk, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { claudeCode, codex, runClaude } from '../support/real-harness';
import { spawn, spawnSync } from 'node:child_process';
import { startStandIn, toolResults } from '../support/model-standin';
import { telemetryTokenIn } from '../../src/shared/agents/telemetry-config';
import { keyEnvVar } from '../../src/shared/agents/snippets';
import { pendingRequestOf, runHook } from '../support/hook-runner';
import { ALLOW_OUTPUT, claudeCodeBash, codexBash } from '../fixtures/permission-request';
import { claudeCodePreToolUseBash, codexPreToolUse } from '../fixtures/status-hooks';
import { snapshot } from '../support/dir-snapshot';
import { CLAUDE_JSON, CODEX_TOML, SETTINGS, homeWithConfigs, perchAt, useTempDirs } from '../support/connect-kit';

const served = useSharedServe();
/** The hook door's base: the hub's MCP URL without its final /mcp. */
const hookBase = () => served.mcpUrl.replace(/\/mcp$/, '');
/** This machine's curl (the hooks of Codex and Cursor run it). */
const CURL = ['/usr/bin/curl', '/bin/curl', '/usr/local/bin/curl'].find((f) => fs.existsSync(f)) ?? 'curl';
const tempDir = useTempDirs();

const connect = (home: string, args: string[]) => perchAt(served.dataDir, 'connect', home, args);

async function newAgent(): Promise<AgentKey> {
  return addAgent(served.dataDir, uniqueName('conn'));
}

describe("perch connect claude-code / codex NAME edits the client's own config files", () => {
  test('without --write: a diff of what would change (the hooks to the hook door of --url), and nothing is written', async () => {
    const a = await newAgent();
    const home = homeWithConfigs(tempDir);
    const before = snapshot(home);
    const r = await connect(home, ['claude-code', a.name]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`\\.claude\\.json would get Perch as the MCP server \`perch-${a.name}\``));
    assert.match(r.stdout, new RegExp(`^\\+ {4}"perch-${a.name}": \\{$`, 'm'));
    assert.match(r.stdout, /Nothing was written\. Run again with --write/);
    assert.match(r.stdout, new RegExp(`export ${keyEnvVar(a.name)}=perch_…`));
    assert.deepEqual(snapshot(home), before);
    // --url (e.g. the container listener's URL): the hooks go to that place's hook door, BASE = the URL without /mcp.
    const there = await connect(home, ['codex', a.name, '--url', 'http://host.docker.internal:7458/mcp']);
    assert.equal(there.code, 0, there.stderr);
    assert.match(
      there.stdout,
      new RegExp(`^\\+ .*'http://host\\.docker\\.internal:7458/hook/codex/permission-request\\?agent=${a.name}'`, 'm'),
    );
    assert.match(
      there.stdout,
      /hooks\.json would get the Perch hooks \(PermissionRequest, PreToolUse, Stop, SessionStart: curl to http:\/\/host\.docker\.internal:7458\/hook\/codex\//,
    );
    assert.deepEqual(snapshot(home), before);
  });

  test('claude-code --write: Perch in ~/.claude.json and the hook in ~/.claude/settings.json, everything else kept, backups, the key nowhere; twice gives no duplicates', async () => {
    const a = await newAgent();
    const home = homeWithConfigs(tempDir);
    const r = await connect(home, ['claude-code', a.name, '--write', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.written, true);
    assert.deepEqual(
      out.files.map((f: any) => f.changed),
      [true, true],
    );
    const claudeJson = JSON.parse(fs.readFileSync(path.join(home, '.claude.json'), 'utf8'));
    assert.deepEqual(
      { ...claudeJson, mcpServers: { github: claudeJson.mcpServers.github } },
      CLAUDE_JSON,
      'the rest of ~/.claude.json is as it was',
    );
    assert.deepEqual(claudeJson.mcpServers[`perch-${a.name}`], {
      type: 'http',
      url: served.mcpUrl,
      headers: { Authorization: `Bearer \${${keyEnvVar(a.name)}}` },
    });
    const settings = JSON.parse(fs.readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8'));
    // Perch's own tools need no approval (the hub governs them); the user's own rules stay.
    assert.deepEqual(settings.permissions, { ...SETTINGS.permissions, allow: [...SETTINGS.permissions.allow, `mcp__perch-${a.name}`] });
    assert.deepEqual(settings.hooks.PostToolUse, SETTINGS.hooks.PostToolUse);
    assert.deepEqual(settings.hooks.PermissionRequest, [
      {
        hooks: [
          {
            type: 'http',
            url: `${hookBase()}/hook/claude-code/permission-request?agent=${a.name}`,
            headers: { Authorization: `Bearer $${keyEnvVar(a.name)}` },
            allowedEnvVars: [keyEnvVar(a.name)],
            timeout: 600,
          },
        ],
      },
    ]);
    for (const f of out.files) {
      assert.ok(f.backup && fs.existsSync(f.backup), `a backup of ${f.file}`);
      assert.equal(
        fs.readFileSync(f.backup, 'utf8'),
        f.file.endsWith('settings.json') ? `${JSON.stringify(SETTINGS, null, 2)}\n` : `${JSON.stringify(CLAUDE_JSON, null, 2)}\n`,
      );
    }
    for (const text of Object.values(snapshot(home))) assert.ok(!text.includes(a.key), 'the key is in no file');

    const files = snapshot(home);
    const again = await connect(home, ['claude-code', a.name, '--write']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^Already connected, nothing to change: .*\.claude\.json and .*settings\.json have /m);
    assert.deepEqual(snapshot(home), files, 'the second run changed nothing and made no new backup');
  });

  test('codex --write: [mcp_servers.perch-NAME] with bearer_token_env_var appended to config.toml (every other line kept), hooks.json created; twice gives no duplicates', async () => {
    const a = await newAgent();
    const home = homeWithConfigs(tempDir);
    const r = await connect(home, ['codex', a.name, '--write']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /trust the new hooks \(review them with \/hooks/);
    const toml = fs.readFileSync(path.join(home, '.codex', 'config.toml'), 'utf8');
    // The agent's telemetry-only token (never its key) for Codex's OTLP exporter to the hub (the ledger).
    const token = telemetryTokenIn(toml);
    assert.match(String(token), /^perch_otlp_/);
    assert.equal(
      toml,
      `${CODEX_TOML}\n[mcp_servers.perch-${a.name}]\nurl = "${served.mcpUrl}"\nbearer_token_env_var = "${keyEnvVar(a.name)}"\ndefault_tools_approval_mode = "approve"\n\n[otel]\nexporter = { otlp-http = { endpoint = "${hookBase()}/v1/logs", protocol = "json", headers = { "Authorization" = "Bearer ${token}" } } }\n`,
    );
    const hooks = JSON.parse(fs.readFileSync(path.join(home, '.codex', 'hooks.json'), 'utf8'));
    const hook = (sub: string, timeout: number) => [
      {
        hooks: [
          {
            type: 'command',
            command: `cat | { printf 'header = "Authorization: Bearer %s"\\n' "$${keyEnvVar(a.name)}" | curl -sS -f --max-time ${sub === 'permission-request' ? 590 : 10} -X POST -H 'Content-Type: application/json' -K - --data-binary @/dev/fd/3 '${hookBase()}/hook/codex/${sub}?agent=${a.name}'; } 3<&0`,
            timeout,
          },
        ],
      },
    ];
    // Codex's hooks reference has no Notification or SessionEnd event.
    assert.deepEqual(hooks, {
      hooks: {
        PermissionRequest: hook('permission-request', 600),
        PreToolUse: hook('pre-tool-use', 10),
        Stop: hook('stop', 10),
        SessionStart: hook('session-start', 10),
      },
    });
    const backups = fs.readdirSync(path.join(home, '.codex')).filter((f) => f.startsWith('config.toml.perch-backup-'));
    assert.equal(backups.length, 1);
    assert.equal(fs.readFileSync(path.join(home, '.codex', backups[0]!), 'utf8'), CODEX_TOML);
    const files = snapshot(home);
    assert.equal((await connect(home, ['codex', a.name, '--write'])).code, 0);
    assert.deepEqual(snapshot(home), files);
  });

  test('other clients print their snippet (the key by reference); --write is refused for them', async () => {
    const a = await newAgent();
    const home = homeWithConfigs(tempDir);
    const before = snapshot(home);
    const r = await connect(home, ['vscode', a.name]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`"Authorization": "Bearer \\$\\{env:${keyEnvVar(a.name)}\\}"`));
    const w = await connect(home, ['vscode', a.name, '--write']);
    assert.equal(w.code, 2);
    assert.match(w.stderr, /--write edits the config files of claude-code, codex, cursor, copilot, gemini, opencode; for vscode/);
    assert.deepEqual(snapshot(home), before);
  });

  test('a bad client, a missing agent, a config that is not JSON or a TOML table it cannot place: a clear error and nothing written', async () => {
    const a = await newAgent();
    const home = homeWithConfigs(tempDir);
    const before = snapshot(home);
    const bad = await connect(home, ['claude-cod', a.name, '--write']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /unknown client "claude-cod": use claude-code, codex/);
    const missing = await connect(home, ['claude-code', 'nobody-here', '--write']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /No agent named "nobody-here"/);
    const noName = await connect(home, ['codex']);
    assert.equal(noName.code, 2);
    assert.match(noName.stderr, /needs the agent's NAME/);
    assert.deepEqual(snapshot(home), before);

    fs.writeFileSync(path.join(home, '.claude', 'settings.json'), '{ "permissions": { ');
    const broken = snapshot(home);
    const notJson = await connect(home, ['claude-code', a.name, '--write']);
    assert.equal(notJson.code, 1);
    assert.match(notJson.stderr, /settings\.json is not valid JSON .*Nothing was written/);
    assert.deepEqual(snapshot(home), broken, '~/.claude.json was not written either');

    fs.writeFileSync(path.join(home, '.codex', 'config.toml'), `mcp_servers.perch-${a.name}.url = "http://elsewhere/mcp"\n`);
    const dotted = snapshot(home);
    const toml = await connect(home, ['codex', a.name, '--write']);
    assert.equal(toml.code, 1);
    assert.match(toml.stderr, /cannot add \[mcp_servers\.perch-conn[^\]]*\].*Nothing was written\. Edit it by hand/s);
    assert.deepEqual(snapshot(home), dotted);
  });
});

describe('two agents on one machine, and what the shell needs', () => {
  test("perch connect claude-code rue after kit: refused naming kit, nothing written; --replace makes it rue; the two agents' MCP entries are perch-kit and perch-rue", async () => {
    const kit = await newAgent();
    const rue = await newAgent();
    const home = homeWithConfigs(tempDir);
    assert.equal((await connect(home, ['claude-code', kit.name, '--write'])).code, 0);
    const withKit = snapshot(home);
    const r = await connect(home, ['claude-code', rue.name, '--write']);
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stderr,
      new RegExp(
        `\\.claude\\.json connects agent ${kit.name} \\(MCP server perch-${kit.name}\\) already, and connecting ${rue.name} there would replace it\\. Run again with --replace to make it ${rue.name}, or connect ${rue.name} for one repository only with --project DIR\\. Nothing was written\\.`,
      ),
    );
    assert.deepEqual(snapshot(home), withKit, 'kit is still connected, untouched');
    const replaced = await connect(home, ['claude-code', rue.name, '--write', '--replace']);
    assert.equal(replaced.code, 0, replaced.stderr);
    const claudeJson = JSON.parse(fs.readFileSync(path.join(home, '.claude.json'), 'utf8'));
    assert.deepEqual(Object.keys(claudeJson.mcpServers).sort(), ['github', `perch-${rue.name}`]);
    const settings = fs.readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8');
    assert.ok(!settings.includes(`?agent=${kit.name}"`) && settings.includes(`?agent=${rue.name}"`), "the hooks are rue's");
  });

  test("--project DIR: Claude Code's DIR/.mcp.json and DIR/.claude/settings.local.json, Codex's and Cursor's project files; the user's files untouched, so each repository is its own agent", async () => {
    const kit = await newAgent();
    const rue = await newAgent();
    const home = homeWithConfigs(tempDir);
    assert.equal((await connect(home, ['claude-code', kit.name, '--write'])).code, 0);
    const userFiles = snapshot(home);
    const repo = tempDir('perch-connect-repo-');
    for (const client of ['claude-code', 'codex', 'cursor']) {
      const r = await connect(home, [client, rue.name, '--write', '--project', repo]);
      assert.equal(r.code, 0, r.stderr);
    }
    assert.deepEqual(snapshot(home), userFiles, 'the user scope still connects kit');
    const mcp = JSON.parse(fs.readFileSync(path.join(repo, '.mcp.json'), 'utf8'));
    assert.deepEqual(mcp, {
      mcpServers: {
        [`perch-${rue.name}`]: { type: 'http', url: served.mcpUrl, headers: { Authorization: `Bearer \${${keyEnvVar(rue.name)}}` } },
      },
    });
    const local = JSON.parse(fs.readFileSync(path.join(repo, '.claude', 'settings.local.json'), 'utf8'));
    assert.equal(local.hooks.PermissionRequest[0].hooks[0].url, `${hookBase()}/hook/claude-code/permission-request?agent=${rue.name}`);
    assert.match(
      fs.readFileSync(path.join(repo, '.codex', 'config.toml'), 'utf8'),
      new RegExp(`^approval_policy = "on-request"\\n\\n\\[mcp_servers\\.perch-${rue.name}\\]\\n`),
    );
    assert.match(
      fs.readFileSync(path.join(repo, '.codex', 'hooks.json'), 'utf8'),
      new RegExp(`--data-binary @/dev/fd/3 '${hookBase()}/hook/codex/permission-request\\?agent=${rue.name}'`),
    );
    assert.match(
      fs.readFileSync(path.join(repo, '.cursor', 'hooks.json'), 'utf8'),
      new RegExp(`--data-binary @/dev/fd/3 '${hookBase()}/hook/cursor/permission-request\\?agent=${rue.name}'`),
    );
    for (const text of Object.values(snapshot(repo))) assert.ok(!text.includes(rue.key), 'the key is in no project file');
    assert.ok(JSON.parse(fs.readFileSync(path.join(repo, '.cursor', 'mcp.json'), 'utf8')).mcpServers[`perch-${rue.name}`]);
    assert.ok(fs.existsSync(path.join(repo, '.cursor', 'hooks.json')));
    const bad = await connect(home, ['claude-code', rue.name, '--project', path.join(repo, 'nope')]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--project ".*nope": there is no such directory/);
    const other = await connect(home, ['vscode', rue.name, '--project', repo]);
    assert.equal(other.code, 2);
    assert.match(other.stderr, /--project is for claude-code, codex, cursor, copilot, gemini, opencode; for vscode/);
  });

  test('codex: approval_policy "on-request" is set where a config has none (and "never" changed), and the first-run dialogs are named', async () => {
    const a = await newAgent();
    const home = homeWithConfigs(tempDir);
    fs.writeFileSync(path.join(home, '.codex', 'config.toml'), 'model = "gpt-5.5"\napproval_policy = "never"\n');
    const r = await connect(home, ['codex', a.name, '--write']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      fs.readFileSync(path.join(home, '.codex', 'config.toml'), 'utf8'),
      /^model = "gpt-5\.5"\napproval_policy = "on-request"\n/,
    );
    assert.match(r.stdout, /approval_policy = "on-request" \(Codex asks, so its prompts reach Perch\)/);
    assert.match(r.stdout, /Codex's first run asks twice: trust the new hooks \(review them with \/hooks.*notice about the model/);
  });

  test('the shell is checked: PERCH_KEY_<NAME> not set, curl (codex, cursor) or perch (--hooks perch, --channel) not on PATH each get a warning naming the fix; with all, none', async () => {
    const a = await newAgent();
    const home = homeWithConfigs(tempDir);
    const env = keyEnvVar(a.name);
    const empty = path.join(home, 'empty-bin');
    fs.mkdirSync(empty);
    const run = (args: string[], PATH: string, key: string) =>
      cliAsync(['connect', ...args, a.name, '--data-dir', served.dataDir, '--json'], { env: { HOME: home, PATH, [env]: key } });
    const bare = await run(['claude-code'], empty, '');
    assert.equal(bare.code, 0, bare.stderr);
    assert.match(
      bare.stderr,
      new RegExp(
        `^perch connect: warning: ${env} is not set in this shell: Claude Code reads ${a.name}'s key from it, and without it nothing reaches Perch\\. Run export ${env}=perch_…`,
        'm',
      ),
    );
    assert.equal(JSON.parse(bare.stdout).warnings.length, 1, "Claude Code's HTTP hooks need neither perch nor curl");
    const codexBare = await run(['codex'], empty, a.key);
    assert.match(
      codexBare.stderr,
      /^perch connect: warning: curl is not on this shell's PATH: Codex's hooks run curl to http:\/\/127\.0\.0\.1:\d+\/hook\/… .*Install curl, or run again with --hooks perch\.$/m,
    );
    assert.equal(JSON.parse(codexBare.stdout).warnings.length, 1);
    const perchBare = await run(['claude-code', '--hooks', 'perch'], empty, a.key);
    assert.match(
      perchBare.stderr,
      /^perch connect: warning: perch is not on this shell's PATH: Claude Code's hooks run `perch hook …` and would fail/m,
    );
    const channelBare = await run(['claude-code', '--channel'], empty, a.key);
    assert.match(
      channelBare.stderr,
      /^perch connect: warning: perch is not on this shell's PATH: Claude Code's MCP entry runs `perch channel`/m,
    );
    const binDir = path.join(home, 'bin');
    fs.mkdirSync(binDir);
    fs.writeFileSync(path.join(binDir, 'perch'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
    fs.symlinkSync(CURL, path.join(binDir, 'curl'));
    for (const args of [['claude-code'], ['codex'], ['cursor'], ['claude-code', '--hooks', 'perch', '--channel']]) {
      const ready = await run(args, binDir, a.key);
      assert.equal(ready.code, 0, ready.stderr);
      assert.equal(ready.stderr, '', args.join(' '));
      assert.deepEqual(JSON.parse(ready.stdout).warnings, []);
    }
    const wrong = await run(['codex', '--hooks', 'curl'], binDir, a.key);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /^perch: --hooks must be request or perch, not "curl"\. Run `perch connect --help`\.$/m);
    const elsewhere = await run(['vscode', '--hooks', 'perch'], binDir, a.key);
    assert.equal(elsewhere.code, 2);
    assert.match(elsewhere.stderr, /^perch: --hooks is for claude-code, codex, cursor; vscode has no hooks Perch writes\./m);
  });
});

describe('the written hooks reach the running hub as written', () => {
  /** Waits for agent a's pending request and approves it. */
  async function approve(a: AgentKey): Promise<void> {
    const req = await pendingRequestOf(served, a);
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
  }

  /** Runs a written command hook as the harnesses do (through a shell), the input on stdin; code and stdout. */
  async function runCommandHook(
    command: string,
    input: unknown,
    env: Record<string, string>,
  ): Promise<{ code: number | null; stdout: string }> {
    const child = spawn('/bin/sh', ['-c', command], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin!.end(JSON.stringify(input));
    const { code, stdout } = await exitOf(child, command, 60_000);
    return { code, stdout };
  }

  test("Claude Code's HTTP PermissionRequest hook, its header's $PERCH_KEY_NAME filled in, files the prompt and answers Claude Code's allow once approved", async () => {
    const a = await newAgent();
    const home = homeWithConfigs(tempDir);
    assert.equal((await connect(home, ['claude-code', a.name, '--write'])).code, 0);
    const settings = JSON.parse(fs.readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8'));
    const [entry] = settings.hooks.PermissionRequest[0].hooks;
    assert.deepEqual(entry.allowedEnvVars, [keyEnvVar(a.name)]);
    // What Claude Code does with an HTTP hook: the header's $VAR of allowedEnvVars filled in, the input as the body.
    const headers = {
      'Content-Type': 'application/json',
      Authorization: entry.headers.Authorization.replace(`$${keyEnvVar(a.name)}`, a.key),
    };
    const answer = fetch(entry.url, { method: 'POST', headers, body: JSON.stringify(claudeCodeBash) });
    await approve(a);
    const res = await answer;
    assert.equal(res.status, 200);
    assert.equal(await res.text(), ALLOW_OUTPUT);
  });

  test("Codex's curl hooks, run through a shell with PERCH_KEY_NAME set, get the hook door's answer on stdout; without the key curl -f prints nothing and exits 22 (a non-blocking hook error)", async () => {
    const a = await newAgent();
    const home = homeWithConfigs(tempDir);
    assert.equal((await connect(home, ['codex', a.name, '--write'])).code, 0);
    const hooks = JSON.parse(fs.readFileSync(path.join(home, '.codex', 'hooks.json'), 'utf8')).hooks;
    const env = { [keyEnvVar(a.name)]: a.key };
    const status = await runCommandHook(hooks.PreToolUse[0].hooks[0].command, codexPreToolUse, env);
    assert.equal(status.code, 0);
    assert.doesNotThrow(() => JSON.parse(status.stdout), `the harness's JSON: ${status.stdout}`);
    const asked = runCommandHook(hooks.PermissionRequest[0].hooks[0].command, codexBash, env);
    await approve(a);
    assert.deepEqual(await asked, { code: 0, stdout: ALLOW_OUTPUT });
    assert.deepEqual(await runCommandHook(hooks.PreToolUse[0].hooks[0].command, codexPreToolUse, {}), { code: 22, stdout: '' });
  });
});

describe('hook failures are loud', () => {
  test('a hook without its key says "no key was sent: set PERCH_KEY_<NAME> in the shell that starts Claude Code"; the owner is told once per agent in its feed; the hook door and /mcp answer the same', async () => {
    const a = await newAgent();
    const env = keyEnvVar(a.name);
    for (const [args, stdin] of [
      [['pre-tool-use', '--agent', a.name], claudeCodePreToolUseBash],
      [['permission-request', '--agent', a.name], claudeCodeBash],
      [['stop', '--agent', a.name, '--harness', 'codex'], { ...claudeCodePreToolUseBash, hook_event_name: 'Stop' }],
    ] as const) {
      const r = await runHook([...args, '--url', served.mcpUrl], stdin, {});
      assert.deepEqual([r.code, r.stdout], [0, ''], args.join(' '));
      assert.match(
        r.stderr,
        new RegExp(`^perch hook: no key was sent: set ${env} in the shell that starts ${args[0] === 'stop' ? 'Codex' : 'Claude Code'} `),
        r.stderr,
      );
    }
    const told = (await ownerOk(served, 'progress.list', { agent_id: a.id })).progress.filter(
      (p: any) => p.data?.harness?.event === 'hook-key',
    );
    assert.equal(told.length, 1, 'once per agent, not once per hook call');
    assert.equal(
      told[0].text,
      `Claude Code's hooks for ${a.name} reach Perch without a key, so nothing they report or ask arrives: set ${env} in the shell that starts Claude Code.`,
    );

    const door = await fetch(served.mcpUrl.replace(/\/mcp$/, `/hook?agent=${a.name}&harness=claude-code`), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer \${${env}}` },
      body: '{}',
    });
    assert.equal(door.status, 401);
    assert.equal(((await door.json()) as any).error.message, `no key was sent: set ${env} in the shell that starts Claude Code.`);
    const mcp = await fetch(served.mcpUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer \${${env}}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(mcp.status, 401);
    const text = JSON.stringify(await mcp.json());
    assert.match(
      text,
      new RegExp(`no key was sent \\(the header holds \\$\\{${env}\\} as written\\): set ${env} in the shell that starts the client`),
    );
    assert.doesNotMatch(text, /wrong or was revoked/);
    // The hub log says the same of that request (not "the agent key is wrong or was revoked").
    const log = path.join(served.dataDir, 'logs', 'hub.log');
    let line: any;
    await eventually(
      () => {
        line = (fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
          .find((l) => l.door === 'mcp' && l.status === 401 && String(l.error).includes(`\${${env}}`));
        return !!line;
      },
      10_000,
      'the hub log line of the request without a key',
    );
    assert.match(line.error, new RegExp(`^Unauthorized: no key was sent .*set ${env} in the shell that starts the client`));
  });
});

const claude = claudeCode();

describe('the real Claude Code runs with the config perch connect wrote', { skip: claude.skip }, () => {
  test('claude mcp list connects to Perch; claude -p sends its Bash prompt to the owner through the written HTTP hook, with no perch on its PATH', async () => {
    const a = await newAgent();
    const home = homeWithConfigs(tempDir);
    assert.equal((await connect(home, ['claude-code', a.name, '--write'])).code, 0);
    // No `perch` on the PATH: the written hooks are Claude Code's own HTTP hooks to the hub's hook door.
    const env = {
      PATH: (process.env.PATH ?? '')
        .split(path.delimiter)
        .filter((d) => !fs.existsSync(path.join(d, 'perch')))
        .join(path.delimiter),
      [keyEnvVar(a.name)]: a.key,
    };
    const project = fs.mkdtempSync(path.join(home, 'project-'));

    const list = await runClaude(claude.bin!, ['mcp', 'list'], { cwd: project, home, env, timeoutMs: 60_000 });
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, new RegExp(`^perch-${a.name}: ${served.mcpUrl.replace(/[.]/g, '\\.')} \\(HTTP\\) - ✔ Connected$`, 'm'));
    assert.match(list.stdout, /^github: /m, "the user's own server is still there");

    const model = await startStandIn((req) => {
      if (!req.tools?.some((t) => t.name === 'Bash')) return [{ type: 'text', text: 'ok' }];
      if (toolResults(req).length) return [{ type: 'text', text: 'done' }];
      return [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'touch connected.marker' } }];
    });
    try {
      const run = runClaude(claude.bin!, ['-p', 'Touch the marker.'], {
        cwd: project,
        home,
        env: { ...env, ANTHROPIC_BASE_URL: model.url },
      });
      const req = await pendingRequestOf(served, a, 120_000);
      assert.equal(req.title, 'Allow Bash: touch connected.marker?');
      await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
      assert.equal((await run).code, 0);
      assert.ok(fs.existsSync(path.join(project, 'connected.marker')), 'the approved command ran');
    } finally {
      await model.close();
    }
  });
});

const codexCli = codex();

describe('the real Codex CLI reads the config perch connect wrote', { skip: codexCli.skip }, () => {
  test("codex mcp list shows Perch as a streamable HTTP server with the key env var, beside the user's own server", async () => {
    const a = await newAgent();
    const home = homeWithConfigs(tempDir);
    assert.equal((await connect(home, ['codex', a.name, '--write'])).code, 0);
    const r = spawnSync(process.execPath, [codexCli.bin!, 'mcp', 'list', '--json'], {
      cwd: home,
      env: { PATH: process.env.PATH, HOME: home },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(r.status, 0, r.stderr);
    const servers = JSON.parse(r.stdout) as any[];
    assert.deepEqual(servers.map((s) => s.name).sort(), ['docs', `perch-${a.name}`]);
    const perch = servers.find((s) => s.name === `perch-${a.name}`);
    assert.equal(perch.enabled, true);
    assert.deepEqual(
      [perch.transport.type, perch.transport.url, perch.transport.bearer_token_env_var],
      ['streamable_http', served.mcpUrl, keyEnvVar(a.name)],
    );
  });
});
