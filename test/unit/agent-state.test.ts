// The owner's one state per agent (shared/agents/agent-state.ts): needs you › paused › working › connected, idle › offline.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CONNECTED_MS,
  NO_PRESENCE,
  WORKING_MS,
  agentState,
  fleetOrder,
  lastActivity,
  spanText,
  stateText,
  type AgentStateInput,
  type FleetSortKey,
} from '../../src/shared/agents/agent-state';

const NOW = 1_800_000_000_000;
const MIN = 60_000;

function input(over: Partial<AgentStateInput> = {}): AgentStateInput {
  return { now: NOW, revoked: false, paused: null, waiting: false, presence: { ...NO_PRESENCE }, needs: [], runStartedAt: null, ...over };
}

const connected = { seen_at: NOW - 5_000, connected_since: NOW - 30 * MIN, active_at: null, busy_since: null };

describe('agent state', () => {
  test('an agent that never connected is offline, not running, with no duration', () => {
    const s = agentState(input());
    assert.equal(s.state, 'offline');
    assert.equal(s.since, null);
    assert.equal(stateText(s, NOW), 'offline');
  });

  test('a pending request to the owner makes a connected agent "needs you", since the oldest thing waiting', () => {
    const s = agentState(
      input({
        presence: connected,
        waiting: true,
        needs: [
          { what: 'request', at: NOW - 3 * MIN },
          { what: 'held', at: NOW - MIN },
        ],
      }),
    );
    assert.equal(s.state, 'needs_you');
    assert.equal(s.since, NOW - 3 * MIN);
    assert.equal(stateText(s, NOW), 'needs you · 3 min');
    assert.match(s.why, /request to decide/);
    assert.match(s.why, /held message/);
  });

  test('each kind of wait for the owner counts: held item, handoff to the owner, a task waiting for input', () => {
    for (const what of ['held', 'handoff', 'input'] as const) {
      assert.equal(agentState(input({ needs: [{ what, at: NOW - MIN }] })).state, 'needs_you', what);
    }
  });

  test('a harness session waiting for its user (a Notification hook) makes the agent "needs you", since it began waiting; its other states do not', () => {
    const harness = {
      state: 'waiting' as const,
      harness: 'claude-code' as const,
      session_id: 'abc123',
      cwd: '/home/user/my-project',
      message: 'Claude needs your permission to use Bash',
      at: NOW - 2 * MIN,
    };
    const s = agentState(input({ presence: connected, harness }));
    assert.equal(s.state, 'needs_you');
    assert.equal(s.since, NOW - 2 * MIN);
    assert.equal(s.why, 'waiting for you in its session');
    for (const state of ['working', 'turn_ended', 'started'] as const) {
      assert.equal(agentState(input({ presence: connected, harness: { ...harness, state } })).state, 'idle', state);
    }
  });

  test('a harness turn or session that ended after the agent last worked moves it out of "working" (Stop: idle, SessionEnd: offline); work after it counts again', () => {
    const busy = { seen_at: NOW - 10_000, connected_since: NOW - 20 * MIN, active_at: NOW - 60_000, busy_since: NOW - 3 * MIN };
    const status = { harness: 'claude-code' as const, session_id: 's1', cwd: '/home/user/app', message: '', at: NOW - 30_000 };
    assert.equal(agentState(input({ presence: busy })).state, 'working', 'without a harness word it works');
    const stopped = agentState(input({ presence: busy, harness: { ...status, state: 'turn_ended' } }));
    assert.equal(stopped.state, 'idle');
    assert.equal(stopped.since, NOW - 30_000);
    assert.equal(stopped.why, 'Claude Code: turn ended');
    const ended = agentState(input({ presence: busy, harness: { ...status, state: 'ended' } }));
    assert.equal(ended.state, 'offline');
    assert.equal(stateText(ended, NOW), 'offline · just now');
    assert.equal(ended.why, 'Claude Code: session ended');
    // A writing call after the Stop: working again.
    assert.equal(
      agentState(input({ presence: { ...busy, active_at: NOW - 5_000 }, harness: { ...status, state: 'turn_ended' } })).state,
      'working',
    );
    // A wake run still runs: working whatever the harness said.
    assert.equal(agentState(input({ presence: busy, runStartedAt: NOW - MIN, harness: { ...status, state: 'ended' } })).state, 'working');
  });

  test('fleetOrder: needs you › working › idle › paused › offline, then the most recent first, then by name', () => {
    const keys: FleetSortKey[] = [
      { name: 'alpha', state: 'offline', last: NOW },
      { name: 'bravo', state: 'paused', last: NOW - MIN },
      { name: 'charlie', state: 'idle', last: NOW - 5 * MIN },
      { name: 'delta', state: 'working', last: NOW - 9 * MIN },
      { name: 'echo', state: 'needs_you', last: NOW - 30 * MIN },
      { name: 'foxtrot', state: 'idle', last: NOW - MIN },
      { name: 'golf', state: 'idle', last: null },
      { name: 'hotel', state: 'idle', last: null },
    ];
    assert.deepEqual(
      [...keys].sort(fleetOrder).map((k) => k.name),
      ['echo', 'delta', 'foxtrot', 'charlie', 'golf', 'hotel', 'bravo', 'alpha'],
    );
    const recent = lastActivity(
      input({ presence: { ...connected, active_at: NOW - 3 * MIN }, needs: [{ what: 'request', at: NOW - MIN }] }),
    );
    assert.equal(recent, NOW - 5_000, 'the latest of its calls and what waits');
    assert.equal(lastActivity(input()), null);
  });

  test('"needs you" wins over paused; paused wins over working and idle (a paused agent keeps waiting in get_updates)', () => {
    const paused = { since: NOW - 10 * MIN };
    assert.equal(agentState(input({ paused, needs: [{ what: 'held', at: NOW }] })).state, 'needs_you');
    const busy = { seen_at: NOW - 1_000, connected_since: NOW - 20 * MIN, active_at: NOW - 1_000, busy_since: NOW - 4 * MIN };
    const s = agentState(input({ paused, presence: busy, waiting: true, runStartedAt: NOW - MIN }));
    assert.equal(s.state, 'paused');
    assert.equal(stateText(s, NOW), 'paused · 10 min');
  });

  test('working: a wake run is running, or a writing call within WORKING_MS (since the stretch began)', () => {
    assert.deepEqual(agentState(input({ runStartedAt: NOW - 2 * MIN })).state, 'working');
    const busy = { seen_at: NOW - 1_000, connected_since: NOW - 20 * MIN, active_at: NOW - 1_000, busy_since: NOW - 4 * MIN };
    const s = agentState(input({ presence: busy }));
    assert.equal(s.state, 'working');
    assert.equal(stateText(s, NOW), 'working · 4 min');
    const stale = { ...busy, active_at: NOW - WORKING_MS - 1 };
    assert.equal(agentState(input({ presence: stale })).state, 'idle', 'work that ended leaves it connected and idle');
  });

  test('connected, idle: its get_updates waits, or it called within CONNECTED_MS; idle since its last work or connection', () => {
    const s = agentState(input({ presence: { ...connected, active_at: NOW - 7 * MIN } }));
    assert.equal(s.state, 'idle');
    assert.equal(stateText(s, NOW), 'connected, idle · 7 min');
    const long = { seen_at: NOW - 10 * MIN, connected_since: NOW - 12 * MIN, active_at: null, busy_since: null };
    assert.equal(agentState(input({ presence: long, waiting: true })).state, 'idle', 'a long wait in get_updates is connected');
    assert.equal(agentState(input({ presence: long })).state, 'offline', 'no call for longer than CONNECTED_MS: gone');
    assert.match(agentState(input({ presence: long })).why, /^no call for \d+ min$/, 'and says for how long, not a bare "no call since"');
    assert.equal(agentState(input({ presence: { ...long, seen_at: NOW - CONNECTED_MS + 1 } })).state, 'idle');
  });

  test('a revoked agent is offline whatever else holds', () => {
    const s = agentState(input({ revoked: true, presence: connected, waiting: true, needs: [{ what: 'request', at: NOW }] }));
    assert.equal(s.state, 'offline');
    assert.match(s.why, /revoked/);
  });

  test('durations read as people say them', () => {
    assert.equal(spanText(30_000), 'just now');
    assert.equal(spanText(3 * MIN + 59_000), '3 min');
    assert.equal(spanText(125 * MIN), '2 h');
    assert.equal(spanText(50 * 60 * MIN), '2 d');
  });
});
