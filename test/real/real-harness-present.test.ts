// The tests with the real Claude Code, Codex, GitHub Copilot CLI, Gemini CLI and OpenCode skip (with the reason) where the harness cannot run. A skip must not
// hide a broken install or a missing tmux on a machine that can run them: this test fails, naming what is missing,
// unless the owner of the run opted out with PERCH_REAL_HARNESS=0 or the platform has no harness binary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { claudeCode, codex, copilotCli, geminiCli, openCode } from '../support/real-harness';

const SUPPORTED = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64'].includes(`${process.platform}-${process.arch}`);
const optedOut = process.env.PERCH_REAL_HARNESS === '0';

test(
  'the real Claude Code, Codex, GitHub Copilot CLI, Gemini CLI and OpenCode (and tmux, which the Codex tests drive it in) are here, so their tests run rather than skip',
  { skip: optedOut ? 'PERCH_REAL_HARNESS=0' : !SUPPORTED ? `no harness binary for ${process.platform}-${process.arch}` : undefined },
  () => {
    const missing: string[] = [];
    const claude = claudeCode();
    if (claude.skip) missing.push(`Claude Code: ${claude.skip}`);
    const cx = codex();
    if (cx.skip) missing.push(`Codex: ${cx.skip}`);
    const cp = copilotCli();
    if (cp.skip) missing.push(`GitHub Copilot CLI: ${cp.skip}`);
    const gm = geminiCli();
    if (gm.skip) missing.push(`Gemini CLI: ${gm.skip}`);
    const oc = openCode();
    if (oc.skip) missing.push(`OpenCode: ${oc.skip}`);
    if (spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status !== 0) missing.push('tmux is not installed (apt-get install tmux)');
    assert.deepEqual(missing, [], `the real-harness tests would skip: ${missing.join('; ')} (PERCH_REAL_HARNESS=0 skips them on purpose)`);
  },
);
