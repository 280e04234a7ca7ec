// `npm test` runs its steps through this: node --import tsx scripts/test-run.ts COMMAND [ARGS…]
// COMMAND runs with PERCH_TEST_RUN set to a value of this run's own (every process it starts inherits it); when it
// has ended, any process still carrying that value (a server, a harness's daemon, a tmux session a test left) is
// named, one line each, and ended, and the run fails (exit 1) even when COMMAND passed. Otherwise COMMAND's exit code.
import { spawn } from 'node:child_process';
import { endProcesses, leftAfter } from './leftovers';

/** How long processes still ending (a test's last child answering its SIGTERM) get before they count as left over. */
const GRACE_MS = Number(process.env.PERCH_LEFTOVER_GRACE_MS || 10_000);
const TEST_RUN_VAR = 'PERCH_TEST_RUN';

const [cmd, ...args] = process.argv.slice(2);
if (!cmd) {
  process.stderr.write('usage: node --import tsx scripts/test-run.ts COMMAND [ARGS…]\n');
  process.exit(2);
}
if (!Number.isSafeInteger(GRACE_MS) || GRACE_MS < 0 || GRACE_MS > 600_000) {
  process.stderr.write(
    `test-run: PERCH_LEFTOVER_GRACE_MS must be a whole number of ms, 0 to 600000 (got ${JSON.stringify(process.env.PERCH_LEFTOVER_GRACE_MS)})\n`,
  );
  process.exit(2);
}
const marker = `${process.pid}-${Date.now().toString(36)}`;
const child = spawn(cmd, args, { stdio: 'inherit', env: { ...process.env, [TEST_RUN_VAR]: marker }, shell: process.platform === 'win32' });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('error', (err) => {
  process.stderr.write(`test-run: ${cmd}: ${err.message}\n`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  void (async () => {
    const left = await leftAfter(TEST_RUN_VAR, marker, GRACE_MS);
    if (left.length) {
      process.stderr.write(
        `\ntest-run: ${left.length} process(es) started by this test run still running ${GRACE_MS / 1000} s after it ended (now ended):\n`,
      );
      for (const p of left) process.stderr.write(`  leftover process ${p.pid}: ${p.cmd.slice(0, 300)}\n`);
      await endProcesses(left, TEST_RUN_VAR, marker);
      process.exit(1);
    }
    process.exit(code ?? (signal ? 1 : 0));
  })();
});
