// End to end with the REAL Claude Code (pinned, installed on demand: test/support/real-harness.ts) against a real
// `perch serve`. The model is a scripted stand-in for the Messages API on 127.0.0.1 (test/support/model-standin.ts)
// that makes Claude Code call Perch's whoami and then run `touch perch-approved.marker` with its Bash tool.
// Claude Code's default permission mode asks before Bash; in `claude -p` there is no terminal dialog, so
// the PermissionRequest hook from ~/.claude/settings.json (`perch hook permission-request`) is what decides:
// the owner's approve runs the command, a reject does not (Claude Code hands the denial to the model as an
// error tool_result), and a standing rule decides the next identical prompt without the owner.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, addAgent, ensureBuilt, eventually, ownerOk, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { claudeCode, runClaude } from '../support/real-harness';
import { keyEnvVar } from '../../src/shared/agents/snippets';
import { wakeRecipes } from '../../src/shared/agents/wake';
import { resultText, startStandIn, toolResults, type Block, type MessagesRequest, type StandIn } from '../support/model-standin';

const claude = claudeCode();
const served = useSharedServe();
const COMMAND = 'touch perch-approved.marker';
const MARKER = 'perch-approved.marker';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  dir: string;
  /** The Messages requests of this run's main conversation (the ones that offer the Bash tool). */
  turns: MessagesRequest[];
}

/** The script: whoami through Perch's MCP tools, then the Bash command, then a closing text. */
function script(req: MessagesRequest): Block[] {
  if (!req.tools?.some((t) => t.name === 'Bash')) return [{ type: 'text', text: 'ok' }];
  const results = toolResults(req);
  const last = results[results.length - 1];
  if (!last) return [{ type: 'tool_use', id: 'toolu_whoami', name: 'mcp__perch__whoami', input: {} }];
  if (last.tool_use_id === 'toolu_whoami')
    return [{ type: 'tool_use', id: 'toolu_bash', name: 'Bash', input: { command: COMMAND, description: 'Write the marker file' } }];
  return [{ type: 'text', text: `bash said: ${resultText(last)}` }];
}

let model: StandIn;
let home: string;

before(async () => {
  if (claude.skip) return;
  ensureBuilt();
  model = await startStandIn(script);
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-claude-home-'));
});

after(async () => {
  await model?.close();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

/** ~/.claude.json (Perch as a user-scope MCP server, the key by reference) and ~/.claude/settings.json (the hook). */
function configure(agent: AgentKey): void {
  fs.writeFileSync(
    path.join(home, '.claude.json'),
    JSON.stringify({
      mcpServers: { perch: { type: 'http', url: served.mcpUrl, headers: { Authorization: `Bearer \${${keyEnvVar(agent.name)}}` } } },
    }),
  );
  fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
  fs.writeFileSync(
    path.join(home, '.claude', 'settings.json'),
    JSON.stringify({
      // Perch's own tools are allowed outright; Bash is left to the default mode, which asks.
      permissions: { allow: ['mcp__perch'] },
      hooks: {
        PermissionRequest: [
          {
            hooks: [
              {
                type: 'command',
                command: `"${process.execPath}" "${BIN}" hook permission-request --agent ${agent.name} --url ${served.mcpUrl} --timeout 60`,
                timeout: 90,
              },
            ],
          },
        ],
      },
    }),
  );
}

/** `claude -p` in a fresh project dir, as the agent (its key only in the environment). */
async function runAs(agent: AgentKey): Promise<Run> {
  const dir = fs.mkdtempSync(path.join(home, 'project-'));
  const first = model.requests.length;
  const r = await runClaude(claude.bin!, ['-p', 'Write the marker file.', '--output-format', 'json'], {
    cwd: dir,
    home,
    env: {
      ANTHROPIC_BASE_URL: model.url,
      [keyEnvVar(agent.name)]: agent.key,
      // Perch's tools are offered up front rather than found through tool search, so the script can call whoami.
      ENABLE_TOOL_SEARCH: 'false',
    },
  });
  const turns = model.requests.slice(first).filter((q) => q.tools?.some((t) => t.name === 'Bash'));
  return { ...r, dir, turns };
}

/** The agent's pending Perch request (waits until the hook has filed it). */
async function pendingOf(agent: AgentKey): Promise<any> {
  let found: any;
  await eventually(
    async () => {
      const { requests } = await ownerOk(served, 'requests.list', { state: 'pending' });
      found = requests.find((r: any) => r.requester?.id === agent.id);
      return !!found;
    },
    120_000,
    `the Bash prompt of ${agent.name} as a pending Perch request`,
  );
  return found;
}

/** The tool_result Claude Code sent back for the Bash call. */
function bashResult(run: Run): any {
  for (const t of run.turns) {
    const r = toolResults(t).find((b) => b.tool_use_id === 'toolu_bash');
    if (r) return r;
  }
  assert.fail(`Claude Code sent no result for the Bash call; stdout: ${run.stdout.slice(0, 500)} stderr: ${run.stderr.slice(0, 500)}`);
}

describe(
  'the real Claude Code asks Perch at its Bash permission prompt (claude -p, PermissionRequest hook, Perch as MCP server)',
  { skip: claude.skip },
  () => {
    test('the prompt is a Perch request with the command; the owner approves and the command runs', async () => {
      const agent = await addAgent(served.dataDir, uniqueName('cc'));
      configure(agent);
      const running = runAs(agent);
      const req = await pendingOf(agent);
      assert.equal(req.kind, 'approve');
      assert.equal(req.title, `Allow Bash: ${COMMAND}?`);
      assert.equal(req.context.source, 'permission_prompt');
      assert.equal(req.context.harness, 'claude-code');
      assert.equal(req.context.tool_name, 'Bash');
      assert.equal(req.context.permission_mode, 'default');
      assert.match(req.context.session_id, /^[0-9a-f-]{36}$/, "Claude Code's session id");
      assert.match(req.context.preview, /touch perch-approved\.marker/);
      await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
      const run = await running;
      assert.equal(run.code, 0, run.stderr);
      assert.equal(req.context.cwd, fs.realpathSync(run.dir));
      // Perch was Claude Code's MCP server: its tools were offered and whoami answered as this agent.
      const whoami = toolResults(run.turns[1]!).find((b) => b.tool_use_id === 'toolu_whoami');
      assert.ok(whoami && !whoami.is_error, 'whoami through Perch answered');
      assert.match(resultText(whoami), new RegExp(agent.name));
      assert.ok(fs.existsSync(path.join(run.dir, MARKER)), 'the approved command ran');
      assert.notEqual(bashResult(run).is_error, true);
      assert.deepEqual(JSON.parse(run.stdout).permission_denials, []);
    });

    test("the owner rejects: the command does not run and Claude Code reports the denial with the owner's comment", async () => {
      const agent = await addAgent(served.dataDir, uniqueName('cc'));
      configure(agent);
      const running = runAs(agent);
      const req = await pendingOf(agent);
      await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'reject', comment: 'not in this repo' });
      const run = await running;
      assert.equal(run.code, 0, run.stderr);
      assert.equal(fs.existsSync(path.join(run.dir, MARKER)), false, 'the rejected command did not run');
      const result = bashResult(run);
      assert.equal(result.is_error, true);
      assert.match(resultText(result), /Denied by the owner in Perch: not in this repo/);
      const denials = JSON.parse(run.stdout).permission_denials as any[];
      assert.equal(denials.length, 1);
      assert.equal(denials[0].tool_name, 'Bash');
    });

    test('"always allow" on the card decides it, and the next identical prompt is allowed by the standing rule without the owner', async () => {
      const agent = await addAgent(served.dataDir, uniqueName('cc'));
      configure(agent);
      const running = runAs(agent);
      const req = await pendingOf(agent);
      const answered = await ownerOk(served, 'rules.add', { request_id: req.request_id, command_prefix: 'touch', behavior: 'allow' });
      assert.equal(answered.request.state, 'approved');
      const first = await running;
      assert.ok(fs.existsSync(path.join(first.dir, MARKER)));

      const { requests: before } = await ownerOk(served, 'requests.list', { state: 'pending' });
      assert.equal(before.filter((r: any) => r.requester?.id === agent.id).length, 0);
      const second = await runAs(agent);
      assert.equal(second.code, 0, second.stderr);
      assert.ok(fs.existsSync(path.join(second.dir, MARKER)), 'the rule allowed it');
      const { requests } = await ownerOk(served, 'requests.list', {});
      const mine = requests.filter((r: any) => r.requester?.id === agent.id);
      assert.equal(mine.length, 2, 'the second prompt was filed too, and decided at once');
      assert.ok(mine.every((r: any) => r.state === 'approved'));
    });

    test("a paused agent's prompt is denied at once with the pause reason, and the command does not run", async () => {
      const agent = await addAgent(served.dataDir, uniqueName('cc'));
      configure(agent);
      await ownerOk(served, 'agents.pause', { agent: agent.id, reason: 'stop touching files' });
      const run = await runAs(agent);
      assert.equal(fs.existsSync(path.join(run.dir, MARKER)), false);
      const result = bashResult(run);
      assert.equal(result.is_error, true);
      assert.match(resultText(result), /Paused in Perch by the owner: stop touching files/);
    });
  },
);

describe(
  'a Claude Code wake run Perch starts brings its permission prompts to the owner (the recipe\'s --settings "$PERCH_CLAUDE_SETTINGS")',
  { skip: claude.skip },
  () => {
    test("woken by a message, the headless run's Bash prompt is a Perch request; the owner approves and the run does it", async () => {
      const agent = await addAgent(served.dataDir, uniqueName('ccwake'));
      const runHome = fs.mkdtempSync(path.join(home, 'wake-home-'));
      const dir = fs.mkdtempSync(path.join(home, 'wake-project-'));
      const recipe = wakeRecipes(agent.name).find((r) => r.id === 'claude-code')!;
      assert.match(recipe.form.shell!, /--settings "\$PERCH_CLAUDE_SETTINGS"/);
      const shell = recipe.form.shell!.replace(/^claude /, `"${claude.bin}" `);
      await ownerOk(served, 'wake.set', {
        agent: agent.id,
        shell,
        cwd: dir,
        env: {
          HOME: runHome,
          ANTHROPIC_BASE_URL: model.url,
          ANTHROPIC_API_KEY: 'dummy',
          ENABLE_TOOL_SEARCH: 'false',
          DISABLE_TELEMETRY: '1',
          DISABLE_AUTOUPDATER: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        },
        timeout_secs: 240,
      });
      const group = await ownerOk(served, 'conversations.create_group', { title: `with ${agent.name}`, members: [agent.id] });
      await ownerOk(served, 'messages.send', { conv_id: group.conversation.conv_id, text: 'please touch the marker', to: [agent.id] });
      const req = await pendingOf(agent);
      assert.equal(req.title, `Allow Bash: ${COMMAND}?`);
      assert.equal(req.context.cwd, fs.realpathSync(dir));
      await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
      let run: any;
      await eventually(
        async () => {
          [run] = (await ownerOk(served, 'wake.runs', { agent: agent.id })).runs;
          return run && run.status !== 'running' && run.status !== 'starting';
        },
        120_000,
        'the wake run to end',
      );
      assert.equal(run.status, 'succeeded', JSON.stringify(run));
      assert.ok(fs.existsSync(path.join(dir, MARKER)), 'the approved command ran in the wake run');
    });
  },
);
