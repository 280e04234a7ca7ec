// Claude Code's permission modes against Perch, with the REAL Claude Code (pinned, test/support/real-harness.ts),
// configured only by `perch connect claude-code NAME --write`, driven by a scripted model stand-in that runs one Bash
// command Claude Code does not allow by itself. What each mode sends the hooks (checked here with 2.1.332):
//   manual (its hook input says permission_mode "default") and acceptEdits: the PermissionRequest hook, so the prompt
//   is a card in the owner's inbox;
//   auto: no PermissionRequest (a server-side check decides; through a model endpoint that does not pass it, claude -p
//   refuses the command); its PreToolUse says "auto", and the owner is told in the agent's feed that its questions do
//   not come to Perch and how to start it instead.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addAgent, eventually, ownerOk, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { useClaudeSession } from '../support/real-harness';
import { resultText, toolResults, type Block, type MessagesRequest } from '../support/model-standin';

const served = useSharedServe();
const COMMAND = 'curl -s http://127.0.0.1:9/ > /dev/null; touch mode.marker';

function script(req: MessagesRequest): Block[] {
  if (!req.tools?.some((t) => t.name === 'Bash')) return [{ type: 'text', text: 'ok' }];
  const last = toolResults(req).pop();
  if (!last) return [{ type: 'tool_use', id: 'toolu_mode', name: 'Bash', input: { command: COMMAND, description: 'Write the marker' } }];
  return [{ type: 'text', text: `bash said: ${resultText(last)}` }];
}

const session = useClaudeSession('perch-claude-modes-', script);

/** `claude -p --permission-mode MODE` as the agent, configured by perch connect; the owner approves what is filed. */
async function runIn(mode: string, agent: AgentKey): Promise<{ filed: any[]; code: number | null; ran: boolean }> {
  const agentHome = await session.configure(agent, served.dataDir);
  let stop = false;
  const filed: any[] = [];
  const owner = (async () => {
    while (!stop) {
      const r = (await ownerOk(served, 'requests.list', {})).requests.find(
        (x: any) => x.requester.id === agent.id && x.state === 'pending',
      );
      if (r) {
        filed.push(r);
        await ownerOk(served, 'requests.decide', { request_id: r.request_id, decision: 'approve' });
      }
      await new Promise((res) => setTimeout(res, 300));
    }
  })();
  const run = await session
    .run(agent, agentHome, ['-p', 'Write the marker file.', '--output-format', 'json', '--permission-mode', mode], { timeoutMs: 120_000 })
    .finally(() => (stop = true));
  await owner;
  return { filed, code: run.code, ran: fs.existsSync(path.join(run.dir, 'mode.marker')) };
}

describe("the real Claude Code's permission modes: which reach the Perch inbox", { skip: session.claude.skip }, () => {
  for (const [mode, reported] of [
    ['manual', 'default'],
    ['acceptEdits', 'acceptEdits'],
  ] as const) {
    test(
      `${mode}: the Bash prompt is a card (permission_mode "${reported}"); the owner's approve runs it`,
      { timeout: 180_000 },
      async () => {
        const agent = await addAgent(served.dataDir, uniqueName(`mode-${mode.toLowerCase()}`));
        const r = await runIn(mode, agent);
        assert.equal(r.filed.length, 1, 'one card');
        assert.equal(r.filed[0].title, `Allow Bash: ${COMMAND}?`);
        assert.equal(r.filed[0].context.permission_mode, reported);
        assert.equal(r.code, 0);
        assert.equal(r.ran, true, 'the approved command ran');
      },
    );
  }

  test(
    "auto: no card (Claude Code asks no hook), and the owner is told in the agent's feed how to start it so its prompts come to Perch",
    { timeout: 180_000 },
    async () => {
      const agent = await addAgent(served.dataDir, uniqueName('mode-auto'));
      const r = await runIn('auto', agent);
      assert.equal(r.filed.length, 0, 'nothing filed');
      assert.equal(r.ran, false, 'nobody approved the command: it did not run');
      await eventually(
        async () =>
          (await ownerOk(served, 'progress.list', { agent_id: agent.id })).progress.some(
            (p: any) => p.data?.harness?.event === 'permission-mode' && /in auto mode.*--permission-mode manual/.test(p.text),
          ),
        10_000,
        'the owner told about auto mode',
      );
    },
  );
});
