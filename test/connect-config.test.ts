// The config edits of `perch connect` (src/shared/harness-config.ts, toml-table.ts, text-diff.ts): the one
// table or entry Perch owns is added or replaced, every other line of the user's file stays as it was, and a
// second run changes nothing.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { TomlEditError, headerPath, tomlString, upsertTomlTable } from '../src/shared/toml-table';
import { unifiedDiff } from '../src/shared/text-diff';
import { setClaudeMcp, setCodexMcp, setPermissionHook, setPerchHooks, ConfigFileError, hooksSnippet } from '../src/shared/harness-config';

const O = { agent: 'kit', mcpUrl: 'http://127.0.0.1:7457/mcp' };
const TABLE = ['[mcp_servers.perch]', 'url = "http://127.0.0.1:7457/mcp"', 'bearer_token_env_var = "PERCH_KEY_KIT"'];

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

describe('the TOML table editor adds or replaces [mcp_servers.perch] and keeps every other line', () => {
  test('appended after the last line of a real-looking config; headers inside multi-line arrays and strings are not taken for tables', () => {
    const out = setCodexMcp(CODEX_CONFIG, O);
    assert.equal(out, `${CODEX_CONFIG}\n${TABLE.join('\n')}\n`);
    assert.equal(setCodexMcp(out, O), out, 'a second run changes nothing');
  });

  test('an existing [mcp_servers.perch] (and its sub-tables) is replaced in place; comments and the next table stay', () => {
    const old = CODEX_CONFIG.replace('[profiles.review]', '[mcp_servers.perch]\nurl = "http://127.0.0.1:9999/mcp" # old port\nbearer_token_env_var = "PERCH_KEY_OLD"\n\n[mcp_servers.perch.env]\nX = "1"\n\n# reviews\n[profiles.review]');
    const out = setCodexMcp(old, O);
    assert.equal(out, CODEX_CONFIG.replace('[profiles.review]', `${TABLE.join('\n')}\n\n# reviews\n[profiles.review]`));
    assert.equal(setCodexMcp(out, O), out);
  });

  test('CRLF files keep CRLF; an empty or missing file gets just the table', () => {
    const crlf = 'model = "o3"\r\n\r\n[mcp_servers.docs]\r\ncommand = "x"\r\n';
    assert.equal(setCodexMcp(crlf, O), `${crlf}\r\n${TABLE.join('\r\n')}\r\n`);
    assert.equal(setCodexMcp(undefined, O), `${TABLE.join('\n')}\n`);
    assert.equal(setCodexMcp('', O), `${TABLE.join('\n')}\n`);
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
    assert.equal(setCodexMcp('[mcp_servers."perch"]\nurl = "old"\n', O), `${TABLE.join('\n')}\n`);
    assert.equal(tomlString('a"b\\c\n'), '"a\\"b\\\\c\\n"');
  });
});

describe('the JSON configs: mcpServers.perch and one PermissionRequest hook', () => {
  test('~/.claude.json keeps its other keys and servers; the key is referenced, never written', () => {
    const old = JSON.stringify({ numStartups: 4, projects: { '/home/me/app': { allowedTools: [] } }, mcpServers: { github: { type: 'http', url: 'https://api.example/mcp' } } }, null, 2);
    const out = setClaudeMcp(old, O);
    const j = JSON.parse(out);
    assert.deepEqual(Object.keys(j), ['numStartups', 'projects', 'mcpServers']);
    assert.deepEqual(j.mcpServers.github, { type: 'http', url: 'https://api.example/mcp' });
    assert.deepEqual(j.mcpServers.perch, { type: 'http', url: O.mcpUrl, headers: { Authorization: 'Bearer ${PERCH_KEY_KIT}' } });
    assert.equal(setClaudeMcp(out, O), out);
    assert.deepEqual(JSON.parse(setClaudeMcp(out, { ...O, channel: true })).mcpServers.perch, { type: 'stdio', command: 'perch', args: ['channel', '--agent', 'kit'], env: { PERCH_URL: O.mcpUrl } });
  });

  test('the hook is added once beside the user\'s own hooks, and a second run (or another agent) replaces it rather than adding another', () => {
    const mine = { matcher: 'Bash', hooks: [{ type: 'command', command: '~/bin/audit.sh' }] };
    const old = JSON.stringify({ permissions: { allow: ['Bash(npm test)'] }, hooks: { PreToolUse: [mine], PermissionRequest: [mine] } });
    const once = setPermissionHook(old, O, 'settings.json');
    const j = JSON.parse(once);
    assert.deepEqual(j.permissions, { allow: ['Bash(npm test)'] });
    assert.deepEqual(j.hooks.PreToolUse, [mine]);
    assert.deepEqual(j.hooks.PermissionRequest, [mine, { hooks: [{ type: 'command', command: 'perch hook permission-request --agent kit --url http://127.0.0.1:7457/mcp', timeout: 600 }] }]);
    assert.equal(setPermissionHook(once, O, 'settings.json'), once, 'idempotent');
    const other = JSON.parse(setPermissionHook(once, { agent: 'ada', mcpUrl: O.mcpUrl }, 'settings.json'));
    assert.equal(other.hooks.PermissionRequest.length, 2, 'replaced, not added');
    assert.match(other.hooks.PermissionRequest[1].hooks[0].command, /--agent ada /);
    assert.match(hooksSnippet(O), /"PermissionRequest"/);
  });

  test('every Perch hook of the harness once; with the channel the PermissionRequest hook is taken out (the channel relays those prompts), the user\'s own hooks stay', () => {
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
    assert.throws(() => setPermissionHook('{"hooks": {"PermissionRequest": {}}}', O, 'f'), ConfigFileError);
  });
});

test('the unified diff shows removed then added lines with three lines of context and hunk line numbers', () => {
  const a = `${Array.from({ length: 20 }, (_, i) => `l${i}`).join('\n')}\n`;
  const b = a.replace('l2\n', 'L2\n').replace('l15\n', 'l15\nnew\n');
  assert.equal(unifiedDiff(a, b, 'f'), ['--- f', '+++ f', '@@ -1,6 +1,6 @@', ' l0', ' l1', '-l2', '+L2', ' l3', ' l4', ' l5', '@@ -14,6 +14,7 @@', ' l13', ' l14', ' l15', '+new', ' l16', ' l17', ' l18'].join('\n'));
  assert.equal(unifiedDiff(a, a, 'f'), '');
  assert.equal(unifiedDiff('', 'x\n', 'f', '/dev/null'), '--- /dev/null\n+++ f\n@@ -0,0 +1,1 @@\n+x');
});
