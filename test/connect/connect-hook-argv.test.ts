// No secret in any process's argv: the curl hooks `perch connect` writes for Codex and Cursor hand the agent's key to
// curl as a config on a pipe written by the shell's own printf, so /proc/PID/cmdline (what `ps` shows every local
// user) never holds it, while the hook waits on a real prompt of a real `perch serve`. Run the way Codex runs a hook
// ($SHELL -lc COMMAND) under dash, bash and zsh; Cursor's hook is the same command. Copilot's two deciding hooks
// (permissionRequest, preToolUse) are the same curl command run the way Copilot runs a command hook's "bash" (bash -c),
// failing open: a reachable hub's answer holds, an unreachable one (or a refusal, or no curl) is {} with exit 0.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { addAgent, cliAsync, exitOf, ownerOk, uniqueName, useSharedServe, tempDir } from '../support/serve-harness';
import { pendingRequestOf } from '../support/hook-runner';
import { ALLOW_OUTPUT, codexBash } from '../fixtures/permission-request';
import { codexPreToolUse } from '../fixtures/status-hooks';
import { copilotPermissionBash, copilotPreToolUseBash } from '../fixtures/copilot-hooks';
import net from 'node:net';
import { keyEnvVar } from '../../src/shared/agents/snippets';

const served = useSharedServe();

/** Every running process's command line, as any local user may read it. */
function allCmdlines(): Array<{ pid: string; argv: string }> {
  const out: Array<{ pid: string; argv: string }> = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      out.push({ pid, argv: fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ') });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

const SHELLS = ['/usr/bin/dash', '/bin/bash', '/usr/bin/zsh'].map((s) => (fs.existsSync(s) ? s : path.basename(s)));

describe("the key is in no process's argv while a written curl hook waits", () => {
  for (const shell of SHELLS) {
    test(`codex PermissionRequest hook under ${path.basename(shell)} -lc: curl waits on the prompt, no /proc/*/cmdline holds the key, the answer is the owner's allow`, async () => {
      assert.ok(fs.existsSync(shell), `${shell} is installed (apt-get install ${path.basename(shell)})`);
      const a = await addAgent(served.dataDir, uniqueName('argv'));
      const home = tempDir('perch-argv-home-');
      const w = await cliAsync(['connect', 'codex', a.name, '--write', '--data-dir', served.dataDir], { env: { HOME: home } });
      assert.equal(w.code, 0, w.stderr);
      const hooks = JSON.parse(fs.readFileSync(path.join(home, '.codex', 'hooks.json'), 'utf8')).hooks;
      const env = { PATH: process.env.PATH ?? '', HOME: home, SHELL: shell, [keyEnvVar(a.name)]: a.key };
      const run = (command: string, input: unknown) => {
        const child = spawn(shell, ['-lc', command], { env, stdio: ['pipe', 'pipe', 'pipe'] });
        child.stdin!.end(JSON.stringify(input));
        return exitOf(child, command, 60_000);
      };

      const status = await run(hooks.PreToolUse[0].hooks[0].command, codexPreToolUse);
      assert.equal(status.code, 0, status.stderr);
      assert.doesNotThrow(() => JSON.parse(status.stdout), status.stdout);

      const asked = run(hooks.PermissionRequest[0].hooks[0].command, codexBash);
      const req = await pendingRequestOf(served, a, 30_000);
      const procs = allCmdlines();
      const curl = procs.filter((p) => /\bcurl\b/.test(p.argv) && p.argv.includes(`/hook/codex/permission-request?agent=${a.name}`));
      assert.ok(curl.length >= 1, 'the hook is waiting: its curl is running');
      const leaks = procs.filter((p) => p.argv.includes(a.key));
      assert.deepEqual(leaks, [], 'no process shows the key in its argv');
      await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
      const done = await asked;
      assert.deepEqual([done.code, done.stdout], [0, ALLOW_OUTPUT], done.stderr);
    });
  }
});

/** A 127.0.0.1 port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe("Copilot's command hooks (perch connect copilot --write) make the one request with curl and fail open", () => {
  async function connected() {
    const a = await addAgent(served.dataDir, uniqueName('cpcmd'));
    const home = tempDir('perch-cpcmd-home-');
    const w = await cliAsync(['connect', 'copilot', a.name, '--write', '--data-dir', served.dataDir], { env: { HOME: home } });
    assert.equal(w.code, 0, w.stderr);
    const hooks = JSON.parse(fs.readFileSync(path.join(home, '.copilot', 'hooks', 'perch.json'), 'utf8')).hooks;
    const env = { PATH: process.env.PATH ?? '', HOME: home, [keyEnvVar(a.name)]: a.key };
    const run = (command: string, input: unknown, more: Record<string, string> = {}) => {
      const child = spawn('/bin/bash', ['-c', command], { env: { ...env, ...more }, stdio: ['pipe', 'pipe', 'pipe'] });
      child.stdin!.end(JSON.stringify(input));
      return exitOf(child, command, 60_000);
    };
    return { a, run, pre: hooks.preToolUse[0].bash as string, perm: hooks.permissionRequest[0].bash as string };
  }

  test("a reachable hub's answers hold: {} for a running agent, a paused agent's deny with Perch's reason, the owner's allow at a prompt (the key in no argv meanwhile)", async () => {
    const { a, run, pre, perm } = await connected();
    assert.deepEqual((await run(pre, copilotPreToolUseBash)).stdout, '{}');
    await ownerOk(served, 'agents.pause', { agent: a.id, reason: 'budget review' });
    const paused = await run(pre, copilotPreToolUseBash);
    assert.equal(paused.code, 0, paused.stderr);
    const deny = JSON.parse(paused.stdout);
    assert.equal(deny.permissionDecision, 'deny');
    assert.match(deny.permissionDecisionReason, /^Paused in Perch \(the owner paused this agent: budget review\)/);
    await ownerOk(served, 'agents.resume', { agent: a.id });
    const asked = run(perm, copilotPermissionBash);
    const req = await pendingRequestOf(served, a, 30_000);
    assert.equal(req.context.harness, 'copilot');
    assert.deepEqual(
      allCmdlines().filter((p) => p.argv.includes(a.key)),
      [],
      'no process shows the key in its argv',
    );
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
    const done = await asked;
    assert.deepEqual([done.code, JSON.parse(done.stdout)], [0, { behavior: 'allow' }], done.stderr);
  });

  test('the hub not reachable (nothing listening), a refusal (no key: 401) or no curl on the PATH: {} and exit 0, so Copilot carries on as without Perch', async () => {
    const { a, run, pre, perm } = await connected();
    const port = await closedPort();
    const down = (c: string) => c.replace(/http:\/\/127\.0\.0\.1:\d+\//, `http://127.0.0.1:${port}/`);
    assert.notEqual(down(pre), pre, 'the hub URL is in the command');
    for (const [what, command, more] of [
      ['preToolUse, hub down', down(pre), {}],
      ['permissionRequest, hub down', down(perm), {}],
      ['preToolUse, no key (401)', pre, { [keyEnvVar(a.name)]: '' }],
      ['permissionRequest, no curl', perm, { PATH: '/nonexistent' }],
    ] as [string, string, Record<string, string>][]) {
      const r = await run(command, what.startsWith('permission') ? copilotPermissionBash : copilotPreToolUseBash, more);
      assert.deepEqual([r.code, r.stdout], [0, '{}'], `${what}: ${r.stderr}`);
    }
  });
});
