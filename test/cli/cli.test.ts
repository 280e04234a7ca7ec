// The `perch` command as a user runs it: agent add/list/rotate-key/revoke, call, serve on a busy
// port, and a database from a newer Perch.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import {
  BIN,
  addAgent,
  cli,
  cliAsync,
  rawCall,
  rawPost,
  startServe,
  tempDataDir,
  useSharedServe,
  type Served,
} from '../support/serve-harness';

describe('perch agent', () => {
  let dir: string;
  before(() => {
    dir = tempDataDir();
  });

  test('agent add --json prints {id, name, key}; the key is shown once and list never shows it', () => {
    const r = cli(['agent', 'add', 'planner', '--description', 'Plans the work', '--data-dir', dir, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.match(j.id, /^a_/);
    assert.equal(j.name, 'planner');
    assert.match(j.key, /^perch_[A-Za-z0-9_-]{32,}$/);
    const l = cli(['agent', 'list', '--data-dir', dir, '--json']);
    assert.equal(l.code, 0, l.stderr);
    const list = JSON.parse(l.stdout);
    const a = list.agents.find((x: { name: string }) => x.name === 'planner');
    assert.equal(a.id, j.id);
    assert.equal(a.description, 'Plans the work');
    assert.equal(a.revoked, false);
    assert.equal(a.key_hint, `…${j.key.slice(-4)}`);
    assert.ok(!l.stdout.includes(j.key), 'list never prints the key');
    const human = cli(['agent', 'list', '--data-dir', dir]);
    assert.equal(human.code, 0);
    assert.match(human.stdout, /planner/);
  });

  test('agent add prints the key as its export line and the same recipes as the key dialog: perch connect for Claude Code, Codex, Cursor; never the key inline', () => {
    const r = cli(['agent', 'add', 'recipes', '--data-dir', dir]);
    assert.equal(r.code, 0, r.stderr);
    const key = /^ {2}export PERCH_KEY_RECIPES=(perch_[A-Za-z0-9_-]{32,})$/m.exec(r.stdout)?.[1];
    assert.ok(key, `the export line with the key, next to it:\n${r.stdout}`);
    assert.equal(r.stdout.split(key).length, 2, 'the key is printed once, in the export line');
    assert.match(r.stdout, /^Connect Claude Code .*:\n {2}perch connect claude-code recipes --write .*\n {2}claude$/m);
    assert.match(r.stdout, /^Connect Codex:\n {2}perch connect codex recipes --write /m);
    assert.match(r.stdout, /^Connect Cursor:\n {2}perch connect cursor recipes --write /m);
    assert.doesNotMatch(r.stdout, /claude mcp add|Authorization: Bearer perch_/, 'one way to connect, the key from the environment');
    const rotated = cli(['agent', 'rotate-key', 'recipes', '--data-dir', dir]);
    assert.match(rotated.stdout, /^ {2}export PERCH_KEY_RECIPES=perch_[A-Za-z0-9_-]{32,}$/m);
  });

  test('retention set says "keeps 1 day" and "1 idle day" (singular)', () => {
    const r = cli(['retention', 'set', '--keep-days', '1', '--archive-idle-days', '1', '--data-dir', dir]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /keeps 1 day \(.*\); archives after 1 idle day$/m);
  });

  test('bad agent names are refused with a clear message and a non-zero exit code', () => {
    for (const name of ['Bad Name', 'UPPER', '-dash-first', 'has.dot', 'x'.repeat(41), 'ünï']) {
      const r = cli(['agent', 'add', '--data-dir', dir, '--json', '--', name]);
      assert.notEqual(r.code, 0, name);
      assert.match(r.stderr, /is not valid: use 1-40 characters a-z, 0-9, - and _/, name);
      assert.equal(r.stdout, '', `${name}: nothing on stdout`);
    }
    const missing = cli(['agent', 'add', '--data-dir', dir]);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /needs NAME/);
    const l = JSON.parse(cli(['agent', 'list', '--data-dir', dir, '--json']).stdout);
    assert.ok(
      !l.agents.some((a: { name: string }) => a.name !== 'planner' && !/^[a-z0-9][a-z0-9_-]*$/.test(a.name)),
      'no bad name was stored',
    );
  });

  test('a duplicate name is refused', () => {
    const first = cli(['agent', 'add', 'twin', '--data-dir', dir, '--json']);
    assert.equal(first.code, 0, first.stderr);
    const again = cli(['agent', 'add', 'twin', '--data-dir', dir, '--json']);
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /"twin" is taken/);
    const l = JSON.parse(cli(['agent', 'list', '--data-dir', dir, '--json']).stdout);
    assert.equal(l.agents.filter((a: { name: string }) => a.name === 'twin').length, 1);
  });

  test('unknown agents and unknown subcommands are refused clearly', () => {
    const r = cli(['agent', 'rotate-key', 'ghost', '--data-dir', dir, '--json']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /No agent named "ghost"/);
    const s = cli(['agent', 'frobnicate', '--data-dir', dir]);
    assert.notEqual(s.code, 0);
    assert.match(s.stderr, /unknown agent command/);
  });
});

describe('perch agent against a running hub: rotate-key and revoke take effect at once', () => {
  const hub = useSharedServe();

  test('rotate-key prints a new key; the old key stops working and the new one works', async () => {
    const a = await addAgent(hub.dataDir, 'rotator');
    assert.equal((await rawCall(hub.mcpUrl, a.key, 'whoami')).structuredContent!.agent.id, a.id);
    const r = await cliAsync(['agent', 'rotate-key', 'rotator', '--data-dir', hub.dataDir, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.id, a.id);
    assert.notEqual(j.key, a.key);
    const old = await rawPost(hub.mcpUrl, a.key, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'whoami', arguments: {} },
    });
    assert.equal(old.status, 401);
    assert.equal((await rawCall(hub.mcpUrl, j.key, 'whoami')).structuredContent!.agent.id, a.id);
  });

  test('revoke marks the agent revoked and its key stops working', async () => {
    const a = await addAgent(hub.dataDir, 'leaver');
    const r = await cliAsync(['agent', 'revoke', 'leaver', '--data-dir', hub.dataDir, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { id: a.id, name: 'leaver', revoked: true });
    const l = JSON.parse((await cliAsync(['agent', 'list', '--data-dir', hub.dataDir, '--json'])).stdout);
    assert.equal(l.agents.find((x: { name: string }) => x.name === 'leaver').revoked, true);
    const res = await rawPost(hub.mcpUrl, a.key, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'whoami', arguments: {} },
    });
    assert.equal(res.status, 401);
  });

  test('a config change made with the CLI while the hub runs is what get_config returns next', async () => {
    const a = await addAgent(hub.dataDir, 'configured');
    const before = (await rawCall(hub.mcpUrl, a.key, 'get_config')).structuredContent!;
    const r = await cliAsync([
      'agent',
      'config',
      'configured',
      JSON.stringify({ instructions: 'Review every pull request.' }),
      '--data-dir',
      hub.dataDir,
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const afterCfg = (await rawCall(hub.mcpUrl, a.key, 'get_config')).structuredContent!;
    assert.equal(afterCfg.role.instructions, 'Review every pull request.');
    assert.ok(afterCfg.version > before.version, 'the version changed with the content');
    assert.equal((await rawCall(hub.mcpUrl, a.key, 'whoami')).structuredContent!.config_version, afterCfg.version);
  });

  // The hub keeps the keys it verified in memory (hub/core/outside-writes.ts); these prove a write by another process on
  // the same file (the CLI) still reaches the very next call, for a key the hub has just used.
  test('a scoped key the hub has just used stops working on the next call once the CLI revokes it; so do the scoped keys of an agent the CLI revokes', async () => {
    const a = await addAgent(hub.dataDir, 'scoped-cli');
    const whoami = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } };
    const addKey = async (name: string) => {
      const r = await cliAsync([
        'agent',
        'key',
        'add',
        'scoped-cli',
        '--name',
        name,
        '--scopes',
        'read',
        '--data-dir',
        hub.dataDir,
        '--json',
      ]);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout) as { key: { id: string }; secret: string };
    };
    const k1 = await addKey('reader-1');
    const k2 = await addKey('reader-2');
    for (let i = 0; i < 2; i++) {
      assert.equal((await rawCall(hub.mcpUrl, k1.secret, 'whoami')).structuredContent!.agent.id, a.id);
      assert.equal((await rawCall(hub.mcpUrl, k2.secret, 'whoami')).structuredContent!.agent.id, a.id);
    }
    const r = await cliAsync(['agent', 'key', 'revoke', k1.key.id, '--data-dir', hub.dataDir, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((await rawPost(hub.mcpUrl, k1.secret, whoami)).status, 401, 'the revoked scoped key is refused at once');
    assert.equal((await rawCall(hub.mcpUrl, k2.secret, 'whoami')).structuredContent!.agent.id, a.id, "the agent's other key still works");
    const rv = await cliAsync(['agent', 'revoke', 'scoped-cli', '--data-dir', hub.dataDir, '--json']);
    assert.equal(rv.code, 0, rv.stderr);
    assert.equal((await rawPost(hub.mcpUrl, k2.secret, whoami)).status, 401, 'revoking the agent stops its scoped keys at once');
    assert.equal((await rawPost(hub.mcpUrl, a.key, whoami)).status, 401);
  });

  test('review mode switched with the CLI while the hub runs holds the very next send, and switched off lets the next one through', async () => {
    const a = await addAgent(hub.dataDir, 'reviewed-cli');
    const conv = (await rawCall(hub.mcpUrl, a.key, 'create_group', { title: 'review-cli', members: [] })).structuredContent!.conversation
      .conv_id as string;
    const send = async (text: string) => (await rawCall(hub.mcpUrl, a.key, 'send_message', { conv_id: conv, text })).structuredContent!;
    assert.match((await send('before review')).msg_id, /./, 'review off: the message is sent');
    const on = await cliAsync(['agent', 'review', 'reviewed-cli', 'on', '--data-dir', hub.dataDir, '--json']);
    assert.equal(on.code, 0, on.stderr);
    const held = await send('while reviewed');
    assert.equal(held.held, true, 'the next send is held for the owner');
    assert.equal(held.msg_id, undefined);
    const off = await cliAsync(['agent', 'review', 'reviewed-cli', 'off', '--data-dir', hub.dataDir, '--json']);
    assert.equal(off.code, 0, off.stderr);
    const sent = await send('after review');
    assert.notEqual(sent.held, true, 'review off again: the next send goes out');
    assert.match(sent.msg_id, /./);
  });
});

/** perch ARGS with INPUT on stdin (and no PERCH_KEY in the environment). */
function cliWithStdin(args: string[], input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, PERCH_KEY: '' }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  p.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  p.stdin.end(input);
  return new Promise((resolve) => p.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('perch call', () => {
  let dir: string;
  let hub: Served;
  let key: string;
  before(async () => {
    dir = tempDataDir();
    hub = await startServe(dir);
    key = (await addAgent(dir, 'caller')).key;
  });
  after(async () => {
    await hub?.stop();
  });

  test('prints the tool result as JSON and exits 0', async () => {
    const r = await cliAsync(['call', 'whoami', '--url', hub.mcpUrl], { env: { PERCH_KEY: key } });
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.agent.name, 'caller');
    assert.equal(typeof j.request_id, 'string');
  });

  test('takes the URL and key from PERCH_URL / PERCH_KEY, and JSON arguments', async () => {
    const g = await cliAsync(['call', 'create_group', JSON.stringify({ title: 'from the shell', members: [] })], {
      env: { PERCH_URL: hub.mcpUrl, PERCH_KEY: key },
    });
    assert.equal(g.code, 0, g.stderr);
    const convId = JSON.parse(g.stdout).conversation.conv_id;
    const s = await cliAsync(['call', 'send_message', JSON.stringify({ conv_id: convId, text: 'hello from perch call' })], {
      env: { PERCH_URL: hub.mcpUrl, PERCH_KEY: key },
    });
    assert.equal(s.code, 0, s.stderr);
    const h = (await rawCall(hub.mcpUrl, key, 'get_history', { conv_id: convId })).structuredContent!;
    assert.ok(h.events.some((e: { message?: { text: string } }) => e.message?.text === 'hello from perch call'));
  });

  test('--key KEY is refused in one line naming --agent, PERCH_KEY and --key-file, and nothing is sent', async () => {
    const r = await cliAsync(['call', 'whoami', '--url', hub.mcpUrl, '--key', key], { env: { PERCH_KEY: '' } });
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '', 'no tool result: nothing was sent');
    assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
    assert.match(r.stderr, /--key puts the key on the command line.*--agent NAME.*PERCH_KEY.*--key-file FILE/);
    assert.ok(!r.stderr.includes(key), 'the refusal does not echo the key');
  });

  test('--key-file reads the key from a file or from stdin (-), off the command line', async () => {
    const file = path.join(dir, 'caller.key');
    fs.writeFileSync(file, `${key}\n`, { mode: 0o600 });
    const fromFile = await cliAsync(['call', 'whoami', '--url', hub.mcpUrl, '--key-file', file], { env: { PERCH_KEY: '' } });
    assert.equal(fromFile.code, 0, fromFile.stderr);
    assert.equal(JSON.parse(fromFile.stdout).agent.name, 'caller');
    const fromStdin = await cliWithStdin(['call', 'whoami', '--url', hub.mcpUrl, '--key-file', '-'], `${key}\n`);
    assert.equal(fromStdin.code, 0, fromStdin.stderr);
    assert.equal(JSON.parse(fromStdin.stdout).agent.name, 'caller');
    const empty = path.join(dir, 'empty.key');
    fs.writeFileSync(empty, '\n');
    const none = await cliAsync(['call', 'whoami', '--url', hub.mcpUrl, '--key-file', empty], { env: { PERCH_KEY: key } });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /holds no key/);
    const both = await cliWithStdin(['call', 'send_message', '-', '--url', hub.mcpUrl, '--key-file', '-'], `${key}\n`);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /both read stdin/);
  });

  test('a tool error prints the error as JSON and exits 1', async () => {
    const r = await cliAsync(['call', 'get_history', '{"conv_id":"c_0000000000000000"}', '--url', hub.mcpUrl], { env: { PERCH_KEY: key } });
    assert.equal(r.code, 1);
    const j = JSON.parse(r.stdout);
    assert.equal(j.error.code, 'not_found');
    assert.equal(typeof j.error.next_step, 'string');
  });

  test('usage errors are clear: no key, bad JSON arguments, unknown tool, wrong key, no hub', async () => {
    const noKey = await cliAsync(['call', 'whoami', '--url', hub.mcpUrl], { env: { PERCH_KEY: '' } });
    assert.notEqual(noKey.code, 0);
    assert.match(noKey.stderr, /no agent key/);
    const badJson = await cliAsync(['call', 'send_message', '{not json', '--url', hub.mcpUrl], { env: { PERCH_KEY: key } });
    assert.notEqual(badJson.code, 0);
    assert.match(badJson.stderr, /not valid JSON/);
    const unknown = await cliAsync(['call', 'no_such_tool', '--url', hub.mcpUrl], { env: { PERCH_KEY: key } });
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /Unknown tool/);
    const wrongKey = await cliAsync(['call', 'whoami', '--url', hub.mcpUrl], {
      env: { PERCH_KEY: 'perch_nottherightkeyatallnottherightkey' },
    });
    assert.notEqual(wrongKey.code, 0);
    assert.match(wrongKey.stderr, /401/);
    const noHub = await cliAsync(['call', 'whoami', '--url', 'http://127.0.0.1:1/mcp'], { env: { PERCH_KEY: key } });
    assert.notEqual(noHub.code, 0);
    assert.match(noHub.stderr, /cannot reach/);
  });
});

describe('perch serve', () => {
  test('refuses a busy port with a clear message', async () => {
    const dir = tempDataDir();
    const hub = await startServe(dir);
    try {
      const other = tempDataDir();
      const r = await cliAsync(['serve', '--data-dir', other, '--port', String(hub.port), '--json'], { timeoutMs: 15_000 });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, new RegExp(`port ${hub.port} is in use`));
      assert.match(r.stderr, /another Perch hub \(with another data dir\) answers there/);
      assert.match(r.stderr, /--port N/);
      assert.equal(r.stdout, '', 'no ready line was printed');
    } finally {
      await hub.stop();
    }
  });

  test('a port held by a program that is not Perch: the message names the port, says so, and tells to rotate keys; exit 1', async () => {
    const squatter = http.createServer((_req, res) => res.end('not perch'));
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const port = (squatter.address() as { port: number }).port;
    try {
      const r = await cliAsync(['serve', '--data-dir', tempDataDir(), '--port', String(port)], { timeoutMs: 15_000 });
      assert.equal(r.code, 1);
      assert.match(r.stderr, new RegExp(`^perch: port ${port} is in use: a program that is NOT Perch answers there`));
      assert.match(r.stderr, /send their keys to whatever holds the port/);
      assert.match(r.stderr, /rotate your agents' keys \(`perch agent rotate-key NAME`/);
      assert.match(r.stderr, /--port N \(--port 0 picks a free one\)/);
      assert.doesNotMatch(r.stderr, /at .*\.js:\d+/, 'a message, not a stack trace');
      assert.equal(r.stdout, '');
    } finally {
      squatter.close();
    }
  });

  test('refuses a second hub on a data dir a live hub already serves (one process owns the database)', async () => {
    const dir = tempDataDir();
    const hub = await startServe(dir);
    try {
      const r = await cliAsync(['serve', '--data-dir', dir, '--port', '0', '--json'], { timeoutMs: 15_000 });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, new RegExp(`already serving .* at ${hub.mcpUrl.replace(/[.]/g, '\\.')}`));
      assert.equal(r.stdout, '');
      const rt = JSON.parse(fs.readFileSync(path.join(dir, 'runtime.json'), 'utf8'));
      assert.equal(rt.pid, hub.proc.pid, 'the running hub keeps its runtime file');
    } finally {
      await hub.stop();
    }
  });

  test('--json prints exactly one JSON line with mcp_url, port, data_dir and login_url; SIGTERM exits 0', async () => {
    const dir = tempDataDir();
    const hub = await startServe(dir);
    assert.equal(hub.mcpUrl, `http://127.0.0.1:${hub.port}/mcp`);
    assert.equal(hub.dataDir, dir);
    assert.match(hub.loginUrl, new RegExp(`^http://127\\.0\\.0\\.1:${hub.port}/`));
    assert.ok(fs.existsSync(path.join(dir, 'perch.sqlite')));
    assert.equal(await hub.stop(), 0);
  });

  test('SIGTERM while agents wait in get_updates shuts down cleanly (exit 0, within seconds)', async () => {
    const dir = tempDataDir();
    const hub = await startServe(dir);
    const a = await addAgent(dir, 'sleeper');
    const waits = [1, 2, 3].map((i) =>
      rawPost(hub.mcpUrl, a.key, {
        jsonrpc: '2.0',
        id: i,
        method: 'tools/call',
        params: { name: 'get_updates', arguments: { wait_secs: 30 } },
      }).then(
        () => 'answered',
        () => 'closed',
      ),
    );
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    assert.equal(await hub.stop(), 0);
    assert.ok(Date.now() - t0 < 5000, `stopped in ${Date.now() - t0} ms`);
    await Promise.all(waits);
    assert.doesNotMatch(hub.stderr(), /Error|failed/, 'nothing failed on the way down');
    assert.ok(!fs.existsSync(path.join(dir, 'runtime.json')), 'the runtime file is removed');
  });

  test('--port and --rate values are checked', () => {
    const dir = tempDataDir();
    const p = cli(['serve', '--data-dir', dir, '--port', 'seventy']);
    assert.notEqual(p.code, 0);
    assert.match(p.stderr, /--port must be/);
    const r = cli(['serve', '--data-dir', dir, '--rate', 'fast']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /--rate must be/);
  });
});

describe('a database written by a newer Perch', () => {
  test('is refused with a clear message by agent list and by serve, and is left untouched', async () => {
    const dir = tempDataDir();
    const file = path.join(dir, 'perch.sqlite');
    const db = new Database(file);
    db.pragma('user_version = 999');
    db.exec('CREATE TABLE from_the_future (x)');
    db.close();
    const r = cli(['agent', 'list', '--data-dir', dir]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /newer Perch \(schema version 999/);
    assert.match(r.stderr, /Update Perch/);
    assert.doesNotMatch(r.stderr, /at .*\.js:\d+/, 'a message, not a stack trace');
    const s = await cliAsync(['serve', '--data-dir', dir, '--port', '0', '--json'], { timeoutMs: 15_000 });
    assert.notEqual(s.code, 0);
    assert.match(s.stderr, /newer Perch/);
    const check = new Database(file, { readonly: true });
    assert.equal(check.pragma('user_version', { simple: true }), 999);
    check.close();
  });
});

describe('--help on every command and subcommand', () => {
  const cases: Array<[string[], RegExp]> = [
    [['--help'], /^perch \S+ — a local hub/],
    [['help'], /^perch \S+ — a local hub/],
    [['serve', '--help'], /^perch serve \[--data-dir DIR\] \[--port N\].*--backups N/s],
    [
      ['agent', '--help'],
      /^perch agent COMMAND[\s\S]*perch agent add NAME[\s\S]*perch agent rotate-key NAME[\s\S]*perch agent revoke NAME/,
    ],
    [['agent', 'add', '--help'], /^perch agent add NAME \[--description TEXT\]/],
    [['agent', 'add', 'someone', '-h'], /^perch agent add NAME/],
    [['agent', 'list', '--help'], /^perch agent list/],
    [['agent', 'rotate-key', '--help'], /^perch agent rotate-key NAME/],
    [['call', '--help'], /^perch call TOOL/],
    [['owner', '--help'], /^perch owner ACTION[\s\S]*login-link/],
    [['backup', '--help'], /^perch backup \[--to FILE\] \[--force\]/],
    [['restore', '--help'], /^perch restore FILE/],
    [['help', 'agent'], /^perch agent COMMAND/],
    [['help', 'agent', 'revoke'], /^perch agent revoke NAME/],
    [['help', 'serve'], /^perch serve/],
    [['help', 'backup'], /^perch backup/],
    [['help', 'restore'], /^perch restore FILE/],
  ];
  for (const [args, usage] of cases) {
    test(`perch ${args.join(' ')} prints usage on stdout and exits 0`, () => {
      const dir = tempDataDir();
      const r = cli(args, { env: { PERCH_DATA_DIR: dir } });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, usage);
      assert.equal(r.stderr, '');
      assert.deepEqual(fs.readdirSync(dir), [], 'asking for help touches no data');
    });
  }

  test('--help after -- is an argument, not a request for help', () => {
    const dir = tempDataDir();
    const r = cli(['agent', 'add', '--data-dir', dir, '--', '--help']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /is not valid/);
  });

  test('unknown commands, subcommands and flags exit 2 with a clear message and a pointer to --help', () => {
    const dir = tempDataDir();
    const cases: Array<[string[], RegExp]> = [
      [['frobnicate'], /^perch: unknown command "frobnicate"\. Run `perch --help`/],
      [['help', 'frobnicate'], /^perch: unknown command "frobnicate"\. Run `perch --help`/],
      [['help', 'agent', 'fly'], /^perch: unknown agent command "fly".*Run `perch agent --help`/],
      [['agent', 'fly', '--data-dir', dir], /^perch: unknown agent command "fly".*Run `perch agent --help`/],
      [['agent', 'add', 'x', '--colour', 'red', '--data-dir', dir], /^perch: unknown option --colour.*Run `perch agent add --help`/],
      [['serve', '--data-dir', dir, '--verbose'], /^perch: unknown option --verbose.*Run `perch serve --help`/],
      [['backup', '--data-dir', dir, '--into', 'x'], /^perch: unknown option --into.*Run `perch backup --help`/],
      [['restore', '--data-dir', dir], /^perch: perch restore needs FILE.*Run `perch restore --help`/],
      [['call', '--frob'], /^perch: unknown option --frob.*Run `perch call --help`/],
    ];
    for (const [args, message] of cases) {
      const r = cli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(' '));
      assert.equal(r.stdout, '', args.join(' '));
    }
    assert.ok(!fs.existsSync(path.join(dir, 'perch.sqlite')), 'no database was created by a refused command');
  });
});

describe('perch loads its bundle with a V8 code cache (bin/perch.js)', () => {
  const cacheFiles = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /^cli-[0-9a-f]{32}\.bin$/.test(f)) : []);

  test('the first run writes the cache in a 0700 directory; a cache V8 rejects is ignored and rewritten', () => {
    const dir = path.join(tempDataDir(), 'code-cache');
    const first = cli(['--help'], { env: { PERCH_CODE_CACHE_DIR: dir } });
    assert.equal(first.code, 0, first.stderr);
    assert.equal((fs.statSync(dir).mode & 0o777).toString(8), '700', "the cache directory is this user's only");
    const files = cacheFiles(dir);
    assert.equal(files.length, 1, 'one cache file for the bundle');
    const file = path.join(dir, files[0]!);
    assert.ok(fs.statSync(file).size > 1000, 'it holds compiled code');

    const garbage = Buffer.alloc(4096, 7);
    fs.writeFileSync(file, garbage);
    const second = cli(['--help'], { env: { PERCH_CODE_CACHE_DIR: dir } });
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout, first.stdout, 'the command answers the same with a broken cache');
    assert.ok(!fs.readFileSync(file).equals(garbage), 'the rejected cache was written anew');

    const third = cli(['--help'], { env: { PERCH_CODE_CACHE_DIR: dir } });
    assert.equal(third.code, 0, third.stderr);
    assert.equal(third.stdout, first.stdout, 'and the same with the cache in use');

    // A cache of an earlier build is removed when this build writes its own (they do not pile up in the temp dir).
    const stale = path.join(dir, `cli-${'0'.repeat(32)}.bin`);
    fs.writeFileSync(stale, garbage);
    fs.writeFileSync(file, garbage); // rejected: this run writes the cache again, and prunes
    const fourth = cli(['--help'], { env: { PERCH_CODE_CACHE_DIR: dir } });
    assert.equal(fourth.code, 0, fourth.stderr);
    assert.deepEqual(cacheFiles(dir), [files[0]], "only the current bundle's cache is left");
  });

  test('a cache directory others can write is not used, and PERCH_CODE_CACHE=0 turns the cache off', () => {
    const open = path.join(tempDataDir(), 'open-cache');
    fs.mkdirSync(open, { mode: 0o777 });
    fs.chmodSync(open, 0o777);
    const r = cli(['--help'], { env: { PERCH_CODE_CACHE_DIR: open } });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(cacheFiles(open), [], 'nothing is written to (or read from) a directory others can write');

    const off = path.join(tempDataDir(), 'off-cache');
    const r2 = cli(['--help'], { env: { PERCH_CODE_CACHE_DIR: off, PERCH_CODE_CACHE: '0' } });
    assert.equal(r2.code, 0, r2.stderr);
    assert.equal(fs.existsSync(off), false, 'PERCH_CODE_CACHE=0: no cache directory is made');
  });
});
