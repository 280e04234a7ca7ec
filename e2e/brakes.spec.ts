// Brakes end to end (hub/control/brakes.ts): two scripted agents ping-pong over MCP until the loop brake pauses
// their conversation; the owner sees it live (a banner with Resume and a system row), the agents' sends
// are refused, and pressing Resume lets them go on (they are woken with conversation.resumed).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, openConversation, timeline } from './harness';
import { on } from './pages/on';

describe('brakes', () => {
  const h = useHarness({ agents: ['ping', 'pong'] });
  let convId: string;

  before(
    async () => {
      convId = (await h().agents.ping!.call('create_group', { title: 'loop room', members: ['pong'] })).conversation.conv_id;
    },
    { timeout: 90_000 },
  );

  test('two agents ping-ponging trip loop; the owner sees the banner and Resume lets them go on', { timeout: 120_000 }, async () => {
    const { page } = h();
    const ping = h().agents.ping!;
    const pong = h().agents.pong!;
    await openConversation(page, 'loop room');
    const banner = on(page).region('Conversation paused');
    assert.equal(await banner.count(), 0, 'no banner before the loop');

    // 30 turns with no person: thanks and counter-thanks.
    for (let i = 0; i < 30; i++)
      await (i % 2 ? pong : ping).call('send_message', { conv_id: convId, text: `${i % 2 ? 'pong' : 'ping'}: thanks again (${i})` });

    // Live: the banner with Resume and a quiet system row in the timeline.
    await banner.waitFor({ timeout: 10_000 });
    await banner.text(/traded 30 turns/).waitFor();
    await timeline(page)
      .text(/Perch paused this conversation for agents/)
      .waitFor();
    await h().screenshot('brakes-loop-paused');

    // Paused for every agent: refused with code brake, reason loop; nothing appears.
    await assert.rejects(ping.call('send_message', { conv_id: convId, text: 'ping: one more thanks' }), /"code":"brake".*"reason":"loop:/);
    await assert.rejects(pong.call('send_message', { conv_id: convId, text: 'pong: and you' }), /"reason":"loop:/);
    assert.equal(await timeline(page).text('ping: one more thanks').count(), 0);

    // Resume: the banner goes, the agents are woken with conversation.resumed and may talk again.
    await banner.button('Resume').click();
    await banner.waitFor({ state: 'detached', timeout: 10_000 });
    const resumed = await pong.waitFor((e) => e.type === 'conversation.resumed' && e.conv_id === convId, 20_000);
    assert.equal(resumed.actor?.kind, 'human');
    await timeline(page)
      .text(/You resumed this conversation/)
      .waitFor();
    await pong.call('send_message', { conv_id: convId, text: 'pong: back to work, writing the summary' });
    await timeline(page).text('pong: back to work, writing the summary').waitFor();
  });
});
