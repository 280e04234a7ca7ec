// A waiting call lasts only as long as its key works, over a real `perch serve` with the official MCP client:
// revoking the agent, rotating its key, revoking or expiring a scoped key, or revoking it with the CLI from
// another process ends a waiting get_updates / get_request at once with 401 (as a bad key is answered), and a
// message sent afterwards is never read with that key. Plus the hub-level check that a wait asks about its key
// again before it reads (a revocation written by another connection, noticed with no watcher running).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { cliAsync, connect, eventually, ownerOk, rawPost, useSharedServe, type AgentClient } from '../support/serve-harness';
import { withHub, drain } from '../support/helpers';
import { callAgentTool } from '../../src/main/hub/tools/tools';
import { keyStanding } from '../../src/main/hub/identity/key-login';
import { openDirect } from '../../src/main/hub/talk/conversations';
import { sendMessage } from '../../src/main/hub/talk/messages';
import { TOOL_BY_NAME } from '../../src/shared/api/catalog';

type R = Record<string, any>;

const served = useSharedServe();

/** An agent (bob) caught up in a direct conversation with the owner, where the owner can message it. */
async function bobWithOwner(): Promise<{ bob: AgentClient; convId: string }> {
  const bob = await served.agent('bob');
  const d = await ownerOk(served, 'conversations.open_direct', { user: bob.agent.id });
  const convId = d.conversation.conv_id as string;
  await drainClient(bob);
  return { bob, convId };
}

async function drainClient(c: AgentClient, args: R = {}): Promise<void> {
  for (let i = 0; i < 50; i++) {
    if ((await c.ok('get_updates', args)).events.length === 0) return;
  }
  throw new Error('get_updates never ran dry');
}

async function waitingNow(agentId: string): Promise<void> {
  await eventually(
    async () => (await ownerOk(served, 'agents.list')).agents.some((a: R) => a.id === agentId && a.waiting),
    10_000,
    'the agent to wait',
  );
}

/** The waiting call must end with HTTP 401 (the official client throws); it must not return events. */
async function assertEndsWith401(call: Promise<unknown>, what: string): Promise<void> {
  let result: unknown;
  try {
    result = await call;
  } catch (err) {
    assert.match(String((err as Error).message ?? err), /401|Unauthorized/i, `${what}: ${String(err)}`);
    return;
  }
  assert.fail(`${what}: the waiting call returned instead of ending with 401: ${JSON.stringify(result).slice(0, 300)}`);
}

/** The same promise, marked handled at once (a wait may end before the test looks at it). */
function settled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

const tools = (key: string, id: number, name: string, args: R) =>
  rawPost(
    served.mcpUrl,
    key,
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } },
    { 'MCP-Protocol-Version': '2025-11-25' },
  );

describe('a waiting call ends when its key stops working', () => {
  test("revoking the agent ends its waiting get_updates at once with 401; the owner's message after it is not returned", async () => {
    const { bob, convId } = await bobWithOwner();
    const waiting = settled(bob.call('get_updates', { wait_secs: 20 }));
    await waitingNow(bob.agent.id);
    await ownerOk(served, 'agents.revoke', { agent: bob.agent.name });
    await ownerOk(served, 'messages.send', { conv_id: convId, text: 'secret for bob', to: [bob.agent.id] });
    await assertEndsWith401(waiting, 'revoked agent');
  });

  test("rotating the agent's key ends the old key's wait with 401 (raw: status, WWW-Authenticate, the call's id); the new key reads the message", async () => {
    const { bob, convId } = await bobWithOwner();
    const waiting = tools(bob.agent.key, 7, 'get_updates', { wait_secs: 20 });
    await waitingNow(bob.agent.id);
    const rotated = await ownerOk(served, 'agents.rotate_key', { agent: bob.agent.name });
    await ownerOk(served, 'messages.send', { conv_id: convId, text: 'after the rotation', to: [bob.agent.id] });
    const r = await waiting;
    assert.equal(r.status, 401, `answered ${r.status}: ${r.text}`);
    assert.equal(r.headers.get('www-authenticate'), 'Bearer realm="perch"');
    assert.equal(r.json.id, 7);
    assert.match(r.json.error.message, /revoked/);
    assert.ok(!r.text.includes('after the rotation'));
    const fresh = await connect('v1', served.mcpUrl, { ...bob.agent, key: rotated.key });
    served.closeAfter(fresh);
    const got = await fresh.ok('get_updates', {});
    assert.ok(
      got.events.some((e: R) => e.message?.text === 'after the rotation'),
      'the new key reads it',
    );
  });

  test("revoking a scoped key ends its wait with 401; the agent's own waiting call is untouched and gets the message", async () => {
    const { bob, convId } = await bobWithOwner();
    const issued = await ownerOk(served, 'agents.add_key', { agent: bob.agent.name, name: 'reader', scopes: ['read'] });
    const reader = await connect('v1', served.mcpUrl, { ...bob.agent, key: issued.secret });
    served.closeAfter(reader);
    await drainClient(reader);
    const readerWait = settled(reader.call('get_updates', { wait_secs: 20 }));
    const ownWait = bob.ok('get_updates', { wait_secs: 20 });
    // Both calls wait (this file's tests run one after another on this hub: no other call waits now).
    await eventually(async () => (await ownerOk(served, 'hub.info')).waiting_calls === 2, 10_000, 'both calls to wait');
    await ownerOk(served, 'agents.revoke_key', { key_id: issued.key.id });
    await assertEndsWith401(readerWait, 'revoked scoped key');
    await ownerOk(served, 'messages.send', { conv_id: convId, text: 'for the main key', to: [bob.agent.id] });
    const own = await ownWait;
    assert.ok(
      own.events.some((e: R) => e.message?.text === 'for the main key'),
      "the agent's own key still waits and reads",
    );
  });

  test('a scoped key reaching its expires_at ends its wait with 401 saying it expired', async () => {
    const { bob } = await bobWithOwner();
    const issued = await ownerOk(served, 'agents.add_key', { agent: bob.agent.name, name: 'brief', expires_at: Date.now() + 3000 });
    // Its first read starts at bob's position, where nothing is left: the call waits until the key expires.
    const waiting = tools(issued.secret, 3, 'get_updates', { wait_secs: 20 });
    await waitingNow(bob.agent.id);
    const r = await waiting;
    assert.equal(r.status, 401, `answered ${r.status}: ${r.text}`);
    assert.match(r.json.error.message, /expired/);
  });

  test('`perch agent revoke` from another process ends the waiting call at once (no message needed to notice)', async () => {
    const { bob } = await bobWithOwner();
    const waiting = settled(bob.call('get_updates', { wait_secs: 20 }));
    await waitingNow(bob.agent.id);
    const r = await cliAsync(['agent', 'revoke', bob.agent.name, '--data-dir', served.dataDir]);
    assert.equal(r.code, 0, r.stderr);
    await assertEndsWith401(waiting, 'revoked by the CLI');
  });

  test("`perch agent key revoke` from another process ends a scoped key's waiting call", async () => {
    const { bob } = await bobWithOwner();
    const issued = await ownerOk(served, 'agents.add_key', { agent: bob.agent.name, name: 'cli-reader', scopes: ['read'] });
    const waiting = tools(issued.secret, 4, 'get_updates', { wait_secs: 20 });
    // A read-only key's wait is not the agent listening (agents.list says not waiting); hub.info counts every call.
    await eventually(async () => (await ownerOk(served, 'hub.info')).waiting_calls === 1, 10_000, "the reader's call to wait");
    const r = await cliAsync(['agent', 'key', 'revoke', issued.key.id, '--data-dir', served.dataDir]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((await waiting).status, 401);
  });

  test("a waiting get_request ends with 401 when the agent's key is rotated", async () => {
    const { bob, convId } = await bobWithOwner();
    const asked = await bob.ok('request_human', { conv_id: convId, kind: 'approve', title: 'ship it?' });
    const waiting = settled(bob.call('get_request', { request_id: asked.request_id, wait_secs: 20 }));
    await waitingNow(bob.agent.id);
    await ownerOk(served, 'agents.rotate_key', { agent: bob.agent.name });
    await assertEndsWith401(waiting, 'get_request under a rotated key');
  });
});

test('a woken wait asks about its key before it reads: a revocation written by another connection is seen, and nothing is returned', async () => {
  await withHub(async (t) => {
    const bob = t.agent('bob');
    const alice = t.agent('alice');
    const conv = openDirect(t.hub, alice.id, bob.id);
    await drain(t.hub, bob.id);
    const args = TOOL_BY_NAME.get('get_updates')!.input.parse({ wait_secs: 20 }) as R;
    // No key watcher runs in this hub: only the wake of the message makes the wait look again.
    const waiting = callAgentTool(t.hub, bob.id, 'get_updates', args, { standing: keyStanding(t.hub, bob.key, bob.id) });
    await eventually(() => t.hub.bus.isWaiting(bob.id), 5000, 'bob to wait');
    const other = new Database(t.file);
    other.prepare('UPDATE users SET revoked_at = ? WHERE id = ?').run(Date.now(), bob.id);
    other.close();
    sendMessage(t.hub, alice.id, { conv_id: conv.conv_id, text: 'not for a revoked key', to: [bob.id] });
    await assert.rejects(waiting, (e: R) => {
      assert.equal(e.code, 'unauthorized');
      return true;
    });
  });
});
