// Cursor's open calls (src/main/hub/features/ledger/cursor-calls.ts): what its permission hooks open and its after
// hooks close, in memory. Bounded whatever a harness sends: past TOOL_USE_MEMORY open calls the oldest are forgotten
// (its result is then a call of its own), and a call is closed once. The protocol-level tests with a real `perch serve`
// are test/harness/hook-cursor-results.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CursorCalls, type CursorAsk } from '../../src/main/hub/features/ledger/cursor-calls';
import { TOOL_USE_MEMORY } from '../../src/main/hub/features/ledger/tool-use-ids';

const ask = (command: string, over: Partial<CursorAsk> = {}): CursorAsk => ({
  agentId: 'a1',
  conversation: 'c1',
  match: 'shell',
  input: { command },
  generation: 'g1',
  ...over,
});

test('open calls are bounded: past TOOL_USE_MEMORY the oldest are forgotten, the newest still close; each closes once', () => {
  const calls = new CursorCalls();
  const ids = Array.from({ length: TOOL_USE_MEMORY + 5 }, (_, i) => calls.openCall(ask(`echo ${i}`), 'Shell'));
  assert.equal(new Set(ids).size, ids.length, 'every call its own id');
  for (let i = 0; i < 5; i++) assert.equal(calls.closeCall(ask(`echo ${i}`)), undefined, `call ${i} forgotten`);
  const last = TOOL_USE_MEMORY + 4;
  assert.deepEqual(calls.closeCall(ask(`echo 5`)), { id: ids[5], tool: 'Shell' }, 'the oldest kept');
  assert.deepEqual(calls.closeCall(ask(`echo ${last}`)), { id: ids[last], tool: 'Shell' });
  assert.equal(calls.closeCall(ask(`echo ${last}`)), undefined, 'closed once');
});

test('a result closes a call of the same agent, conversation, kind and input only: its own generation first, else the oldest; keys in another order are the same input', () => {
  const calls = new CursorCalls();
  const g1 = calls.openCall(ask('make'), 'Shell');
  const g2 = calls.openCall(ask('make', { generation: 'g2' }), 'Shell');
  const mcp = calls.openCall({ ...ask(''), match: 'mcp:query', input: { sql: 'x', limit: 1 } }, 'MCP:query@http://a/mcp');
  for (const other of [{ agentId: 'a2' }, { conversation: 'c2' }, { match: 'mcp:make' }, { input: { command: 'make all' } }])
    assert.equal(calls.closeCall(ask('make', other)), undefined, JSON.stringify(other));
  assert.equal(calls.closeCall(ask('make', { generation: 'g2' }))?.id, g2);
  assert.equal(calls.closeCall(ask('make', { generation: 'g9' }))?.id, g1);
  assert.deepEqual(calls.closeCall({ ...ask(''), match: 'mcp:query', input: { limit: 1, sql: 'x' } }), {
    id: mcp,
    tool: 'MCP:query@http://a/mcp',
  });
  const denied = calls.openCall(ask('rm -rf /'), 'Shell');
  calls.forget(ask('rm -rf /'), denied);
  assert.equal(calls.closeCall(ask('rm -rf /')), undefined, 'a call Perch denied takes no result');
});
