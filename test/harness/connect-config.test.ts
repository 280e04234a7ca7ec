// The config edits of `perch connect` (src/shared/agents/harness-config.ts, toml-table.ts, text-diff.ts): the one
// table or entry Perch owns is added or replaced, every other line of the user's file stays as it was, and a
// second run changes nothing.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { TomlEditError, headerPath, tomlString, upsertTomlTable } from '../../src/shared/text/toml-table';
import { unifiedDiff } from '../../src/shared/text/text-diff';
import {
  setClaudeMcp,
  setCodexMcp,
  setCursorHooks,
  setCursorMcp,
  setPerchHooks,
  AgentConflict,
  ConfigFileError,
} from '../../src/shared/agents/harness-config';

const O = { agent: 'kit', mcpUrl: 'http://127.0.0.1:7457/mcp' };
const TABLE = ['[mcp_servers.perch-kit]', 'url = "http://127.0.0.1:7457/mcp"', 'bearer_token_env_var = "PERCH_KEY_KIT"'];
/** What `perch connect codex` adds at the top level of a config without an approval policy. */
const APPROVAL = 'approval_policy = "on-request"';

/** A Codex config.toml as people write them: comments, profiles, other MCP servers, multi-line values. */
const CODEX_CONFIG = `# ~/.codex/config.toml
model = "gpt-5.5"            # the default model
approval_policy = "on-request"
sandbox_mode = "workspace-write"

[features]
web_search = true

# Documentation lookups
[mcp_servers.docs]
command = "npx"
args = [
  "-y",
  "@example/docs-mcp",
  "[mcp_servers.perch]",
]
env = { DOCS_TOKEN_FILE = "~/.docs" }

[mcp_servers.docs.tools.search]
enabled = true

[profiles.review]
model = "o4"
developer_instructions = """
Review only.
[mcp_servers.perch]
url = "not a table"
"""

[[skills.config]]
path = "~/skills/a"
`;

describe('the TOML table editor adds or replaces [mcp_servers.perch-NAME] and keeps every other line', () => {
  test('appended after the last line of a real-looking config; headers inside multi-line arrays and strings are not taken for tables', () => {
    const out = setCodexMcp(CODEX_CONFIG, O);
    assert.equal(out, `${CODEX_CONFIG}\n${TABLE.join('\n')}\n`);
    assert.equal(setCodexMcp(out, O), out, 'a second run changes nothing');
  });

  test("the agent's earlier [mcp_servers.perch] (and its sub-tables) becomes [mcp_servers.perch-kit] in place; comments and the next table stay", () => {
    const old = CODEX_CONFIG.replace(
      '[profiles.review]',
      '[mcp_servers.perch]\nurl = "http://127.0.0.1:9999/mcp" # old port\nbearer_token_env_var = "PERCH_KEY_KIT"\n\n[mcp_servers.perch.env]\nX = "1"\n\n# reviews\n[profiles.review]',
    );
    const out = setCodexMcp(old, O);
    assert.equal(out, CODEX_CONFIG.replace('[profiles.review]', `${TABLE.join('\n')}\n\n# reviews\n[profiles.review]`));
    assert.equal(setCodexMcp(out, O), out);
  });

  test('CRLF files keep CRLF; an empty or missing file gets just the table and the approval policy', () => {
    const crlf = 'model = "o3"\r\n\r\n[mcp_servers.docs]\r\ncommand = "x"\r\n';
    assert.equal(
      setCodexMcp(crlf, O),
      `model = "o3"\r\n${APPROVAL}\r\n\r\n[mcp_servers.docs]\r\ncommand = "x"\r\n\r\n${TABLE.join('\r\n')}\r\n`,
    );
    assert.equal(setCodexMcp(undefined, O), `${APPROVAL}\n\n${TABLE.join('\n')}\n`);
    assert.equal(setCodexMcp('', O), `${APPROVAL}\n\n${TABLE.join('\n')}\n`);
  });

  test('approval_policy "on-request" makes Codex ask: added before the first table, "never" changed, a policy that asks already kept', () => {
    const plain = 'model = "gpt-5.5"\n\n[profiles.x]\napproval_policy = "never"\n';
    assert.equal(
      setCodexMcp(plain, O),
      `model = "gpt-5.5"\n${APPROVAL}\n\n[profiles.x]\napproval_policy = "never"\n\n${TABLE.join('\n')}\n`,
      'the top level only; a profile stays its own',
    );
    assert.equal(setCodexMcp('approval_policy = "never"   # quiet\n', O), `${APPROVAL}\n\n${TABLE.join('\n')}\n`);
    for (const asks of ['"untrusted"', '"on-failure"', '"on-request"', "'on-request'"]) {
      assert.equal(setCodexMcp(`approval_policy = ${asks}\n`, O), `approval_policy = ${asks}\n\n${TABLE.join('\n')}\n`, asks);
    }
    const once = setCodexMcp(plain, O);
    assert.equal(setCodexMcp(once, O), once, 'a second run changes nothing');
  });

  test("another agent's table is not replaced without --replace (AgentConflict, naming it); with it, that table becomes this agent's", () => {
    const rue = `${APPROVAL}\n\n[mcp_servers.perch-rue]\nurl = "http://127.0.0.1:7457/mcp"\nbearer_token_env_var = "PERCH_KEY_RUE"\n`;
    assert.throws(
      () => setCodexMcp(rue, O, 'config.toml'),
      (e: Error) =>
        e instanceof AgentConflict &&
        /config\.toml connects agent rue \(MCP server perch-rue\) already.*--replace.*--project DIR/.test(e.message),
    );
    const old = `${APPROVAL}\n\n[mcp_servers.perch]\nurl = "http://127.0.0.1:7457/mcp"\nbearer_token_env_var = "PERCH_KEY_RUE"\n`;
    assert.throws(() => setCodexMcp(old, O), AgentConflict, 'the old unnamed entry of another agent too');
    assert.equal(setCodexMcp(rue, { ...O, replace: true }), `${APPROVAL}\n\n${TABLE.join('\n')}\n`);
  });

  test('a table given as dotted keys, an inline table, twice, or a file ending inside a string is refused', () => {
    for (const text of [
      'mcp_servers.perch.url = "http://x"\n',
      'mcp_servers = { perch = { url = "http://x" } }\n',
      '[mcp_servers]\nperch = { url = "http://x" }\n',
      '[mcp_servers]\nperch.url = "http://x"\n',
      '[mcp_servers.perch]\nurl = "a"\n[mcp_servers.perch]\nurl = "b"\n',
      '[[mcp_servers.perch]]\nurl = "a"\n',
      'x = """\nnever closed\n',
    ]) {
      assert.throws(() => upsertTomlTable(text, ['mcp_servers', 'perch'], ['url = "u"']), TomlEditError, text);
    }
  });

  test('headers with quoted keys are read; strings are escaped', () => {
    assert.deepEqual(headerPath('[mcp_servers."perch"]  # mine')?.path, ['mcp_servers', 'perch']);
    assert.deepEqual(headerPath("[ a . 'b.c' ]")?.path, ['a', 'b.c']);
    assert.equal(headerPath('x = [1]'), undefined);
    assert.equal(setCodexMcp('[mcp_servers."perch-kit"]\nurl = "old"\n', O), `${APPROVAL}\n\n${TABLE.join('\n')}\n`);
    assert.equal(tomlString('a"b\\c\n'), '"a\\"b\\\\c\\n"');
  });
});

describe('the JSON configs: mcpServers.perch-NAME and the hooks, one agent per scope', () => {
  test('~/.claude.json keeps its other keys and servers; the key is referenced, never written', () => {
    const old = JSON.stringify(
      {
        numStartups: 4,
        projects: { '/home/me/app': { allowedTools: [] } },
        mcpServers: { github: { type: 'http', url: 'https://api.example/mcp' } },
      },
      null,
      2,
    );
    const out = setClaudeMcp(old, O);
    const j = JSON.parse(out);
    assert.deepEqual(Object.keys(j), ['numStartups', 'projects', 'mcpServers']);
    assert.deepEqual(j.mcpServers.github, { type: 'http', url: 'https://api.example/mcp' });
    assert.deepEqual(j.mcpServers['perch-kit'], { type: 'http', url: O.mcpUrl, headers: { Authorization: 'Bearer ${PERCH_KEY_KIT}' } });
    assert.equal(setClaudeMcp(out, O), out);
    assert.deepEqual(JSON.parse(setClaudeMcp(out, { ...O, channel: true })).mcpServers['perch-kit'], {
      type: 'stdio',
      command: 'perch',
      args: ['channel', '--agent', 'kit'],
      env: { PERCH_URL: O.mcpUrl },
    });
  });

  test('a second agent never silently replaces the first: AgentConflict naming it (MCP entry or hooks), --replace makes it the second; the agent\'s own old "perch" entry is renamed', () => {
    const kit = setPerchHooks(undefined, 'claude-code', O, 'settings.json');
    const kitMcp = setClaudeMcp(undefined, O, '.claude.json');
    const rue = { agent: 'rue', mcpUrl: O.mcpUrl };
    assert.throws(
      () => setClaudeMcp(kitMcp, rue, '.claude.json'),
      (e: Error) =>
        e instanceof AgentConflict &&
        /^\.claude\.json connects agent kit \(MCP server perch-kit\) already, and connecting rue there would replace it\. Run again with --replace/.test(
          e.message,
        ),
    );
    assert.throws(
      () => setPerchHooks(kit, 'claude-code', rue, 'settings.json'),
      (e: Error) => e instanceof AgentConflict && /settings\.json connects agent kit \(its Perch hooks\) already/.test(e.message),
    );
    assert.throws(() => setCursorMcp(setCursorMcp(undefined, O), rue), AgentConflict);
    assert.throws(() => setCursorHooks(setCursorHooks(undefined, O), rue), AgentConflict);
    assert.throws(
      () =>
        setPerchHooks(
          JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'perch hook stop' }] }] } }),
          'claude-code',
          O,
          'f',
        ),
      AgentConflict,
      "a hook without --agent (PERCH_KEY) is not kit's",
    );
    const replaced = JSON.parse(setPerchHooks(kit, 'claude-code', { ...rue, replace: true }, 'settings.json'));
    assert.equal(replaced.hooks.PermissionRequest.length, 1, 'replaced, not added');
    assert.match(replaced.hooks.PermissionRequest[0].hooks[0].command, /--agent rue /);
    assert.deepEqual(Object.keys(JSON.parse(setClaudeMcp(kitMcp, { ...rue, replace: true })).mcpServers), ['perch-rue']);
    const old = JSON.stringify({
      mcpServers: { perch: { type: 'http', url: O.mcpUrl, headers: { Authorization: 'Bearer ${PERCH_KEY_KIT}' } }, docs: { url: 'x' } },
    });
    assert.deepEqual(
      Object.keys(JSON.parse(setClaudeMcp(old, O)).mcpServers),
      ['docs', 'perch-kit'],
      "kit's own earlier entry, renamed without --replace",
    );
  });

  test("the hook is added once beside the user's own hooks, and a second run replaces it rather than adding another", () => {
    const mine = { matcher: 'Bash', hooks: [{ type: 'command', command: '~/bin/audit.sh' }] };
    const old = JSON.stringify({ permissions: { allow: ['Bash(npm test)'] }, hooks: { PreToolUse: [mine], PermissionRequest: [mine] } });
    const once = setPerchHooks(old, 'codex', O, 'settings.json');
    const j = JSON.parse(once);
    assert.deepEqual(j.permissions, { allow: ['Bash(npm test)'] });
    assert.deepEqual(j.hooks.PreToolUse[0], mine);
    assert.deepEqual(j.hooks.PermissionRequest, [
      mine,
      { hooks: [{ type: 'command', command: 'perch hook permission-request --agent kit --url http://127.0.0.1:7457/mcp', timeout: 600 }] },
    ]);
    assert.equal(setPerchHooks(once, 'codex', O, 'settings.json'), once, 'idempotent');
    const moved = JSON.parse(setPerchHooks(once, 'codex', { ...O, mcpUrl: 'http://127.0.0.1:8000/mcp' }, 'settings.json'));
    assert.equal(moved.hooks.PermissionRequest.length, 2, 'replaced, not added');
    assert.match(moved.hooks.PermissionRequest[1].hooks[0].command, /--url http:\/\/127\.0\.0\.1:8000\/mcp$/);
  });

  test("every Perch hook of the harness once; with the channel the PermissionRequest hook is taken out (the channel relays those prompts), the user's own hooks stay", () => {
    const mine = { matcher: 'Bash', hooks: [{ type: 'command', command: '~/bin/audit.sh' }] };
    const all = JSON.parse(setPerchHooks(JSON.stringify({ hooks: { PreToolUse: [mine] } }), 'claude-code', O, 'settings.json'));
    assert.deepEqual(Object.keys(all.hooks), ['PreToolUse', 'PermissionRequest', 'Notification', 'Stop', 'SessionStart', 'SessionEnd']);
    assert.deepEqual(all.hooks.PreToolUse[0], mine);
    assert.equal(all.hooks.PreToolUse[1].hooks[0].command, 'perch hook pre-tool-use --agent kit --url http://127.0.0.1:7457/mcp');
    const text = JSON.stringify(all);
    assert.equal(setPerchHooks(text, 'claude-code', O, 'settings.json'), `${JSON.stringify(all, null, 2)}\n`, 'idempotent');
    const channel = JSON.parse(setPerchHooks(text, 'claude-code', { ...O, channel: true }, 'settings.json'));
    assert.equal(channel.hooks.PermissionRequest, undefined, 'both would file each prompt');
    assert.deepEqual(Object.keys(channel.hooks), ['PreToolUse', 'Notification', 'Stop', 'SessionStart', 'SessionEnd']);
    const codex = JSON.parse(setPerchHooks(undefined, 'codex', O, 'hooks.json'));
    assert.deepEqual(Object.keys(codex.hooks), ['PermissionRequest', 'PreToolUse', 'Stop', 'SessionStart']);
  });

  test('a config that is not a JSON object (or has hooks of another shape) is refused', () => {
    assert.throws(() => setClaudeMcp('{"mcpServers": ', O), ConfigFileError);
    assert.throws(() => setClaudeMcp('[]', O), ConfigFileError);
    assert.throws(() => setClaudeMcp('{"mcpServers": []}', O), ConfigFileError);
    assert.throws(() => setPerchHooks('{"hooks": {"PermissionRequest": {}}}', 'codex', O, 'f'), ConfigFileError);
  });
});

test('the unified diff shows removed then added lines with three lines of context and hunk line numbers', () => {
  const a = `${Array.from({ length: 20 }, (_, i) => `l${i}`).join('\n')}\n`;
  const b = a.replace('l2\n', 'L2\n').replace('l15\n', 'l15\nnew\n');
  assert.equal(
    unifiedDiff(a, b, 'f'),
    [
      '--- f',
      '+++ f',
      '@@ -1,6 +1,6 @@',
      ' l0',
      ' l1',
      '-l2',
      '+L2',
      ' l3',
      ' l4',
      ' l5',
      '@@ -14,6 +14,7 @@',
      ' l13',
      ' l14',
      ' l15',
      '+new',
      ' l16',
      ' l17',
      ' l18',
    ].join('\n'),
  );
  assert.equal(unifiedDiff(a, a, 'f'), '');
  assert.equal(unifiedDiff('', 'x\n', 'f', '/dev/null'), '--- /dev/null\n+++ f\n@@ -0,0 +1,1 @@\n+x');
});
