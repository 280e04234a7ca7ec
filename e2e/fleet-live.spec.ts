// The screen never shows stale control state, and Fleet says who needs the owner. A real `perch serve`, real agents
// over MCP, the real `perch` CLI writing the same SQLite file from another process, and Chromium at 1280×800 (then
// 390×844, the phone layout). Nothing reloads the page: every change arrives on the owner's live stream.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ROOT, useHarness, openConversation, openPage, timeline } from './harness';
import { on } from './pages/on';
import { sidebar } from './pages/app';

const PERCH = path.join(__dirname, '..', 'bin', 'perch.js');
const run = promisify(execFile);
/** How long the UI may take to show a change (the 1 s target is measured in bench/, not here). */
const LIVE = 5_000;

describe('fleet, live', () => {
  let idling = true;
  after(() => {
    idling = false; // before the close: the idler's loop stops asking
  });
  const h = useHarness({ agents: ['planner', 'coder', 'reviewer', 'idler'] });
  let plannerConv: string;
  let coderConv: string;

  /** `perch ARGS --data-dir D` from another process, while the hub and the page run. */
  async function perch(...args: string[]): Promise<string> {
    const r = await run(process.execPath, [PERCH, ...args, '--data-dir', h().dataDir], {
      cwd: path.join(__dirname, '..'),
      timeout: 20_000,
    });
    return r.stdout;
  }
  const card = (name: string) => on(h().page).item(`Agent ${name}`);
  const cardState = (name: string, state: RegExp) =>
    on(card(name))
      .button(new RegExp(`^${name}: ${state.source}`))
      .waitFor({ timeout: LIVE });
  const pauseStatus = () => on(h().page).group('All agents').status();
  /** Waits (bounded) until the labels of these items read in this order; fails with the order it last saw. */
  async function inOrder(items: () => Promise<string[]>, expected: string[], what: string): Promise<void> {
    let seen: string[] = [];
    for (let i = 0, t0 = Date.now(); i < 50 && Date.now() - t0 < LIVE; i++) {
      seen = await items();
      if (JSON.stringify(seen) === JSON.stringify(expected)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(seen, expected, what);
  }
  const cardOrder = () =>
    on(h().page)
      .find('.fleet-grid > li')
      .evaluateAll((els) => els.map((e) => (e.getAttribute('aria-label') ?? '').replace(/^Agent /, '')));

  before(
    async () => {
      await h().page.setViewportSize({ width: 1280, height: 800 });
      plannerConv = (await h().agents.planner!.call('open_direct', { user: 'owner' })).conversation.conv_id;
      coderConv = (await h().agents.coder!.call('open_direct', { user: 'owner' })).conversation.conv_id;
      await openPage(h().page, 'Fleet');
      await h().page.evaluate(() => {
        (window as unknown as { notReloaded: boolean }).notReloaded = true;
      });
      // idler stays connected: a get_updates of it always waits in the hub.
      void (async () => {
        while (idling)
          await h()
            .agents.idler!.call('get_updates', { wait_secs: 20 })
            .catch(() => {
              idling = false;
            });
      })();
    },
    { timeout: 90_000 },
  );

  test(
    'a daily cap pauses coder, and perch agent caps --off / resume / pause / add from a terminal show in the open app without a reload',
    { timeout: 90_000 },
    async () => {
      const { page } = h();
      const coder = h().agents.coder!;
      await pauseStatus().filter({ hasText: 'none of 4 paused' }).waitFor({ timeout: LIVE });

      await perch('agent', 'caps', 'coder', '--cost-usd', '0.5');
      await on(card('coder')).text('$0.00 / $0.5').waitFor({ timeout: LIVE }); // the CLI's cap, live
      await coder.call('progress', {
        conv_id: coderConv,
        kind: 'step',
        text: 'Ran the test suite',
        data: { usage: { input_tokens: 1200, output_tokens: 300, cost_usd: 0.59 } },
      });
      // The hub's own cap paused it: the card, the badge and the kill switch say so at once.
      await cardState('coder', /paused/);
      await on(card('coder'))
        .text(/^Paused — daily cap reached/)
        .waitFor({ timeout: LIVE });
      await on(card('coder')).text('$0.59 / $0.5').waitFor({ timeout: LIVE });
      await pauseStatus().filter({ hasText: '1 of 4 paused' }).waitFor({ timeout: LIVE });

      await perch('agent', 'caps', 'coder', '--off');
      await on(card('coder')).text('$0.59 / no cap').waitFor({ timeout: LIVE });
      await perch('agent', 'resume', 'coder');
      await pauseStatus().filter({ hasText: 'none of 4 paused' }).waitFor({ timeout: LIVE });
      await on(card('coder'))
        .text(/^Paused — daily cap reached/)
        .waitFor({ state: 'detached', timeout: LIVE });
      await on(card('coder')).button('Pause coder').waitFor({ timeout: LIVE });
      await cardState('coder', /working/); // it reported work a moment ago and is no longer paused

      await perch('agent', 'pause', 'reviewer', '--reason', 'lunch');
      await cardState('reviewer', /paused/);
      await on(card('reviewer')).text('Paused by you — lunch').waitFor({ timeout: LIVE });
      await pauseStatus().filter({ hasText: '1 of 4 paused' }).waitFor({ timeout: LIVE });

      await perch('agent', 'add', 'ghost');
      await cardState('ghost', /offline/); // a new card, never connected
      await pauseStatus().filter({ hasText: '1 of 5 paused' }).waitFor({ timeout: LIVE });
      assert.equal(
        await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded),
        true,
        'the page was never reloaded',
      );
    },
  );

  test('Fleet usage updates live as an agent works: messages, tool calls and cost', { timeout: 60_000 }, async () => {
    const coder = h().agents.coder!;
    const usage = on(card('coder')).role('definition');
    const before = Number((await usage.nth(0).textContent())!.split(' / ')[0]);
    for (let i = 0; i < 3; i++) await coder.call('send_message', { conv_id: coderConv, text: `step ${i + 1} done` });
    await coder.call('progress', { conv_id: coderConv, kind: 'step', text: 'Lint', data: { usage: { cost_usd: 0.2 } } });
    await usage
      .nth(0)
      .filter({ hasText: new RegExp(`^${before + 3} / no cap`) })
      .waitFor({ timeout: LIVE });
    await usage
      .nth(2)
      .filter({ hasText: /^\$0\.79 \/ no cap/ })
      .waitFor({ timeout: LIVE });
    const calls = Number((await usage.nth(1).textContent())!.split(' / ')[0]);
    assert.ok(calls >= 6, `tool calls counted live: ${calls}`);
  });

  test(
    'one state per agent: needs you (a pending request), working, connected idle, paused, offline — in Fleet, the sidebar and on the phone',
    { timeout: 90_000 },
    async () => {
      const { page } = h();
      await h().agents.planner!.call('request_human', {
        conv_id: plannerConv,
        kind: 'approve',
        title: 'Deploy the migration to production?',
      });
      await cardState('planner', /needs you · just now — a request to decide/);
      await h().agents.coder!.call('progress', { conv_id: coderConv, kind: 'thinking', text: 'Reading the failing test' });
      await h().agents.coder!.call('send_message', { conv_id: coderConv, text: 'Reading the failing test now' }); // its conversation is the most recent
      await cardState('coder', /working/);
      await cardState('idler', /connected, idle/);
      await cardState('reviewer', /paused/);
      await cardState('ghost', /offline/);
      for (const [name, state] of [
        ['planner', 'needs_you'],
        ['coder', 'working'],
        ['idler', 'idle'],
        ['reviewer', 'paused'],
        ['ghost', 'offline'],
      ] as const) {
        assert.equal(await card(name).getAttribute('data-state'), state, `${name}'s card`);
        assert.equal(await on(card(name)).find('.state-pill').count(), 1, `${name} shows one state`);
      }
      // In the order that matters (shared/agents/agent-state.ts fleetOrder), not alphabetical: who needs you first, offline last.
      await inOrder(cardOrder, ['planner', 'coder', 'idler', 'reviewer', 'ghost'], 'Fleet cards by state at 1280×800');
      await on(page).find('.toast').first().waitFor({ state: 'detached', timeout: 10_000 }); // the cap's notice from the first test
      await h().screenshot('fleet-states');
      await h().screenshot('fleet');

      // The sidebar's direct conversations show the same state, in the same order (planner needs you, though coder's
      // conversation is the more recent).
      const nav = sidebar(page);
      await nav.field(/^planner: needs you/).waitFor({ timeout: LIVE });
      await nav.field(/^coder: working/).waitFor({ timeout: LIVE });
      const directOrder = () => nav.region('Direct messages').find('.conv-title').allTextContents();
      await inOrder(directOrder, ['planner', 'coder'], "the sidebar's direct messages by state");

      // A held message (review mode) also needs the owner.
      await on(page).button('Review mode for coder').click();
      await on(card('coder')).find('button[aria-label="Review mode for coder"][aria-pressed="true"]').waitFor({ timeout: LIVE });
      await h().agents.coder!.call('send_message', { conv_id: coderConv, text: 'Shall I push the fix?' });
      await cardState('coder', /needs you · just now — a held message to review/);

      // The phone layout shows the same states.
      await page.setViewportSize({ width: 390, height: 844 });
      await on(page)
        .nav('Sections')
        .link(/^Fleet/)
        .click();
      await cardState('planner', /needs you/);
      await cardState('reviewer', /paused/);
      await cardState('ghost', /offline/);
      // The same order on the phone: both who need you first (the older wait, planner's, is less recent), offline last.
      await inOrder(cardOrder, ['coder', 'planner', 'idler', 'reviewer', 'ghost'], 'Fleet cards by state on the phone');
      await h().screenshot('fleet-states-phone');
      await h().screenshot('fleet-phone');
      // The phone shows the first cards; the rest after scrolling down.
      await card('reviewer').scrollIntoViewIfNeeded();
      await h().screenshot('fleet-states-phone-2');
      await page.setViewportSize({ width: 1280, height: 800 });

      // The main view at 1280×800 (the README's screenshot): planner's approval card, its live activity, the states.
      const planner = h().agents.planner!;
      await planner.call('progress', { conv_id: plannerConv, kind: 'plan', text: 'Migrate orders: dump, transform, load, verify' });
      await planner.call('progress', { conv_id: plannerConv, kind: 'tool_call', text: 'psql --dump orders', data: { rows: 120000 } });
      await planner.call('progress', { conv_id: plannerConv, kind: 'tool_result', text: 'Dry run on staging: 120,000 rows, 0 errors' });
      await openConversation(page, 'planner');
      await on(page).text('Deploy the migration to production?').first().waitFor();
      await on(page).text('Dry run on staging: 120,000 rows, 0 errors').first().waitFor({ timeout: LIVE });
      await nav.field(/^planner: needs you/).waitFor({ timeout: LIVE });
      assert.equal(await timeline(page).text('→ @owner').count(), 0, 'a direct message names the other side without saying so');
      await h().screenshot('main-view');
      // PERCH_README_SCREENSHOT=1 also writes it as the README's picture, so that one is always from a real run.
      if (process.env.PERCH_README_SCREENSHOT === '1')
        await page.screenshot({ path: path.join(ROOT, 'docs', 'screenshot.png'), timeout: 10_000 });
      assert.deepEqual(h().pageErrors, []);
    },
  );
});
