// The kill switch reaching the REAL Claude Code (pinned, installed on demand: test/support/real-harness.ts): configured
// only by `perch connect claude-code NAME --write` (its PreToolUse hook an HTTP hook to the hub's door; `perch` not on
// Claude Code's PATH), pausing the agent in Perch blocks the session's next tool call. Bash `touch …` is allowed outright by a permission rule (no dialog, no
// PermissionRequest hook), so the pause is the only thing that can stop it. The model is a scripted stand-in
// (test/support/model-standin.ts): a first Bash call runs; between the two model turns the owner pauses the agent; the
// second Bash call is then blocked, and Claude Code hands the pause reason back to the model as an error result.
// After the owner resumes, the same script runs both commands.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addAgent, ownerOk, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { useClaudeSession, type ClaudeSessionRun } from '../support/real-harness';
import { resultText, toolResults, type Block, type MessagesRequest } from '../support/model-standin';

const served = useSharedServe();
const FIRST = 'first.marker';
const SECOND = 'second.marker';

/** What the test does between the first Bash result and the second Bash call (the owner pausing the agent). */
let between: (() => Promise<void>) | undefined;

/** The script: Bash `touch first.marker`, then (after `between`) Bash `touch second.marker`, then a closing text. */
async function script(req: MessagesRequest): Promise<Block[]> {
  if (!req.tools?.some((t) => t.name === 'Bash')) return [{ type: 'text', text: 'ok' }];
  const results = toolResults(req);
  const last = results[results.length - 1];
  if (!last)
    return [
      { type: 'tool_use', id: 'toolu_first', name: 'Bash', input: { command: `touch ${FIRST}`, description: 'Write the first marker' } },
    ];
  if (last.tool_use_id === 'toolu_first') {
    await between?.();
    return [
      { type: 'tool_use', id: 'toolu_second', name: 'Bash', input: { command: `touch ${SECOND}`, description: 'Write the second marker' } },
    ];
  }
  return [{ type: 'text', text: `bash said: ${resultText(last)}` }];
}

const session = useClaudeSession('perch-claude-pause-', script);

/** A HOME whose ~/.claude/settings.json allows `touch` without asking; `perch connect claude-code NAME --write` adds Perch's hooks. */
async function configure(agent: AgentKey): Promise<string> {
  const home = await session.configure(agent, served.dataDir, ['Bash(touch:*)']);
  const settings = JSON.parse(fs.readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8'));
  assert.equal(settings.hooks.PreToolUse[0].hooks[0].type, 'http', 'perch connect wrote an HTTP PreToolUse hook');
  return home;
}

interface Run extends ClaudeSessionRun {
  /** The tool_result blocks Claude Code sent back in this run, by tool_use_id. */
  results: Map<string, any>;
}

/** `claude -p` in a fresh project dir, the agent's key only in the environment, perch not on the PATH. */
async function runAs(agent: AgentKey, home: string): Promise<Run> {
  const r = await session.run(agent, home, ['-p', 'Write the two marker files.', '--output-format', 'json']);
  const results = new Map<string, any>();
  for (const q of r.requests) for (const b of toolResults(q)) results.set(b.tool_use_id, b);
  return { ...r, results };
}

function resultOf(run: Run, id: string): any {
  const r = run.results.get(id);
  assert.ok(r, `Claude Code sent no result for ${id}; stdout: ${run.stdout.slice(0, 500)} stderr: ${run.stderr.slice(0, 500)}`);
  return r;
}

describe(
  "pausing the agent in Perch blocks the real Claude Code's next tool call (claude -p, the HTTP PreToolUse hook perch connect wrote, no perch on its PATH)",
  { skip: session.claude.skip },
  () => {
    test('paused between two Bash calls, the second is not run and the model gets the pause reason; resumed, the same script runs both', async () => {
      const agent = await addAgent(served.dataDir, uniqueName('ccpause'));
      const home = await configure(agent);

      between = async () => {
        await ownerOk(served, 'agents.pause', { agent: agent.id, reason: 'stop touching files' });
      };
      const paused = await runAs(agent, home).finally(() => (between = undefined));
      assert.equal(paused.code, 0, paused.stderr);
      assert.ok(fs.existsSync(path.join(paused.dir, FIRST)), 'the tool call before the pause ran');
      assert.notEqual(resultOf(paused, 'toolu_first').is_error, true);
      assert.equal(fs.existsSync(path.join(paused.dir, SECOND)), false, 'the tool call after the pause did not run');
      const blocked = resultOf(paused, 'toolu_second');
      assert.equal(blocked.is_error, true);
      assert.match(resultText(blocked), /Paused in Perch \(the owner paused this agent: stop touching files\)/);
      assert.match(resultText(blocked), /wait for the owner to resume this agent/);

      await ownerOk(served, 'agents.resume', { agent: agent.id });
      const resumed = await runAs(agent, home);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.ok(fs.existsSync(path.join(resumed.dir, FIRST)), 'resumed: the first command ran');
      assert.ok(fs.existsSync(path.join(resumed.dir, SECOND)), 'resumed: the second command ran, without asking');
      assert.notEqual(resultOf(resumed, 'toolu_second').is_error, true);
    });
  },
);
