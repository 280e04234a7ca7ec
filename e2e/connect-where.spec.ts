// The Agents page's Connect dialog shows where `perch connect --write` connected the agent (the recorded connections),
// each with the `perch disconnect` that undoes exactly it; once disconnected, none.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, useHarness, openPage } from './harness';
import { connectedWhere, openAgentDialog } from './pages/agents';

describe('Connect dialog: where the agent is connected', () => {
  const h = useHarness({ agents: ['kit'] });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-e2e-home-'));
  const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'perch-e2e-repo-')));
  after(() => {
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(repo, { recursive: true, force: true });
  });

  /** `perch ARGS --data-dir <the hub's>` as the owner runs it (HOME a temp folder). */
  function perch(args: string[]): void {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'perch.js'), ...args, '--data-dir', h().dataDir], {
      env: { ...process.env, HOME: home },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(r.status, 0, r.stderr);
  }

  test(
    'perch connect claude-code kit --project DIR --write shows up in the dialog with its perch disconnect; after the disconnect, nothing',
    { timeout: 90_000 },
    async () => {
      const { page } = h();
      perch(['connect', 'claude-code', 'kit', '--project', repo, '--write']);
      await page.reload();
      await openPage(page, 'Agents');
      let dialog = await openAgentDialog(page, 'Connect', 'kit');
      const where = await connectedWhere(dialog, 'kit').innerText();
      assert.match(where, new RegExp(`claude-code project ${repo.replace(/[.]/g, '\\.')}`));
      assert.match(where, new RegExp(`perch disconnect claude-code kit --project ${repo.replace(/[.]/g, '\\.')}`));
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });

      perch(['disconnect', 'claude-code', 'kit', '--project', repo, '--write']);
      await page.reload();
      await openPage(page, 'Agents');
      dialog = await openAgentDialog(page, 'Connect', 'kit');
      assert.match(await connectedWhere(dialog, 'kit').innerText(), /No connection recorded/);
    },
  );
});
