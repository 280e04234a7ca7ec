// Sessions of one agent, scoped keys and read receipts over a real `perch serve` with the official MCP client:
// named instances keep their own get_updates positions, to_instance marks for_you, a read key cannot send
// (forbidden naming the scope), an expired or revoked key gets 401, and receipts advance as members confirm.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ERAS,
  ERA_NAME,
  connect,
  owner,
  ownerOk,
  rawPost,
  sleep,
  useSharedServe,
  type AgentClient,
  type Era,
} from '../support/serve-harness';

type R = Record<string, any>;

const served = useSharedServe();

/** get_updates until nothing is left (each answer confirmed by the next call); returns every event seen. */
async function drain(c: AgentClient, args: R = {}): Promise<R[]> {
  const seen: R[] = [];
  for (let i = 0; i < 50; i++) {
    const r = await c.ok('get_updates', args);
    if (r.events.length === 0) return seen;
    seen.push(...r.events);
  }
  throw new Error('get_updates never ran dry');
}

const messageIds = (events: R[]) => events.filter((e) => e.type === 'message.created').map((e) => e.message.msg_id as string);

/** A second client on the same key: another session of the same agent. */
async function sibling(c: AgentClient): Promise<AgentClient> {
  const s = await connect(c.era, served.mcpUrl, c.agent);
  served.closeAfter(s);
  return s;
}

for (const era of ERAS) {
  describe(`sessions of one agent, ${ERA_NAME[era]}`, () => {
    async function kitAndRue(e: Era) {
      const kit = await served.agent('kit', e);
      const rue = await served.agent('rue', e);
      const d = await rue.ok('open_direct', { user: kit.agent.name });
      const convId = d.conversation.conv_id as string;
      await drain(kit);
      await drain(rue);
      return { kit, kitDesk: await sibling(kit), rue, convId };
    }

    test('two named instances each receive a message the other confirmed; the unnamed session keeps its own place', async () => {
      const { kit, kitDesk, rue, convId } = await kitAndRue(era);
      // Both sessions are known before the message arrives.
      await drain(kit, { instance: 'laptop-repo' });
      await drain(kitDesk, { instance: 'desk' });
      const sent = await rue.ok('send_message', { conv_id: convId, text: 'for whichever session', to: [kit.agent.name] });

      const first = await kit.ok('get_updates', { instance: 'laptop-repo' });
      assert.deepEqual(messageIds(first.events), [sent.msg_id], 'laptop-repo receives the message');
      const confirm = await kit.ok('get_updates', { instance: 'laptop-repo', ack: first.ack });
      assert.deepEqual(confirm.events, [], 'laptop-repo confirmed it: it does not come again there');

      const desk = await kitDesk.ok('get_updates', { instance: 'desk' });
      assert.deepEqual(messageIds(desk.events), [sent.msg_id], 'desk still receives what laptop-repo confirmed');
      await kitDesk.ok('get_updates', { instance: 'desk', ack: desk.ack });
      assert.deepEqual((await kitDesk.ok('get_updates', { instance: 'desk' })).events, [], 'desk confirmed it too');

      // The unnamed session's place is untouched by both, and a name seen for the first time starts there.
      assert.deepEqual(messageIds(await drain(kit)), [sent.msg_id], 'the unnamed session still receives it');
      const fresh = await drain(kitDesk, { instance: 'fresh window' });
      assert.deepEqual(messageIds(fresh), [], "a new name starts at the agent's (unnamed) confirmed place");
      // …not at the head: what the unnamed session has not confirmed yet reaches a new name too.
      const later = await rue.ok('send_message', { conv_id: convId, text: 'unread by the unnamed session', to: [kit.agent.name] });
      assert.deepEqual(
        messageIds(await drain(kitDesk, { instance: 'second-fresh' })),
        [later.msg_id],
        'a new name starts at the unnamed confirmed place, not at the head',
      );

      // An ack is bound to its instance: one session's ack does not confirm for a sibling.
      const err = await kitDesk.fail('get_updates', { instance: 'desk', ack: first.ack });
      assert.equal(err.code, 'invalid_argument');
      const bad = await kit.fail('get_updates', { instance: 'x' });
      assert.equal(bad.code, 'invalid_argument', 'a one-character instance name is refused');
      assert.match(bad.message, /2-40/);
    });

    test('to_instance marks for_you for the named session only; sender.instance and from_you; whoami lists the names with notes', async () => {
      const { kit, kitDesk, rue, convId } = await kitAndRue(era);
      const me = await kit.ok('whoami', { instance: 'Laptop Repo'.toLowerCase(), instance_note: 'works in ~/src/app' });
      assert.equal(me.instance, 'laptop-repo', 'spaces become dashes');
      await drain(kit, { instance: 'laptop-repo' });
      await drain(kitDesk, { instance: 'desk' });

      const sent = await rue.ok('send_message', {
        conv_id: convId,
        text: 'laptop: run the tests',
        to: [kit.agent.name],
        to_instance: 'laptop-repo',
      });
      const atLaptop = (await kit.ok('get_updates', { instance: 'laptop-repo' })).events.find((e: R) => e.message?.msg_id === sent.msg_id);
      const atDesk = (await kitDesk.ok('get_updates', { instance: 'desk' })).events.find((e: R) => e.message?.msg_id === sent.msg_id);
      assert.ok(atLaptop && atDesk, 'both sessions receive it: to_instance is a courtesy, not a filter');
      assert.equal(atLaptop.for_you, true, 'for_you at the named session');
      assert.equal(atDesk.for_you, false, 'not for_you at a sibling');
      assert.equal(atLaptop.message.to_instance, 'laptop-repo');
      assert.equal(atLaptop.from_you, false);
      const unnamed = (await kit.ok('get_updates', {})).events.find((e: R) => e.message?.msg_id === sent.msg_id);
      assert.equal(unnamed.for_you, true, 'without instance, for_you is as before (kit was named in to)');
      assert.equal(unnamed.from_you, undefined, 'without instance, events carry no from_you');

      const reply = await kit.ok('send_message', { conv_id: convId, text: 'running them', instance: 'laptop-repo' });
      const atRue = (await rue.ok('get_updates', {})).events.find((e: R) => e.message?.msg_id === reply.msg_id);
      assert.equal(atRue.message.sender.instance, 'laptop-repo', 'messages carry sender.instance');
      assert.equal(atRue.message.sender.name, kit.agent.name);
      const sib = (await kitDesk.ok('get_updates', { instance: 'desk' })).events.find((e: R) => e.message?.msg_id === reply.msg_id);
      assert.ok(sib, 'a sibling session receives what laptop-repo wrote');
      assert.equal(sib.from_you, false);
      assert.equal(sib.for_you, false);
      const own = await kit.ok('get_updates', { instance: 'laptop-repo' });
      assert.equal(messageIds(own.events).includes(reply.msg_id), false, 'a session does not receive its own words');

      const who = await kitDesk.ok('whoami', {});
      assert.equal(who.instance, null);
      const names = who.instances.map((i: R) => i.name).sort();
      assert.deepEqual(names, ['desk', 'laptop-repo']);
      const laptop = who.instances.find((i: R) => i.name === 'laptop-repo');
      assert.equal(laptop.note, 'works in ~/src/app');
      assert.equal(typeof laptop.last_seen, 'number');
      assert.deepEqual(who.scopes, ['read', 'write', 'files', 'state', 'ask'], "the agent's own key has every scope");
      assert.equal(who.key.expires_at, null);
    });
  });
}

describe('scoped keys', () => {
  test('a read key reads but cannot send: forbidden naming the write scope; whoami reports scopes and expiry; revoking it gives 401', async () => {
    const kit = await served.agent('kit');
    const rue = await served.agent('rue');
    const d = await rue.ok('open_direct', { user: kit.agent.name });
    const convId = d.conversation.conv_id as string;
    const expiresAt = Date.now() + 3_600_000;
    const issued = await ownerOk(served, 'agents.add_key', {
      agent: kit.agent.name,
      name: 'ci-reader',
      scopes: ['read'],
      expires_at: expiresAt,
    });
    assert.match(issued.secret, /^perch_/);
    assert.deepEqual(issued.key.scopes, ['read']);
    assert.equal(typeof issued.snippets.claude_code, 'string');
    const reader = await connect('v1', served.mcpUrl, { id: kit.agent.id, name: kit.agent.name, key: issued.secret });
    served.closeAfter(reader);

    const who = await reader.ok('whoami', {});
    assert.equal(who.agent.id, kit.agent.id, 'the scoped key is the same agent');
    assert.deepEqual(who.scopes, ['read']);
    assert.equal(who.key.name, 'ci-reader');
    assert.equal(who.key.expires_at, expiresAt);

    await rue.ok('send_message', { conv_id: convId, text: 'hello kit' });
    const updates = await drain(reader);
    assert.ok(
      updates.some((e) => e.message?.text === 'hello kit'),
      'a read key receives updates',
    );
    assert.equal((await reader.ok('get_history', { conv_id: convId })).conv_id, convId);

    const before = (await rue.ok('get_history', { conv_id: convId })).last_seq;
    const refused = await reader.fail('send_message', { conv_id: convId, text: 'should not go out' });
    assert.equal(refused.code, 'forbidden');
    assert.match(refused.message, /"write" scope/, 'the error names the missing scope');
    assert.equal(refused.details?.missing_scope, 'write');
    assert.equal((await rue.ok('get_history', { conv_id: convId })).last_seq, before, 'nothing was sent');
    assert.equal((await reader.fail('state_put', { key: 'k', value: 1 })).details?.missing_scope, 'state');
    assert.equal((await reader.fail('request_human', { conv_id: convId, kind: 'approve', title: 'x' })).details?.missing_scope, 'ask');

    const listed = await ownerOk(served, 'agents.list_keys', { agent: kit.agent.name });
    assert.deepEqual(
      listed.keys.map((k: R) => [k.name, k.revoked]),
      [['ci-reader', false]],
    );
    assert.equal(JSON.stringify(listed).includes(issued.secret), false, 'the list never shows the key');
    const revoked = await ownerOk(served, 'agents.revoke_key', { key_id: issued.key.id });
    assert.equal(revoked.key.revoked, true);
    const after = await rawPost(
      served.mcpUrl,
      issued.secret,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
      { 'MCP-Protocol-Version': '2025-11-25' },
    );
    assert.equal(after.status, 401, 'a revoked key gets 401');
    assert.ok((await kit.ok('whoami', {})).agent, "the agent's own key still works");
  });

  test('an expired key gets 401 saying so; bad scopes or a past expiry are refused and issue nothing', async () => {
    const kit = await served.agent('kit');
    const issued = await ownerOk(served, 'agents.add_key', { agent: kit.agent.name, name: 'short', expires_at: Date.now() + 1500 });
    assert.deepEqual(issued.key.scopes, ['read', 'write', 'files', 'state', 'ask'], 'default: every scope');
    const call = () =>
      rawPost(
        served.mcpUrl,
        issued.secret,
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
        { 'MCP-Protocol-Version': '2025-11-25' },
      );
    assert.equal((await call()).status, 200, 'it works before it expires');
    await sleep(1700);
    const r = await call();
    assert.equal(r.status, 401);
    assert.match(r.json.error.message, /expired/);

    const bad = await ownerOk(served, 'agents.list_keys', { agent: kit.agent.name });
    for (const input of [{ scopes: ['admin'] }, { scopes: [] }, { expires_at: Date.now() - 1000 }]) {
      const res = await fetchOwner('agents.add_key', { agent: kit.agent.name, name: 'nope', ...input });
      assert.equal(res.ok, false, `refused: ${JSON.stringify(input)}`);
      assert.equal(res.error.code, 'invalid_argument');
    }
    assert.equal((await ownerOk(served, 'agents.list_keys', { agent: kit.agent.name })).keys.length, bad.keys.length, 'nothing was issued');
  });
});

describe('a scoped key reads from its own position', () => {
  test("a read key confirming get_updates moves neither the agent's position nor its read receipts; its acks are its own", async () => {
    const kit = await served.agent('kit');
    const rue = await served.agent('rue');
    const d = await rue.ok('open_direct', { user: kit.agent.name });
    const convId = d.conversation.conv_id as string;
    await drain(kit);
    const issued = await ownerOk(served, 'agents.add_key', { agent: kit.agent.name, name: 'ci-reader', scopes: ['read'] });
    const reader = await connect('v1', served.mcpUrl, { id: kit.agent.id, name: kit.agent.name, key: issued.secret });
    served.closeAfter(reader);
    const kitRead = async () =>
      ((await rue.ok('get_history', { conv_id: convId })).reads as R[]).find((r) => r.user.id === kit.agent.id)?.seq ?? 0;
    const readBefore = await kitRead();

    const sent = await rue.ok('send_message', { conv_id: convId, text: 'for kit', to: [kit.agent.name] });
    const got = await reader.ok('get_updates', {});
    assert.deepEqual(messageIds(got.events), [sent.msg_id], 'the read key receives the message');
    const confirmed = await reader.ok('get_updates', { ack: got.ack });
    assert.deepEqual(confirmed.events, [], 'the key confirmed it at its own position');
    assert.equal(await kitRead(), readBefore, "no read receipt for kit from the key's reads");

    const refused = await kit.fail('get_updates', { ack: got.ack });
    assert.equal(refused.code, 'invalid_argument', "the key's ack does not confirm the agent's position");
    const main = await kit.ok('get_updates', {});
    assert.deepEqual(messageIds(main.events), [sent.msg_id], "the agent's own session still receives what the key confirmed");
    await kit.ok('get_updates', { ack: main.ack });
    assert.ok((await kitRead()) >= sent.seq, "the agent's own confirmation is its read receipt");
  });

  test('whoami with instance_note needs the write scope and is refused while the agent is paused; nothing is written', async () => {
    const kit = await served.agent('kit');
    const issued = await ownerOk(served, 'agents.add_key', { agent: kit.agent.name, name: 'ci-reader', scopes: ['read'] });
    const reader = await connect('v1', served.mcpUrl, { id: kit.agent.id, name: kit.agent.name, key: issued.secret });
    served.closeAfter(reader);
    await kit.ok('whoami', { instance: 'laptop', instance_note: 'first note' });
    const noteOf = async () => ((await kit.ok('whoami', {})).instances as R[]).find((i) => i.name === 'laptop')?.note;

    const refused = await reader.fail('whoami', { instance: 'laptop', instance_note: 'from a read key' });
    assert.equal(refused.code, 'forbidden');
    assert.equal(refused.details?.missing_scope, 'write');
    assert.equal(await noteOf(), 'first note', 'the read key wrote no note');
    assert.deepEqual(
      (await reader.ok('whoami', { instance: 'laptop' })).scopes,
      ['read'],
      'whoami without a note still works for a read key',
    );

    await ownerOk(served, 'agents.pause', { agent: kit.agent.name, reason: 'lunch' });
    const paused = await kit.fail('whoami', { instance: 'laptop', instance_note: 'while paused' });
    assert.equal(paused.code, 'paused');
    assert.equal(await noteOf(), 'first note', 'no note written while paused');
    assert.equal((await kit.ok('whoami', { instance: 'laptop' })).paused, true, 'whoami without a note works while paused');
    await ownerOk(served, 'agents.resume', { agent: kit.agent.name });
    await kit.ok('whoami', { instance: 'laptop', instance_note: 'after resuming' });
    assert.equal(await noteOf(), 'after resuming');
  });
});

describe('read receipts', () => {
  test('get_history returns reads that advance as members (and named instances) confirm get_updates', async () => {
    const kit = await served.agent('kit');
    const rue = await served.agent('rue');
    const g = await rue.ok('create_group', { title: 'receipts', members: [kit.agent.name] });
    const convId = g.conversation.conv_id as string;
    await drain(kit);
    await drain(kit, { instance: 'laptop-repo' });
    const sent = await rue.ok('send_message', { conv_id: convId, text: 'read me' });
    const readsOf = async (c: AgentClient) => (await c.ok('get_history', { conv_id: convId })).reads as R[];
    const seqOf = (reads: R[], name: string, instance?: string) =>
      reads.find((r) => r.user.name === name && r.instance === instance)?.seq ?? 0;

    assert.ok(seqOf(await readsOf(rue), kit.agent.name) < sent.seq, 'kit has not confirmed the message yet');
    const got = await kit.ok('get_updates', {});
    assert.ok(messageIds(got.events).includes(sent.msg_id));
    assert.ok(seqOf(await readsOf(rue), kit.agent.name) < sent.seq, 'receiving is not confirming');
    await kit.ok('get_updates', { ack: got.ack });
    assert.ok(seqOf(await readsOf(rue), kit.agent.name) >= sent.seq, 'confirmed: kit has read it');
    assert.ok(seqOf(await readsOf(rue), kit.agent.name, 'laptop-repo') < sent.seq, 'the laptop-repo session has not');

    await drain(kit, { instance: 'laptop-repo' });
    const reads = await readsOf(kit);
    assert.ok(seqOf(reads, kit.agent.name, 'laptop-repo') >= sent.seq, 'laptop-repo confirmed it too');
    const laptop = reads.find((r) => r.instance === 'laptop-repo')!;
    assert.equal(typeof laptop.at, 'number');

    const owned = await ownerOk(served, 'conversations.history', { conv_id: convId });
    assert.ok(seqOf(owned.reads, kit.agent.name) >= sent.seq, 'the owner sees the same reads');
  });
});

async function fetchOwner(action: string, input: unknown): Promise<R> {
  return (await owner(served, action, input)).json as R;
}
