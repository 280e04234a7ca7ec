// What a person at the terminal of a headless `claude -p` sees while Perch holds its prompt, with the REAL Claude Code
// 2.1.332, configured by perch connect, the door's wait shortened to 3 s (?timeout=3, --timeout 3) so Perch gives up.
// Checked here:
//   plain `claude -p` with the default HTTP hooks prints nothing of the wait, nor Perch's give-up line (the door's
//   systemMessage): only the model's last text;
//   with --output-format stream-json --verbose --include-hook-events, a hook_started event names the PermissionRequest
//   as the wait begins, and its hook_response carries Perch's line naming the card when it gives up (and the window
//   title, terminalSequence, which claude -p does not set; an interactive session does:
//   real-claude-code-interactive.test.ts);
//   with --hooks perch in a real terminal (tmux), `perch hook`'s "waiting for the owner in Perch" line does not reach
//   it: Claude Code runs its command hooks in a session of their own, with no controlling terminal (/dev/tty cannot be
//   opened there; a command hook's own check is below).
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { BIN, addAgent, cliAsync, eventually, ownerOk, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { pathWithoutPerch, useClaudeSession } from '../support/real-harness';
import { resultText, toolResults, type Block, type MessagesRequest } from '../support/model-standin';
import { keyEnvVar } from '../../src/shared/agents/snippets';
import { endProcesses, processesWithEnv } from '../../scripts/leftovers';

const served = useSharedServe();
const COMMAND = 'curl -s http://127.0.0.1:9/ > /dev/null; touch wait.marker';
const TITLE = `Allow Bash: ${COMMAND}?`;
const GAVE_UP = `Perch: no decision on "${TITLE}": no decision within 3 s; the terminal dialog decides`;

function script(req: MessagesRequest): Block[] {
  if (!req.tools?.some((t) => t.name === 'Bash')) return [{ type: 'text', text: 'ok' }];
  const done = toolResults(req).find((b) => b.tool_use_id === 'toolu_wait');
  if (done) return [{ type: 'text', text: `bash said: ${resultText(done)}` }];
  return [{ type: 'tool_use', id: 'toolu_wait', name: 'Bash', input: { command: COMMAND, description: 'Write the marker' } }];
}

const session = useClaudeSession('perch-claude-wait-', script);
const hasTmux = spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
const SOCKET = `perch-claude-wait-${process.pid}`;
const homes: string[] = [];
let tmuxUsed = false;
after(async () => {
  if (tmuxUsed) spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
  for (const home of homes) await endProcesses(processesWithEnv('HOME', home), 'HOME', home);
});

/** The agent's settings.json with every Perch PermissionRequest hook told to give up after 3 s. */
function shortenWait(agentHome: string): void {
  const file = path.join(agentHome, '.claude', 'settings.json');
  const settings = JSON.parse(fs.readFileSync(file, 'utf8'));
  for (const h of settings.hooks.PermissionRequest[0].hooks) {
    if (h.type === 'http') h.url += '&timeout=3';
    else h.command += ' --timeout 3';
  }
  fs.writeFileSync(file, JSON.stringify(settings));
}

/** The agent's one card, once the door has withdrawn it. */
async function withdrawnCard(agent: AgentKey): Promise<any> {
  let card: any;
  await eventually(
    async () => {
      card = (await ownerOk(served, 'requests.list', {})).requests.find((r: any) => r.requester.id === agent.id);
      return card?.state === 'cancelled';
    },
    30_000,
    'the card withdrawn',
  );
  return card;
}

describe('what the terminal of a headless claude -p shows while Perch holds its prompt', { skip: session.claude.skip }, () => {
  test(
    "plain claude -p with the HTTP hooks: nothing of the wait nor of the give-up line, only the model's last text",
    { timeout: 180_000 },
    async () => {
      const agent = await addAgent(served.dataDir, uniqueName('wait-plain'));
      const home = await session.configure(agent, served.dataDir);
      shortenWait(home);
      const r = await session.run(agent, home, ['-p', 'Write the marker file.', '--permission-mode', 'manual'], { timeoutMs: 120_000 });
      assert.equal(r.code, 0);
      assert.equal((await withdrawnCard(agent)).title, TITLE, 'the card was filed, and withdrawn when Perch gave up');
      assert.doesNotMatch(r.stdout + r.stderr, /Perch/, 'no word of Perch on the terminal');
      assert.match(r.stdout, /^bash said: /, "only the model's last text");
      assert.equal(r.stderr, '');
    },
  );

  test(
    "claude -p --output-format stream-json --verbose --include-hook-events: hook_started as the wait begins, and the hook_response carries Perch's line naming the card",
    { timeout: 180_000 },
    async () => {
      const agent = await addAgent(served.dataDir, uniqueName('wait-stream'));
      const home = await session.configure(agent, served.dataDir);
      shortenWait(home);
      const r = await session.run(
        agent,
        home,
        [
          '-p',
          'Write the marker file.',
          '--permission-mode',
          'manual',
          '--output-format',
          'stream-json',
          '--verbose',
          '--include-hook-events',
        ],
        { timeoutMs: 120_000 },
      );
      assert.equal(r.code, 0);
      await withdrawnCard(agent);
      const events = r.stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l));
      const started = events.findIndex((e) => e.subtype === 'hook_started' && e.hook_event === 'PermissionRequest');
      const answered = events.findIndex((e) => e.subtype === 'hook_response' && e.hook_event === 'PermissionRequest');
      assert.ok(started >= 0 && answered > started, 'hook_started, then hook_response');
      assert.equal(events[started].hook_name, 'PermissionRequest:Bash', 'the wait is named by tool, not by card');
      assert.deepEqual(JSON.parse(events[answered].output), { systemMessage: GAVE_UP, terminalSequence: `\u001b]2;${GAVE_UP}\u0007` });
      // Claude Code shows the line nowhere else: no event of its own carries it.
      assert.equal(events.filter((e) => JSON.stringify(e).includes('Perch: no decision')).length, 1);
    },
  );

  test(
    "--hooks perch in a real terminal: perch hook's line does not reach it, as Claude Code runs command hooks with no controlling terminal",
    { timeout: 180_000, skip: hasTmux ? undefined : 'tmux is not installed' },
    async () => {
      tmuxUsed = true;
      const agent = await addAgent(served.dataDir, uniqueName('wait-perch'));
      const home = await session.configure(agent, served.dataDir);
      homes.push(home);
      const c = await cliAsync(['connect', 'claude-code', agent.name, '--write', '--hooks', 'perch', '--data-dir', served.dataDir], {
        env: { HOME: home, PATH: pathWithoutPerch() },
      });
      assert.equal(c.code, 0, c.stderr);
      shortenWait(home);
      // A second PermissionRequest hook, a plain command, writes down what terminal its process has.
      const file = path.join(home, '.claude', 'settings.json');
      const settings = JSON.parse(fs.readFileSync(file, 'utf8'));
      assert.match(settings.hooks.PermissionRequest[0].hooks[0].command, /^perch hook permission-request --agent /);
      settings.hooks.PermissionRequest[0].hooks.push({
        type: 'command',
        command: `cat > /dev/null; { tty; printf x > /dev/tty && echo opened; } > "$HOME/hook-tty.txt" 2>&1; exit 0`,
        timeout: 10,
      });
      fs.writeFileSync(file, JSON.stringify(settings));
      // perch on the harness's PATH (as --hooks perch needs), the built CLI.
      const bin = path.join(home, 'bin');
      fs.mkdirSync(bin);
      fs.writeFileSync(path.join(bin, 'perch'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`, {
        mode: 0o755,
      });
      const dir = fs.mkdtempSync(path.join(home, 'project-'));
      const env: Record<string, string> = {
        PATH: `${bin}:${pathWithoutPerch()}`,
        HOME: home,
        TERM: 'xterm-256color',
        ANTHROPIC_API_KEY: 'dummy',
        ANTHROPIC_BASE_URL: session.model.url,
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        ENABLE_TOOL_SEARCH: 'false',
        [keyEnvVar(agent.name)]: agent.key,
      };
      const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
      const cmd = `cd ${sq(dir)} && env -i ${Object.entries(env)
        .map(([k, v]) => `${k}=${sq(v)}`)
        .join(
          ' ',
        )} ${sq(session.claude.bin!)} -p ${sq('Write the marker file.')} --permission-mode manual; echo "claude exited $?"; sleep 600`;
      const t = spawnSync('tmux', ['-L', SOCKET, 'new-session', '-d', '-s', 'perch', '-x', '200', '-y', '50', cmd], { encoding: 'utf8' });
      assert.equal(t.status, 0, t.stderr);
      const pane = () => spawnSync('tmux', ['-L', SOCKET, 'capture-pane', '-p', '-t', 'perch'], { encoding: 'utf8' }).stdout ?? '';
      await eventually(() => /claude exited 0/.test(pane()), 120_000, 'claude -p done');
      assert.equal((await withdrawnCard(agent)).title, TITLE, 'perch hook filed the card and gave up');
      assert.doesNotMatch(pane(), /perch: waiting for the owner in Perch|no decision/, pane());
      // perch hook hands Claude Code the door's window title, and claude -p sets none.
      const shownTitle =
        spawnSync('tmux', ['-L', SOCKET, 'display', '-p', '-t', 'perch', '#{pane_title}'], { encoding: 'utf8' }).stdout ?? '';
      assert.doesNotMatch(shownTitle, /Perch/, shownTitle);
      assert.match(pane(), /bash said: /);
      const seen = fs.readFileSync(path.join(home, 'hook-tty.txt'), 'utf8');
      assert.match(seen, /^not a tty$/m, seen);
      assert.doesNotMatch(seen, /^opened$/m, seen);
    },
  );
});
