// Small truths of the perch command, against the built `perch` and a real `perch serve`: a dry-run import while the
// hub serves, perch call's missing key named as perch agent add taught it, and an unknown agent name answered with the
// closest one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { addAgent, cliAsync, ownerOk, rawCall, removeDataDir, startServe, tempDataDir } from '../support/serve-harness';

/** Every table's row count of the database in `dir` (read-only): equal before and after means nothing was written. */
function rowCounts(dir: string): string {
  const db = new Database(path.join(dir, 'perch.sqlite'), { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[];
    return JSON.stringify(tables.map((n) => [n, db.prepare(`SELECT count(*) FROM "${n}"`).pluck().get()]));
  } finally {
    db.close();
  }
}

/** The environment without any agent key (PERCH_KEY, PERCH_KEY_<NAME>) this test run may have. */
function noKeys(): Record<string, string> {
  return Object.fromEntries(
    Object.keys(process.env)
      .filter((v) => v.startsWith('PERCH_KEY'))
      .map((v) => [v, '']),
  );
}

test('perch import --dry-run works while the hub serves the data dir: it says what it would add, writes nothing and leaves the hub serving; the import itself is still refused', async () => {
  const src = tempDataDir();
  const dest = tempDataDir();
  try {
    const a = await startServe(src, { args: ['--backups', '0'] });
    const archive = path.join(src, 'history.tar.gz');
    try {
      const kit = await addAgent(src, 'kit');
      const conv = (await rawCall(a.mcpUrl, kit.key, 'create_group', { title: 'Notes', members: [] })).structuredContent!.conversation
        .conv_id as string;
      for (let i = 0; i < 3; i++) await rawCall(a.mcpUrl, kit.key, 'send_message', { conv_id: conv, text: `note ${i}` });
    } finally {
      await a.stop();
    }
    const exported = await cliAsync(['export', '--out', archive, '--data-dir', src]);
    assert.equal(exported.code, 0, exported.stderr);

    const b = await startServe(dest, { args: ['--backups', '0'] });
    try {
      await addAgent(dest, 'rue');
      const before = rowCounts(dest);
      // The hub's own log folder may appear meanwhile; the import's files may not.
      const ours = () =>
        fs
          .readdirSync(dest)
          .filter((f) => f !== 'logs')
          .sort();
      const filesBefore = ours();
      const dry = await cliAsync(['import', archive, '--dry-run', '--data-dir', dest], { timeoutMs: 60_000 });
      assert.equal(dry.code, 0, dry.stderr);
      assert.match(dry.stdout, /^Would add from .*: .*3 messages?/m);
      assert.match(dry.stdout, /Agents to create without keys: kit/);
      assert.match(dry.stdout, /Dry run: nothing was written\./);
      assert.equal(rowCounts(dest), before, 'nothing written');
      assert.deepEqual(ours(), filesBefore, 'no file left in the data dir');
      const { agents } = await ownerOk(b, 'agents.list', {});
      assert.deepEqual(
        agents.map((x: { name: string }) => x.name),
        ['rue'],
        'the hub still serves, without kit',
      );
      const refused = await cliAsync(['import', archive, '--data-dir', dest]);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /is serving .* nothing was changed\. Stop it first/);
    } finally {
      await b.stop();
    }
  } finally {
    removeDataDir(src);
    removeDataDir(dest);
  }
});

test('perch call without a key names the PERCH_KEY_<NAME> variable perch agent add taught (and --agent NAME uses it); an unknown agent name, in perch call --agent and in every command that takes one, suggests the closest ("did you mean kit?")', async () => {
  const dir = tempDataDir();
  try {
    const hub = await startServe(dir, { args: ['--backups', '0'] });
    try {
      const kit = await addAgent(dir, 'kit');
      const env = noKeys();
      const none = await cliAsync(['call', 'whoami', '--data-dir', dir], { env });
      assert.equal(none.code, 2);
      assert.match(
        none.stderr,
        /no agent key: set PERCH_KEY_<NAME> \(the line export PERCH_KEY_<NAME>=perch_… that perch agent add printed\) and give --agent NAME/,
      );
      const withKit = { ...env, PERCH_KEY_KIT: kit.key };
      const hint = await cliAsync(['call', 'whoami', '--data-dir', dir], { env: withKit });
      assert.equal(hint.code, 2);
      assert.match(hint.stderr, /no agent key: PERCH_KEY is not set; PERCH_KEY_KIT is set: give --agent kit to use PERCH_KEY_KIT/);
      const typo = await cliAsync(['call', 'whoami', '--agent', 'kitt', '--data-dir', dir], { env: withKit });
      assert.equal(typo.code, 2);
      assert.match(typo.stderr, /no agent key: PERCH_KEY_KITT is not set \(did you mean kit\? PERCH_KEY_KIT is set\)/);
      const ok = await cliAsync(['call', 'whoami', '--agent', 'kit', '--data-dir', dir], { env: withKit });
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(JSON.parse(ok.stdout).agent.name, 'kit');

      for (const args of [
        ['agent', 'show', 'kitt'],
        ['agent', 'pause', 'kitt'],
        ['agent', 'rotate-key', 'kitt'],
        ['agent', 'wake', 'kitt', '--show'],
        ['connect', 'claude-code', 'kitt'],
      ]) {
        const r = await cliAsync([...args, '--data-dir', dir]);
        assert.notEqual(r.code, 0, `perch ${args.join(' ')}`);
        assert.match(r.stderr, /No agent named "kitt"\. Did you mean kit\?/, `perch ${args.join(' ')}: ${r.stderr}`);
      }
      const exp = await cliAsync(['export', '--out', path.join(dir, 'x.tar.gz'), '--agent', 'kitt', '--data-dir', dir]);
      assert.equal(exp.code, 1);
      assert.match(exp.stderr, /No agent named "kitt" in this hub \(did you mean kit\?\); nothing was written/);
      const far = await cliAsync(['agent', 'show', 'zebra', '--data-dir', dir]);
      assert.match(far.stderr, /No agent named "zebra"\. List agents/, 'no suggestion when no name is close');
    } finally {
      await hub.stop();
    }
  } finally {
    removeDataDir(dir);
  }
});
