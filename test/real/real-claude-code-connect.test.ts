// The real Claude Code (pinned: test/support/real-harness.ts) configured only by `perch connect` against a real
// `perch serve`, the model a scripted stand-in on 127.0.0.1 (test/support/model-standin.ts):
// - Perch's own tools need no approval: connect writes permissions.allow mcp__perch-NAME, so Claude Code's call of
//   mcp__perch-NAME__whoami runs at once and files no card (the hub governs those calls itself).
// - One agent per session: kit connected at the user scope, rue with --project DIR; a session in DIR makes one Bash
//   prompt and exactly one card, rue's (kit's hook runs too and answers "no decision"); a session elsewhere, kit's.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addAgent, cliAsync, ensureBuilt, ownerOk, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { pendingRequestOf } from '../support/hook-runner';
import { useTempDirs } from '../support/connect-kit';
import { claudeCode, connectWrite, pathWithoutPerch, runClaude } from '../support/real-harness';
import { keyEnvVar } from '../../src/shared/agents/snippets';
import { resultText, startStandIn, toolResults } from '../support/model-standin';

const claude = claudeCode();
const served = useSharedServe();
const tempDir = useTempDirs();

/** The requests agent a filed so far (any state). */
async function requestsOf(a: AgentKey): Promise<any[]> {
  const { requests } = await ownerOk(served, 'requests.list', {});
  return requests.filter((x: any) => x.requester?.id === a.id);
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

describe('the real Claude Code with kit at the user scope and rue at --project DIR: one card per prompt', { skip: claude.skip }, () => {
  test("a Bash prompt in DIR files exactly one card, rue's (kit's hook stays silent); a prompt elsewhere, kit's", async () => {
    ensureBuilt();
    const kit = await addAgent(served.dataDir, uniqueName('kit'));
    const rue = await addAgent(served.dataDir, uniqueName('rue'));
    const home = tempDir('perch-two-home-');
    const repo = tempDir('perch-two-repo-');
    const elsewhere = tempDir('perch-two-elsewhere-');
    await connectWrite('claude-code', kit.name, served.dataDir, home);
    const r = await cliAsync(['connect', 'claude-code', rue.name, '--project', repo, '--write', '--data-dir', served.dataDir], {
      env: { HOME: home, PATH: pathWithoutPerch() },
    });
    assert.equal(r.code, 0, r.stderr);

    const model = await startStandIn((req) => {
      if (!req.tools?.some((t) => t.name === 'Bash')) return [{ type: 'text', text: 'ok' }];
      if (toolResults(req).length) return [{ type: 'text', text: 'done' }];
      return [{ type: 'tool_use', id: 'toolu_bash', name: 'Bash', input: { command: 'touch marker', description: 'Write the marker' } }];
    });
    const env = { ANTHROPIC_BASE_URL: model.url, [keyEnvVar(kit.name)]: kit.key, [keyEnvVar(rue.name)]: rue.key };
    /** One session in cwd: the one card it files (approved), and every card of kit and rue after it. */
    const session = async (cwd: string, whose: AgentKey) => {
      const run = runClaude(claude.bin!, ['-p', 'Write the marker.'], { cwd, home, env });
      const card = await pendingRequestOf(served, whose, 120_000);
      assert.equal(card.title, 'Allow Bash: touch marker?');
      await ownerOk(served, 'requests.decide', { request_id: card.request_id, decision: 'approve' });
      const done = await run;
      assert.equal(done.code, 0, done.stderr);
      assert.ok(fs.existsSync(path.join(cwd, 'marker')), 'the approved command ran');
      return { kit: await requestsOf(kit), rue: await requestsOf(rue) };
    };
    try {
      const inRepo = await session(repo, rue);
      assert.equal(inRepo.rue.length, 1, "one card, rue's");
      assert.deepEqual(inRepo.kit, [], "kit's hook filed nothing for the same prompt");
      const outside = await session(elsewhere, kit);
      assert.equal(outside.kit.length, 1, "elsewhere the card is kit's");
      assert.equal(outside.rue.length, 1, 'and rue has no second one');
    } finally {
      await model.close();
    }
  });
});
