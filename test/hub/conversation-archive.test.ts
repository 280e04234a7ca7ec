// Archived conversations: the owner archives a finished conversation; agents no longer list it, cannot write in it
// (code archived, with a next_step) but still read it; the owner still reads and searches it; the owner writing in it,
// or unarchiving it, brings it back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { withHub, callTool as call, drain, type TestHub } from '../support/helpers';
import { setArchived } from '../../src/main/store/tables/talk/conversations';
import type { Db } from '../../src/main/store/db/db';
import { runOwnerAction } from '../../src/main/owner/actions';
import { isHubError } from '../../src/shared/errors';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type R = any;
const owner = (t: TestHub, action: string, input: unknown = {}) => runOwnerAction(t.hub, action, input) as Promise<R>;

async function refusedArchived(p: Promise<unknown>, what: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(isHubError(e), `${what}: a HubError`);
    assert.equal(e.code, 'archived', `${what}: code archived`);
    assert.match(e.nextStep, /get_history|another conversation/, `${what}: a next_step`);
    return true;
  });
}

async function setup(t: TestHub) {
  const a = t.agent('worker');
  const b = t.agent('helper');
  const conv = (await call(t.hub, a.id, 'create_group', { title: 'finished work', members: [b.name] })).conversation.conv_id as string;
  const first = await call(t.hub, a.id, 'send_message', { conv_id: conv, text: 'the quokka report is done' });
  await drain(t.hub, a.id);
  await drain(t.hub, b.id);
  return { a, b, conv, first };
}

test("an archived conversation leaves the agents' lists and refuses their writes with archived and a next_step; reads still work", async () => {
  await withHub(async (t) => {
    const { a, b, conv, first } = await setup(t);
    const r = await owner(t, 'conversations.archive', { conv_id: conv });
    assert.equal(r.changed, true);
    assert.equal(r.conversation.archived.by, 'owner');
    assert.equal((await owner(t, 'conversations.archive', { conv_id: conv })).changed, false, 'archiving again changes nothing');

    for (const agent of [a, b]) {
      const list = await call(t.hub, agent.id, 'list_conversations', {});
      assert.ok(!list.conversations.some((c: R) => c.conv_id === conv), `${agent.name} no longer lists it`);
    }
    await refusedArchived(call(t.hub, b.id, 'send_message', { conv_id: conv, text: 'one more thing' }), 'send_message');
    await refusedArchived(call(t.hub, a.id, 'edit_message', { msg_id: first.msg_id, text: 'edited' }), 'edit_message by msg_id');
    await refusedArchived(call(t.hub, b.id, 'react', { conv_id: conv, msg_id: first.msg_id, key: '+1' }), 'react');
    await refusedArchived(call(t.hub, a.id, 'request_human', { conv_id: conv, kind: 'approve', title: 'ok?' }), 'request_human');
    await refusedArchived(call(t.hub, a.id, 'update_task', { conv_id: conv, state: 'working' }), 'update_task');

    const history = await call(t.hub, b.id, 'get_history', { conv_id: conv });
    assert.ok(
      history.events.some((e: R) => e.message?.text === 'the quokka report is done'),
      'get_history still works',
    );
    const inConv = await call(t.hub, b.id, 'search', { query: 'quokka', conv_id: conv });
    assert.equal(inConv.messages.length, 1, 'search in the archived conversation by its id still works');
    const everywhere = await call(t.hub, b.id, 'search', { query: 'quokka' });
    assert.equal(everywhere.messages.length, 0, "an agent's search across its conversations leaves it out");
    const ownerSearch = await owner(t, 'conversations.search', { query: 'quokka' });
    assert.equal(ownerSearch.messages.length, 1, 'the owner still finds it');

    const updates = await drain(t.hub, b.id);
    assert.deepEqual(
      updates.map((e) => e.type),
      ['conversation.archived'],
      'members learn of it in get_updates',
    );
    assert.equal(updates[0]!.for_you, false, 'nobody is woken by it');

    await owner(t, 'conversations.unarchive', { conv_id: conv });
    assert.ok(
      (await call(t.hub, b.id, 'list_conversations', {})).conversations.some((c: R) => c.conv_id === conv),
      'listed again',
    );
    await call(t.hub, b.id, 'send_message', { conv_id: conv, text: 'one more thing' });
  });
});

test('the owner writing in an archived conversation brings it back in the same write', async () => {
  await withHub(async (t) => {
    const { b, conv } = await setup(t);
    await owner(t, 'conversations.archive', { conv_id: conv });
    await owner(t, 'messages.send', { conv_id: conv, text: 'actually, one follow-up', to: [b.name] });
    const view = await owner(t, 'conversations.get', { conv_id: conv });
    assert.equal(view.conversation.archived, undefined, 'no longer archived');
    const updates = await drain(t.hub, b.id);
    const types = updates.map((e) => e.type);
    assert.deepEqual(types, ['conversation.archived', 'conversation.unarchived', 'message.created']);
    const back = updates.find((e) => e.type === 'conversation.unarchived')!;
    assert.deepEqual((back as R).data, { by: 'owner', reason: 'owner_wrote' });
    await call(t.hub, b.id, 'send_message', { conv_id: conv, text: 'on it' });
  });
});

test('archiving checks its input: unknown conversation, a notes channel', async () => {
  await withHub(async (t) => {
    const a = t.agent('worker');
    await assert.rejects(
      owner(t, 'conversations.archive', { conv_id: 'c_missing' }),
      (e: unknown) => isHubError(e) && e.code === 'not_found',
    );
    const inbox = t.hub.user(a.id).inbox_id!;
    await assert.rejects(
      owner(t, 'conversations.archive', { conv_id: inbox }),
      (e: unknown) => isHubError(e) && e.code === 'invalid_argument' && /notes channel/.test(e.message),
    );
    await assert.rejects(owner(t, 'conversations.archive', {}), (e: unknown) => isHubError(e) && e.code === 'invalid_argument');
    assert.equal((await owner(t, 'conversations.list')).conversations.filter((c: R) => c.archived).length, 0, 'nothing was archived');
  });
});

test('a conversation archived by another process (perch conv archive on the file) is refused at the next write: the hub does not keep a stale "none archived"', async () => {
  await withHub(async (t) => {
    const { b, conv } = await setup(t);
    // The hub has seen an agent write with no conversation archived; now another connection archives it.
    const other = new Database(t.file);
    try {
      const changed = setArchived(other as unknown as Db, conv, Date.now(), 'owner');
      assert.equal(changed, true);
    } finally {
      other.close();
    }
    await new Promise((r) => setImmediate(r)); // another process's write arrives in a later turn of the event loop
    await refusedArchived(call(t.hub, b.id, 'send_message', { conv_id: conv, text: 'written after the outside archive' }), 'send_message');
  });
});
