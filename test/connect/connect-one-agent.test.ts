// One agent per session, never two: kit connected at the user scope and rue with --project DIR both have Claude Code
// hooks that run for a session in DIR. `perch connect --write` records each connection; the hook door answers only the
// most specific one's hooks for the session's folder (rue's in DIR, kit's elsewhere) and gives the other the
// harness's "no decision" at once, filing nothing. `perch connect` says whose a folder's sessions will be, and warns
// when it shadows another agent. After `perch disconnect` of rue, kit answers in DIR again.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { perchAt, useTempDirs } from '../support/connect-kit';
import { addAgent, ownerOk, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { claudeCodeHttpHook, pendingRequestOf } from '../support/hook-runner';
import { ALLOW_OUTPUT, claudeCodeBash } from '../fixtures/permission-request';
import { claudeCodePreToolUseBash } from '../fixtures/status-hooks';

const served = useSharedServe();
const tempDir = useTempDirs();

const run = (cmd: 'connect' | 'disconnect', home: string, args: string[]) => perchAt(served.dataDir, cmd, home, args);

/** Posts a Claude Code HTTP hook of a written settings file as Claude Code does, with the agent's key. */
async function postHook(
  settingsFile: string,
  event: string,
  a: AgentKey,
  input: unknown,
): Promise<{ status: number; body: string; note: string | null }> {
  const hook = claudeCodeHttpHook(JSON.parse(fs.readFileSync(settingsFile, 'utf8')), event);
  const res = await fetch(hook.url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${a.key}` },
    body: JSON.stringify(input),
  });
  return { status: res.status, body: await res.text(), note: res.headers.get('perch-hook-note') };
}

async function pendingOf(a: AgentKey): Promise<any[]> {
  const { requests } = await ownerOk(served, 'requests.list', { state: 'pending' });
  return requests.filter((r: any) => r.requester?.id === a.id);
}

describe('one agent per session: the most specific recorded connection answers', () => {
  test("kit at the user scope, rue at --project DIR: in DIR only rue's prompt is filed (kit's hook answers {} at once), elsewhere kit's; connect says so; disconnect hands DIR back to kit", async () => {
    const kit = await addAgent(served.dataDir, uniqueName('kit'));
    const rue = await addAgent(served.dataDir, uniqueName('rue'));
    const home = tempDir('perch-one-home-');
    const repo = tempDir('perch-one-repo-');
    const elsewhere = tempDir('perch-one-elsewhere-');
    const k = await run('connect', home, ['claude-code', kit.name, '--write']);
    assert.equal(k.code, 0, k.stderr);
    assert.match(k.stdout, new RegExp(`^Claude Code sessions will be ${kit.name}'s wherever no project connects another agent\\.$`, 'm'));
    const r = await run('connect', home, ['claude-code', rue.name, '--project', repo, '--write']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^Claude Code sessions in ${repo} and below will be ${rue.name}'s\\.$`, 'm'));
    assert.match(
      r.stderr,
      new RegExp(
        `^perch connect: warning: ${rue.name} shadows ${kit.name} \\(user scope, ${home}\\) in ${repo}: ${kit.name}'s Claude Code hooks stay silent for sessions there`,
        'm',
      ),
    );
    const again = await run('connect', home, ['claude-code', kit.name]);
    assert.match(again.stdout, new RegExp(`except in ${repo} \\(${rue.name}'s\\)`), 'the user scope names the project that is rue’s');

    const kitSettings = path.join(home, '.claude', 'settings.json');
    const rueSettings = path.join(repo, '.claude', 'settings.local.json');
    const inRepo = { ...claudeCodeBash, cwd: path.join(repo, 'src') };
    // Both harness hooks run for one prompt in DIR: kit's answers "no decision" at once and files nothing.
    const silent = await postHook(kitSettings, 'PermissionRequest', kit, inRepo);
    assert.deepEqual([silent.status, silent.body], [200, '{}']);
    assert.match(decodeURIComponent(silent.note ?? ''), new RegExp(`${rue.name} answers for sessions in this folder`));
    const status = await postHook(kitSettings, 'PreToolUse', kit, { ...claudeCodePreToolUseBash, cwd: repo });
    assert.deepEqual([status.status, status.body], [200, '{}']);
    const asked = postHook(rueSettings, 'PermissionRequest', rue, inRepo);
    const card = await pendingRequestOf(served, rue, 30_000);
    assert.deepEqual(await pendingOf(kit), [], "no card of kit's for the same prompt");
    await ownerOk(served, 'requests.decide', { request_id: card.request_id, decision: 'approve' });
    assert.equal((await asked).body, ALLOW_OUTPUT);

    // Elsewhere only kit's hooks run, and they answer.
    const outside = postHook(kitSettings, 'PermissionRequest', kit, { ...claudeCodeBash, cwd: elsewhere });
    const kitCard = await pendingRequestOf(served, kit, 30_000);
    await ownerOk(served, 'requests.decide', { request_id: kitCard.request_id, decision: 'approve' });
    assert.equal((await outside).body, ALLOW_OUTPUT);

    // rue disconnected from DIR: kit answers there again.
    const d = await run('disconnect', home, ['claude-code', rue.name, '--project', repo, '--write']);
    assert.equal(d.code, 0, d.stderr);
    const back = postHook(kitSettings, 'PermissionRequest', kit, inRepo);
    const backCard = await pendingRequestOf(served, kit, 30_000);
    await ownerOk(served, 'requests.decide', { request_id: backCard.request_id, decision: 'approve' });
    assert.equal((await back).body, ALLOW_OUTPUT);
  });

  test("a revoked agent's recorded connection silences nobody: kit's prompt in rue's folder is filed once rue is revoked", async () => {
    const kit = await addAgent(served.dataDir, uniqueName('kit'));
    const rue = await addAgent(served.dataDir, uniqueName('rue'));
    const home = tempDir('perch-one-home-');
    const repo = tempDir('perch-one-repo-');
    assert.equal((await run('connect', home, ['claude-code', kit.name, '--write'])).code, 0);
    assert.equal((await run('connect', home, ['claude-code', rue.name, '--project', repo, '--write'])).code, 0);
    await ownerOk(served, 'agents.revoke', { agent: rue.name });
    const asked = postHook(path.join(home, '.claude', 'settings.json'), 'PermissionRequest', kit, { ...claudeCodeBash, cwd: repo });
    const card = await pendingRequestOf(served, kit, 30_000);
    await ownerOk(served, 'requests.decide', { request_id: card.request_id, decision: 'approve' });
    assert.equal((await asked).body, ALLOW_OUTPUT);
  });
});
