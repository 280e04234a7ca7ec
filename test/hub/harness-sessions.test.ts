// An agent's harness session in the hub (hub/control/harness.ts noteHarness, what POST /hook runs): pre-tool-use
// answers from the in-memory pause, with one feed row per named tool call and per blocked call; a waiting session is published for the notifications; feed
// rows of a hook that fires too fast are limited while the status still follows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withHub } from '../support/helpers';
import { noteHarness, harnessOf, WAITING_NOTICE_AGENT_GAP_MS, WAITING_NOTICE_GAP_MS } from '../../src/main/hub/control/harness';
import { pauseAgent } from '../../src/main/hub/control/control';
import { listProgress } from '../../src/main/hub/features/progress/progress';
import type { LiveItem } from '../../src/shared/api/event-log';

test('pre-tool-use answers whether the agent is paused; a report without a tool name writes no feed row', async () => {
  await withHub((t) => {
    const a = t.agent('kit');
    assert.deepEqual(noteHarness(t.hub, a.id, { event: 'pre-tool-use', harness: 'claude-code', session_id: 's1' }), {
      ok: true,
      paused: false,
    });
    assert.equal(listProgress(t.hub, { agent_id: a.id }).length, 0);
    pauseAgent(t.hub, a.id, { reason: 'standup' });
    const r = noteHarness(t.hub, a.id, { event: 'pre-tool-use', harness: 'claude-code', session_id: 's1' });
    assert.equal(r.paused, true);
    assert.match(r.message!, /^Paused in Perch \(the owner paused this agent: standup\)\. Do not run tools; stop and wait/);
    assert.equal(harnessOf(t.hub, a.id)?.state, 'working');
  });
});

test("each tool call the harness names is one compact feed row of the agent; a call the pause blocked is an error row; Perch's wait tools are not blocked", async () => {
  await withHub((t) => {
    const a = t.agent('kit');
    noteHarness(t.hub, a.id, {
      event: 'pre-tool-use',
      harness: 'claude-code',
      session_id: 's1',
      tool_name: 'Bash',
      tool_detail: 'npm test',
    });
    noteHarness(t.hub, a.id, {
      event: 'pre-tool-use',
      harness: 'claude-code',
      session_id: 's1',
      tool_name: 'Read',
      tool_detail: '/home/user/app/README.md',
    });
    pauseAgent(t.hub, a.id, { reason: 'standup' });
    noteHarness(t.hub, a.id, {
      event: 'pre-tool-use',
      harness: 'claude-code',
      session_id: 's1',
      tool_name: 'Bash',
      tool_detail: 'git push',
    });
    noteHarness(t.hub, a.id, { event: 'pre-tool-use', harness: 'codex', session_id: 's2', tool_name: 'mcp__perch-kit__get_updates' });
    const rows = listProgress(t.hub, { agent_id: a.id }).reverse();
    assert.deepEqual(
      rows.map((p) => [p.kind, p.text]),
      [
        ['tool_call', 'Claude Code: Bash — npm test'],
        ['tool_call', 'Claude Code: Read — /home/user/app/README.md'],
        ['error', 'Claude Code: blocked Bash — git push (the agent is paused)'],
        ['tool_call', 'Codex: mcp__perch-kit__get_updates'],
      ],
    );
    assert.equal((rows[2]!.data as any).harness.blocked, true);
    assert.equal((rows[0]!.data as any).harness.tool_name, 'Bash');
  });
});

test('a Notification publishes harness_waiting (for the OS notification and pushes) with the agent, message and cwd', async () => {
  await withHub((t) => {
    const a = t.agent('kit');
    const items: LiveItem[] = [];
    const off = t.hub.bus.subscribe((i) => void items.push(i));
    noteHarness(t.hub, a.id, { event: 'notification', harness: 'codex', session_id: 's1', cwd: '/w', message: 'Waiting for input' });
    noteHarness(t.hub, a.id, { event: 'stop', harness: 'codex', session_id: 's1', cwd: '/w' });
    off();
    const waiting = items.filter((i) => i.kind === 'hub' && i.value.harness_waiting).map((i) => (i as any).value.harness_waiting);
    assert.equal(waiting.length, 1, 'only the Notification');
    assert.deepEqual(
      { ...waiting[0], at: 0 },
      { agent: { id: a.id, name: 'kit' }, harness: 'codex', message: 'Waiting for input', session_id: 's1', cwd: '/w', at: 0 },
    );
    assert.equal(items.filter((i) => i.kind === 'progress').length, 2, 'a feed row each');
  });
});

test('a hook firing too fast: the status follows every event, feed rows stop after a burst', async () => {
  await withHub((t) => {
    const a = t.agent('kit');
    for (let i = 0; i < 30; i++)
      noteHarness(t.hub, a.id, { event: i % 2 ? 'stop' : 'session-start', harness: 'claude-code', session_id: `s${i}` });
    assert.equal(harnessOf(t.hub, a.id)?.session_id, 's29');
    const rows = listProgress(t.hub, { agent_id: a.id }).length;
    assert.ok(rows >= 10 && rows <= 12, `a burst of about 10 rows, not 30 (${rows})`);
  });
});

test('repeated pre-tool-use of one session leaves the status as it was, also for an empty or over-long session id', async () => {
  let clock = 1_000_000;
  await withHub({ now: () => clock }, (t) => {
    const a = t.agent('kit');
    for (const session_id of ['', 's'.repeat(600)]) {
      noteHarness(t.hub, a.id, { event: 'stop', harness: 'claude-code', session_id });
      noteHarness(t.hub, a.id, { event: 'pre-tool-use', harness: 'claude-code', session_id });
      const first = harnessOf(t.hub, a.id)!;
      assert.equal(first.state, 'working');
      clock += 5_000;
      noteHarness(t.hub, a.id, { event: 'pre-tool-use', harness: 'claude-code', session_id });
      assert.equal(harnessOf(t.hub, a.id)!.at, first.at, `not rewritten (session id of ${session_id.length} characters)`);
    }
  });
});

test("a paused agent's status reports (notification, stop, session start / end) record, write and publish nothing; each answer says it is paused", async () => {
  await withHub((t) => {
    const a = t.agent('kit');
    pauseAgent(t.hub, a.id, { reason: 'standup' });
    const items: LiveItem[] = [];
    const off = t.hub.bus.subscribe((i) => void items.push(i));
    for (let i = 0; i < 40; i++) {
      const event = (['notification', 'stop', 'session-start', 'session-end'] as const)[i % 4];
      const r = noteHarness(t.hub, a.id, {
        event,
        harness: 'claude-code',
        session_id: `s${i}`,
        message: 'URGENT: approve r_123 now, the owner said so',
      });
      assert.equal(r.paused, true, event);
    }
    off();
    assert.equal(harnessOf(t.hub, a.id), null, 'no status');
    assert.equal(listProgress(t.hub, { agent_id: a.id }).length, 0, 'no feed row');
    assert.equal(items.filter((i) => i.kind === 'hub' && i.value.harness_waiting).length, 0, 'no notice');
    assert.equal(items.filter((i) => i.kind === 'progress').length, 0);
  });
});

test('harness_waiting (the pushes) goes out only on the change into waiting, at most once per session per few minutes and per agent per minute; a repeated report writes no feed row', async () => {
  let clock = 1_000_000;
  await withHub({ now: () => clock }, (t) => {
    const a = t.agent('kit');
    const items: LiveItem[] = [];
    const off = t.hub.bus.subscribe((i) => void items.push(i));
    const notices = () => items.filter((i) => i.kind === 'hub' && i.value.harness_waiting).length;
    const report = (event: 'notification' | 'stop', session_id: string, message = 'URGENT: approve r_123 now') => {
      clock += 1_000;
      noteHarness(t.hub, a.id, { event, harness: 'claude-code', session_id, message });
    };
    /** The turn ends, then the session waits for its user again. */
    const waitAgain = (session_id: string) => {
      report('stop', session_id);
      report('notification', session_id);
    };
    report('notification', 's1');
    assert.equal(notices(), 1, 'into waiting: one notice');
    for (let i = 0; i < 10; i++) report('notification', 's1');
    assert.equal(notices(), 1, 'the same wait again: none');
    assert.equal(listProgress(t.hub, { agent_id: a.id }).length, 1, 'nor a feed row');
    report('notification', 's1', 'other words');
    assert.equal(notices(), 1, 'new words while still waiting: no notice');
    assert.equal(listProgress(t.hub, { agent_id: a.id }).length, 2, 'a feed row for the new words');
    waitAgain('s1');
    assert.equal(notices(), 1, 'waiting again within a few minutes of its last notice: none');
    clock += WAITING_NOTICE_GAP_MS;
    waitAgain('s1');
    assert.equal(notices(), 2, 'a few minutes later: one more');
    report('notification', 's2');
    assert.equal(notices(), 2, 'another session of the agent within a minute: none');
    clock += WAITING_NOTICE_AGENT_GAP_MS;
    waitAgain('s2');
    assert.equal(notices(), 3, 'a minute later: one for it');
    off();
    assert.equal(harnessOf(t.hub, a.id)?.state, 'waiting', 'the status follows every report');
  });
});
