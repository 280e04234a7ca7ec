// No secret in any process's argv: the curl hooks `perch connect` writes for Codex and Cursor hand the agent's key to
// curl as a config on a pipe written by the shell's own printf, so /proc/PID/cmdline (what `ps` shows every local
// user) never holds it, while the hook waits on a real prompt of a real `perch serve`. Run the way Codex runs a hook
// ($SHELL -lc COMMAND) under dash, bash and zsh; Cursor's hook is the same command.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { addAgent, cliAsync, exitOf, ownerOk, uniqueName, useSharedServe, tempDir } from '../support/serve-harness';
import { pendingRequestOf } from '../support/hook-runner';
import { ALLOW_OUTPUT, codexBash } from '../fixtures/permission-request';
import { codexPreToolUse } from '../fixtures/status-hooks';
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
