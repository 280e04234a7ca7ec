// `perch connect cursor NAME` (src/main/cli/agents/connect.ts, src/shared/agents/harnesses/cursor.ts): Perch's MCP entry in
// ~/.cursor/mcp.json and its hooks in ~/.cursor/hooks.json (version 1: the permission hooks beforeShellExecution and
// beforeMCPExecution, the result hooks afterShellExecution and afterMCPExecution, the shape of Cursor's hooks
// reference, https://cursor.com/docs/agent/hooks), on a temporary
// HOME holding real-looking files: a diff without --write, backups and the rest kept with it, twice in a row
// without duplicates, bad files refused with nothing written. Protocol level only: no real Cursor.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addAgent, cliAsync, uniqueName, useSharedServe, type AgentKey, tempDir } from '../support/serve-harness';
import { keyEnvVar } from '../../src/shared/agents/snippets';
import { snapshot } from '../support/dir-snapshot';
import { AgentConflict, ConfigFileError } from '../../src/shared/agents/harness-config';
import { setCursorHooks, setCursorMcp } from '../../src/shared/agents/harnesses/cursor';

const served = useSharedServe();

const MCP_JSON = {
  mcpServers: {
    github: { url: 'https://api.example/mcp', headers: { Authorization: 'Bearer ${env:GITHUB_TOKEN}' } },
    docs: { command: 'npx', args: ['-y', '@example/docs-mcp'] },
  },
};
const HOOKS_JSON = {
  version: 1,
  hooks: { beforeShellExecution: [{ command: './hooks/audit.sh' }], afterFileEdit: [{ command: './hooks/format.sh' }] },
};

function homeWithCursor(): string {
  const home = tempDir('perch-connect-cursor-');
  fs.mkdirSync(path.join(home, '.cursor'));
  fs.writeFileSync(path.join(home, '.cursor', 'mcp.json'), `${JSON.stringify(MCP_JSON, null, 2)}\n`);
  fs.writeFileSync(path.join(home, '.cursor', 'hooks.json'), `${JSON.stringify(HOOKS_JSON, null, 2)}\n`);
  return home;
}

const connect = (home: string, args: string[]) => cliAsync(['connect', ...args, '--data-dir', served.dataDir], { env: { HOME: home } });
const disconnect = (home: string, args: string[]) =>
  cliAsync(['disconnect', ...args, '--data-dir', served.dataDir], { env: { HOME: home } });

/** The curl hook of a Perch hook door (the key read from PERCH_KEY_<NAME> by the shell), as connect writes it. */
function curlHook(mcpUrl: string, agent: string, sub: string, secs: number): string {
  return `cat | { printf 'header = "Authorization: Bearer %s"\\n' "$${keyEnvVar(agent)}" | curl -sS -f --max-time ${secs} -X POST -H 'Content-Type: application/json' -K - --data-binary @/dev/fd/3 '${mcpUrl.replace(/\/mcp$/, '')}/hook/cursor/${sub}?agent=${agent}'; } 3<&0`;
}
/** Cursor's result hooks' command: the curl request to /hook/cursor/post-tool-use. */
const resultHook = (mcpUrl: string, agent: string) => curlHook(mcpUrl, agent, 'post-tool-use', 10);
const newAgent = (): Promise<AgentKey> => addAgent(served.dataDir, uniqueName('conn-cursor'));

describe('perch connect cursor NAME edits ~/.cursor/mcp.json and ~/.cursor/hooks.json', () => {
  test('without --write: a diff of both files and nothing written', async () => {
    const a = await newAgent();
    const home = homeWithCursor();
    const before = snapshot(home);
    const r = await connect(home, ['cursor', a.name]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`mcp\\.json would get Perch as the MCP server \`perch-${a.name}\``));
    assert.match(r.stdout, /hooks\.json would get the Perch permission hooks \(beforeShellExecution, beforeMCPExecution/);
    assert.match(r.stdout, /Nothing was written/);
    assert.match(r.stdout, new RegExp(`export ${keyEnvVar(a.name)}=perch_…`));
    assert.deepEqual(snapshot(home), before);
  });

  test("--write: the MCP entry with the key by ${env:…} reference and the hook under both events beside the user's hooks, backups, the key nowhere; twice changes nothing", async () => {
    const a = await newAgent();
    const home = homeWithCursor();
    const r = await connect(home, ['cursor', a.name, '--write', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.written, true);
    assert.equal(out.start, 'cursor .');
    assert.deepEqual(
      out.files.map((f: any) => f.changed),
      [true, true],
    );
    const mcp = JSON.parse(fs.readFileSync(path.join(home, '.cursor', 'mcp.json'), 'utf8'));
    assert.deepEqual(mcp, {
      mcpServers: {
        ...MCP_JSON.mcpServers,
        [`perch-${a.name}`]: { url: served.mcpUrl, headers: { Authorization: `Bearer \${env:${keyEnvVar(a.name)}}` } },
      },
    });
    const hooks = JSON.parse(fs.readFileSync(path.join(home, '.cursor', 'hooks.json'), 'utf8'));
    // One request to the hub's hook door with curl (the MCP URL without /mcp), the key from the environment.
    const ours = {
      command: `cat | { printf 'header = "Authorization: Bearer %s"\\n' "$${keyEnvVar(a.name)}" | curl -sS -f --max-time 590 -X POST -H 'Content-Type: application/json' -K - --data-binary @/dev/fd/3 '${served.mcpUrl.replace(/\/mcp$/, '')}/hook/cursor/permission-request?agent=${a.name}'; } 3<&0`,
    };
    const results = { command: resultHook(served.mcpUrl, a.name) };
    assert.deepEqual(hooks, {
      version: 1,
      hooks: {
        beforeShellExecution: [{ command: './hooks/audit.sh' }, ours],
        afterFileEdit: [{ command: './hooks/format.sh' }, results],
        beforeMCPExecution: [ours],
        afterShellExecution: [results],
        afterMCPExecution: [results],
      },
    });
    for (const f of out.files) {
      assert.ok(f.backup && fs.existsSync(f.backup), `a backup of ${f.file}`);
      assert.equal(fs.readFileSync(f.backup, 'utf8'), `${JSON.stringify(f.file.endsWith('mcp.json') ? MCP_JSON : HOOKS_JSON, null, 2)}\n`);
    }
    for (const text of Object.values(snapshot(home))) assert.ok(!text.includes(a.key), 'the key is in no file');

    const files = snapshot(home);
    const again = await connect(home, ['cursor', a.name, '--write']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^Already connected, nothing to change: .*mcp\.json and .*hooks\.json have /m);
    assert.match(again.stdout, /Then start Cursor with/);
    assert.deepEqual(snapshot(home), files, 'the second run changed nothing and made no new backup');
  });

  test('no ~/.cursor yet: both files are created (hooks.json with version 1)', async () => {
    const a = await newAgent();
    const home = tempDir('perch-connect-cursor-');
    const r = await connect(home, ['cursor', a.name, '--write']);
    assert.equal(r.code, 0, r.stderr);
    const hooks = JSON.parse(fs.readFileSync(path.join(home, '.cursor', 'hooks.json'), 'utf8'));
    assert.equal(hooks.version, 1);
    assert.deepEqual(Object.keys(hooks.hooks), [
      'beforeShellExecution',
      'beforeMCPExecution',
      'afterShellExecution',
      'afterMCPExecution',
      'afterFileEdit',
    ]);
    assert.ok(JSON.parse(fs.readFileSync(path.join(home, '.cursor', 'mcp.json'), 'utf8')).mcpServers[`perch-${a.name}`]);
  });

  test('a hooks.json that is not JSON, of another version, or with a hook list that is not a list: a clear error and nothing written', async () => {
    const a = await newAgent();
    for (const [text, expected] of [
      ['{ "version": 1, ', /hooks\.json is not valid JSON/],
      ['{ "version": 2, "hooks": {} }', /has "version": 2; Perch writes Cursor's version 1 hooks/],
      ['{ "version": 1, "hooks": { "beforeMCPExecution": {} } }', /hooks\.beforeMCPExecution is not a list/],
    ] as const) {
      const home = homeWithCursor();
      fs.writeFileSync(path.join(home, '.cursor', 'hooks.json'), text);
      const before = snapshot(home);
      const r = await connect(home, ['cursor', a.name, '--write']);
      assert.equal(r.code, 1, text);
      assert.match(r.stderr, expected);
      assert.match(r.stderr, /Nothing was written/);
      assert.deepEqual(snapshot(home), before, `${text}: nothing written (not even mcp.json)`);
    }
  });
});

describe('an earlier Cursor connection gets the result hooks; disconnect takes them out', () => {
  test("the next connect --write adds afterShellExecution, afterMCPExecution and afterFileEdit beside the user's own after hooks; perch disconnect cursor takes all of Perch's hooks out and leaves the user's", async () => {
    const a = await newAgent();
    const home = homeWithCursor();
    // What connect wrote before Cursor's results were recorded: the permission hooks only; the user has an after hook.
    const permission = { command: curlHook(served.mcpUrl, a.name, 'permission-request', 590) };
    const earlier = {
      version: 1,
      hooks: {
        beforeShellExecution: [{ command: './hooks/audit.sh' }, permission],
        afterFileEdit: [{ command: './hooks/format.sh' }],
        beforeMCPExecution: [permission],
        afterShellExecution: [{ command: './hooks/log-shell.sh' }],
      },
    };
    fs.writeFileSync(path.join(home, '.cursor', 'hooks.json'), `${JSON.stringify(earlier, null, 2)}\n`);
    const mcp = JSON.parse(fs.readFileSync(path.join(home, '.cursor', 'mcp.json'), 'utf8'));
    mcp.mcpServers[`perch-${a.name}`] = { url: served.mcpUrl, headers: { Authorization: `Bearer \${env:${keyEnvVar(a.name)}}` } };
    fs.writeFileSync(path.join(home, '.cursor', 'mcp.json'), `${JSON.stringify(mcp, null, 2)}\n`);

    const r = await connect(home, ['cursor', a.name, '--write', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(
      out.files.map((f: any) => [path.basename(f.file), f.changed]),
      [
        ['mcp.json', false],
        ['hooks.json', true],
      ],
    );
    assert.match(JSON.stringify(out), /and result hooks \(afterShellExecution, afterMCPExecution, afterFileEdit\)/);
    const results = { command: resultHook(served.mcpUrl, a.name) };
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(home, '.cursor', 'hooks.json'), 'utf8')), {
      version: 1,
      hooks: {
        ...earlier.hooks,
        afterShellExecution: [{ command: './hooks/log-shell.sh' }, results],
        afterMCPExecution: [results],
        afterFileEdit: [{ command: './hooks/format.sh' }, results],
      },
    });

    const d = await disconnect(home, ['cursor', a.name, '--write']);
    assert.equal(d.code, 0, d.stderr);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(home, '.cursor', 'hooks.json'), 'utf8')), {
      version: 1,
      hooks: {
        beforeShellExecution: [{ command: './hooks/audit.sh' }],
        afterFileEdit: [{ command: './hooks/format.sh' }],
        afterShellExecution: [{ command: './hooks/log-shell.sh' }],
      },
    });
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(home, '.cursor', 'mcp.json'), 'utf8')), MCP_JSON);
  });
});

describe('the Cursor config edits (pure)', () => {
  const O = { agent: 'kit', mcpUrl: 'http://127.0.0.1:7457/mcp' };
  test('an earlier Perch hook (another agent with --replace, or another URL; `perch hook` or curl) is replaced in its place by the curl request, once; a missing version is added first', () => {
    const old = JSON.stringify({
      hooks: {
        beforeShellExecution: [
          { command: 'a.sh' },
          { command: 'perch hook permission-request --harness cursor --agent old --url http://x/mcp' },
          { command: 'b.sh' },
        ],
      },
    });
    assert.throws(() => setCursorHooks(old, O), AgentConflict, "agent old's hooks: only with --replace");
    const out = JSON.parse(setCursorHooks(old, { ...O, replace: true }));
    assert.deepEqual(Object.keys(out), ['version', 'hooks']);
    assert.deepEqual(out.hooks.beforeShellExecution, [
      { command: 'a.sh' },
      {
        command: `cat | { printf 'header = "Authorization: Bearer %s"\\n' "$PERCH_KEY_KIT" | curl -sS -f --max-time 590 -X POST -H 'Content-Type: application/json' -K - --data-binary @/dev/fd/3 'http://127.0.0.1:7457/hook/cursor/permission-request?agent=kit'; } 3<&0`,
      },
      { command: 'b.sh' },
    ]);
    const text = setCursorHooks(old, { ...O, replace: true });
    assert.equal(setCursorHooks(text, O), text);
    assert.throws(() => setCursorHooks('[]', O), ConfigFileError);
    // --hooks perch: the permission hooks as `perch hook` commands and no result hooks (curl only): an earlier one goes.
    const perchForm = JSON.parse(setCursorHooks(text, { ...O, hooks: 'perch' }));
    assert.deepEqual(Object.keys(perchForm.hooks), ['beforeShellExecution', 'beforeMCPExecution']);
    assert.match(perchForm.hooks.beforeMCPExecution[0].command, /^perch hook permission-request --harness cursor --agent kit /);
    assert.equal(setCursorMcp(setCursorMcp(undefined, O), O), setCursorMcp(undefined, O));
  });
});
