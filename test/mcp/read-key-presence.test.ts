// A read-only key (scope read and nothing else) observes an agent; it is not the agent. Over a real `perch serve`
// with the official MCP client: its calls leave the agent's presence (seen, connected, from where) as it was, its
// waiting get_updates does not make the agent "waiting" in the agents list, an instance it names is no sighting of the
// agent's session, and it may not report the agent's harness session at the hook door. On a real hub: a wake while
// only a read key waits is still unheard, so a wake run starts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addAgent, connect, eventually, ownerOk, rawPost, uniqueName, useSharedServe } from '../support/serve-harness';
import { withHub } from '../support/helpers';
import { addAgentKey } from '../../src/main/hub/identity/agent-keys';
import { authenticateKey } from '../../src/main/hub/identity/key-login';
import { callAgentTool } from '../../src/main/hub/tools/tools';
import { openDirect } from '../../src/main/hub/talk/conversations';
import { sendMessage } from '../../src/main/hub/talk/messages';

type R = Record<string, any>;

const served = useSharedServe();

const NO_PRESENCE = { seen_at: null, connected_since: null, active_at: null, busy_since: null };

describe('a read-only key is not the agent', () => {
  test("a read key's calls and its waiting get_updates leave the agent offline, not waiting, with no session seen; a key that may write counts", async () => {
    const agent = await addAgent(served.dataDir, uniqueName('watched')); // never connected with its own key
    const issued = await ownerOk(served, 'agents.add_key', { agent: agent.name, name: 'dashboard', scopes: ['read'] });
    const reader = await connect('v1', served.mcpUrl, { ...agent, key: issued.secret });
    served.closeAfter(reader);
    const listed = async (): Promise<R> => (await ownerOk(served, 'agents.list')).agents.find((a: R) => a.id === agent.id);

    await reader.ok('get_updates', { instance: 'laptop-repo' });
    await reader.ok('list_conversations', {});
    await reader.ok('whoami', { instance: 'laptop-repo' });
    const waiting = reader.ok('get_updates', { wait_secs: 3 });
    await eventually(async () => (await ownerOk(served, 'hub.info')).waiting_calls >= 1, 10_000, "the reader's call to wait");
    const during = await listed();
    assert.equal(during.waiting, false, 'the agent is not listening: only its read key waits');
    assert.deepEqual(during.presence, NO_PRESENCE, "the agent never connected: its read key's calls are not its presence");
    await waiting;
    assert.deepEqual((await listed()).presence, NO_PRESENCE, 'nor when the wait ended');
    const who = await reader.ok('whoami', {});
    assert.deepEqual(who.instances, [], "the instance the read key named is no sighting of the agent's session");
    // Nor can it report the agent's harness session (working, waiting for its user) at the hook door.
    const hook = await rawPost(served.mcpUrl.replace(/\/mcp$/, '/hook'), issued.secret, {
      event: 'notification',
      harness: 'claude-code',
      message: 'Claude needs your permission',
    });
    assert.equal(hook.status, 403, hook.text);
    assert.equal(hook.json.error.code, 'forbidden');
    const still = await listed();
    assert.equal(still.harness ?? null, null, 'no harness status from a read key');
    assert.deepEqual(still.presence, NO_PRESENCE);

    // A key that may write is the agent acting: it moves presence as the agent's own key does.
    const writer = await ownerOk(served, 'agents.add_key', { agent: agent.name, name: 'second-machine', scopes: ['read', 'write'] });
    const t0 = Date.now();
    const second = await connect('v1', served.mcpUrl, { ...agent, key: writer.secret });
    served.closeAfter(second);
    await second.ok('get_updates', { instance: 'laptop-repo' });
    const after = (await listed()).presence;
    assert.ok(after.seen_at >= t0 && after.connected_since >= t0, `a writing key is the agent: ${JSON.stringify(after)}`);
    assert.deepEqual(
      (await second.ok('whoami', {})).instances.map((i: R) => i.name),
      ['laptop-repo'],
    );
  });
});

test("a wake while only a read key waits is unheard (the agent's wake run would start), and the read key still gets the event", async () => {
  await withHub(async (t) => {
    const { hub } = t;
    const a = t.agent('sleeper');
    const issued = addAgentKey(hub, { agent: 'sleeper', name: 'monitor', scopes: ['read'] });
    const login = authenticateKey(hub, issued.secret);
    assert.ok(login.standing === 'ok');
    const key = login.auth;
    const conv = openDirect(hub, a.id, hub.ownerId).conv_id;
    await callAgentTool(hub, a.id, 'get_updates', {}, { key, standing: () => 'ok' });
    await callAgentTool(hub, a.id, 'get_updates', {}, { key, standing: () => 'ok' }); // confirmed: nothing left
    const unheard: string[] = [];
    const stop = hub.bus.onUnheard((id) => unheard.push(id));
    try {
      const wait = callAgentTool(hub, a.id, 'get_updates', { wait_secs: 10 }, { key, standing: () => 'ok' }) as Promise<R>;
      await eventually(() => hub.bus.waitsOf(a.id) === 1, 5_000, 'the read key to wait');
      assert.equal(hub.bus.isWaiting(a.id), false, 'the agent is not listening');
      sendMessage(hub, hub.ownerId, { conv_id: conv, text: 'wake up', to: [a.name] });
      const got = await wait;
      assert.ok(got.woken && got.events.some((e: R) => e.message?.text === 'wake up'), 'the read key hears it');
      assert.deepEqual(unheard, [a.id], 'the agent did not: its wake run is asked to start');
    } finally {
      stop();
    }
  });
});
