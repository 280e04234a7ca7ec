// Perch's own events on the Ledger page, in the browser at 1280×800 and 390×844: a real wake run of kit (a process
// that exits 0), the owner's pause and resume of kit, and a standing rule added and removed for rue each show as an
// event (what `perch ledger events` lists), newest first; the filters narrow them by what they are and by agent; and
// the page has no horizontal scroll.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, openPage, ownerCall, useHarness } from './harness';
import { ledger } from './pages/ledger';

const PERCH = path.join(ROOT, 'bin', 'perch.js');
const run = promisify(execFile);

describe("the Ledger page's Perch events", () => {
  const h = useHarness({ agents: ['kit', 'rue'] });

  test(
    'wake runs, pauses and rules show as events, filtered by what and by agent; the same on the phone layout',
    { timeout: 180_000 },
    async () => {
      const { page, dataDir } = h();
      /** perch ARGS --data-dir DIR [-- COMMAND]. */
      const perch = (args: string[], command: string[] = []) =>
        run(process.execPath, [PERCH, ...args, '--data-dir', dataDir, ...(command.length ? ['--', ...command] : [])], {
          cwd: ROOT,
          timeout: 20_000,
        });
      // A wake run of kit: its command exits 0 at once; a message to kit wakes it.
      await perch(['agent', 'wake', 'kit'], [process.execPath, '-e', 'process.exit(0)']);
      const g = await ownerCall(h(), 'conversations.create_group', { title: 'Wake kit', members: [h().agents.kit!.id] });
      await ownerCall(h(), 'messages.send', { conv_id: g.conversation.conv_id, text: '@kit look', to: [h().agents.kit!.id] });
      let ended = false;
      for (let i = 0; i < 120 && !ended; i++) {
        const { events } = JSON.parse((await perch(['ledger', 'events', '--agent', 'kit', '--json'])).stdout);
        ended = events.some((e: { event: string }) => e.event === 'wake_run_ended');
        if (!ended) await new Promise((r) => setTimeout(r, 500));
      }
      assert.ok(ended, "kit's wake run ended within 60 s");
      await perch(['agent', 'wake', 'kit', '--off']);
      await ownerCall(h(), 'agents.pause', { agent: 'kit', reason: 'lunch' });
      await ownerCall(h(), 'agents.resume', { agent: 'kit' });
      const { rule } = await ownerCall(h(), 'rules.add', { agent: 'rue', tool: 'Bash', command_prefix: 'npm test', behavior: 'allow' });
      await ownerCall(h(), 'rules.remove', { rule_id: rule.rule_id });

      for (const [width, height] of [
        [1280, 800],
        [390, 844],
      ] as const) {
        await page.setViewportSize({ width, height });
        if (width > 700) await openPage(page, 'Ledger');
        else {
          await page.evaluate(() => (location.hash = '#/'));
          await page.evaluate(() => (location.hash = '#/ledger'));
        }
        const l = ledger(page);
        const started = l.event(/^kit: wake run \S+ started \(command/);
        const stopped = l.event(/^kit: wake run \S+ ended: succeeded, exit 0/);
        const paused = l.event('kit: paused by owner: lunch');
        const resumed = l.event('kit: resumed (was paused by owner)');
        const added = l.event(/^rue: standing rule \S+ added on the laptop: /);
        const removed = l.event(/^rue: standing rule \S+ removed on the laptop: /);
        for (const e of [started, stopped, paused, resumed, added, removed]) await e.waitFor({ timeout: 15_000 });
        // Newest first: the rule's removal above the pause.
        const order = await l.eventNames();
        const at = (re: RegExp) => order.findIndex((n) => re.test(n));
        assert.ok(at(/ removed on the laptop/) < at(/paused by owner: lunch/), `${width}: newest first (${order.join(' | ')})`);

        await l.eventsShow().selectOption({ label: 'Pauses and resumes' });
        await started.waitFor({ state: 'detached' });
        await added.waitFor({ state: 'detached' });
        await paused.waitFor();
        await resumed.waitFor();
        await l.eventsShow().selectOption({ label: 'all' });
        await l.eventsAgent().selectOption({ label: 'rue' });
        await paused.waitFor({ state: 'detached' });
        await stopped.waitFor({ state: 'detached' });
        await added.waitFor();
        await removed.waitFor();
        assert.ok(await page.evaluate((w) => document.documentElement.scrollWidth <= w, width), `${width}: no horizontal scroll`);
        await added.scrollIntoViewIfNeeded();
        await h().screenshot(`ledger-events-${width}`);
        await l.eventsAgent().selectOption({ label: 'all' });
        await started.waitFor();
      }
      assert.deepEqual(h().pageErrors, []);
    },
  );
});
