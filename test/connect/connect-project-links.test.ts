// A project folder is untrusted input: `perch connect … --project DIR --write` never follows a link the repository
// planted (a file, a folder, a guessed temporary name) and never reads or writes outside DIR; temporary and backup
// files are created O_EXCL|O_NOFOLLOW under random names at user scope too (src/main/cli/agents/config-files.ts).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addAgent, uniqueName, useSharedServe } from '../support/serve-harness';
import { perchAt, useTempDirs } from '../support/connect-kit';

const served = useSharedServe();
const tempDir = useTempDirs();

/** Every entry under dir as lstat sees it: links as `-> target`, files with their text (nothing followed). */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d)) {
      const p = path.join(d, name);
      const st = fs.lstatSync(p);
      const rel = path.relative(dir, p);
      if (st.isSymbolicLink()) out[rel] = `-> ${fs.readlinkSync(p)}`;
      else if (st.isDirectory()) walk(p);
      else out[rel] = fs.readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}

const connect = (home: string, args: string[]) => perchAt(served.dataDir, 'connect', home, args);

/** The pids the next processes on this machine will most likely get (Linux hands them out in order). */
function comingPids(count: number): number[] {
  const last = Number(fs.readFileSync('/proc/sys/kernel/ns_last_pid', 'utf8'));
  const max = Number(fs.readFileSync('/proc/sys/kernel/pid_max', 'utf8'));
  return Array.from({ length: count }, (_, i) => (last + 1 + i < max ? last + 1 + i : last + 1 + i - max + 300));
}

describe('perch connect --project DIR never follows what the project planted', () => {
  test("a project's .mcp.json linked to the data dir's runtime.json is refused in one line: the owner token is copied nowhere, nothing is written", async () => {
    const a = await addAgent(served.dataDir, uniqueName('link'));
    const home = tempDir('perch-links-home-');
    const repo = tempDir('perch-links-repo-');
    const runtime = path.join(served.dataDir, 'runtime.json');
    const token = JSON.parse(fs.readFileSync(runtime, 'utf8')).owner_token as string;
    const runtimeBefore = fs.readFileSync(runtime, 'utf8');
    fs.symlinkSync(runtime, path.join(repo, '.mcp.json'));
    const before = tree(repo);
    const r = await connect(home, ['claude-code', a.name, '--project', repo, '--write']);
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stderr,
      /^perch: .*\.mcp\.json is a symbolic link: a project's files are read and written only inside .*, never through a link\. Nothing was written\.\n$/,
    );
    assert.deepEqual(tree(repo), before, 'the project is as it was (no backup, no settings file)');
    assert.equal(fs.readFileSync(runtime, 'utf8'), runtimeBefore);
    for (const text of Object.values(tree(repo))) assert.ok(!text.includes(token), 'the owner token is in no project file');
    assert.deepEqual(tree(home), {});
  });

  test('a .cursor folder linked outside the project, or a .mcp.json hard-linked to a file outside: refused, nothing written anywhere', async () => {
    const a = await addAgent(served.dataDir, uniqueName('link'));
    const home = tempDir('perch-links-home-');
    const repo = tempDir('perch-links-repo-');
    const outside = tempDir('perch-links-outside-');
    fs.symlinkSync(outside, path.join(repo, '.cursor'));
    const r = await connect(home, ['cursor', a.name, '--project', repo, '--write']);
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stderr, /\.cursor is a symbolic link: .*Nothing was written\.\n$/);
    assert.deepEqual(tree(outside), {}, 'no hooks.json or mcp.json outside the project');

    const secret = path.join(outside, 'secret.json');
    fs.writeFileSync(secret, '{"owner_token":"not for the project"}\n');
    const repo2 = tempDir('perch-links-repo-');
    fs.linkSync(secret, path.join(repo2, '.mcp.json'));
    const hard = await connect(home, ['claude-code', a.name, '--project', repo2, '--write']);
    assert.equal(hard.code, 1, hard.stdout);
    assert.match(hard.stderr, /\.mcp\.json has another hard link: .*Nothing was written\.\n$/);
    assert.deepEqual(fs.readdirSync(repo2), ['.mcp.json']);
  });

  test('planted <file>.perch-<pid>.tmp links for the coming pids redirect no write: the stand-in ~/.bashrc keeps its text, at project and at user scope', async () => {
    const a = await addAgent(served.dataDir, uniqueName('link'));
    const home = tempDir('perch-links-home-');
    const repo = tempDir('perch-links-repo-');
    const bashrc = path.join(home, '.bashrc');
    fs.writeFileSync(bashrc, 'export PATH=$HOME/bin:$PATH\n');
    fs.mkdirSync(path.join(repo, '.claude'));
    fs.mkdirSync(path.join(home, '.claude'));
    // Existing files, so that each is backed up (the old backup name was guessable too).
    fs.writeFileSync(path.join(repo, '.mcp.json'), '{}\n');
    fs.writeFileSync(path.join(home, '.claude.json'), '{}\n');
    for (const pid of comingPids(1500))
      for (const f of [path.join(repo, '.mcp.json'), path.join(repo, '.claude', 'settings.local.json'), path.join(home, '.claude.json')])
        fs.symlinkSync(bashrc, `${f}.perch-${pid}.tmp`);
    const project = await connect(home, ['claude-code', a.name, '--project', repo, '--write']);
    assert.equal(project.code, 0, project.stderr);
    const user = await connect(home, ['claude-code', a.name, '--write']);
    assert.equal(user.code, 0, user.stderr);
    assert.equal(fs.readFileSync(bashrc, 'utf8'), 'export PATH=$HOME/bin:$PATH\n');
    for (const f of [path.join(repo, '.mcp.json'), path.join(repo, '.claude', 'settings.local.json'), path.join(home, '.claude.json')]) {
      assert.ok(fs.lstatSync(f).isFile(), `${f} is a regular file, not a planted link renamed into place`);
      assert.match(fs.readFileSync(f, 'utf8'), new RegExp(`perch-${a.name}|agent=${a.name}`));
    }
    const backups = [...fs.readdirSync(repo), ...fs.readdirSync(home)].filter((n) => n.includes('.perch-backup-'));
    assert.equal(backups.length, 2);
    for (const b of backups) assert.match(b, /\.perch-backup-[0-9T-]+Z-[0-9a-f]{12}$/, 'a backup name nobody can guess');
  });

  test('an empty --project (an unset variable) is refused in one line, not taken as the current folder', async () => {
    const a = await addAgent(served.dataDir, uniqueName('link'));
    const home = tempDir('perch-links-home-');
    for (const cmd of ['connect', 'disconnect'] as const)
      for (const dir of ['', ' ']) {
        const r = await perchAt(served.dataDir, cmd, home, ['claude-code', a.name, '--project', dir]);
        assert.equal(r.code, 2, `${cmd} --project ${JSON.stringify(dir)}: ${r.stdout}`);
        assert.match(r.stderr, /^perch: --project needs a directory \(it was empty: an unset variable\?\)/);
      }
  });

  test("at user scope a link is the user's own: a dotfiles ~/.claude/settings.json link stays a link, connect and disconnect edit the file it leads to", async () => {
    const a = await addAgent(served.dataDir, uniqueName('link'));
    const home = tempDir('perch-links-home-');
    fs.mkdirSync(path.join(home, '.claude'));
    fs.mkdirSync(path.join(home, 'dotfiles'));
    const own = '{\n  "model": "opus"\n}\n';
    fs.writeFileSync(path.join(home, 'dotfiles', 'settings.json'), own);
    const link = path.join(home, '.claude', 'settings.json');
    fs.symlinkSync('../dotfiles/settings.json', link);
    const r = await connect(home, ['claude-code', a.name, '--write']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the link is still a link');
    assert.equal(fs.readlinkSync(link), '../dotfiles/settings.json');
    assert.match(fs.readFileSync(path.join(home, 'dotfiles', 'settings.json'), 'utf8'), new RegExp(`agent=${a.name}`));
    assert.deepEqual(fs.readdirSync(path.join(home, 'dotfiles')), ['settings.json'], 'no temporary file left beside it');
    const d = await perchAt(served.dataDir, 'disconnect', home, ['claude-code', a.name, '--write']);
    assert.equal(d.code, 0, d.stderr);
    assert.ok(fs.lstatSync(link).isSymbolicLink());
    assert.equal(fs.readFileSync(path.join(home, 'dotfiles', 'settings.json'), 'utf8'), own);
  });
});
