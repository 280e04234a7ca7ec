// A blocked harness is not held by the undo window: a harness's permission prompt (`perch hook permission-request`,
// the real CLI fed Claude Code's documented input) is decided at once when the owner approves it (no Undo notice, the
// hook prints the decision), while an ordinary request keeps its undo window. Settings can give harness prompts the
// window too, and that choice survives a reload. A real `perch serve` and Chromium at 1280×800.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, openPage, ownerCall, within } from './harness';
import { runHook, type HookRun } from '../test/support/hook-runner';
import { ALLOW_OUTPUT, claudeCodeBash } from '../test/fixtures/permission-request';
import { on } from './pages/on';
import { screenTitle, settingsLink } from './pages/app';
import { decisionNotice, requestCard, undoButton } from './pages/approvals';

const LIVE = 10_000;
const WINDOW_BOX = 'Give harness prompts the 5 second undo window too';

describe('harness prompts and the undo window', () => {
  const h = useHarness({ agents: ['kit'] });
  let env: Record<string, string>;
  let convId: string;

  const stateOf = async (requestId: string): Promise<string> => {
    const { requests } = await ownerCall<{ requests: Array<{ request_id: string; state: string }> }>(h(), 'requests.list', {});
    return requests.find((r) => r.request_id === requestId)!.state;
  };
  const promptHook = (command: string, timeoutSecs = 60): Promise<HookRun> =>
    runHook(
      ['permission-request', '--timeout', String(timeoutSecs)],
      { ...claudeCodeBash, tool_input: { command, description: command } },
      env,
      (timeoutSecs + 20) * 1000,
    );

  before(async () => {
    await h().page.setViewportSize({ width: 1280, height: 800 });
    env = { PERCH_URL: h().mcpUrl, PERCH_KEY: h().agents.kit!.key };
    convId = (await h().agents.kit!.call('open_direct', { user: (await ownerCall(h(), 'hub.info', {})).owner.name })).conversation.conv_id;
  });

  test(
    'approving a harness prompt sends it at once (no Undo notice; the hook prints the decision); an ordinary request keeps its undo window',
    { timeout: 90_000 },
    async () => {
      const { page } = h();
      await openPage(page, 'Approvals');
      // Record whether an Undo button ever shows from here on.
      await page.evaluate(() => {
        const w = window as unknown as { undoSeen: boolean };
        w.undoSeen = false;
        new MutationObserver(() => {
          if ([...document.querySelectorAll('button')].some((b) => b.textContent?.trim() === 'Undo')) w.undoSeen = true;
        }).observe(document.body, { childList: true, subtree: true, characterData: true });
      });
      const hook = promptHook('npm run lint');
      const card = requestCard(page, 'Allow Bash: npm run lint?');
      await card.waitFor({ timeout: LIVE });
      await card.approve();
      const r = await within(20_000, 'the hook to print the decision', hook);
      assert.deepEqual([r.code, r.stdout.trim()], [0, ALLOW_OUTPUT], r.stderr);
      assert.equal(
        await page.evaluate(() => (window as unknown as { undoSeen: boolean }).undoSeen),
        false,
        'no undo window held the blocked harness',
      );

      // An ordinary request (a delay blocks nothing): the undo window stays.
      const req = await h().agents.kit!.call('request_human', {
        conv_id: convId,
        kind: 'approve',
        title: 'Publish the notes?',
        ttl_secs: 600,
      });
      await requestCard(page, 'Publish the notes?').approve();
      await undoButton(page).click();
      assert.equal(await stateOf(req.request_id), 'pending', 'the ordinary request waited for its undo window, and Undo took it back');
      assert.deepEqual(h().pageErrors, []);
    },
  );

  test(
    'Settings: "Give harness prompts the undo window too" is kept across a reload and holds a prompt in the window',
    { timeout: 90_000 },
    async () => {
      const { page } = h();
      await settingsLink(page).click();
      const box = on(page).checkbox(WINDOW_BOX);
      assert.equal(await box.isChecked(), false, 'harness prompts go at once by default');
      await box.check();
      await page.reload();
      await screenTitle(page, 'Settings').waitFor();
      assert.equal(await on(page).checkbox(WINDOW_BOX).isChecked(), true, 'the choice survives a reload');
      await h().screenshot('settings-prompt-window');

      await openPage(page, 'Approvals');
      const hook = promptHook('npm run build', 30);
      const card = requestCard(page, 'Allow Bash: npm run build?');
      await card.waitFor({ timeout: LIVE });
      await card.approve();
      await decisionNotice(page, 'Approve', 'Allow Bash: npm run build?').waitFor();
      const { requests } = await ownerCall<{ requests: Array<{ request_id: string; title: string; state: string }> }>(
        h(),
        'requests.list',
        {},
      );
      assert.equal(
        requests.find((x) => x.title === 'Allow Bash: npm run build?')!.state,
        'pending',
        'the prompt waits out the chosen window',
      );
      await undoButton(page).click();
      await card.waitFor();
      await card.reject();
      const r = await within(30_000, 'the hook to print the rejection after the window', hook);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /"behavior":\s*"deny"/, 'the rejection reached the hook once the window closed');
      assert.deepEqual(h().pageErrors, []);
    },
  );
});
