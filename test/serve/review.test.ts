// Review mode over a real `perch serve` with the official MCP client: while the owner has review on
// for an agent, its send_message / send_card / send_file are held (held: true, held_id) and nobody
// sees them; the owner sends (as is, or edited) or discards each, and the agent learns which.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import { cli, ownerFail, ownerOk, useSharedServe, type AgentClient } from '../support/serve-harness';
import { reviewFixture } from '../support/review-fixture';

type R = Record<string, any>;

const served = useSharedServe();

const { drain, pair, messages } = reviewFixture(served);

async function heldItem(heldId: string): Promise<R | undefined> {
  const { items } = await ownerOk(served, 'held.list');
  return items.find((i: R) => i.held_id === heldId);
}

/** The held.* events among kit's updates (its notes channel), after a wait that must be woken. */
async function heldEvents(c: AgentClient, r: R): Promise<R[]> {
  return r.events.filter((e: R) => typeof e.type === 'string' && e.type.startsWith('held.'));
}

const PNG_1x1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

describe('review mode', () => {
  test('review on: send_message answers held: true with a held_id; the other member sees nothing and is not woken', async () => {
    const { kit, bob, convId } = await pair();
    const bobWait = bob.ok('get_updates', { wait_secs: 1 });
    const r = await kit.ok('send_message', { conv_id: convId, text: 'bob, please look', to: [bob.agent.name] });
    assert.equal(r.held, true);
    assert.match(r.held_id, /^h/);
    assert.equal(r.conv_id, convId);
    assert.deepEqual(r.woken, []);
    assert.equal(r.msg_id, undefined, 'no message exists yet');
    const b = await bobWait;
    assert.deepEqual(b.events, [], 'bob received nothing and his wait ran to its end');
    assert.equal(b.woken, false, 'bob was not woken');
    assert.deepEqual(await messages(bob, convId), [], 'nothing in the conversation');
    const item = await heldItem(r.held_id);
    assert.equal(item?.kind, 'message');
    assert.equal(item?.text, 'bob, please look');
    assert.equal(item?.agent.name, kit.agent.name);
    assert.deepEqual(item?.to, [bob.agent.name]);
    const who = await kit.ok('whoami', {});
    assert.equal(who.review_mode.on, true);
    assert.equal(who.review_mode.held_waiting, 1);
  });

  test('the owner sends a held message: it is posted as the agent with provenance reviewed: true; the agent gets held.sent and is woken', async () => {
    const { kit, bob, convId } = await pair();
    const r = await kit.ok('send_message', { conv_id: convId, text: 'ready to merge', to: [bob.agent.name] });
    await drain(kit);
    const kitWait = kit.ok('get_updates', { wait_secs: 20 });
    const bobWait = bob.ok('get_updates', { wait_secs: 20 });
    await new Promise((res) => setTimeout(res, 200));
    const sent = await ownerOk(served, 'held.send', { held_id: r.held_id });
    assert.equal(sent.state, 'sent');
    assert.equal(sent.owner_edited, false);
    const k = await kitWait;
    assert.equal(k.woken, true, 'kit was woken, its wait did not just run out');
    const ev = (await heldEvents(kit, k)).find((e) => e.type === 'held.sent');
    assert.ok(ev, `kit was woken with held.sent (got ${k.events.map((e: R) => e.type).join(', ')})`);
    assert.equal(ev.for_you, true);
    assert.equal(ev.data.held_id, r.held_id);
    assert.equal(ev.data.msg_id, sent.msg_id);
    assert.equal(ev.data.text, 'ready to merge');
    assert.equal(ev.data.owner_edited, false);
    const b = await bobWait;
    assert.equal(b.woken, true, 'bob was woken by the posted message');
    const m = b.events.find((e: R) => e.type === 'message.created')?.message;
    assert.ok(m, 'bob was woken by the posted message (he is named in to)');
    assert.equal(m.sender.name, kit.agent.name);
    assert.equal(m.text, 'ready to merge');
    assert.equal(m.provenance.reviewed, true);
    assert.equal(m.provenance.owner_edited, undefined);
    assert.equal(m.provenance.author, 'agent');
    assert.equal(await heldItem(r.held_id), undefined, 'no longer waiting');
    const again = await ownerFail(served, 'held.send', { held_id: r.held_id }, 409);
    assert.equal(again.code, 'conflict');
  });

  test('Edit & send posts the edited text with owner_edited: true, and the agent sees the edited text', async () => {
    const { kit, bob, convId } = await pair();
    const r = await kit.ok('send_message', { conv_id: convId, text: 'we shipped it (maybe)' });
    await drain(kit);
    const sent = await ownerOk(served, 'held.send', { held_id: r.held_id, text: 'We shipped it.' });
    assert.equal(sent.owner_edited, true);
    const [m] = await messages(bob, convId);
    assert.equal(m.text, 'We shipped it.');
    assert.equal(m.provenance.reviewed, true);
    assert.equal(m.provenance.owner_edited, true);
    const k = await kit.ok('get_updates', { wait_secs: 5 });
    const ev = (await heldEvents(kit, k)).find((e) => e.type === 'held.sent');
    assert.equal(ev?.data.text, 'We shipped it.');
    assert.equal(ev?.data.original_text, 'we shipped it (maybe)');
    assert.equal(ev?.data.owner_edited, true);
  });

  test('Discard posts nothing; the agent gets held.discarded and is woken', async () => {
    const { kit, bob, convId } = await pair();
    const r = await kit.ok('send_message', { conv_id: convId, text: 'thanks!!' });
    await drain(kit);
    const kitWait = kit.ok('get_updates', { wait_secs: 20 });
    await new Promise((res) => setTimeout(res, 200));
    const d = await ownerOk(served, 'held.discard', { held_id: r.held_id });
    assert.deepEqual(d, { held_id: r.held_id, state: 'discarded' });
    const kw = await kitWait;
    assert.equal(kw.woken, true, 'kit was woken, its wait did not just run out');
    const ev = (await heldEvents(kit, kw)).find((e) => e.type === 'held.discarded');
    assert.ok(ev, 'kit was woken with held.discarded');
    assert.equal(ev.data.text, 'thanks!!');
    assert.deepEqual(await messages(bob, convId), []);
    assert.equal((await ownerFail(served, 'held.discard', { held_id: r.held_id }, 409)).code, 'conflict');
    assert.equal((await ownerFail(served, 'held.send', { held_id: 'h_nope' }, 404)).code, 'not_found');
  });

  test('a retried send with the same client_msg_id returns the same held item', async () => {
    const { kit, convId } = await pair();
    const a = await kit.ok('send_message', { conv_id: convId, text: 'once', client_msg_id: 'retry-1' });
    const b = await kit.ok('send_message', { conv_id: convId, text: 'once', client_msg_id: 'retry-1' });
    assert.equal(b.held_id, a.held_id);
    const { items } = await ownerOk(served, 'held.list');
    assert.equal(items.filter((i: R) => i.agent.name === kit.agent.name).length, 1);
    const conflict = await kit.fail('send_message', { conv_id: convId, text: 'different', client_msg_id: 'retry-1' });
    assert.equal(conflict.code, 'idempotency_conflict');
  });

  test('a held send is checked like a real one: a bad send is refused and nothing is held', async () => {
    const { kit, convId } = await pair();
    const e = await kit.fail('send_message', { conv_id: convId, text: 'hi', to: ['nobody-here'] });
    assert.equal(e.code, 'invalid_argument');
    const e2 = await kit.fail('send_card', { conv_id: convId, text: 'x', card: { blocks: [{ type: 'image' }] } });
    assert.equal(e2.code, 'invalid_argument');
    const { items } = await ownerOk(served, 'held.list');
    assert.equal(items.filter((i: R) => i.agent.name === kit.agent.name).length, 0);
  });

  test("cards and files are held too; a sent file can be fetched, a discarded file's bytes are deleted", async () => {
    const { kit, bob, convId } = await pair();
    const card = { title: 'Ship?', blocks: [{ type: 'buttons', id: 'go', options: [{ id: 'yes', label: 'Yes' }] }] };
    const c = await kit.ok('send_card', { conv_id: convId, text: 'Ship it?', card });
    assert.equal(c.held, true);
    const f1 = await kit.ok('send_file', { conv_id: convId, name: 'dot.png', data: PNG_1x1, caption: 'a dot' });
    const f2 = await kit.ok('send_file', { conv_id: convId, name: 'notes.txt', data: Buffer.from('secret draft').toString('base64') });
    assert.equal(f1.held, true);
    assert.equal(f2.held, true);
    assert.deepEqual(await messages(bob, convId), []);
    const item = await heldItem(f1.held_id);
    assert.deepEqual(item?.file, { name: 'dot.png', mime: 'image/png', size: item?.file.size, is_image: true });
    assert.deepEqual((await heldItem(c.held_id))?.card, card);

    await ownerOk(served, 'held.send', { held_id: c.held_id });
    const sentFile = await ownerOk(served, 'held.send', { held_id: f1.held_id, text: 'A dot.' });
    await ownerOk(served, 'held.discard', { held_id: f2.held_id });
    const ms = await messages(bob, convId);
    assert.deepEqual(
      ms.map((m) => m.kind),
      ['card', 'image'],
    );
    assert.deepEqual(ms[0].payload.card, card);
    assert.equal(ms[1].text, 'A dot.');
    assert.equal(ms[1].msg_id, sentFile.msg_id);
    assert.equal(ms[1].provenance.owner_edited, true);
    const link = await bob.ok('file_url', { conv_id: convId, file_id: ms[1].payload.file_id });
    const res = await fetch(link.url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/png');

    const db = new Database(path.join(served.dataDir, 'perch.sqlite'), { readonly: true, fileMustExist: true });
    try {
      const rows = db
        .prepare('SELECT id, state, data IS NULL AS gone FROM held_items WHERE id IN (?, ?)')
        .all(f1.held_id, f2.held_id) as R[];
      assert.deepEqual(
        rows.map((r) => [r.id, r.state, r.gone]).sort(),
        [
          [f1.held_id, 'sent', 1],
          [f2.held_id, 'discarded', 1],
        ].sort(),
      );
    } finally {
      db.close();
    }
  });

  test('held sends count toward the brakes: a third held copy of the same text is refused as duplicate, and nothing more is held', async () => {
    const { kit, convId } = await pair();
    const first = await kit.ok('send_message', { conv_id: convId, text: 'same words' });
    const second = await kit.ok('send_message', { conv_id: convId, text: 'same words' });
    assert.equal(first.held, true);
    assert.equal(second.held, true);
    const third = await kit.fail('send_message', { conv_id: convId, text: 'same words' });
    assert.equal(third.code, 'brake');
    assert.match(String((third.details as R | undefined)?.reason ?? third.message), /^duplicate/);
    const { items } = await ownerOk(served, 'held.list');
    assert.equal(items.filter((i: R) => i.conv_id === convId).length, 2, 'the refused send was not held');
  });

  test('sending held items is not braked or counted again: with a budget of 2 used up by two holds, both still post', async () => {
    const { kit, convId } = await pair();
    await ownerOk(served, 'agents.set_brakes', { agent: kit.agent.name, budget: 2 });
    const one = await kit.ok('send_message', { conv_id: convId, text: 'first' });
    const two = await kit.ok('send_message', { conv_id: convId, text: 'second' });
    const over = await kit.fail('send_message', { conv_id: convId, text: 'third' });
    assert.equal(over.code, 'brake', 'the holds count toward the budget');
    for (const h of [one, two]) assert.equal((await ownerOk(served, 'held.send', { held_id: h.held_id })).state, 'sent');
    assert.deepEqual(
      (await messages(kit, convId)).map((m) => m.text),
      ['first', 'second'],
    );
  });

  test('review off: sends go through at once; the CLI turns review on and off', async () => {
    const { kit, bob, convId } = await pair();
    const off = cli(['agent', 'review', kit.agent.name, 'off', '--data-dir', served.dataDir, '--json']);
    assert.equal(off.code, 0, off.stderr);
    assert.equal(JSON.parse(off.stdout).agent.review, false);
    const r = await kit.ok('send_message', { conv_id: convId, text: 'straight through' });
    assert.equal(r.held, undefined);
    assert.equal(typeof r.msg_id, 'string');
    const ms = await messages(bob, convId);
    assert.equal(ms[0].text, 'straight through');
    assert.equal(ms[0].provenance.reviewed, undefined);
    assert.equal((await kit.ok('whoami', {})).review_mode.on, false);
    const on = cli(['agent', 'review', kit.agent.name, 'on', '--data-dir', served.dataDir]);
    assert.equal(on.code, 0, on.stderr);
    assert.match(on.stdout, /Review mode for .* is on/);
    assert.equal((await kit.ok('send_message', { conv_id: convId, text: 'held again' })).held, true);
    const bad = cli(['agent', 'review', kit.agent.name, 'maybe', '--data-dir', served.dataDir]);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /on or off/);
    const { agents } = await ownerOk(served, 'agents.list');
    assert.equal(agents.find((a: R) => a.name === kit.agent.name).review, true);
    assert.equal(agents.find((a: R) => a.name === bob.agent.name).review, false);
  });
});
