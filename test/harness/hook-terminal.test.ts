// A waiting harness says so: `perch hook permission-request` writes to the terminal the harness runs in (/dev/tty),
// which a person sees even when the harness shows nothing of its hooks: the card it waits on when it starts waiting,
// and why it gave up. The terminal is a real pseudo-terminal (util-linux `script`); the door's timeout withdraws the
// card saying why. (Claude Code 2.1.332 runs its hooks with no controlling terminal, so there these lines never show:
// test/real/real-claude-code-waiting.test.ts.)
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

/** `perch hook permission-request --timeout 1` on a real pseudo-terminal for agent `key`, fed `input`: what the terminal showed. */
async function onTerminal(key: string, input: unknown): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-tty-'));
  try {
    const file = path.join(dir, 'input.json');
    fs.writeFileSync(file, JSON.stringify(input));
    const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} hook permission-request --timeout 1 < ${JSON.stringify(file)} 2>/dev/null`;
    const env = { ...process.env, PERCH_URL: served.mcpUrl, PERCH_KEY: key };
    const r = await exitOf(spawn('script', ['-qec', cmd, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'pipe'] }), 'script', 30_000);
    return r.stdout.replace(/\r/g, '');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test(
  "perch hook permission-request names the card on the harness's terminal while it waits and when it gives up; the card says why it was withdrawn",
  { skip: hasScript ? undefined : 'needs util-linux script for a pseudo-terminal', timeout: 60_000 },
  async () => {
    ensureBuilt();
    const a = await addAgent(served.dataDir, uniqueName('tty'));
    const shown = await onTerminal(a.key, claudeCodeBash);
    assert.match(shown, /^perch: waiting for the owner in Perch: Allow Bash: rm -rf node_modules\?$/m, shown);
    assert.match(
      shown,
      /^perch: no decision in Perch on "Allow Bash: rm -rf node_modules\?": no decision within 1 s; the terminal dialog decides$/m,
      shown,
    );
    const card = (await ownerOk(served, 'requests.list', {})).requests.find((x: any) => x.requester.id === a.id);
    assert.equal(card.state, 'cancelled');
    assert.equal(card.withdrawn, "no decision within 1 s; the harness's own dialog decides", 'the card says why');
  },
);

test(
  "an agent's command with escape sequences and a bidi override is named on the harness's terminal as plain text: nothing in it acts on the terminal",
  { skip: hasScript ? undefined : 'needs util-linux script for a pseudo-terminal', timeout: 60_000 },
  async () => {
    ensureBuilt();
    const a = await addAgent(served.dataDir, uniqueName('tty-esc'));
    // Set the window title, clear the screen, then turn what follows around ("exe.jpg" shows as "gpj.exe").
    const command = 'echo hi\u001b]0;owned\u0007\u001b[2J\u009b31m\u202egpj.exe';
    const shown = await onTerminal(a.key, { ...claudeCodeBash, tool_input: { command, description: 'x' } });
    const lines = shown.split('\n').filter((l) => l.startsWith('perch: '));
    assert.equal(lines.length, 2, shown);
    assert.equal(lines[0], 'perch: waiting for the owner in Perch: Allow Bash: echo hi]0;owned[2J31mgpj.exe?');
    for (const l of lines) assert.doesNotMatch(l, /[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/, JSON.stringify(l));
  },
);
