// Task channels: create_task, update_task, the owner's setTaskState; ended tasks are silent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withHub, type TestHub, callTool as call } from '../support/helpers';
import { setTaskState } from '../../src/main/hub/features/coordination/tasks';
import { sendMessage } from '../../src/main/hub/talk/messages';
import type { PerchHub } from '../../src/main/hub/services';
import type { EventView } from '../../src/shared/api/event-log';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

async function drain(hub: PerchHub, agentId: string): Promise<void> {
  for (;;) {
    const r = await call(hub, agentId, 'get_updates', {});
    if (r.events.length === 0) return;
  }
}

async function setup(t: TestHub) {
  const lead = t.agent('lead');
  const worker = t.agent('worker');
  const helper = t.agent('helper');
  await drain(t.hub, worker.id);
  const waiting = call(t.hub, worker.id, 'get_updates', { wait_secs: 5 });
  const created = await call(t.hub, lead.id, 'create_task', { title: 'Write the report', members: ['helper'], assignee: 'worker' });
  return { hub: t.hub, lead, worker, helper, convId: created.conversation.conv_id as string, created, waiting };
}

test('create_task makes a submitted task channel and wakes its assignee', async () => {
  await withHub(async (t) => {
    const { hub, worker, created, waiting, convId } = await setup(t);
    assert.equal(created.conversation.kind, 'task');
    assert.equal(created.conversation.task.state, 'submitted');
    assert.equal(created.conversation.task.assignee.name, 'worker');
    const r = await waiting;
    assert.equal(r.woken, true);
    const ev = r.events.find((e: EventView) => e.type === 'conversation.created' && e.conv_id === convId);
    assert.equal(ev.for_you, true);
    const list = await call(hub, worker.id, 'list_conversations', {});
    assert.ok(list.conversations.some((c: Any) => c.conv_id === convId));
  });
});

test("a completed task refuses agents' messages; only the creator or a manager reopens it", async () => {
  await withHub(async (t) => {
    const { hub, lead, worker, convId, waiting } = await setup(t);
    await waiting;
    const working = await call(hub, worker.id, 'update_task', { conv_id: convId, state: 'working', note: 'starting' });
    assert.equal(working.state, 'working');
    assert.equal(working.previous_state, 'submitted');
    await call(hub, worker.id, 'send_message', { conv_id: convId, text: 'draft attached' });

    const done = await call(hub, worker.id, 'update_task', { conv_id: convId, state: 'completed', note: 'shipped' });
    assert.equal(done.state, 'completed');
    assert.deepEqual(done.woken, []);

    for (const agent of [worker, lead]) {
      await assert.rejects(call(hub, agent.id, 'send_message', { conv_id: convId, text: 'one more thing' }), (e: Any) => {
        assert.equal(e.code, 'silenced');
        assert.match(e.message, /completed/);
        return true;
      });
    }
    // The owner (a person) still may.
    sendMessage(hub, hub.ownerId, { conv_id: convId, text: 'thanks' });

    // The worker (neither creator nor manager) cannot reopen it.
    await assert.rejects(call(hub, worker.id, 'update_task', { conv_id: convId, state: 'working' }), { code: 'forbidden' });
    // The creator can; then agents speak again.
    const reopened = await call(hub, lead.id, 'update_task', { conv_id: convId, state: 'working', note: 'one fix left' });
    assert.equal(reopened.previous_state, 'completed');
    assert.deepEqual(reopened.woken, ['worker']);
    await call(hub, worker.id, 'send_message', { conv_id: convId, text: 'fixing' });
  });
});

test('after a task is canceled nobody is woken, not even its assignee', async () => {
  await withHub(async (t) => {
    const { hub, lead, worker, convId, waiting } = await setup(t);
    await waiting;
    await drain(hub, worker.id);
    const started = Date.now();
    const w = call(hub, worker.id, 'get_updates', { wait_secs: 1 });
    const r = await call(hub, lead.id, 'update_task', { conv_id: convId, state: 'canceled', note: 'not needed' });
    assert.deepEqual(r.woken, []);
    const got = await w;
    assert.equal(got.woken, false);
    assert.ok(Date.now() - started >= 900);
    const ev = got.events.find((e: EventView) => e.type === 'task.updated');
    assert.equal(ev.for_you, false);
    assert.equal(ev.data.state, 'canceled');
    assert.equal(ev.data.previous_state, 'submitted');
    assert.equal(ev.data.note, 'not needed');
  });
});

test('reassigning by a non-manager is refused; the creator reassigns and wakes the new assignee', async () => {
  await withHub(async (t) => {
    const { hub, lead, worker, helper, convId, waiting } = await setup(t);
    await waiting;
    await assert.rejects(call(hub, worker.id, 'update_task', { conv_id: convId, assignee: 'helper' }), (e: Any) => {
      assert.equal(e.code, 'forbidden');
      return true;
    });
    const still = await call(hub, worker.id, 'list_conversations', {});
    assert.equal(still.conversations.find((c: Any) => c.conv_id === convId).task.assignee.name, 'worker');

    await drain(hub, helper.id);
    const w = call(hub, helper.id, 'get_updates', { wait_secs: 5 });
    const r = await call(hub, lead.id, 'update_task', { conv_id: convId, assignee: 'helper', note: 'worker is busy' });
    assert.equal(r.assignee, 'helper');
    assert.deepEqual(r.woken, ['helper']);
    const got = await w;
    assert.equal(got.woken, true);
    const ev = got.events.find((e: EventView) => e.type === 'task.updated');
    assert.equal(ev.for_you, true);
    assert.equal(ev.data.assignee.name, 'helper');
    assert.equal(ev.data.previous_assignee.name, 'worker');
  });
});

test('only the creator, the assignee, a manager or the owner may end a task; another member gets forbidden with a next_step and nothing changes', async () => {
  await withHub(async (t) => {
    const { hub, lead, worker, helper, convId, waiting } = await setup(t);
    await waiting;
    for (const state of ['completed', 'canceled', 'failed'] as const) {
      await assert.rejects(call(hub, helper.id, 'update_task', { conv_id: convId, state }), (e: Any) => {
        assert.equal(e.code, 'forbidden');
        assert.match(e.message, /creator \(lead\) or its assignee \(worker\)/);
        assert.ok(e.nextStep.length > 0);
        return true;
      });
    }
    const still = await call(hub, helper.id, 'list_conversations', {});
    assert.equal(still.conversations.find((c: Any) => c.conv_id === convId).task.state, 'submitted', 'nothing changed');
    // An ordinary member may still move it between the open states, and speak afterwards.
    assert.equal(
      (await call(hub, helper.id, 'update_task', { conv_id: convId, state: 'input_required', note: 'need data' })).state,
      'input_required',
    );
    await call(hub, helper.id, 'send_message', { conv_id: convId, text: 'still here' });
    // The assignee may end it; the creator may reopen and end it again; the owner may always.
    assert.equal((await call(hub, worker.id, 'update_task', { conv_id: convId, state: 'completed' })).state, 'completed');
    assert.equal((await call(hub, lead.id, 'update_task', { conv_id: convId, state: 'working' })).state, 'working');
    assert.equal((await call(hub, lead.id, 'update_task', { conv_id: convId, state: 'canceled' })).state, 'canceled');
    assert.equal(setTaskState(hub, hub.ownerId, { conv_id: convId, state: 'working' }).state, 'working');
    assert.equal(setTaskState(hub, hub.ownerId, { conv_id: convId, state: 'failed' }).state, 'failed');
  });
});

test('update_task refuses bad input', async () => {
  await withHub(async (t) => {
    const { hub, lead, worker, convId, waiting } = await setup(t);
    await waiting;
    await assert.rejects(call(hub, worker.id, 'update_task', { conv_id: convId, note: 'nothing else' }), { code: 'invalid_argument' });
    await assert.rejects(call(hub, lead.id, 'update_task', { conv_id: convId, assignee: 'nobody-here' }), { code: 'not_found' });
    const outsider = t.agent('outsider');
    await assert.rejects(call(hub, lead.id, 'update_task', { conv_id: convId, assignee: 'outsider' }), { code: 'invalid_argument' });
    await assert.rejects(call(hub, outsider.id, 'update_task', { conv_id: convId, state: 'working' }), { code: 'not_member' });
    const g = await call(hub, lead.id, 'create_group', { title: 'chat', members: ['worker'] });
    await assert.rejects(call(hub, lead.id, 'update_task', { conv_id: g.conversation.conv_id, state: 'working' }), {
      code: 'invalid_argument',
    });
  });
});

test('owner setTaskState may always move, reopen and reassign', async () => {
  await withHub(async (t) => {
    const { hub, worker, helper, convId, waiting } = await setup(t);
    await waiting;
    const done = setTaskState(hub, hub.ownerId, { conv_id: convId, state: 'failed', note: 'wrong data' });
    assert.equal(done.state, 'failed');
    await assert.rejects(call(hub, worker.id, 'send_message', { conv_id: convId, text: 'hm' }), { code: 'silenced' });
    const back = setTaskState(hub, hub.ownerId, { conv_id: convId, state: 'input_required', assignee: 'helper' });
    assert.equal(back.previous_state, 'failed');
    assert.equal(back.assignee, 'helper');
    assert.ok(back.woken.includes('helper'));
    await call(hub, helper.id, 'send_message', { conv_id: convId, text: 'what input?' });
    assert.throws(() => setTaskState(hub, worker.id, { conv_id: convId, state: 'working' }), { code: 'forbidden' });
  });
});
