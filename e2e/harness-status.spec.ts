// An agent's harness session in the Fleet view: `perch hook notification` (the real CLI, fed Claude Code's documented
// Notification input) turns the agent's card to "needs you" with "waiting for you", and the feed shows it; a tool
// call (`perch hook pre-tool-use`) ends the wait. A real `perch serve` and Chromium; nothing reloads the page.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, openConversation, openPage, ownerCall } from './harness';
import { runHook, type HookRun } from '../test/support/hook-runner';
import {
  claudeCodeNotification,
  claudeCodePreToolUseBash,
  claudeCodeSessionEnd,
  claudeCodeSessionStart,
  claudeCodeStop,
} from '../test/fixtures/status-hooks';
import { on } from './pages/on';
import { fleetCard } from './pages/agents';

const LIVE = 5_000;

/** `perch hook SUB` as the harness runs it (the agent's key in the environment). */
function hook(sub: string, input: unknown, env: Record<string, string>): Promise<HookRun> {
  return runHook([sub], input, env, 15_000);
}

describe('harness status in the Fleet view', () => {
  const h = useHarness({ agents: ['kit'] });
  const card = () => fleetCard(h().page, 'kit');
  const session = () => card().harnessSession;

  before(async () => {
    await h().page.setViewportSize({ width: 1280, height: 800 });
    await openPage(h().page, 'Fleet');
  });

  test(
    'a Notification hook shows "waiting for you" on the agent card and in the feed; the next tool call ends the wait',
    { timeout: 60_000 },
    async () => {
      const env = { PERCH_URL: h().mcpUrl, PERCH_KEY: h().agents.kit!.key };
      assert.deepEqual(await hook('session-start', claudeCodeSessionStart, env), { code: 0, stdout: '', stderr: '' });
      await session().text('Claude Code: session started').waitFor({ timeout: LIVE });
      await session().find('code', { hasText: '/home/user/my-project' }).waitFor({ timeout: LIVE });

      assert.deepEqual(await hook('notification', claudeCodeNotification, env), { code: 0, stdout: '', stderr: '' });
      await card()
        .button(/^kit: needs you/)
        .waitFor({ timeout: LIVE });
      await session().text('Claude Code: waiting for you').waitFor({ timeout: LIVE });
      await session().text('— Claude needs your permission to use Bash').waitFor({ timeout: LIVE });
      await on(h().page)
        .feed('Progress feed')
        .text('Claude Code: waiting for you — Claude needs your permission to use Bash')
        .waitFor({ timeout: LIVE });
      await h().screenshot('harness-status-waiting');

      assert.deepEqual(await hook('pre-tool-use', claudeCodePreToolUseBash, env), { code: 0, stdout: '', stderr: '' });
      await session().text('Claude Code: working').waitFor({ timeout: LIVE });
      await card()
        .button(/^kit: working/)
        .waitFor({ timeout: LIVE });
      assert.deepEqual(h().pageErrors, []);
    },
  );

  test(
    'a Stop (turn ended) moves the agent out of "working" at once, a SessionEnd makes it offline; a new tool call makes it work again',
    { timeout: 60_000 },
    async () => {
      const env = { PERCH_URL: h().mcpUrl, PERCH_KEY: h().agents.kit!.key };
      assert.deepEqual(await hook('pre-tool-use', claudeCodePreToolUseBash, env), { code: 0, stdout: '', stderr: '' });
      await card()
        .button(/^kit: working/)
        .waitFor({ timeout: LIVE });
      assert.deepEqual(await hook('stop', claudeCodeStop, env), { code: 0, stdout: '', stderr: '' });
      await card()
        .button(/^kit: connected, idle · just now — Claude Code: turn ended$/)
        .waitFor({ timeout: LIVE });
      assert.deepEqual(await hook('pre-tool-use', claudeCodePreToolUseBash, env), { code: 0, stdout: '', stderr: '' });
      await card()
        .button(/^kit: working/)
        .waitFor({ timeout: LIVE });
      assert.deepEqual(await hook('session-end', claudeCodeSessionEnd, env), { code: 0, stdout: '', stderr: '' });
      await card()
        .button(/^kit: offline · just now — Claude Code: session ended$/)
        .waitFor({ timeout: LIVE });
      assert.deepEqual(h().pageErrors, []);
    },
  );

  for (const [width, height, suffix] of [
    [1280, 800, ''],
    [390, 844, '-phone'],
  ] as const) {
    test(
      `${width}×${height}: each tool call is one line under the agent, on its Fleet card and in the live feed (not "in Notes for kit"); a call the pause blocked shows too`,
      { timeout: 60_000 },
      async () => {
        const { page } = h();
        await page.setViewportSize({ width, height });
        if (suffix)
          await on(page)
            .nav('Sections')
            .link(/^Fleet/)
            .click();
        const env = { PERCH_URL: h().mcpUrl, PERCH_KEY: h().agents.kit!.key };
        const command = `npm test -- --grep ${width}`;
        const input = { ...claudeCodePreToolUseBash, tool_input: { command, description: 'Run the tests' } };
        assert.deepEqual(await hook('pre-tool-use', input, env), { code: 0, stdout: '', stderr: '' });
        const line = `Claude Code: Bash — ${command}`;
        const feed = on(page).feed('Progress feed');
        const row = feed.article('Claude Code activity of kit').filter({ hasText: line });
        await row.waitFor({ timeout: LIVE });
        assert.equal(await on(row).text('kit', { exact: true }).count(), 1, 'under the agent');
        assert.equal(await feed.text(/Notes for kit/).count(), 0, 'not under its notes conversation');
        await card().find('.fleet-last').filter({ hasText: line }).waitFor({ timeout: LIVE }); // the card's latest activity

        await ownerCall(h(), 'agents.pause', { agent: 'kit', reason: 'lunch' });
        const blocked = await hook('pre-tool-use', { ...input, tool_input: { command: `git push origin w${width}` } }, env);
        assert.match(blocked.stdout, /"permissionDecision":"deny"/);
        const blockedLine = `Claude Code: blocked Bash — git push origin w${width} (the agent is paused)`;
        await feed.article('Claude Code activity of kit').filter({ hasText: blockedLine }).waitFor({ timeout: LIVE });
        await card().find('.fleet-last').filter({ hasText: blockedLine }).waitFor({ timeout: LIVE });
        await h().screenshot(`harness-activity${suffix}`);
        await ownerCall(h(), 'agents.resume', { agent: 'kit' });
        await page.setViewportSize({ width: 1280, height: 800 });
        assert.deepEqual(h().pageErrors, []);
      },
    );

    test(
      `${width}×${height}: the conversation with the agent shows in its Live activity the harness rows Fleet shows, not "No activity yet"`,
      { timeout: 60_000 },
      async () => {
        const { page } = h();
        const kit = h().agents.kit!;
        const owner = (await kit.call('whoami')).owner.name as string;
        await kit.call('open_direct', { user: owner });
        await page.setViewportSize({ width, height });
        const env = { PERCH_URL: h().mcpUrl, PERCH_KEY: kit.key };
        const command = `npm run lint -- --w${width}`;
        assert.deepEqual(await hook('pre-tool-use', { ...claudeCodePreToolUseBash, tool_input: { command, description: 'Lint' } }, env), {
          code: 0,
          stdout: '',
          stderr: '',
        });
        if (suffix)
          await on(page)
            .nav('Sections')
            .link(/^Conversations/)
            .click();
        await openConversation(page, 'kit');
        const panel = on(page).role('complementary', 'Live activity');
        if (!(await panel.isVisible())) await on(page).button('Activity').click();
        await panel.waitFor({ timeout: LIVE });
        await on(panel)
          .article('Claude Code activity of kit')
          .filter({ hasText: `Claude Code: Bash — ${command}` })
          .waitFor({ timeout: LIVE });
        assert.equal(
          await on(panel)
            .text(/^No activity yet/)
            .count(),
          0,
        );
        await h().screenshot(`harness-conversation-activity${suffix}`);
        await page.setViewportSize({ width: 1280, height: 800 });
        assert.deepEqual(h().pageErrors, []);
      },
    );
  }
});
