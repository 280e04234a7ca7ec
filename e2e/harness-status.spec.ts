// An agent's harness session in the Fleet view: `perch hook notification` (the real CLI, fed Claude Code's documented
// Notification input) turns the agent's card to "needs you" with "waiting for you", and the feed shows it; a tool
// call (`perch hook pre-tool-use`) ends the wait. A real `perch serve` and Chromium; nothing reloads the page.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, openPage } from './harness';
import { runHook, type HookRun } from '../test/hook-runner';
import { claudeCodeNotification, claudeCodePreToolUseBash, claudeCodeSessionStart } from '../test/fixtures/status-hooks';

const LIVE = 5_000;

/** `perch hook SUB` as the harness runs it (the agent's key in the environment). */
function hook(sub: string, input: unknown, env: Record<string, string>): Promise<HookRun> {
  return runHook([sub], input, env, 15_000);
}

describe('harness status in the Fleet view', () => {
  const h = useHarness({ agents: ['kit'] });
  const card = () => h().page.getByRole('listitem', { name: 'Agent kit' });

  before(async () => {
    await h().page.setViewportSize({ width: 1280, height: 800 });
    await openPage(h().page, 'Fleet');
  });

  test('a Notification hook shows "waiting for you" on the agent card and in the feed; the next tool call ends the wait', { timeout: 60_000 }, async () => {
    const env = { PERCH_URL: h().mcpUrl, PERCH_KEY: h().agents.kit!.key };
    assert.deepEqual(await hook('session-start', claudeCodeSessionStart, env), { code: 0, stdout: '', stderr: '' });
    await card().getByLabel('Harness session').getByText('Claude Code: session started').waitFor({ timeout: LIVE });
    await card().getByLabel('Harness session').locator('code', { hasText: '/home/user/my-project' }).waitFor({ timeout: LIVE });

    assert.deepEqual(await hook('notification', claudeCodeNotification, env), { code: 0, stdout: '', stderr: '' });
    await card().getByRole('button', { name: /^kit: needs you/ }).waitFor({ timeout: LIVE });
    await card().getByLabel('Harness session').getByText('Claude Code: waiting for you').waitFor({ timeout: LIVE });
    await card().getByLabel('Harness session').getByText('— Claude needs your permission to use Bash').waitFor({ timeout: LIVE });
    await h().page.getByRole('feed', { name: 'Progress feed' }).getByText('Claude Code: waiting for you — Claude needs your permission to use Bash').waitFor({ timeout: LIVE });
    await h().screenshot('harness-status-waiting');

    assert.deepEqual(await hook('pre-tool-use', claudeCodePreToolUseBash, env), { code: 0, stdout: '', stderr: '' });
    await card().getByLabel('Harness session').getByText('Claude Code: working').waitFor({ timeout: LIVE });
    await card().getByRole('button', { name: /^kit: working/ }).waitFor({ timeout: LIVE });
    assert.deepEqual(h().pageErrors, []);
  });
});
