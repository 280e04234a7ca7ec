// Archived conversations over a real `perch serve` and the official MCP clients of both eras: `perch conv archive`
// (through the running hub) hides the conversation from list_conversations, send_message gets the code archived with a
// next_step, and the read tools still work; `perch conv unarchive` brings it back. Bad ids change nothing.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cliAsync, ownerOk, useSharedServe, ERAS, ERA_NAME } from '../support/serve-harness';

describe('archived conversations over MCP', () => {
  const served = useSharedServe();

  for (const era of ERAS) {
    test(
      `${ERA_NAME[era]}: archived is out of list_conversations, refuses writes with archived, and reads still work`,
      { timeout: 60_000 },
      async () => {
        const a = await served.agent('arch-a', era);
        const b = await served.agent('arch-b', era);
        const conv = (await a.ok('create_group', { title: `done ${era}`, members: [b.agent.name] })).conversation.conv_id as string;
        const sent = await a.ok('send_message', { conv_id: conv, text: 'root of a thread' });
        await b.ok('send_message', { conv_id: conv, text: 'a reply', thread_id: sent.msg_id });

        const archived = await cliAsync(['conv', 'archive', conv, '--data-dir', served.dataDir]);
        assert.equal(archived.code, 0, archived.stderr);
        assert.match(archived.stdout, /^Archived done/);
        assert.equal(
          (await ownerOk(served, 'conversations.get', { conv_id: conv })).conversation.archived.by,
          'owner',
          'archived on the running hub',
        );
        const listed = await cliAsync(['conv', 'list', '--archived', '--json', '--data-dir', served.dataDir]);
        assert.ok(
          JSON.parse(listed.stdout).conversations.some((c: { conv_id: string }) => c.conv_id === conv),
          'perch conv list --archived lists it',
        );

        assert.ok(
          !(await b.ok('list_conversations')).conversations.some((c: { conv_id: string }) => c.conv_id === conv),
          'not in list_conversations',
        );
        const refused = await b.fail('send_message', { conv_id: conv, text: 'still here?' });
        assert.equal(refused.code, 'archived');
        assert.match(refused.next_step, /another conversation/);
        assert.equal((await a.fail('react', { conv_id: conv, msg_id: sent.msg_id, key: 'ok' })).code, 'archived');

        const history = await b.ok('get_history', { conv_id: conv });
        assert.ok(
          history.events.some((e: { message?: { text: string } }) => e.message?.text === 'root of a thread'),
          'get_history works',
        );
        const thread = await b.ok('get_thread', { conv_id: conv, thread_id: sent.msg_id });
        assert.equal(thread.replies.length, 1, 'get_thread works');
        await b.ok('list_pins', { conv_id: conv });

        const bad = await cliAsync(['conv', 'archive', 'c_nope', '--data-dir', served.dataDir]);
        assert.equal(bad.code, 1);
        assert.match(bad.stderr, /No conversation c_nope/);
        const usage = await cliAsync(['conv', 'archive', '--data-dir', served.dataDir]);
        assert.equal(usage.code, 2);

        const back = await cliAsync(['conv', 'unarchive', conv, '--data-dir', served.dataDir]);
        assert.equal(back.code, 0, back.stderr);
        assert.ok(
          (await b.ok('list_conversations')).conversations.some((c: { conv_id: string }) => c.conv_id === conv),
          'listed again',
        );
        await b.ok('send_message', { conv_id: conv, text: 'back again' });
      },
    );
  }
});
