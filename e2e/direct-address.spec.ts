// A direct message is addressed to the other side, typed in the owner's app: the owner writes in an agent's direct
// conversation without naming it, and the agent's waiting get_updates is woken with the message for_you. The
// same through the owner API and both MCP eras is in test/mcp/direct-address.test.ts; this proves the composer's path.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, openConversation, ownerCall, timeline } from './harness';
import { composer } from './pages/conversation';

describe('a direct message typed in the app', () => {
  const h = useHarness({ agents: ['coder'] });
  let convId: string;

  before(
    async () => {
      convId = (await h().agents.coder!.call('open_direct', { user: 'owner' })).conversation.conv_id;
    },
    { timeout: 60_000 },
  );

  test(
    "the owner types into coder's direct conversation without @coder: coder's waiting get_updates is woken, the event is for_you and names coder",
    { timeout: 90_000 },
    async () => {
      const { page, agents } = h();
      const coder = agents.coder!;
      // Read everything there is, so the next call waits.
      let ack: string | undefined;
      for (let i = 0; i < 20; i++) {
        const r = await coder.call('get_updates', ack ? { ack } : {});
        ack = r.ack;
        if (r.events.length === 0) break;
      }
      const waiting = coder.call('get_updates', { ack, wait_secs: 45 });
      // Known to wait in the hub before the owner types (the owner's agent list says so).
      const deadline = Date.now() + 10_000;
      while (
        !(await ownerCall(h(), 'agents.list', {})).agents.some((a: { id: string; waiting: boolean }) => a.id === coder.id && a.waiting)
      ) {
        assert.ok(Date.now() < deadline, 'coder waits in get_updates');
        await new Promise((r) => setTimeout(r, 50));
      }
      await openConversation(page, 'coder');
      await composer(page, 'coder').send('how is the parser going?');
      await timeline(page).text('how is the parser going?').waitFor();
      const r = await waiting;
      assert.equal(r.woken, true, `the wait ended because coder was woken, not at its timeout: ${JSON.stringify(r).slice(0, 600)}`);
      const e = r.events.find(
        (x: { type: string; message?: { text: string } }) => x.type === 'message.created' && x.message?.text === 'how is the parser going?',
      );
      assert.ok(e, 'the message is among the events');
      assert.equal(e.for_you, true, 'for coder');
      assert.deepEqual(e.message.to, ['coder'], 'the message names the other side');
      assert.equal(e.conv_id, convId);
      // The implied addressee is not drawn as "→ @coder" in a two-person conversation.
      assert.equal(await timeline(page).text('→ @coder').count(), 0);
    },
  );
});
