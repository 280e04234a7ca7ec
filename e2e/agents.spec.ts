// The owner's side of agents and sessions: the sign-in screen, adding an agent (key shown once, with
// snippets that work), editing its role config (the agent hears of it), rotating and revoking keys.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, connectAgent, openAgent, openPage, ownerCall, within } from './harness';
import { on } from './pages/on';
import { addAgent, agentList, closeKeyDialog, keyDialog, openAddAgent, readShownKey, snippetText } from './pages/agents';
import { openSettings, screenTitle, sidebar } from './pages/app';
import { remoteAccess } from './pages/phone';

describe('agents and sign-in', () => {
  const h = useHarness({ agents: ['alice'] });

  test('without the owner session the app shows the sign-in screen', { timeout: 30_000 }, async () => {
    const ctx = await h().browser.newContext({ viewport: { width: 1100, height: 700 } });
    try {
      const page = await ctx.newPage();
      await page.goto(h().baseUrl + '/', { timeout: 15_000 });
      await on(page).heading('Sign in to Perch').waitFor();
      await on(page).text('Open the login link printed by perch serve').waitFor();
      await page.screenshot({ path: 'e2e/artifacts/sign-in.png' });
      assert.equal(await sidebar(page).count(), 0);
    } finally {
      await ctx.close();
    }
  });

  test(
    'adding an agent shows its key once, as its export line, with one recipe per client taking the key from the environment (perch connect for Claude Code, Codex, Cursor, GitHub Copilot CLI), and the key connects',
    { timeout: 60_000 },
    async () => {
      const { page } = h();
      await openPage(page, 'Agents');
      await addAgent(page, 'carol', { description: 'Reviews pull requests' });
      const { key, exportLine } = await readShownKey(page, 'carol');
      assert.match(key, /^perch_[A-Za-z0-9_-]{20,}$/);
      assert.equal(exportLine, `export PERCH_KEY_CAROL=${key}`, 'the export line next to the one-time key');
      const shown = keyDialog(page, 'carol');
      for (const s of ['Claude Code', 'Codex CLI', 'Cursor', 'GitHub Copilot CLI', 'VS Code', 'perch call']) {
        const text = await snippetText(shown, s);
        assert.ok(!text.includes(key) && !/Bearer perch_/.test(text), `${s}: the key is not inline`);
        assert.match(text, /PERCH_KEY_CAROL|perch connect/, `${s}: the key from the environment`);
      }
      assert.match(await snippetText(shown, 'Claude Code'), /^perch connect claude-code carol --write /);
      assert.match(
        await snippetText(shown, 'GitHub Copilot CLI'),
        /^perch connect copilot carol --write .*\nCOPILOT_HOOK_ALLOW_LOCALHOST=1 copilot$/,
      );
      const all = await shown.innerText();
      assert.doesNotMatch(all, /claude mcp add/, 'one way to connect Claude Code: not also claude mcp add');
      assert.equal(all.split(key).length, 3, 'the key shows twice: the key box and its export line');
      await h().screenshot('agent-key');
      await closeKeyDialog(page, 'carol');
      await on(page).item('Agent carol').text('Reviews pull requests').waitFor();
      assert.match((await (await openAgent(page, 'carol')).textContent())!, /Reviews pull requests/);

      const carol = await connectAgent('carol', '', key, h().mcpUrl);
      try {
        const me = await carol.call('whoami');
        assert.equal(me.agent.name, 'carol');
      } finally {
        await carol.client.close();
      }
    },
  );

  test('Settings → Phone warns of an http:// public URL as perch serve does (phones need https)', { timeout: 60_000 }, async () => {
    const { page } = h();
    await ownerCall(h(), 'phone.set', { public_url: 'http://laptop.tail1234.ts.net' });
    try {
      await openSettings(page, 'Phone');
      const note = remoteAccess(page).note();
      await note.waitFor();
      assert.equal(
        (await note.innerText()).trim(),
        'Note: http://laptop.tail1234.ts.net is http, not https: phones need https for the app and notifications (tailscale serve gives you https).',
      );
    } finally {
      await ownerCall(h(), 'phone.set', { public_url: null });
      await openPage(page, 'Agents');
    }
  });

  test('editing the role config raises its version and the agent gets config.updated', { timeout: 60_000 }, async () => {
    const { page } = h();
    const alice = h().agents.alice!;
    const pane = await openAgent(page, 'alice');
    await pane.button('Edit config of alice').click();
    const dlg = on(page).dialog('Role config of alice');
    await dlg.field('Instructions').fill('Ask before spending money. Report progress every step.');
    await dlg.field('Skills (JSON)').fill('not json');
    await dlg.button('Save config').click();
    await dlg.alert().text('Not valid JSON', { exact: false }).waitFor();
    await dlg.field('Skills (JSON)').fill('[{"name": "sql", "description": "Query the warehouse"}]');
    await dlg.field('MCP servers (JSON)').fill('[{"name": "github", "url": "https://example.com/mcp"}]');
    await h().screenshot('agent-config');
    await dlg.button('Save config').click();
    await dlg.waitFor({ state: 'detached' });
    const ev = await alice.waitFor((e) => e.type === 'config.updated');
    const cfg = await alice.call('get_config');
    assert.equal(cfg.version, ev.data?.version);
    assert.equal(cfg.role.instructions, 'Ask before spending money. Report progress every step.');
    assert.deepEqual(cfg.skills, [{ name: 'sql', description: 'Query the warehouse' }]);
    assert.equal(cfg.mcp_servers[0].name, 'github');
    await pane.text(`config v${cfg.version}`).waitFor();
  });

  test(
    "a key allowed from a range covering every address shows the warning on its agent's row; a narrower place shows none",
    { timeout: 60_000 },
    async () => {
      const { page } = h();
      const row = on(page).region('Agent alice details');
      const note = row.note('alice: where its key may connect from');
      await ownerCall(h(), 'agents.set_from', { agent: 'alice', from: ['local', '0.0.0.0/0'] });
      await page.reload();
      await openAgent(page, 'alice');
      await row.text('connects from local, 0.0.0.0/0').waitFor();
      await note.waitFor();
      assert.match(
        (await note.textContent())!,
        /^0\.0\.0\.0\/0 covers every address: this key may then connect from any address a listener of this hub reaches/,
      );
      await h().screenshot('agent-places-warning');
      await ownerCall(h(), 'agents.set_from', { agent: 'alice', from: ['local'] });
      await page.reload();
      await openAgent(page, 'alice');
      await row.text('connects from local)').waitFor();
      assert.equal(await note.count(), 0);
      assert.deepEqual(h().pageErrors, []);
    },
  );

  test('rotating a key shows the new one and the old one stops working; revoking marks the agent', { timeout: 60_000 }, async () => {
    const { page } = h();
    const oldKey = h().agents.alice!.key;
    await openAgent(page, 'alice');
    await on(page).button('Rotate key of alice').click();
    await on(page).dialog("Rotate alice's key?").button('Rotate key').click();
    const { key: newKey } = await readShownKey(page, 'alice');
    assert.notEqual(newKey, oldKey);
    await closeKeyDialog(page, 'alice');
    await assert.rejects(within(15_000, 'connect with the old key', connectAgent('alice-old', '', oldKey, h().mcpUrl)));
    const fresh = await connectAgent('alice', '', newKey, h().mcpUrl);
    assert.equal((await fresh.call('whoami')).agent.name, 'alice');
    await fresh.client.close();

    await openAgent(page, 'carol');
    await on(page).button('Revoke carol').click();
    await on(page).dialog("Revoke carol's key?").button('Revoke').click();
    await on(page).item('Agent carol').text('revoked').waitFor();
    assert.deepEqual(h().pageErrors, []);
  });

  test(
    'an invalid name like "My Kit" says why and offers "my-kit" instead of greying the button; the offer adds it',
    { timeout: 60_000 },
    async () => {
      const { page } = h();
      for (const [width, height] of [
        [1280, 800],
        [390, 844],
      ] as const) {
        await page.setViewportSize({ width, height });
        await page.goto(`${h().baseUrl}/#/agents`);
        await screenTitle(page, 'Agents').waitFor();
        const add = await openAddAgent(page);
        await add.nameField.fill(width === 1280 ? 'My Kit' : 'Café Bot!');
        const want = width === 1280 ? 'my-kit' : 'cafe-bot';
        const alert = add.alert();
        await alert.waitFor();
        assert.match(
          (await alert.textContent())!,
          width === 1280
            ? /^"My Kit" has capital letters: names use a–z, 0–9, - and _ only\. Try "my-kit"\./
            : /^"Café Bot!" has capital letters: names use a–z, 0–9, - and _ only\. Try "cafe-bot"\./,
        );
        assert.equal(await add.addButton.isEnabled(), true, 'the button is not silently greyed');
        await add.addButton.click();
        assert.equal(await add.count(), 1, 'an invalid name adds nothing');
        await h().screenshot(width === 1280 ? 'agent-name-invalid' : 'agent-name-invalid-phone');
        await add.button(`Use ${want}`).click();
        assert.equal(await add.nameField.inputValue(), want);
        assert.equal(await alert.count(), 0, 'a valid name: no complaint');
        await add.addButton.click();
        await closeKeyDialog(page, want);
        await agentList(page).item(`Agent ${want}`).waitFor();
      }
      await page.setViewportSize({ width: 1280, height: 800 });
      assert.deepEqual(h().pageErrors, []);
    },
  );

  test(
    "1280×800: the Agents page is a compact list beside one agent's detail — at least 8 agents visible, one set of buttons",
    { timeout: 90_000 },
    async () => {
      const { page } = h();
      for (let i = 1; i <= 10; i++)
        await ownerCall(h(), 'agents.add', { name: `worker-${String(i).padStart(2, '0')}`, description: `Works on shard ${i}` });
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(`${h().baseUrl}/#/agents`);
      const list = agentList(page);
      await list.item('Agent worker-10').waitFor();
      const rows = list.item();
      const count = await rows.count();
      assert.ok(count >= 11, `every agent is in the list (${count})`);
      const inView = await rows.evaluateAll(
        (els) =>
          els.filter((e) => {
            const r = e.getBoundingClientRect();
            return r.top >= 0 && r.bottom <= window.innerHeight;
          }).length,
      );
      assert.ok(inView >= 8, `at least 8 agents visible at 1280×800 (${inView})`);
      assert.equal(
        await on(page)
          .button(/^Edit config of /)
          .count(),
        1,
        "one agent's actions, in its detail pane, not 9 buttons per agent",
      );
      assert.equal(await on(page).find('.caps-form').count(), 1, "one caps form, the selected agent's");
      const pane = await openAgent(page, 'worker-07');
      await pane.text('Works on shard 7').waitFor();
      await pane.button('Edit config of worker-07').waitFor();
      const paneBox = (await pane.boundingBox())!;
      const listBox = (await list.boundingBox())!;
      assert.ok(paneBox.x >= listBox.x + listBox.width - 1, 'the detail is beside the list');
      assert.match(page.url(), /#\/agents\/worker-07$/, 'the selected agent has its own address');
      await h().screenshot('agents');
      assert.deepEqual(h().pageErrors, []);
    },
  );

  test("390×844: the Agents page is the list, then one agent's detail with the way back", { timeout: 60_000 }, async () => {
    const { page } = h();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${h().baseUrl}/#/agents`);
    const list = agentList(page);
    await list.item('Agent worker-01').waitFor();
    assert.equal(
      await on(page)
        .region(/^Agent .* details$/)
        .count(),
      0,
      'the list alone first',
    );
    const inView = await list.item().evaluateAll(
      (els) =>
        els.filter((e) => {
          const r = e.getBoundingClientRect();
          return r.top >= 0 && r.bottom <= window.innerHeight;
        }).length,
    );
    assert.ok(inView >= 8, `at least 8 agents visible on the phone (${inView})`);
    await h().screenshot('agents-phone');
    const pane = await openAgent(page, 'worker-03');
    assert.equal(await list.isVisible(), false, 'the detail alone');
    const off = await pane
      .button()
      .evaluateAll((bs) => bs.filter((b) => b.getBoundingClientRect().right > window.innerWidth).map((b) => b.textContent));
    assert.deepEqual(off, [], 'every button of the detail is on screen');
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 390), 'no horizontal scroll');
    await h().screenshot('agent-detail-phone');
    await pane.link('‹ All agents').click();
    await list.waitFor();
    await page.setViewportSize({ width: 1280, height: 800 });
    assert.deepEqual(h().pageErrors, []);
  });
});
