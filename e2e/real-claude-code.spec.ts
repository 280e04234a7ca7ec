// The real Claude Code's permission prompt in the owner's browser inbox: `claude -p` (pinned, installed on
// demand: test/support/real-harness.ts; a scripted stand-in model asks for a Bash command) runs configured only by
// `perch connect claude-code kit --write` (its PermissionRequest hook an HTTP hook to the hub; `perch` not on its
// PATH); the prompt appears live in Approvals, and Approve in the browser lets the command run, Reject keeps it
// from running.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useHarness, openPage } from './harness';
import { assertNoPerch, claudeCode, connectWrite, pathWithoutPerch, runClaude } from '../test/support/real-harness';
import { resultText, startStandIn, toolResults, type StandIn } from '../test/support/model-standin';
import { keyEnvVar } from '../src/shared/agents/snippets';
import { requestCard } from './pages/approvals';

const claude = claudeCode();

describe('the real Claude Code asks in the browser inbox', { skip: claude.skip }, () => {
  const h = useHarness({ agents: ['kit'] });
  let model: StandIn;
  let home: string;
  let n = 0;

  before(async () => {
    model = await startStandIn((req) => {
      if (!req.tools?.some((t) => t.name === 'Bash')) return [{ type: 'text', text: 'ok' }];
      const done = toolResults(req)[0];
      if (done) return [{ type: 'text', text: `bash said: ${resultText(done)}` }];
      // The command names the run, so each prompt is its own card.
      const run = /run (\d+)/.exec(JSON.stringify(req.messages[0]?.content ?? ''))?.[1] ?? '0';
      return [
        {
          type: 'tool_use',
          id: 'toolu_bash',
          name: 'Bash',
          input: { command: `touch browser-${run}.marker`, description: 'Touch the marker file' },
        },
      ];
    });
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-e2e-claude-'));
    await connectWrite('claude-code', 'kit', h().dataDir, home);
  });
  after(async () => {
    await model?.close();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  /** claude -p as kit, its Bash prompt going to Perch; resolves with the project dir when it exits. */
  async function prompt(): Promise<{ run: number; done: Promise<{ dir: string; code: number | null }> }> {
    const kit = h().agents.kit!;
    const run = ++n;
    const dir = fs.mkdtempSync(path.join(home, 'project-'));
    const env = { PATH: pathWithoutPerch(), ANTHROPIC_BASE_URL: model.url, [keyEnvVar('kit')]: kit.key };
    assertNoPerch({ ...env, HOME: home });
    const done = runClaude(claude.bin!, ['-p', `Touch the marker, run ${run}.`], { cwd: dir, home, env }).then((r) => ({
      dir,
      code: r.code,
    }));
    return { run, done };
  }

  test('the prompt appears live in Approvals with its command; Approve runs it', { timeout: 150_000 }, async () => {
    const { page } = h();
    await openPage(page, 'Approvals');
    const { run, done } = await prompt();
    const card = requestCard(page, `Allow Bash: touch browser-${run}.marker?`);
    await card.waitFor({ timeout: 60_000 });
    await card.text(`touch browser-${run}.marker`, { exact: false }).first().waitFor();
    await h().screenshot('real-claude-code-prompt');
    await card.approve();
    const { dir, code } = await done;
    assert.equal(code, 0);
    assert.ok(fs.existsSync(path.join(dir, `browser-${run}.marker`)), 'the approved command ran');
    assert.deepEqual(h().pageErrors, []);
  });

  test('Reject in the browser: the command does not run and Claude Code hands the denial to the model', { timeout: 150_000 }, async () => {
    const { page } = h();
    await openPage(page, 'Approvals');
    const before = model.requests.length;
    const { run, done } = await prompt();
    const card = requestCard(page, `Allow Bash: touch browser-${run}.marker?`);
    await card.waitFor({ timeout: 60_000 });
    await card.reject({ comment: 'not now' });
    const { dir } = await done;
    assert.equal(fs.existsSync(path.join(dir, `browser-${run}.marker`)), false, 'the rejected command did not run');
    const denial = model.requests
      .slice(before)
      .flatMap(toolResults)
      .find((b) => b.tool_use_id === 'toolu_bash');
    assert.equal(denial?.is_error, true);
    assert.match(resultText(denial), /Denied by the owner in Perch: not now/);
  });
});
