// End to end with the REAL Claude Code (pinned, installed on demand: test/support/real-harness.ts) against a real
// `perch serve`. The model is a scripted stand-in for the Messages API on 127.0.0.1 (test/support/model-standin.ts)
// that makes Claude Code call Perch's whoami and then run `touch perch-approved.marker` with its Bash tool.
// Claude Code is configured only by the real `perch connect claude-code NAME --write` (HOME a temp dir, the key in
// PERCH_KEY_NAME in its environment, `perch` not on its PATH): Perch as its MCP server and the HTTP hooks that post
// to the hub's harness doors. Claude Code's default permission mode asks before Bash; in `claude -p` there is no
// terminal dialog, so the PermissionRequest hook is what decides: the owner's approve runs the command, a reject
// does not (Claude Code hands the denial to the model as an error tool_result), and a standing rule decides the
// next identical prompt without the owner. With the hub stopped, the session finishes on its own.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addAgent, eventually, ownerOk, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { pendingRequestOf } from '../support/hook-runner';
import { useClaudeSession, withHubStopped, type ClaudeSessionRun } from '../support/real-harness';
import { wakeRecipes } from '../../src/shared/agents/wake';
import { resultText, toolResults, type Block, type MessagesRequest } from '../support/model-standin';

const served = useSharedServe();
const COMMAND = 'touch perch-approved.marker';
const MARKER = 'perch-approved.marker';

interface Run extends ClaudeSessionRun {
  /** The Messages requests of this run's main conversation (the ones that offer the Bash tool). */
  turns: MessagesRequest[];
}

/**
 * The script: whoami through Perch's MCP tools (the server perch connect named perch-NAME) when they are offered,
 * then the Bash command, then a closing text.
 */
function script(req: MessagesRequest): Block[] {
  if (!req.tools?.some((t) => t.name === 'Bash')) return [{ type: 'text', text: 'ok' }];
  const results = toolResults(req);
  const last = results[results.length - 1];
  const whoami = req.tools.find((t) => /^mcp__perch-.+__whoami$/.test(t.name));
  if (!last && whoami) return [{ type: 'tool_use', id: 'toolu_whoami', name: whoami.name, input: {} }];
  if (!last || last.tool_use_id === 'toolu_whoami')
    return [{ type: 'tool_use', id: 'toolu_bash', name: 'Bash', input: { command: COMMAND, description: 'Write the marker file' } }];
  return [{ type: 'text', text: `bash said: ${resultText(last)}` }];
}

const session = useClaudeSession('perch-claude-home-', script);
const claude = session.claude;

/** The HOME each agent's Claude Code runs in, configured by perch connect. */
const homes = new Map<string, string>();

/**
 * A fresh HOME where Perch's own tools are allowed outright (Bash is left to the default mode, which asks), then
 * `perch connect claude-code NAME --write` for the agent of hub DATADIR: ~/.claude.json and ~/.claude/settings.json
 * are what it wrote.
 */
async function configure(agent: AgentKey, dataDir = served.dataDir): Promise<void> {
  const agentHome = await session.configure(agent, dataDir);
  const settings = JSON.parse(fs.readFileSync(path.join(agentHome, '.claude', 'settings.json'), 'utf8'));
  assert.equal(settings.hooks.PermissionRequest[0].hooks[0].type, 'http', 'perch connect wrote an HTTP PermissionRequest hook');
  homes.set(agent.name, agentHome);
}

/** `claude -p` in a fresh project dir, as the agent (its key only in the environment, perch not on the PATH). */
async function runAs(agent: AgentKey): Promise<Run> {
  const r = await session.run(agent, homes.get(agent.name)!, ['-p', 'Write the marker file.', '--output-format', 'json']);
  return { ...r, turns: r.requests.filter((q) => q.tools?.some((t) => t.name === 'Bash')) };
}

/** The agent's pending Perch request (waits until the hook has filed it; a Claude Code run takes its time). */
function pendingOf(agent: AgentKey): Promise<any> {
  return pendingRequestOf(served, agent, 120_000);
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
  'the real Claude Code configured by perch connect claude-code --write asks Perch at its Bash permission prompt (claude -p, HTTP PermissionRequest hook, Perch as MCP server, no perch on its PATH)',
  { skip: claude.skip },
  () => {
    test('the prompt is a Perch request with the command; the owner approves and the command runs', async () => {
      const agent = await addAgent(served.dataDir, uniqueName('cc'));
      await configure(agent);
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
      await configure(agent);
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
      await configure(agent);
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

    test("a paused agent's Bash is blocked by the PreToolUse hook with the pause reason before any prompt: the command does not run, nothing is filed", async () => {
      const agent = await addAgent(served.dataDir, uniqueName('cc'));
      await configure(agent);
      await ownerOk(served, 'agents.pause', { agent: agent.id, reason: 'stop touching files' });
      const run = await runAs(agent);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(fs.existsSync(path.join(run.dir, MARKER)), false);
      const result = bashResult(run);
      assert.equal(result.is_error, true);
      assert.match(resultText(result), /^PreToolUse:Bash hook error: Paused in Perch \(the owner paused this agent: stop touching files\)/);
      const { requests } = await ownerOk(served, 'requests.list', {});
      assert.equal(requests.filter((r: any) => r.requester?.id === agent.id).length, 0, 'no prompt was filed');
    });

    test('with the hub stopped, the session finishes on its own (no hang): the hooks fail without blocking, nobody approves, the command does not run', async () => {
      await withHubStopped('ccdown', configure, async (agent) => {
        const run = await runAs(agent);
        assert.equal(run.code, 0, run.stderr);
        assert.equal(fs.existsSync(path.join(run.dir, MARKER)), false, 'nobody approved: the command did not run');
        assert.equal(bashResult(run).is_error, true);
        const denials = JSON.parse(run.stdout).permission_denials as any[];
        assert.deepEqual(
          denials.map((d) => d.tool_name),
          ['Bash'],
        );
      });
    });
  },
);

describe(
  'a Claude Code wake run Perch starts brings its permission prompts to the owner (the recipe\'s --settings "$PERCH_CLAUDE_SETTINGS")',
  { skip: claude.skip },
  () => {
    test("woken by a message, the headless run's Bash prompt is a Perch request; the owner approves and the run does it", async () => {
      const agent = await addAgent(served.dataDir, uniqueName('ccwake'));
      const runHome = fs.mkdtempSync(path.join(session.home, 'wake-home-'));
      const dir = fs.mkdtempSync(path.join(session.home, 'wake-project-'));
      const recipe = wakeRecipes(agent.name).find((r) => r.id === 'claude-code')!;
      assert.match(recipe.form.shell!, /--settings "\$PERCH_CLAUDE_SETTINGS"/);
      const shell = recipe.form.shell!.replace(/^claude /, `"${claude.bin}" `);
      await ownerOk(served, 'wake.set', {
        agent: agent.id,
        shell,
        cwd: dir,
        env: {
          HOME: runHome,
          ANTHROPIC_BASE_URL: session.model.url,
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
