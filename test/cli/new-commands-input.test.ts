// Bad input to the newer CLI commands gets one clear error and changes nothing: here, what `perch import --dry-run`
// leaves behind in a data dir that has no database yet (nothing at all, whether the archive is good or not).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { cli, ownerFail, ownerOk, removeDataDir, startServe, tempDataDir } from '../support/serve-harness';

test('perch import --dry-run into a data dir without a database creates nothing there, for a good archive and for a file that is not one', () => {
  const src = tempDataDir();
  const work = tempDataDir();
  try {
    assert.equal(cli(['agent', 'add', 'writer', '--data-dir', src]).code, 0);
    const archive = path.join(work, 'history.tar.gz');
    const exported = cli(['export', '--out', archive, '--data-dir', src]);
    assert.equal(exported.code, 0, exported.stderr);
    const junk = path.join(work, 'junk.tar.gz');
    fs.writeFileSync(junk, 'not an archive\n');

    const dest = path.join(work, 'fresh-hub');
    const good = cli(['import', archive, '--dry-run', '--data-dir', dest]);
    assert.equal(good.code, 0, good.stderr);
    assert.match(good.stdout, /Would add .*conversations/);
    assert.match(good.stdout, /Dry run: nothing was written\./);
    assert.equal(fs.existsSync(dest), false, 'a dry run creates no data dir and no database');

    const bad = cli(['import', junk, '--dry-run', '--data-dir', dest]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^perch: .*junk\.tar\.gz cannot be imported: .*Nothing was written\.\n$/);
    assert.doesNotMatch(bad.stderr, /\n\s+at /, 'no stack trace');
    assert.equal(fs.existsSync(dest), false, 'a refused dry run creates nothing either');
  } finally {
    removeDataDir(src);
    removeDataDir(work);
  }
});

test('an option followed by a word starting with - (retention set --keep-days -1, agent wake --container --project DIR) gets one line naming the option, exit 2, and nothing is set', () => {
  const d = tempDataDir();
  try {
    assert.equal(cli(['agent', 'add', 'kit', '--data-dir', d]).code, 0);
    for (const args of [
      ['retention', 'set', '--keep-days', '-1'],
      ['agent', 'wake', 'kit', '--container', '--project', d, '--', 'true'],
    ]) {
      const r = cli([...args, '--data-dir', d]);
      assert.equal(r.code, 2, r.stderr);
      const opt = args.find((a) => a === '--keep-days' || a === '--container')!;
      assert.equal(r.stderr.trimEnd().split('\n').length, 1, `one line, got: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`^perch: ${opt} needs a value, .*${opt}=-VALUE`));
    }
    assert.match(cli(['retention', '--data-dir', d]).stdout, /^No retention rules: all history is kept\./);
    assert.match(cli(['agent', 'wake', 'kit', '--show', '--data-dir', d]).stdout, /has no wake action/);
  } finally {
    removeDataDir(d);
  }
});

test('rules.add refuses a rule whose command_prefix holds shell syntax or quotes (a prefix is plain words, matched against what the command runs) and adds nothing; a plain deny is kept', async () => {
  const d = tempDataDir();
  try {
    assert.equal(cli(['agent', 'add', 'kit', '--data-dir', d]).code, 0);
    const served = await startServe(d, { args: ['--backups', '0'] });
    try {
      for (const behavior of ['allow', 'deny']) {
        for (const prefix of ['rm -rf /; ls', 'npm test && echo', 'cat $(x)', 'ls\nrm', 'git "push"']) {
          const err = await ownerFail(served, 'rules.add', { agent: 'kit', tool: 'Bash', command_prefix: prefix, behavior }, 400);
          assert.equal(err.code, 'invalid_argument');
          assert.match(err.message, /^command_prefix: a prefix is plain words/);
        }
      }
      for (const prefix of ['sudo', 'env', 'xargs', 'timeout']) {
        const err = await ownerFail(
          served,
          'rules.add',
          { agent: 'kit', tool: 'Bash', command_prefix: `${prefix} ls`, behavior: 'allow' },
          400,
        );
        assert.match(err.message, /runs another command, so an allow of it would cover whatever that command is/);
      }
      assert.deepEqual((await ownerOk(served, 'rules.list', {})).rules, [], 'nothing was added');
      assert.equal(
        (await ownerOk(served, 'rules.add', { agent: 'kit', tool: 'Bash', command_prefix: 'git push', behavior: 'deny' })).added,
        true,
      );
    } finally {
      await served.stop();
    }
  } finally {
    removeDataDir(d);
  }
});
