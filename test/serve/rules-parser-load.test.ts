// The shell parser standing rules read commands with (hub/features/rules/shell-parser.ts) loads in the background once
// the hub is up, not before it serves: a prompt filed through the hook door before it has loaded waits for it, so the
// rules decide it exactly as they do later; a parser that cannot load leaves every prompt a prefix rule would decide to
// the owner, said in one line on stderr and in the hub's log. The first test runs a hub in this process (its parser is
// this process's), so nothing here loads the parser before it: rules are added by `perch rules add` on the file.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, addAgent, cliAsync, rawPost, removeDataDir, startServe, tempDataDir, type AgentKey } from '../support/serve-harness';
import { startHub, type RunningHub } from '../../src/main/app';
import { shellParserLoaded } from '../../src/main/hub/features/rules/shell-parser';

const GRAMMAR = fs.realpathSync(path.join(ROOT, 'node_modules', 'tree-sitter-bash', 'tree-sitter-bash.wasm'));

/** Each command, and the state its prompt gets under RULES (allow `git status`, deny `git push`). */
const EXPECTED: ReadonlyArray<[string, string]> = [
  ['git status', 'approved'],
  ["git status 'src dir'", 'approved'],
  ['git push', 'rejected'],
  ['FOO=1 command git push origin', 'rejected'],
  ["bash -c 'git push'", 'rejected'],
  ['git status && git push', 'rejected'],
  ['git status; ls', 'pending'],
  ['git status $(id)', 'pending'],
];

/** A data dir with one agent and its rules, written by the CLI on the file (no hub serves it yet). */
async function withRules(): Promise<{ dir: string; agent: AgentKey }> {
  const dir = tempDataDir();
  const agent = await addAgent(dir, 'kit');
  for (const [flag, prefix] of [
    ['--allow', 'git status'],
    ['--deny', 'git push'],
  ]) {
    const r = await cliAsync(['rules', 'add', '--agent', 'kit', '--tool', 'Bash', flag!, '--prefix', prefix!, '--data-dir', dir]);
    assert.equal(r.code, 0, r.stderr);
  }
  return { dir, agent };
}

/** Files every command as a Claude Code Bash prompt through POST /hook at once; the state each prompt got. */
async function fileAll(baseUrl: string, agent: AgentKey): Promise<Array<[string, string]>> {
  const answers = await Promise.all(
    EXPECTED.map(([command]) =>
      rawPost(`${baseUrl}/hook`, agent.key, {
        event: 'permission-request',
        harness: 'claude-code',
        tool_name: 'Bash',
        tool_input: { command },
      }),
    ),
  );
  return answers.map((a, i) => {
    assert.equal(a.status, 200, a.text);
    return [EXPECTED[i]![0], a.json.request.state as string];
  });
}

describe('standing rules: the shell parser loads after the hub is up, and decisions wait for it', () => {
  let running: RunningHub | undefined;
  after(async () => {
    await running?.close();
  });

  test('a hub serves before its shell parser has loaded, and prompts filed at once are decided as they are later', async () => {
    const { dir, agent } = await withRules();
    running = await startHub({ dataDir: dir, port: 0, dailyBackups: 0 });
    assert.equal(shellParserLoaded(), false, 'the hub is up and serving before the parser has loaded');
    const first = await fileAll(running.baseUrl, agent);
    assert.equal(shellParserLoaded(), true);
    assert.deepEqual(first, EXPECTED, 'filed at once after the start');
    assert.deepEqual(await fileAll(running.baseUrl, agent), EXPECTED, 'filed again, the parser long loaded');
    await running.close();
    running = undefined;
    removeDataDir(dir);
  });

  test('perch serve: prompts posted on its ready line are decided as later ones', async () => {
    const { dir, agent } = await withRules();
    const served = await startServe(dir);
    try {
      const base = served.mcpUrl.replace(/\/mcp$/, '');
      assert.deepEqual(await fileAll(base, agent), EXPECTED, 'posted on the ready line');
      assert.deepEqual(await fileAll(base, agent), EXPECTED, 'posted again');
      assert.doesNotMatch(served.stderr(), /shell parser/);
    } finally {
      await served.stop();
      removeDataDir(dir);
    }
  });

  test('perch serve whose shell parser cannot load: every prompt a prefix rule would decide goes to the owner, said once on stderr and in the log', async () => {
    const { dir, agent } = await withRules();
    // The grammar's file cannot be read (as in a broken install): a preload of the hub process refuses to read it.
    const preload = path.join(dir, 'no-grammar.cjs');
    fs.writeFileSync(
      preload,
      `const fs = require('node:fs'); const read = fs.readFileSync;
fs.readFileSync = function (p, ...rest) {
  if (String(p).endsWith('tree-sitter-bash.wasm')) throw Object.assign(new Error("ENOENT: no such file or directory, open '" + p + "'"), { code: 'ENOENT' });
  return read.call(this, p, ...rest);
};`,
    );
    const served = await startServe(dir, { env: { NODE_OPTIONS: `--require ${preload}` } });
    try {
      const base = served.mcpUrl.replace(/\/mcp$/, '');
      const states = await fileAll(base, agent);
      assert.deepEqual(
        states,
        EXPECTED.map(([c]) => [c, 'pending']),
      );
      // One line however many prompts came: the parser is tried once.
      assert.deepEqual(served.stderr().match(/^perch: the shell parser did not load.*$/gm), [
        `perch: the shell parser did not load (ENOENT: no such file or directory, open '${GRAMMAR}'): standing rules with a command prefix decide nothing, every such prompt goes to the owner.`,
      ]);
      assert.equal(await served.stop(), 0);
      const log = fs.readFileSync(path.join(dir, 'logs', 'hub.log'), 'utf8');
      assert.match(
        log,
        /"door":"rules","message":"the shell parser did not load \(ENOENT[^"]*\): standing rules with a command prefix decide nothing/,
      );
    } finally {
      await served.stop();
      removeDataDir(dir);
    }
  });
});
