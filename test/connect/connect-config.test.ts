// The config edits of `perch connect` (src/shared/agents/harnesses/, toml-table.ts, text-diff.ts): the one
// table or entry Perch owns is added or replaced, every other line of the user's file stays as it was, and a
// second run changes nothing.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { TomlEditError, headerPath, tomlString, upsertTomlTable } from '../../src/shared/text/toml-table';
import { unifiedDiff } from '../../src/shared/text/text-diff';
import { AgentConflict, ConfigFileError } from '../../src/shared/agents/harness-config';
import { setClaudeMcp, setPerchHooks } from '../../src/shared/agents/harnesses/claude-code';
import { setCodexMcp } from '../../src/shared/agents/harnesses/codex';
import { setCursorHooks, setCursorMcp } from '../../src/shared/agents/harnesses/cursor';
import { hookFiles } from '../../src/shared/agents/harnesses/connect-edits';
import { awaySnippets } from '../../src/shared/agents/snippets';

const O = { agent: 'kit', mcpUrl: 'http://127.0.0.1:7457/mcp' };
/** The curl command hook of the contract for kit (Codex, Cursor). */
function curl(harness: string, event: string, secs: number, base = 'http://127.0.0.1:7457'): string {
  return `cat | { printf 'header = "Authorization: Bearer %s"\\n' "$PERCH_KEY_KIT" | curl -sS -f --max-time ${secs} -X POST -H 'Content-Type: application/json' -K - --data-binary @/dev/fd/3 '${base}/hook/${harness}/${event}?agent=kit'; } 3<&0`;
}
const TABLE = [
  '[mcp_servers.perch-kit]',
  'url = "http://127.0.0.1:7457/mcp"',
  'bearer_token_env_var = "PERCH_KEY_KIT"',
  'default_tools_approval_mode = "approve"',
];
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
    assert.equal(replaced.hooks.PermissionRequest[0].hooks[0].url, 'http://127.0.0.1:7457/hook/claude-code/permission-request?agent=rue');
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

  test('an earlier curl hook that put the key in its argv (-H "Authorization: Bearer $PERCH_KEY_KIT") is upgraded in its place to the printf | curl -K - form', () => {
    const legacy = `curl -sS -f --max-time 590 -X POST -H 'Content-Type: application/json' -H "Authorization: Bearer $PERCH_KEY_KIT" --data-binary @- 'http://127.0.0.1:7457/hook/codex/permission-request?agent=kit'`;
    const old = JSON.stringify({ hooks: { PermissionRequest: [{ hooks: [{ type: 'command', command: legacy, timeout: 600 }] }] } });
    const j = JSON.parse(setPerchHooks(old, 'codex', O, 'hooks.json'));
    assert.deepEqual(j.hooks.PermissionRequest, [
      { hooks: [{ type: 'command', command: curl('codex', 'permission-request', 590), timeout: 600 }] },
    ]);
    assert.ok(!JSON.stringify(j).includes('Bearer $PERCH_KEY_KIT"'), 'no header with the key left in a command line');
  });

  test("Perch's own tools need no approval: Claude Code's settings get permissions.allow mcp__perch-NAME once (an earlier connection upgraded), another agent's only with --replace; Codex's table default_tools_approval_mode = \"approve\"", () => {
    const earlier = JSON.parse(setPerchHooks(undefined, 'claude-code', O, 'settings.json'));
    delete earlier.permissions; // a connection written before the allow existed
    const upgraded = JSON.parse(
      setPerchHooks(
        JSON.stringify({ ...earlier, permissions: { allow: ['Bash(npm test)', 'mcp__perch-kit__whoami'] } }),
        'claude-code',
        O,
        'settings.json',
      ),
    );
    assert.deepEqual(upgraded.permissions.allow, ['Bash(npm test)', 'mcp__perch-kit__whoami', 'mcp__perch-kit']);
    const again = setPerchHooks(JSON.stringify(upgraded), 'claude-code', O, 'settings.json');
    assert.deepEqual(JSON.parse(again).permissions.allow, upgraded.permissions.allow, 'once');
    const rue = setPerchHooks(undefined, 'claude-code', { ...O, agent: 'rue' }, 'settings.json');
    assert.throws(() => setPerchHooks(rue, 'claude-code', O, 'settings.json'), AgentConflict);
    assert.deepEqual(JSON.parse(setPerchHooks(rue, 'claude-code', { ...O, replace: true }, 'settings.json')).permissions.allow, [
      'mcp__perch-kit',
    ]);
    assert.equal(
      JSON.parse(setPerchHooks(undefined, 'codex', O, 'hooks.json')).permissions,
      undefined,
      "Codex's hooks.json has no permissions",
    );
    assert.throws(
      () => setPerchHooks('{"permissions":{"allow":"x"}}', 'claude-code', O, 'settings.json'),
      /"permissions\.allow" is not a list/,
    );
    const old = `[mcp_servers.perch-kit]\nurl = "http://127.0.0.1:7457/mcp"\nbearer_token_env_var = "PERCH_KEY_KIT"\n`;
    assert.equal(setCodexMcp(old, O), `${APPROVAL}\n\n${TABLE.join('\n')}\n`);
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
      { hooks: [{ type: 'command', command: curl('codex', 'permission-request', 590), timeout: 600 }] },
    ]);
    assert.equal(setPerchHooks(once, 'codex', O, 'settings.json'), once, 'idempotent');
    const moved = JSON.parse(setPerchHooks(once, 'codex', { ...O, mcpUrl: 'http://127.0.0.1:8000/mcp' }, 'settings.json'));
    assert.equal(moved.hooks.PermissionRequest.length, 2, 'replaced, not added');
    assert.match(
      moved.hooks.PermissionRequest[1].hooks[0].command,
      / 'http:\/\/127\.0\.0\.1:8000\/hook\/codex\/permission-request\?agent=kit'; \} 3<&0$/,
    );
  });

  test("every Perch hook of the harness once; with the channel the PermissionRequest hook is taken out (the channel relays those prompts), the user's own hooks stay", () => {
    const mine = { matcher: 'Bash', hooks: [{ type: 'command', command: '~/bin/audit.sh' }] };
    const all = JSON.parse(setPerchHooks(JSON.stringify({ hooks: { PreToolUse: [mine] } }), 'claude-code', O, 'settings.json'));
    assert.deepEqual(Object.keys(all.hooks), ['PreToolUse', 'PermissionRequest', 'Notification', 'Stop', 'SessionStart', 'SessionEnd']);
    assert.deepEqual(all.hooks.PreToolUse[0], mine);
    assert.equal(all.hooks.PreToolUse[1].hooks[0].url, 'http://127.0.0.1:7457/hook/claude-code/pre-tool-use?agent=kit');
    const text = JSON.stringify(all);
    assert.equal(setPerchHooks(text, 'claude-code', O, 'settings.json'), text, 'idempotent: a file that already says it is left as it is');
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

describe("the hooks reach the hub's hook door: Claude Code HTTP hooks, curl for Codex and Cursor, `perch hook` with --hooks perch", () => {
  /** Claude Code's HTTP hook of the contract for kit. */
  const http = (event: string, timeout: number, base = 'http://127.0.0.1:7457') => ({
    hooks: [
      {
        type: 'http',
        url: `${base}/hook/claude-code/${event}?agent=kit`,
        headers: { Authorization: 'Bearer $PERCH_KEY_KIT' },
        allowedEnvVars: ['PERCH_KEY_KIT'],
        timeout,
      },
    ],
  });
  const perchCmd = (event: string, timeout: number) => ({
    hooks: [{ type: 'command', command: `perch hook ${event} --agent kit --url http://127.0.0.1:7457/mcp`, timeout }],
  });

  test('claude-code gets one HTTP hook per event to BASE/hook/claude-code/EVENT?agent=NAME, the key by $PERCH_KEY_NAME in allowedEnvVars; the base is the MCP URL without /mcp (a container URL too)', () => {
    const j = JSON.parse(setPerchHooks(undefined, 'claude-code', O, 'settings.json'));
    assert.deepEqual(j.hooks, {
      PermissionRequest: [http('permission-request', 600)],
      PreToolUse: [http('pre-tool-use', 10)],
      Notification: [http('notification', 10)],
      Stop: [http('stop', 10)],
      SessionStart: [http('session-start', 10)],
      SessionEnd: [http('session-end', 10)],
    });
    const container = JSON.parse(
      setPerchHooks(undefined, 'claude-code', { ...O, mcpUrl: 'http://host.docker.internal:7458/mcp' }, 'settings.json'),
    );
    assert.deepEqual(container.hooks.Stop, [http('stop', 10, 'http://host.docker.internal:7458')]);
  });

  test('codex and cursor get the curl command (590 s for permission-request, 10 s otherwise), no perch and no Node in it', () => {
    const codex = JSON.parse(setPerchHooks(undefined, 'codex', O, 'hooks.json'));
    assert.deepEqual(codex.hooks, {
      PermissionRequest: [{ hooks: [{ type: 'command', command: curl('codex', 'permission-request', 590), timeout: 600 }] }],
      PreToolUse: [{ hooks: [{ type: 'command', command: curl('codex', 'pre-tool-use', 10), timeout: 10 }] }],
      Stop: [{ hooks: [{ type: 'command', command: curl('codex', 'stop', 10), timeout: 10 }] }],
      SessionStart: [{ hooks: [{ type: 'command', command: curl('codex', 'session-start', 10), timeout: 10 }] }],
    });
    const cursor = JSON.parse(setCursorHooks(undefined, O));
    assert.deepEqual(cursor, {
      version: 1,
      hooks: {
        beforeShellExecution: [{ command: curl('cursor', 'permission-request', 590) }],
        beforeMCPExecution: [{ command: curl('cursor', 'permission-request', 590) }],
        afterShellExecution: [{ command: curl('cursor', 'post-tool-use', 10) }],
        afterMCPExecution: [{ command: curl('cursor', 'post-tool-use', 10) }],
        afterFileEdit: [{ command: curl('cursor', 'post-tool-use', 10) }],
      },
    });
    assert.doesNotMatch(JSON.stringify([codex, cursor]), /perch hook|node /);
  });

  test("an earlier `perch hook` entry (and a user's group holding one) becomes the HTTP hook in its place; the user's own hooks, an HTTP hook elsewhere included, stay; a second run changes nothing", () => {
    const mine = { matcher: 'Bash', hooks: [{ type: 'command', command: '~/bin/audit.sh' }] };
    const theirsHttp = { hooks: [{ type: 'http', url: 'https://audit.example/hook/claude-code/stop', headers: { 'X-Team': 'a' } }] };
    const old = JSON.stringify({
      hooks: {
        PermissionRequest: [mine, perchCmd('permission-request', 600), theirsHttp],
        Stop: [{ hooks: [{ type: 'command', command: '~/bin/done.sh' }, perchCmd('stop', 10).hooks[0]] }],
      },
    });
    const once = setPerchHooks(old, 'claude-code', O, 'settings.json');
    const j = JSON.parse(once);
    assert.deepEqual(j.hooks.PermissionRequest, [mine, http('permission-request', 600), theirsHttp], 'in the place of the old one');
    assert.deepEqual(
      j.hooks.Stop,
      [http('stop', 10), { hooks: [{ type: 'command', command: '~/bin/done.sh' }] }],
      'its own group, where the old one was',
    );
    assert.doesNotMatch(once, /perch hook/);
    assert.equal(setPerchHooks(once, 'claude-code', O, 'settings.json'), once, 'idempotent');
    // Cursor: the earlier `perch hook … --harness cursor` command becomes the curl command in its place.
    const cursorOld = JSON.stringify({
      version: 1,
      hooks: {
        beforeShellExecution: [
          { command: 'perch hook permission-request --harness cursor --agent kit --url http://127.0.0.1:7457/mcp' },
          { command: './mine.sh' },
        ],
      },
    });
    const c = JSON.parse(setCursorHooks(cursorOld, O));
    assert.deepEqual(c.hooks.beforeShellExecution, [{ command: curl('cursor', 'permission-request', 590) }, { command: './mine.sh' }]);
  });

  test('--hooks perch writes the `perch hook` commands (in place of the HTTP or curl entries), and back', () => {
    const request = setPerchHooks(undefined, 'claude-code', O, 'settings.json');
    assert.doesNotMatch(request, /perch hook/, 'the default is the HTTP hooks');
    const perch = JSON.parse(setPerchHooks(request, 'claude-code', { ...O, hooks: 'perch' }, 'settings.json'));
    assert.deepEqual(perch.hooks.PermissionRequest, [perchCmd('permission-request', 600)]);
    assert.deepEqual(perch.hooks.SessionEnd, [perchCmd('session-end', 10)]);
    assert.equal(
      setPerchHooks(`${JSON.stringify(perch, null, 2)}\n`, 'claude-code', O, 'settings.json'),
      request,
      'back to the HTTP hooks, nothing left over',
    );
    const codex = JSON.parse(setPerchHooks(setPerchHooks(undefined, 'codex', O, 'h'), 'codex', { ...O, hooks: 'perch' }, 'h'));
    assert.deepEqual(codex.hooks.Stop, [perchCmd('stop', 10)]);
    assert.deepEqual(JSON.parse(setCursorHooks(setCursorHooks(undefined, O), { ...O, hooks: 'perch' })).hooks.beforeMCPExecution, [
      { command: 'perch hook permission-request --harness cursor --agent kit --url http://127.0.0.1:7457/mcp' },
    ]);
  });

  test("another agent's HTTP or curl hooks are an AgentConflict naming it; --replace makes them this agent's, once", () => {
    const rue = { agent: 'rue', mcpUrl: O.mcpUrl };
    const kitClaude = setPerchHooks(undefined, 'claude-code', O, 'settings.json');
    const kitCodex = setPerchHooks(undefined, 'codex', O, 'hooks.json');
    const kitCursor = setCursorHooks(undefined, O, 'hooks.json');
    for (const [text, set] of [
      [kitClaude, (t: string, o: typeof rue) => setPerchHooks(t, 'claude-code', o, 'settings.json')],
      [kitCodex, (t: string, o: typeof rue) => setPerchHooks(t, 'codex', o, 'hooks.json')],
      [kitCursor, (t: string, o: typeof rue) => setCursorHooks(t, o, 'hooks.json')],
    ] as const) {
      assert.throws(
        () => set(text, rue),
        (e: Error) => e instanceof AgentConflict && /json connects agent kit \(its Perch hooks\) already/.test(e.message),
      );
      const replaced = set(text, { ...rue, replace: true } as typeof rue);
      assert.doesNotMatch(replaced, /KIT|agent=kit/);
      assert.equal(replaced, set('', rue), 'the same as a fresh file: replaced, not added');
    }
  });
});

test("the snippets for a container or a tailnet machine hold the hooks files perch connect would write there (that place's hook base; Copilot's every hook a curl command), never the key", () => {
  const snippets = awaySnippets(
    'kit',
    ['containers', 'tailnet'],
    { port: 7458, publicUrl: 'https://lap.tail1.ts.net/' },
    'perch_secretkey',
  );
  const container = hookFiles({ agent: 'kit', mcpUrl: 'http://host.docker.internal:7458/mcp' });
  const remote = hookFiles({ agent: 'kit', mcpUrl: 'https://lap.tail1.ts.net/mcp' });
  assert.equal(snippets.claude_code_hooks_container, container['claude-code'].trimEnd());
  assert.equal(snippets.codex_hooks_container, container.codex.trimEnd());
  assert.equal(snippets.cursor_hooks_container, container.cursor.trimEnd());
  assert.equal(snippets.claude_code_hooks_remote, remote['claude-code'].trimEnd());
  assert.equal(snippets.codex_hooks_remote, remote.codex.trimEnd());
  assert.equal(snippets.cursor_hooks_remote, remote.cursor.trimEnd());
  assert.equal(
    JSON.parse(snippets.claude_code_hooks_container!).hooks.PermissionRequest[0].hooks[0].url,
    'http://host.docker.internal:7458/hook/claude-code/permission-request?agent=kit',
  );
  assert.match(snippets.codex_hooks_remote!, /'https:\/\/lap\.tail1\.ts\.net\/hook\/codex\/permission-request\?agent=kit'/);
  assert.match(snippets.cursor_hooks_container!, /'http:\/\/host\.docker\.internal:7458\/hook\/cursor\/permission-request\?agent=kit'/);
  // Copilot calls an HTTP hook at plain http only on the loopback: away, every one of its hooks is the curl command.
  for (const [where, base] of [
    ['container', 'http://host.docker.internal:7458'],
    ['remote', 'https://lap.tail1.ts.net'],
  ] as const) {
    const file = JSON.parse(snippets[`copilot_hooks_${where}`]!);
    assert.equal(file.version, 1);
    assert.deepEqual(Object.keys(file.hooks), [
      'permissionRequest',
      'preToolUse',
      'notification',
      'agentStop',
      'sessionStart',
      'sessionEnd',
    ]);
    for (const [event, [h]] of Object.entries(file.hooks) as [string, any[]][]) {
      assert.equal(h.type, 'command', `${where} ${event}`);
      assert.match(h.bash, /curl -sS -f --max-time \d+ .*\|\| printf '\{\}'$/, `${where} ${event}: curl, {} when it fails`);
      assert.ok(h.bash.includes(`'${base}/hook/copilot/`), `${where} ${event}: ${h.bash}`);
      assert.ok(h.bash.includes('"$PERCH_KEY_KIT"'), 'the key by name');
    }
  }
  for (const [k, v] of Object.entries(snippets)) assert.doesNotMatch(v, /perch_secretkey/, `${k} holds no key`);
  assert.deepEqual(
    Object.keys(awaySnippets('kit', ['local'], { port: 7458 }, null)),
    [],
    'a key that connects only locally gets none (perch connect writes its hooks)',
  );
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
