// Wake runs over the limit, in the browser: with one run at once, the owner wakes three agents; the Fleet cards of the
// two that wait say "queued (1st)" / "queued (2nd), waiting for a free slot", Start now starts one over the limit,
// Cancel drops the other, and Settings shows the limit and what runs. The running card shows its memory and CPU live.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, openPage, useHarness } from './harness';
import { on } from './pages/on';
import { openSettings } from './pages/app';
import { fleetCard } from './pages/agents';

const PERCH = path.join(ROOT, 'bin', 'perch.js');
const run = promisify(execFile);

describe('wake limits', () => {
  const h = useHarness({ agents: ['first', 'second', 'third'] });

  async function owner(action: string, input: unknown): Promise<any> {
    const rt = JSON.parse(fs.readFileSync(path.join(h().dataDir, 'runtime.json'), 'utf8')) as { base_url: string; owner_token: string };
    const res = await fetch(`${rt.base_url}/api/owner/${action}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rt.owner_token}` },
      body: JSON.stringify(input),
    });
    const body = (await res.json()) as { ok: boolean; value: any };
    assert.equal(body.ok, true, `${action}: ${JSON.stringify(body)}`);
    return body.value;
  }

  test(
    "a queued agent's Fleet card says where it waits; Start now starts it over the limit, Cancel drops it",
    { timeout: 90_000 },
    async () => {
      const { page, dataDir, agents } = h();
      await run(process.execPath, [PERCH, 'wake', 'limits', '--at-once', '1', '--data-dir', dataDir], { cwd: ROOT, timeout: 20_000 });
      for (const name of ['first', 'second', 'third']) {
        await run(process.execPath, [PERCH, 'agent', 'wake', name, '--shell', 'sleep 60', '--data-dir', dataDir], {
          cwd: ROOT,
          timeout: 20_000,
        });
      }
      const ids = ['first', 'second', 'third'].map((n) => agents[n]!.id);
      const group = await owner('conversations.create_group', { title: 'Crew', members: ids });
      await openPage(page, 'Fleet');
      for (const id of ids) await owner('messages.send', { conv_id: group.conversation.conv_id, text: 'please look', to: [id] });

      const first = fleetCard(page, 'first').wakeRun;
      await first.text(/running/).waitFor({ timeout: 20_000 });
      // its process tree's memory and CPU, sampled every 2 s, show live on the card
      await first
        .field('Run memory and CPU')
        .text(/\d+(\.\d)? (KB|MB) · \d+% CPU/)
        .waitFor({ timeout: 15_000 });
      const second = fleetCard(page, 'second').queuedRun;
      const third = fleetCard(page, 'third').queuedRun;
      await second.text('queued (1st), waiting for a free slot').waitFor({ timeout: 20_000 });
      await third.text('queued (2nd), waiting for a free slot').waitFor();
      await h().screenshot('wake-queued');

      await third.button('Start now').click();
      await fleetCard(page, 'third')
        .wakeRun.text(/running/)
        .waitFor({ timeout: 20_000 });
      await third.waitFor({ state: 'detached' });
      await second.text('queued (1st), waiting for a free slot').waitFor();

      await second.button('Cancel').click();
      await second.waitFor({ state: 'detached', timeout: 20_000 });
      const limits = (await owner('wake.limits.get', {})).limits;
      assert.deepEqual(limits.queued, [], 'nothing waits any more');
      assert.deepEqual(
        limits.running.map((r: any) => r.agent.name).sort(),
        ['first', 'third'],
        'two run: one over the limit, started by the owner',
      );

      await openSettings(page, 'Wake runs');
      await on(page).heading('Wake runs', { level: 2 }).waitFor();
      assert.equal(await on(page).role('spinbutton', 'Runs at once').inputValue(), '1');
      const running = on(page).list('Running wake runs');
      await running.text('first').waitFor();
      await running.text('third').waitFor();
      await h().screenshot('wake-limits-settings');
      for (const name of ['first', 'third']) await owner('wake.stop', { agent: name });
    },
  );
});
