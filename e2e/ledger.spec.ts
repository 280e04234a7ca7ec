// The Ledger page in the browser, at 1280×800 and 390×844: an agent's harness reports two tool calls and their cost
// over OTLP (with the agent's telemetry token, as Claude Code sends them); the owner sees today's spend, the 14-day
// chart, the calls grouped by session with who allowed each and how it ended, and the filters narrow them. And an
// approval card of a harness's permission prompt links to its call's outcome once the harness reports it. And each
// agent's Ledger tab on the Agents page shows the same pieces for that agent only, with a link to the Ledger filtered to it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, openPage, useHarness, within } from './harness';
import { agentLedger, callOutcomeLink, ledger } from './pages/ledger';
import { requestCard } from './pages/approvals';
import { fleetCard } from './pages/agents';
import { claudeCodeBash } from '../test/fixtures/permission-request';
import { claudeCodePreToolUseBash } from '../test/fixtures/status-hooks';
import { claudeCodeCall, logRecord, logsBody } from '../test/support/otlp-bodies';

const PERCH = path.join(ROOT, 'bin', 'perch.js');
const run = promisify(execFile);

describe('the Ledger page', () => {
  const h = useHarness({ agents: ['kit', 'ada', 'bo'] });

  async function tokenOf(name: string): Promise<string> {
    const out = await run(process.execPath, [PERCH, 'ledger', 'token', name, '--data-dir', h().dataDir, '--json'], {
      cwd: ROOT,
      timeout: 20_000,
    });
    return JSON.parse(out.stdout).token as string;
  }

  async function report(token: string, body: string): Promise<void> {
    const res = await fetch(`${h().baseUrl}/v1/logs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body,
    });
    assert.equal(res.status, 200, await res.text());
  }

  test(
    'spend today, the 14-day chart, the calls with their outcome, and the filters; the same on the phone layout',
    { timeout: 120_000 },
    async () => {
      const { page, dataDir } = h();
      const out = await run(process.execPath, [PERCH, 'ledger', 'token', 'kit', '--data-dir', dataDir, '--json'], {
        cwd: ROOT,
        timeout: 20_000,
      });
      const token = JSON.parse(out.stdout).token as string;
      await report(token, claudeCodeCall('sess-e2e', 'toolu_ok', 0.25, Date.now(), 'prompt-e2e'));
      await report(
        token,
        logsBody('claude-code', [
          logRecord('claude_code.tool_result', {
            'session.id': 'sess-e2e',
            tool_name: 'Edit',
            tool_use_id: 'toolu_bad',
            success: 'false',
            error: 'file not found',
          }),
        ]),
      );

      for (const [width, height] of [
        [1280, 800],
        [390, 844],
      ] as const) {
        await page.setViewportSize({ width, height });
        if (width > 700) await openPage(page, 'Ledger');
        else await page.evaluate(() => (location.hash = '#/ledger'));
        const l = ledger(page);
        await l.spendToday('kit').text('$0.2500').waitFor({ timeout: 15_000 });
        const bars = l.chart().locator('.ledger-bar');
        assert.equal(await bars.count(), 14, `${width}: fourteen days`);
        assert.equal(await bars.last().getAttribute('data-usd'), '0.25', `${width}: today's bar`);
        await l
          .call('toolu_ok')
          .text(/accept by the harness's allowlist · ran 2\.3 s/)
          .waitFor();
        await l
          .call('toolu_bad')
          .text(/failed: file not found/)
          .waitFor();
        // Grouped by session, then turn: toolu_ok's turn (Claude Code's prompt.id) with its model call's tokens and
        // cost; toolu_bad's result named no turn.
        await l.turnHeader('prompt-e2e').text('Turn prompt-e2e · 1 model call · 1,260 tokens in, 300 out · $0.2500').waitFor();
        await l.callInTurn('prompt-e2e', 'toolu_ok').waitFor();
        await l.turnHeader('not named').text('Turn not named by the harness').waitFor();
        await l.callInTurn('not named', 'toolu_bad').waitFor();
        await l.failedOnly().check();
        await l.call('toolu_ok').waitFor({ state: 'detached' });
        await l.call('toolu_bad').waitFor();
        await l.failedOnly().uncheck();
        // toolu_ok's decision was the harness's allowlist; toolu_bad reported none.
        await l.decidedBy().selectOption('user');
        await l.call('toolu_ok').waitFor({ state: 'detached' });
        await l.decidedBy().selectOption('allowlist');
        await l.call('toolu_ok').waitFor();
        await l.call('toolu_bad').waitFor({ state: 'detached' });
        await l.decidedBy().selectOption('');
        await l.search().fill('touch');
        await l.call('toolu_bad').waitFor({ state: 'detached' });
        await l.call('toolu_ok').waitFor();
        await l.search().fill('');
        await l.call('toolu_bad').waitFor();
        assert.ok(await page.evaluate((w) => document.documentElement.scrollWidth <= w, width), `${width}: no horizontal scroll`);
        await h().screenshot(`ledger-${width}`);
      }
    },
  );

  test(
    "an approval card links to its call's outcome once the harness reports it; the link opens that call in the Ledger",
    { timeout: 180_000 },
    async () => {
      const { page, dataDir } = h();
      const out = await run(process.execPath, [PERCH, 'ledger', 'token', 'kit', '--data-dir', dataDir, '--json'], {
        cwd: ROOT,
        timeout: 20_000,
      });
      const token = JSON.parse(out.stdout).token as string;
      const hook = (event: string, body: unknown) =>
        fetch(`${h().baseUrl}/hook/claude-code/${event}?timeout=120`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${h().agents.kit!.key}` },
          body: JSON.stringify(body),
        });

      for (const [width, height] of [
        [1280, 800],
        [390, 844],
      ] as const) {
        await page.setViewportSize({ width, height });
        const callId = `toolu_card_${width}`;
        const command = `make check-${width}`;
        // Claude Code's two hooks for the call: PreToolUse names its id, the PermissionRequest files the card.
        const pre = await hook('pre-tool-use', {
          ...claudeCodePreToolUseBash,
          session_id: 'sess-card',
          tool_input: { command },
          tool_use_id: callId,
        });
        assert.equal(pre.status, 200, await pre.text());
        const answer = hook('permission-request', { ...claudeCodeBash, session_id: 'sess-card', tool_input: { command } });
        if (width > 700) await openPage(page, 'Approvals');
        else await page.evaluate(() => (location.hash = '#/approvals'));
        const card = requestCard(page, `Allow Bash: ${command}?`);
        await card.waitFor({ timeout: 15_000 });
        await card.approve();
        const res = await within(20_000, 'the hook to answer', answer);
        assert.equal((await res.json()).hookSpecificOutput.decision.behavior, 'allow');
        await card.state('Approved').waitFor({ timeout: 15_000 });

        // The harness ran it and reports how it ended.
        await report(
          token,
          logsBody('claude-code', [
            logRecord('claude_code.tool_result', {
              'session.id': 'sess-card',
              tool_name: 'Bash',
              tool_use_id: callId,
              success: 'true',
              duration_ms: 2300,
              exit_code: 0,
            }),
          ]),
        );
        const link = callOutcomeLink(card, 'ran 2.3 s, exit 0');
        await link.waitFor({ timeout: 30_000 });
        await link.click();
        const l = ledger(page);
        await l
          .call(callId)
          .text(/In Perch: allowed by you on the laptop/)
          .waitFor({ timeout: 15_000 });
        await l
          .call(callId)
          .text(/ran 2\.3 s, exit 0/)
          .waitFor();
        assert.equal(await l.call('toolu_ok').count(), 0, `${width}: only that call`);
        assert.ok(await page.evaluate((w) => document.documentElement.scrollWidth <= w, width), `${width}: no horizontal scroll`);
        await h().screenshot(`ledger-card-outcome-${width}`);
        await l.showAll().click();
        await l.call('toolu_ok').waitFor({ timeout: 15_000 });
      }
      assert.deepEqual(h().pageErrors, []);
    },
  );
  test(
    "an agent's Ledger tab: its spend today, its 14-day chart and its tool calls only, and a link to the Ledger filtered to it; the same on the phone layout",
    { timeout: 120_000 },
    async () => {
      const { page } = h();
      await report(await tokenOf('ada'), claudeCodeCall('sess-ada', 'toolu_ada', 0.5));
      await report(await tokenOf('bo'), claudeCodeCall('sess-bo', 'toolu_bo', 0.125));
      for (const [width, height] of [
        [1280, 800],
        [390, 844],
      ] as const) {
        await page.setViewportSize({ width, height });
        await page.evaluate(() => (location.hash = '#/agents/ada'));
        const t = agentLedger(page, 'ada');
        await t.tab().click();
        await t.spendToday('ada').text('$0.5000').waitFor({ timeout: 15_000 });
        assert.equal(await t.spendToday('bo').count(), 0, `${width}: only ada's spend`);
        const bars = t.chart().locator('.ledger-bar');
        assert.equal(await bars.count(), 14, `${width}: fourteen days`);
        assert.equal(await bars.last().getAttribute('data-usd'), '0.5', `${width}: today's bar is ada's alone`);
        await t
          .call('toolu_ada')
          .text(/accept by the harness's allowlist · ran 2\.3 s/)
          .waitFor();
        assert.equal(await t.call('toolu_bo').count(), 0, `${width}: only ada's calls`);
        assert.equal(await t.agentFilter().count(), 0, `${width}: no agent to choose in an agent's tab`);
        assert.ok(await page.evaluate((w) => document.documentElement.scrollWidth <= w, width), `${width}: no horizontal scroll`);
        await h().screenshot(`agent-ledger-${width}`);

        await t.openInLedger().click();
        const l = ledger(page);
        await l.call('toolu_ada').waitFor({ timeout: 15_000 });
        assert.equal(await page.evaluate(() => location.hash), '#/ledger/agent/ada');
        assert.equal(await l.agentFilter().inputValue(), 'ada', `${width}: the Ledger filtered to ada`);
        await l.call('toolu_bo').waitFor({ state: 'detached' });
        await l.agentFilter().selectOption('');
        await l.call('toolu_bo').waitFor({ timeout: 15_000 });
      }
      assert.deepEqual(h().pageErrors, []);
    },
  );
  test(
    "a Fleet card's cost against the daily cap is the measured cost the cap counts, said so; the same on the phone layout",
    { timeout: 120_000 },
    async () => {
      const { page, dataDir } = h();
      await run(process.execPath, [PERCH, 'agent', 'caps', 'bo', '--cost-usd', '1', '--data-dir', dataDir], { cwd: ROOT, timeout: 20_000 });
      // bo's harness reported $0.125 (the test before, or now); bo reported nothing itself in progress.
      await report(await tokenOf('bo'), claudeCodeCall('sess-bo-cap', 'toolu_bo_cap', 0.125));
      for (const [width, height] of [
        [1280, 800],
        [390, 844],
      ] as const) {
        await page.setViewportSize({ width, height });
        await page.evaluate(() => (location.hash = '#/fleet'));
        await fleetCard(page, 'bo')
          .text(/Cost\s*\$0\.(25|13) \/ \$1\.00 \(measured\)/)
          .waitFor({ timeout: 15_000 });
        assert.ok(await page.evaluate((w) => document.documentElement.scrollWidth <= w, width), `${width}: no horizontal scroll`);
      }
      assert.deepEqual(h().pageErrors, []);
    },
  );
});
