// The real Claude Code (pinned: test/support/real-harness.ts) configured only by `perch connect` against a real
// `perch serve`, the model a scripted stand-in on 127.0.0.1 (test/support/model-standin.ts):
// - Perch's own tools need no approval: connect writes permissions.allow mcp__perch-NAME, so Claude Code's call of
//   mcp__perch-NAME__whoami runs at once and files no card (the hub governs those calls itself).
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addAgent, ensureBuilt, ownerOk, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { claudeCode, connectWrite, runClaude } from '../support/real-harness';
import { keyEnvVar } from '../../src/shared/agents/snippets';
import { resultText, startStandIn, toolResults } from '../support/model-standin';

const claude = claudeCode();
const served = useSharedServe();
const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** The requests agent a filed so far (any state). */
async function requestsOf(a: AgentKey): Promise<any[]> {
  const all: any[] = [];
  for (const state of ['pending', 'approved', 'rejected', 'cancelled', 'expired']) {
    const r = await ownerOk(served, 'requests.list', { state }).catch(() => ({ requests: [] }));
    all.push(...(r.requests ?? []).filter((x: any) => x.requester?.id === a.id));
  }
  return all;
}

/** Settles when the run ends, or rejects as soon as agent a has a pending card (which would wait 540 s otherwise). */
async function endsWithoutCard<T>(run: Promise<T>, a: AgentKey): Promise<T> {
  let done = false;
  const finished = run.finally(() => (done = true));
  for (let i = 0; i < 600 && !done; i++) {
    const { requests } = await ownerOk(served, 'requests.list', { state: 'pending' });
    const card = requests.find((r: any) => r.requester?.id === a.id);
    if (card) {
      await ownerOk(served, 'requests.decide', { request_id: card.request_id, decision: 'reject' });
      throw new Error(`a card was filed for ${a.name}: ${card.title}`);
    }
    await Promise.race([finished, new Promise((r) => setTimeout(r, 500))]);
  }
  return finished;
}

describe("the real Claude Code with perch connect's config: Perch's own tools need no approval", { skip: claude.skip }, () => {
  test('claude -p calls mcp__perch-NAME__whoami: it runs at once (its result reaches the model) and no card is filed', async () => {
    ensureBuilt();
    const a = await addAgent(served.dataDir, uniqueName('own'));
    const home = tempDir('perch-own-home-');
    fs.mkdirSync(path.join(home, '.claude'));
    fs.writeFileSync(
      path.join(home, '.claude', 'settings.json'),
      `${JSON.stringify({ permissions: { allow: ['Bash(npm test)'] } }, null, 2)}\n`,
    );
    await connectWrite('claude-code', a.name, served.dataDir, home);

    const tool = `mcp__perch-${a.name}__whoami`;
    let whoami = '';
    const model = await startStandIn((req) => {
      if (!req.tools?.some((t) => t.name === tool)) return [{ type: 'text', text: 'ok' }];
      const [result] = toolResults(req);
      if (!result) return [{ type: 'tool_use', id: 'toolu_whoami', name: tool, input: {} }];
      whoami = resultText(result);
      return [{ type: 'text', text: result.is_error ? 'whoami failed' : 'whoami answered' }];
    });
    try {
      const project = tempDir('perch-own-project-');
      const run = runClaude(claude.bin!, ['-p', 'Who am I in Perch?'], {
        cwd: project,
        home,
        // Perch's tools offered up front (not through tool search), so the script can call whoami.
        env: { ANTHROPIC_BASE_URL: model.url, [keyEnvVar(a.name)]: a.key, ENABLE_TOOL_SEARCH: 'false' },
      });
      const r = await endsWithoutCard(run, a);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /whoami answered/);
      assert.match(whoami, new RegExp(a.name), 'the result of whoami is the agent itself');
      assert.deepEqual(await requestsOf(a), [], 'no card was filed for a call of Perch’s own tool');
      const settings = JSON.parse(fs.readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8'));
      assert.deepEqual(settings.permissions.allow, ['Bash(npm test)', `mcp__perch-${a.name}`]);
    } finally {
      await model.close();
    }
  });
});
