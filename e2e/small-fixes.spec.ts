// Smaller things the owner ran into: dialog focus (in and back), connection snippets shown again without the
// key, the "new messages" marker, Copy on code blocks, search hits naming their conversation, wake recipes that
// fill the form, the inbox not saying "Nothing is waiting" above a handoff, and "Add an agent" as a link.
import { before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, openConversation, openPage, ownerCall, timeline } from './harness';
import { on } from './pages/on';
import { addAgentButton, addAgentDialog, openAgentDialog, snippetText } from './pages/agents';
import { screenTitle, settingsSections, sidebar } from './pages/app';
import { nothingWaiting } from './pages/approvals';

describe('small fixes', () => {
  const h = useHarness({ agents: ['kit'] });
  let convId: string;

  before(
    async () => {
      convId = (await h().agents.kit!.call('open_direct', { user: 'owner' })).conversation.conv_id;
      await h().context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h().baseUrl });
    },
    { timeout: 90_000 },
  );
  beforeEach(
    async () => {
      // Each test starts from a fresh page (a dialog a failed test left open would block the next).
      await h().page.reload();
      await sidebar(h().page).waitFor({ timeout: 20_000 });
    },
    { timeout: 30_000 },
  );

  test(
    'Add agent opens with focus on Name (typing fills it, nothing closes); Escape returns focus to the button',
    { timeout: 60_000 },
    async () => {
      const { page } = h();
      await openPage(page, 'Agents');
      const opener = addAgentButton(page);
      await opener.click();
      const dialog = addAgentDialog(page);
      await dialog.waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'agent-name', 'focus starts in the Name field');
      await page.keyboard.type('scout ');
      await page.keyboard.press('Enter'); // would have "clicked" Close when it had the focus
      assert.equal(await dialog.isVisible(), true, 'typing did not close the dialog');
      assert.equal(await dialog.nameField.inputValue(), 'scout ');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      assert.equal(await opener.evaluate((b) => b === document.activeElement), true, 'focus is back on Add agent');
    },
  );

  test(
    'connection snippets again after the key dialog, with the key as PERCH_KEY_<AGENT> (perch connect for Claude Code and Codex, Gemini reads the variable, plain perch; for a key allowed from containers, the hooks files for inside one)',
    { timeout: 60_000 },
    async () => {
      const { page } = h();
      await openPage(page, 'Agents');
      const dialog = await openAgentDialog(page, 'Connect', 'kit');
      const snippet = (label: string) => snippetText(dialog, label);
      const claude = await snippet('Claude Code');
      assert.match(claude, /^export PERCH_KEY_KIT=/m);
      assert.match(claude, /^perch connect claude-code kit --write /m, 'one way to connect Claude Code');
      assert.match(await snippet('Gemini CLI'), /^perch connect gemini kit --write .*\ngemini$/m, 'Gemini CLI by perch connect');
      assert.match(await snippet('Codex CLI'), /^perch connect codex kit --write /m);
      const call = await snippet('perch call');
      assert.match(call, /PERCH_KEY=\$PERCH_KEY_KIT perch call whoami/);
      assert.doesNotMatch(call, /npx perch/);
      assert.doesNotMatch(await dialog.innerText(), /perch_[A-Za-z0-9]{8,}/, 'no key anywhere: Perch keeps only its hash');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });

      // A key that may connect from containers: the hooks perch connect would write inside one, to the container
      // listener's hook door (the same builder as the CLI's).
      await ownerCall(h(), 'agents.set_from', { agent: 'kit', from: ['local', 'containers'] });
      try {
        await page.reload();
        await openPage(page, 'Agents');
        await openAgentDialog(page, 'Connect', 'kit');
        const port = new URL(h().mcpUrl).port;
        const claudeHooks = JSON.parse(await snippet('Claude Code hooks inside the container'));
        assert.deepEqual(claudeHooks.hooks.PermissionRequest[0].hooks[0], {
          type: 'http',
          url: `http://host.docker.internal:${port}/hook/claude-code/permission-request?agent=kit`,
          headers: { Authorization: 'Bearer $PERCH_KEY_KIT' },
          allowedEnvVars: ['PERCH_KEY_KIT'],
          timeout: 600,
        });
        assert.match(
          await snippet('Codex hooks inside the container'),
          new RegExp(`--data-binary @/dev/fd/3 'http://host\\.docker\\.internal:${port}/hook/codex/permission-request\\?agent=kit'`),
        );
        assert.match(await snippet('Cursor hooks inside the container'), /"beforeShellExecution": \[/);
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });
      } finally {
        await ownerCall(h(), 'agents.set_from', { agent: 'kit', from: ['local'] });
      }
    },
  );

  test('wake recipes fill the form', { timeout: 60_000 }, async () => {
    const { page } = h();
    await openPage(page, 'Agents');
    const dialog = await openAgentDialog(page, 'Wake', 'kit');
    // The fields of one row start level under their labels; the two under "Timeout (s) · runs per hour" side by side.
    const fields = [
      dialog.textbox('Working directory'),
      dialog.textbox('Environment (K=V per line)'),
      dialog.role('spinbutton', 'Timeout (s) · runs per hour'),
      dialog.role('spinbutton', 'Runs per hour', { exact: true }),
    ];
    const tops = await Promise.all(fields.map(async (f) => (await f.boundingBox())!.y));
    assert.ok(
      Math.max(...tops) - Math.min(...tops) <= 1,
      `the row's fields start level (tops ${tops.map((t) => t.toFixed(0)).join(', ')})`,
    );
    await dialog.text('Recipes').click();
    await dialog.button('Use the Gemini CLI recipe').click();
    assert.equal(await dialog.radio('Shell string').isChecked(), true);
    assert.match(await dialog.textbox('Shell command').inputValue(), /^gemini -p ".+" --yolo$/);
    assert.equal(await dialog.textbox('Working directory').inputValue(), 'path/to/project');
    await dialog.button('Use the OpenCode recipe').click();
    assert.match(
      await dialog.textbox('Shell command').inputValue(),
      /^OPENCODE_CONFIG_CONTENT="\$PERCH_OPENCODE_CONFIG" opencode run ".+"$/,
    );
    await dialog.button('Use the A plain script with perch call recipe').click();
    assert.equal(await dialog.radio('Command (no shell)').isChecked(), true);
    assert.equal(await dialog.textbox('Program and arguments, one per line').inputValue(), 'sh\n./wake-kit.sh');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  test('scrolled up while messages arrive: a "new messages" marker brings the reader down', { timeout: 90_000 }, async () => {
    const { page } = h();
    const kit = h().agents.kit!;
    for (let i = 1; i <= 30; i++)
      await kit.call('send_message', { conv_id: convId, text: `Line ${i} of the nightly report.\nDetails follow.` });
    await openConversation(page, 'kit');
    const log = timeline(page);
    await log.text('Line 30 of the nightly report.').waitFor();
    await log.evaluate((el) => {
      el.scrollTop = 0;
      el.dispatchEvent(new Event('scroll'));
    });
    await kit.call('send_message', { conv_id: convId, text: 'Something new at the bottom.' });
    const marker = on(page).button(/^1 new message/);
    await marker.waitFor({ timeout: 10_000 });
    await marker.click();
    await log.text('Something new at the bottom.').waitFor();
    await marker.waitFor({ state: 'detached' });
  });

  test('code blocks have a Copy button that copies the code', { timeout: 60_000 }, async () => {
    const { page } = h();
    await h().agents.kit!.call('send_message', { conv_id: convId, text: 'Run this:\n\n```sh\nnpm run build && npm test\n```' });
    await openConversation(page, 'kit');
    const msg = timeline(page).article().filter({ hasText: 'Run this:' });
    // The button sits above the code, not over its first line.
    const gap = await on(msg)
      .find('pre')
      .evaluate(
        (pre) => pre.querySelector('code')!.getClientRects()[0]!.top - pre.querySelector('.code-copy')!.getBoundingClientRect().bottom,
      );
    assert.ok(gap >= 0, `Copy covers the code's first line by ${-gap} px`);
    await on(msg).button('Copy code').click();
    await on(msg).button('Copy code').text('Copied').waitFor();
    assert.equal((await page.evaluate(() => navigator.clipboard.readText())).trim(), 'npm run build && npm test');
  });

  test('search results say which conversation they come from', { timeout: 60_000 }, async () => {
    const { page } = h();
    await h()
      .agents.kit!.call('create_group', { title: 'Budget 2027', members: ['owner'] })
      .then((r: any) => h().agents.kit!.call('send_message', { conv_id: r.conversation.conv_id, text: 'The zeppelin line item is back.' }));
    const filter = on(page).role('searchbox', 'Filter conversations');
    await filter.fill('zeppelin');
    await filter.press('Enter');
    const hits = on(page).region('Search results');
    await hits.button(/kit in Budget 2027 ·/).waitFor({ timeout: 10_000 });
    await filter.fill('');
  });

  test('"Nothing is waiting for you" is not said above a conversation handed to you', { timeout: 60_000 }, async () => {
    const { page } = h();
    await h().agents.kit!.call('handoff', { conv_id: convId, note: 'Over to you for the vendor call.' });
    await openPage(page, 'Approvals');
    const handed = on(page).region('Handed to you');
    await handed.waitFor({ timeout: 10_000 });
    await on(page).text('1 conversation handed to you.').waitFor();
    assert.match(await handed.innerText(), /^kit: Over to you for the vendor call\.$/m, 'the direct conversation and its agent named once');
    assert.equal(await nothingWaiting(page).count(), 0);
  });

  test('"Start a conversation" with no agents links to adding one', { timeout: 60_000 }, async () => {
    const { page } = h();
    await ownerCall(h(), 'agents.revoke', { agent: 'kit' });
    await page.goto(`${h().baseUrl}/#/`);
    await page.reload();
    await on(page).button('Start a conversation').click();
    const dialog = on(page).dialog('New conversation');
    await dialog.text(/No agents yet/).waitFor({ timeout: 10_000 });
    await dialog.link('Add an agent').click();
    await dialog.waitFor({ state: 'detached' });
    await screenTitle(page, 'Agents').waitFor();
    assert.deepEqual(h().pageErrors, []);
  });

  for (const [width, height, suffix] of [
    [1280, 800, ''],
    [390, 844, '-phone'],
  ] as const) {
    test(
      `${width}×${height}: Settings' tabs match their content (Decisions holds decisions, standing rules and their notifications only; containers and export have their own), and retention has its form`,
      { timeout: 60_000 },
      async () => {
        const { page } = h();
        await page.setViewportSize({ width, height });
        await page.goto(`${h().baseUrl}/#/settings`);
        const tabs = settingsSections(page);
        await tabs.waitFor();
        assert.deepEqual(await tabs.link().allTextContents(), ['Decisions', 'Containers', 'Data', 'Wake runs', 'Phone']);
        const headings = () => on(page).find('.page.settings h2').allTextContents();
        // The Decisions tab holds how decisions are sent, the standing rules and their suggestions, and how what waits
        // for a decision reaches the owner.
        assert.deepEqual(
          await headings(),
          ['Decisions', 'Standing rules', 'Notifications'],
          'the Decisions tab holds the decisions, the standing rules and their notifications only',
        );
        await tabs.link('Containers').click();
        await on(page).heading('Agents in containers', { level: 2 }).waitFor();
        assert.deepEqual(await headings(), ['Agents in containers']);
        await tabs.link('Data').click();
        await on(page).heading('Retention', { level: 2 }).waitFor();
        assert.deepEqual(await headings(), ['Retention', 'Export']);
        assert.match(page.url(), /#\/settings\/data$/);

        // Retention: a bad number says why and changes nothing; a good rule is saved (the hub's rule, retention.get).
        const form = on(page).form('Retention rule');
        const keep = form.textbox('Keep history for (days)');
        const hubRule = async () => (await ownerCall(h(), 'retention.get', {})).rules.find((r: any) => r.conv_id === null) ?? null;
        const before = await hubRule();
        await keep.fill('0');
        await form.button('Save retention').click();
        assert.match(
          (await on(page).alert().textContent())!,
          /^Keep history: a whole number of days from 1 to 36500, or empty for never\./,
        );
        assert.deepEqual(await hubRule(), before, 'nothing saved');
        const days = width === 1280 ? 90 : 120;
        await keep.fill(String(days));
        await form.textbox('Archive conversations idle for (days)').fill('30');
        await form.checkbox('Keep pinned messages').uncheck();
        await form.button('Save retention').click();
        await on(page)
          .status()
          .filter({ hasText: /^Saved\./ })
          .waitFor();
        const rule = (await ownerCall(h(), 'retention.get', {})).rules.find((r: any) => r.conv_id === null);
        assert.deepEqual([rule.keep_days, rule.archive_idle_days, rule.keep_pinned, rule.keep_requests], [days, 30, false, true]);
        await form.button('What would go now?').click();
        await on(page)
          .status('Retention preview')
          .filter({ hasText: /^Nothing would go now\.|^Would delete / })
          .waitFor();
        await page.reload();
        const shown = on(page).form('Retention rule').textbox('Keep history for (days)');
        let value = '';
        for (let i = 0, t0 = Date.now(); i < 50 && Date.now() - t0 < 5_000 && value !== String(days); i++) {
          value = await shown.inputValue();
          if (value !== String(days)) await new Promise((r) => setTimeout(r, 100));
        }
        assert.equal(value, String(days), 'the saved rule shows after a reload');
        const off = await on(page)
          .find('.page.settings')
          .evaluate((el) => el.scrollWidth > el.clientWidth);
        assert.equal(off, false, 'no horizontal scroll');
        await h().screenshot(`settings${suffix}`);
        await page.setViewportSize({ width: 1280, height: 800 });
        assert.deepEqual(h().pageErrors, []);
      },
    );
  }
});
