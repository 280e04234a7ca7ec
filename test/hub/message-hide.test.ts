// messages.hide: the owner hides any message (an agent's too, which recall does not cover) from their own
// view, on a real hub and SQLite file. The owner's reads carry hidden: true, across a restart of the hub;
// agents see nothing change; showing it again clears it; bad input changes nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeHub, withHub, callTool as call } from '../support/helpers';
import { runOwnerAction } from '../../src/main/owner/actions';
import { openDatabase } from '../../src/main/store/db/db';
import type { PerchHub } from '../../src/main/hub/services';
import { createHub } from '../../src/main/hub-services';
import type { MessageView } from '../../src/shared/types';
import type { EventView, LiveItem } from '../../src/shared/api/event-log';

interface History {
  events: EventView[];
}

const messagesOf = (h: History) => h.events.filter((e) => e.type === 'message.created').map((e) => e.message!);
const byText = (list: MessageView[], text: string) => list.find((m) => m.text === text)!;

test('the owner hides an agent message from their own view; it stays hidden after a restart and agents see no change', async () => {
  const t = makeHub();
  let reopened: { hub: PerchHub; close(): void } | undefined;
  try {
    const { hub } = t;
    const a = t.agent('loud');
    const conv = (await runOwnerAction(hub, 'conversations.open_direct', { user: 'loud' })) as { conversation: { conv_id: string } };
    const convId = conv.conversation.conv_id;
    const bad = await call(hub, a.id, 'send_message', { conv_id: convId, text: '> '.repeat(3000) + 'x' });
    await call(hub, a.id, 'send_message', { conv_id: convId, text: 'a fine message' });
    const threadRoot = await call(hub, a.id, 'send_message', { conv_id: convId, text: 'root' });
    await call(hub, a.id, 'send_message', { conv_id: convId, text: 'reply', thread_id: threadRoot.msg_id });
    await runOwnerAction(hub, 'messages.pin', { conv_id: convId, msg_id: bad.msg_id, on: true });

    // Recall is only for the owner's own messages: it refuses an agent's.
    await assert.rejects(runOwnerAction(hub, 'messages.recall', { msg_id: bad.msg_id }), (e: { code?: string }) => e.code !== undefined);

    const lastSeq = ((await runOwnerAction(hub, 'conversations.get', { conv_id: convId })) as { conversation: { last_seq: number } })
      .conversation.last_seq;
    const r = await runOwnerAction(hub, 'messages.hide', { msg_id: bad.msg_id, on: true });
    assert.deepEqual(r, { msg_id: bad.msg_id, conv_id: convId, hidden: true, changed: true });
    assert.deepEqual(
      await runOwnerAction(hub, 'messages.hide', { msg_id: bad.msg_id, on: true }),
      { msg_id: bad.msg_id, conv_id: convId, hidden: true, changed: false },
      'hiding twice changes nothing',
    );
    await runOwnerAction(hub, 'messages.hide', { msg_id: threadRoot.msg_id, on: true });

    const owner = messagesOf((await runOwnerAction(hub, 'conversations.history', { conv_id: convId })) as History);
    assert.equal(owner.find((m) => m.msg_id === bad.msg_id)!.hidden, true, 'the owner reads it as hidden');
    assert.equal(byText(owner, 'a fine message').hidden, undefined, 'other messages are not');
    const pins = (await runOwnerAction(hub, 'messages.pins', { conv_id: convId })) as { pins: Array<{ message: MessageView }> };
    assert.equal(pins.pins[0]!.message.hidden, true, 'a hidden pinned message reads as hidden');
    const thread = (await runOwnerAction(hub, 'conversations.thread', { conv_id: convId, thread_id: threadRoot.msg_id })) as {
      root: MessageView;
      replies: MessageView[];
    };
    assert.equal(thread.root.hidden, true);
    assert.equal(thread.replies[0]!.hidden, undefined);
    const after = ((await runOwnerAction(hub, 'conversations.get', { conv_id: convId })) as { conversation: { last_seq: number } })
      .conversation.last_seq;
    assert.equal(after, lastSeq, 'hiding writes no event into the conversation');

    // The agent reads the conversation as before.
    const agentHistory = await call(hub, a.id, 'get_history', { conv_id: convId });
    for (const m of messagesOf(agentHistory)) assert.equal(m.hidden, undefined);

    // A restart of the hub on the same file (a reload of the UI reads the same): still hidden.
    t.hub.close();
    const db = openDatabase(t.file);
    const hub2 = createHub({ db });
    reopened = { hub: hub2, close: () => (hub2.close(), db.close()) };
    const again = messagesOf((await runOwnerAction(hub2, 'conversations.history', { conv_id: convId })) as History);
    assert.equal(again.find((m) => m.msg_id === bad.msg_id)!.hidden, true);

    // Show it again.
    assert.deepEqual(await runOwnerAction(hub2, 'messages.hide', { msg_id: bad.msg_id, on: false }), {
      msg_id: bad.msg_id,
      conv_id: convId,
      hidden: false,
      changed: true,
    });
    const shown = messagesOf((await runOwnerAction(hub2, 'conversations.history', { conv_id: convId })) as History);
    assert.equal(shown.find((m) => m.msg_id === bad.msg_id)!.hidden, undefined);
  } finally {
    reopened?.close();
    t.close(); // Hub.close is idempotent
  }
});

test('messages.hide refuses an unknown message and bad input, and changes nothing', async () => {
  await withHub(async (t) => {
    const { hub } = t;
    const a = t.agent('quiet');
    const conv = (await runOwnerAction(hub, 'conversations.open_direct', { user: 'quiet' })) as { conversation: { conv_id: string } };
    const sent = await call(hub, a.id, 'send_message', { conv_id: conv.conversation.conv_id, text: 'hello' });
    await assert.rejects(
      runOwnerAction(hub, 'messages.hide', { msg_id: 'm_nope', on: true }),
      (e: { code?: string; message?: string }) => e.code === 'not_found' && /m_nope/.test(e.message ?? ''),
    );
    await assert.rejects(
      runOwnerAction(hub, 'messages.hide', { msg_id: sent.msg_id }),
      (e: { code?: string }) => e.code === 'invalid_argument',
    );
    await assert.rejects(
      runOwnerAction(hub, 'messages.hide', { msg_id: sent.msg_id, on: 'yes' }),
      (e: { code?: string }) => e.code === 'invalid_argument',
    );
    const owner = messagesOf((await runOwnerAction(hub, 'conversations.history', { conv_id: conv.conversation.conv_id })) as History);
    assert.equal(owner.find((m) => m.msg_id === sent.msg_id)!.hidden, undefined);
  });
});

test('hiding and showing again reach every open window of the owner on the live stream (message_hidden), and nothing reaches agents', async () => {
  await withHub(async (t) => {
    const { hub } = t;
    const a = t.agent('chatty');
    const conv = (await runOwnerAction(hub, 'conversations.open_direct', { user: 'chatty' })) as { conversation: { conv_id: string } };
    const convId = conv.conversation.conv_id;
    const sent = await call(hub, a.id, 'send_message', { conv_id: convId, text: 'hide me' });
    assert.ok((await call(hub, a.id, 'get_updates', {})).events.length > 0, 'the agent read its own message');
    const seen: LiveItem[] = [];
    const stop = hub.bus.subscribe((item) => seen.push(item));
    try {
      await runOwnerAction(hub, 'messages.hide', { msg_id: sent.msg_id, on: true });
      await runOwnerAction(hub, 'messages.hide', { msg_id: sent.msg_id, on: true }); // no change: nothing sent
      await runOwnerAction(hub, 'messages.hide', { msg_id: sent.msg_id, on: false });
    } finally {
      stop();
    }
    const hiddenItems = seen.flatMap((i) => (i.kind === 'hub' && i.value.message_hidden ? [i.value.message_hidden] : []));
    assert.deepEqual(hiddenItems, [
      { msg_id: sent.msg_id, conv_id: convId, hidden: true },
      { msg_id: sent.msg_id, conv_id: convId, hidden: false },
    ]);
    assert.equal(seen.filter((i) => i.kind === 'event').length, 0, 'no event in the conversation log');
    const after = await call(hub, a.id, 'get_updates', {});
    assert.deepEqual(after.events, [], 'the agent gets nothing');
  });
});
