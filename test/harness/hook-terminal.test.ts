// A waiting harness says so: `perch hook permission-request` writes to the terminal the harness runs in (/dev/tty),
// which a person sees even when the harness shows nothing of its hooks (headless `claude -p`): the card it waits on
// when it starts waiting, and why it gave up. The terminal is a real pseudo-terminal (util-linux `script`); the door's
// timeout withdraws the card saying why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { BIN, addAgent, ensureBuilt, exitOf, ownerOk, uniqueName, useSharedServe } from '../support/serve-harness';
import { claudeCodeBash } from '../fixtures/permission-request';
import { spawn } from 'node:child_process';

const served = useSharedServe();
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

test(
  "perch hook permission-request names the card on the harness's terminal while it waits and when it gives up; the card says why it was withdrawn",
  { skip: hasScript ? undefined : 'needs util-linux script for a pseudo-terminal', timeout: 60_000 },
  async () => {
    ensureBuilt();
    const a = await addAgent(served.dataDir, uniqueName('tty'));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-tty-'));
    try {
      const input = path.join(dir, 'input.json');
      fs.writeFileSync(input, JSON.stringify(claudeCodeBash));
      const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} hook permission-request --timeout 1 < ${JSON.stringify(input)} 2>/dev/null`;
      const env = { ...process.env, PERCH_URL: served.mcpUrl, PERCH_KEY: a.key };
      const r = await exitOf(spawn('script', ['-qec', cmd, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'pipe'] }), 'script', 30_000);
      const shown = r.stdout.replace(/\r/g, '');
      assert.match(shown, /^perch: waiting for the owner in Perch: Allow Bash: rm -rf node_modules\?$/m, shown);
      assert.match(
        shown,
        /^perch: no decision in Perch on "Allow Bash: rm -rf node_modules\?": no decision within 1 s; the terminal dialog decides$/m,
        shown,
      );
      const card = (await ownerOk(served, 'requests.list', {})).requests.find((x: any) => x.requester.id === a.id);
      assert.equal(card.state, 'cancelled');
      assert.equal(card.withdrawn, "no decision within 1 s; the harness's own dialog decides", 'the card says why');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);
