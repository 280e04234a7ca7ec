// Standing rules suggested from the owner's own decisions, at both window sizes: after the owner approved the same
// prompt (`npm test`) of an agent three times, the next card of that shape offers "Always allow `npm test` for …?
// (approved 3× in two weeks)"; accepting it decides that prompt by the new rule, the prompt after it is decided at once,
// each card names the rule, and Settings → Decisions lists the rule with how many prompts it decided and when (the
// count moves while the list is open).
// A real `perch serve`, the real `perch hook permission-request`, and Chromium.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, ownerCall, within } from './harness';
import { runHook, type HookRun } from '../test/support/hook-runner';
import { ALLOW_OUTPUT, claudeCodeBash } from '../test/fixtures/permission-request';
import { on } from './pages/on';
import { requestCard } from './pages/approvals';

const LIVE = 10_000;

function npmTest(env: Record<string, string>, timeoutSecs = 60): Promise<HookRun> {
  const input = { ...claudeCodeBash, tool_input: { command: 'npm test', description: 'Run the tests' } };
  return runHook(['permission-request', '--timeout', String(timeoutSecs)], input, env, (timeoutSecs + 20) * 1000);
}

describe('suggested standing rules', () => {
  const h = useHarness({ agents: ['kit', 'pip'] });

  before(async () => {
    assert.deepEqual((await ownerCall(h(), 'rules.suggestions', {})).suggestions, []);
  });

  for (const [agent, width, height] of [
    ['kit', 1280, 800],
    ['pip', 390, 844],
  ] as const) {
    test(
      `${width}×${height}: a suggestion after the third identical approval; accepting it decides the prompt, the next one too, and the rule list counts them`,
      { timeout: 180_000 },
      async () => {
        const { page } = h();
        await page.setViewportSize({ width, height });
        const env = { PERCH_URL: h().mcpUrl, PERCH_KEY: h().agents[agent]!.key };
        await page.goto(`${h().baseUrl}/#/approvals`);
        for (let i = 1; i <= 3; i++) {
          const run = npmTest(env);
          const card = requestCard(page, 'Allow Bash: npm test?');
          await card.state('Waiting for you').waitFor({ timeout: LIVE });
          if (i === 3) assert.equal(await card.group('Suggested rule').count(), 0, 'no suggestion before the third approval');
          await card.approve();
          const r = await within(15_000, `approval ${i}`, run);
          assert.equal(r.stdout, `${ALLOW_OUTPUT}\n`);
        }
        const fourth = npmTest(env);
        const card = requestCard(page, 'Allow Bash: npm test?');
        await card.state('Waiting for you').waitFor({ timeout: LIVE });
        const offer = card.group('Suggested rule');
        await offer.waitFor({ timeout: LIVE });
        assert.match((await offer.textContent()) ?? '', new RegExp(`Always allow npm test for ${agent}\\? \\(approved 3× in two weeks\\)`));
        await offer.button('Accept').click();
        const r4 = await within(15_000, 'the accepted rule to decide the fourth prompt', fourth);
        assert.equal(r4.stdout, `${ALLOW_OUTPUT}\n`);
        const r5 = await within(15_000, 'the rule to decide the fifth prompt at once', npmTest(env));
        assert.equal(r5.stdout, `${ALLOW_OUTPUT}\n`);
        const mine = (await ownerCall(h(), 'rules.list', { agent })).rules;
        assert.equal(mine.length, 1);
        assert.deepEqual([mine[0].command_prefix, mine[0].behavior, mine[0].decided_count], ['npm test', 'allow', 2]);
        const conv = (await ownerCall(h(), 'requests.list', { state: 'approved' })) as { requests: { outcome?: { comment?: string } }[] };
        assert.equal(
          conv.requests.filter((q) => q.outcome?.comment?.startsWith(`standing rule ${mine[0].rule_id}:`)).length,
          2,
          'both cards name the rule',
        );
        assert.deepEqual((await ownerCall(h(), 'rules.suggestions', { agent })).suggestions, [], 'an accepted suggestion is gone');

        await page.goto(`${h().baseUrl}/#/settings`);
        const listed = on(page).list('Standing rules').item(`Always allow Bash npm test for ${agent}`);
        await listed.waitFor({ timeout: LIVE });
        // The list is drawn at once from what the window already holds and redrawn when rules.list answers.
        await listed.filter({ hasText: /decided 2 prompts, last / }).waitFor({ timeout: LIVE });
        // A prompt the rule decides while the list is open counts there without a reload.
        assert.equal((await within(15_000, 'the rule to decide a sixth prompt', npmTest(env))).stdout, `${ALLOW_OUTPUT}\n`);
        await listed.filter({ hasText: /decided 3 prompts, last / }).waitFor({ timeout: LIVE });
        await page.screenshot({ path: `e2e/artifacts/rule-suggestions-${width}.png` });
        assert.ok(await page.evaluate((w) => document.documentElement.scrollWidth <= w, width), 'no horizontal scroll');
      },
    );
  }
});
