// Two hooks for one prompt (an agent's user-scope and project-scope hooks, the same session and tool call) posted in a
// hub's first moments, while its shell parser still loads (hub/features/rules/shell-parser.ts): the door waits for the
// parser before it looks for a card to join, so the second hook joins the first one's card — one card, never two. A hub
// in this process (its parser is this process's), so nothing here loads the parser before it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addAgent, eventually, rawPost, removeDataDir, tempDataDir } from '../support/serve-harness';
import { startHub } from '../../src/main/app';
import { shellParserLoaded } from '../../src/main/hub/features/rules/shell-parser';
import { ALLOW_OUTPUT, claudeCodeBash } from '../fixtures/permission-request';
import { decideRequest, listRequests } from '../../src/main/hub/features/requests/owner-decisions';

test("two hooks for one prompt posted before the hub's shell parser has loaded file one card, and the owner's one approve answers both", async () => {
  const dir = tempDataDir();
  const agent = await addAgent(dir, 'kit');
  const running = await startHub({ dataDir: dir, port: 0, dailyBackups: 0 });
  try {
    assert.equal(shellParserLoaded(), false, 'the parser is still loading');
    const door = `${running.baseUrl}/hook/claude-code/permission-request?timeout=60`;
    const input = { ...claudeCodeBash, tool_use_id: 'toolu_join_at_start' };
    const both = Promise.all([rawPost(door, agent.key, input), rawPost(door, agent.key, input)]);
    const mine = () => listRequests(running.hub, {}).filter((r) => r.requester?.id === agent.id);
    await eventually(() => mine().length > 0 && shellParserLoaded(), 20_000, 'the card filed');
    decideRequest(running.hub, running.hub.ownerId, { request_id: mine()[0]!.request_id, decision: 'approve' });
    for (const r of await both) assert.equal(r.text, ALLOW_OUTPUT, 'both hooks got the one approve');
    assert.equal(mine().length, 1, `one card, not ${mine().length}`);
  } finally {
    await running.close();
    removeDataDir(dir);
  }
});
