// Connections found in the harnesses' own files: made by an earlier Perch (no record in this hub's database), they are
// recorded when `perch serve` starts, so the Agents page lists them and the hook door's "one agent per session" holds
// for them too. The files are written by the real `perch connect --write` against another data dir (its records stay
// there); this hub, with HOME pointing at the same files, starts with no record and finds them. Links, odd project
// lists and files that are not JSON are read as nothing.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addAgent, cliAsync, eventually, ownerOk, rawPost, removeDataDir, startServe, tempDataDir } from '../support/serve-harness';
import { claudeCodeBash } from '../fixtures/permission-request';

const cleanup: Array<() => void> = [];
after(() => {
  for (const f of cleanup.reverse()) f();
});

function tempDir(prefix: string): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  cleanup.push(() => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}

async function connect(dataDir: string, home: string, args: string[]): Promise<void> {
  const r = await cliAsync(['connect', ...args, '--write', '--data-dir', dataDir], { env: { HOME: home } });
  assert.equal(r.code, 0, r.stderr);
}

test("connections in the harnesses' files that nothing records (an earlier Perch's) are recorded at start: listed on the agent, and in the project folder only the project's agent answers", async () => {
  const home = tempDir('perch-found-home-');
  const repo = tempDir('perch-found-repo-');
  const linked = tempDir('perch-found-linked-');
  const odd = tempDir('perch-found-odd-');
  // The earlier hub: kit at the user scope, rue in the repo, both for Claude Code; kit for Codex, GitHub Copilot CLI,
  // Gemini CLI and OpenCode too.
  const earlier = tempDataDir();
  cleanup.push(() => removeDataDir(earlier));
  for (const name of ['kit', 'rue']) await addAgent(earlier, name);
  await connect(earlier, home, ['claude-code', 'kit']);
  await connect(earlier, home, ['claude-code', 'rue', '--project', repo]);
  await connect(earlier, home, ['codex', 'kit']);
  for (const client of ['copilot', 'gemini', 'opencode']) await connect(earlier, home, [client, 'kit']);
  // Claude Code lists the folders it was used in; this list also names a folder that is gone, a relative path, a
  // folder whose .mcp.json is a link to the repo's, and one whose .mcp.json is not JSON.
  fs.symlinkSync(path.join(repo, '.mcp.json'), path.join(linked, '.mcp.json'));
  fs.writeFileSync(path.join(odd, '.mcp.json'), '{"mcpServers": {"perch-kit": ');
  const claudeJson = path.join(home, '.claude.json');
  const listed = JSON.parse(fs.readFileSync(claudeJson, 'utf8'));
  listed.projects = { [repo]: {}, [linked]: {}, [odd]: {}, '/no/such/folder': {}, 'relative/folder': {} };
  fs.writeFileSync(claudeJson, JSON.stringify(listed, null, 2));
  const filesBefore = new Map(
    [claudeJson, path.join(repo, '.mcp.json'), path.join(odd, '.mcp.json')].map((f) => [f, fs.readFileSync(f, 'utf8')]),
  );

  // This hub knows kit and rue (the same names) but records nothing of them.
  const dataDir = tempDataDir();
  cleanup.push(() => removeDataDir(dataDir));
  const kit = await addAgent(dataDir, 'kit');
  const rue = await addAgent(dataDir, 'rue');
  const served = await startServe(dataDir, { env: { HOME: home } });
  try {
    const connectionsOf = async (id: string) =>
      ((await ownerOk(served, 'agents.list')).agents.find((a: any) => a.id === id)?.connections ?? []) as Array<Record<string, string>>;
    await eventually(async () => (await connectionsOf(rue.id)).length > 0, 20_000, "rue's connection found");
    const sort = (l: Array<Record<string, string>>) => l.map((c) => `${c.client} ${c.scope} ${c.dir}`).sort();
    assert.deepEqual(sort(await connectionsOf(kit.id)), [
      `claude-code user ${home}`,
      `codex user ${home}`,
      `copilot user ${home}`,
      `gemini user ${home}`,
      `opencode user ${home}`,
    ]);
    assert.deepEqual(sort(await connectionsOf(rue.id)), [`claude-code project ${repo}`], 'the linked and the odd folder hold nothing');
    assert.match(
      served.stderr(),
      new RegExp(`perch: found rue connected in claude-code's files \\(${repo.replace(/[/.]/g, '\\$&')}\\); recorded it`),
    );
    for (const [f, text] of filesBefore) assert.equal(fs.readFileSync(f, 'utf8'), text, `${f} is only read`);

    // The door: a Claude Code session in the repo is rue's; kit's hook for it stays silent and files nothing.
    const door = `${served.mcpUrl.replace(/\/mcp$/, '')}/hook/claude-code/permission-request?timeout=1`;
    const silent = await rawPost(door, kit.key, { ...claudeCodeBash, cwd: repo });
    assert.equal(silent.text, '{}');
    assert.match(decodeURIComponent(silent.headers.get('perch-hook-note') ?? ''), /^rue answers for sessions in this folder/);
    const { requests } = await ownerOk(served, 'requests.list', {});
    assert.equal(requests.filter((r: any) => r.requester?.id === kit.id).length, 0, "kit's hook filed nothing in rue's folder");
  } finally {
    assert.equal(await served.stop(), 0);
  }
});
