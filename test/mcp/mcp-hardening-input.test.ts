// Over a real `perch serve` with the official MCP client: (1) what agents write reaches the owner
// without bidi overrides or invisible characters (owner API answers and the live stream), while
// agents keep reading it byte-exact; (2) arguments nested deeper than limits.maxJsonDepth get a
// clear invalid_argument (not internal) and change nothing.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LIMITS } from '../../src/shared/limits';
import { owner, ownerOk, rawPost, runtimeInfo, useSharedServe, type AgentClient } from '../support/serve-harness';

const served = useSharedServe();

function agent(base: string): Promise<AgentClient> {
  return served.agent(base);
}

/** The invisible characters used below; none may appear in what the owner receives. */
const HIDDEN = /[\u202A-\u202E\u2066-\u2069\u200B\u200E\u200F\u061C\uFEFF]/;

function assertVisible(what: string, raw: string) {
  assert.ok(!HIDDEN.test(raw), `${what} has a bidi or invisible character: ${JSON.stringify(raw.slice(0, 300))}`);
  assert.ok(!/\\u(202[a-e]|206[6-9]|200[bef]|061c|feff)/i.test(raw), `${what} has an escaped bidi or invisible character`);
}

describe('owner-facing text has no bidi overrides or invisible characters', () => {
  test('a request titled "Upload report\\u202Egpj.exe" reaches the owner API without U+202E; the agent still reads it byte-exact; the owner can choose the option as shown', async () => {
    const a = await agent('spoofer');
    const ownerName = (await ownerOk(served, 'hub.info')).owner.name as string;
    const dm = await a.ok('open_direct', { user: ownerName });
    const convId = dm.conversation.conv_id as string;
    const title = 'Upload report\u202Egpj.exe';
    const options = ['keep \u2066safe\u2069', 'drop\u200B it'];
    const req = await a.ok('request_human', { conv_id: convId, kind: 'choose', title, options, context: { file: 'x\u202Etxt.exe' } });

    const list = await owner(served, 'requests.list', { state: 'pending' });
    assert.equal(list.status, 200);
    assertVisible('requests.list', list.text);
    const mine = (list.value.requests as any[]).find((r) => r.request_id === req.request_id);
    assert.ok(mine, 'the request is listed');
    assert.equal(mine.title, 'Upload reportgpj.exe');
    assert.deepEqual(mine.options, ['keep safe', 'drop it']);

    const history = await owner(served, 'conversations.history', { conv_id: convId });
    assert.equal(history.status, 200, history.text.slice(0, 300));
    assert.ok(history.text.includes('Upload reportgpj.exe'), "the owner's history holds the request, cleaned");
    assertVisible("the owner's history", history.text);

    // The owner chooses what it was shown; the stored option is the outcome the agent reads.
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'choose', choice: 'keep safe' });
    const got = await a.ok('get_request', { request_id: req.request_id });
    assert.equal(got.state, 'chosen');
    assert.equal(got.outcome.choice, 'keep \u2066safe\u2069', 'the agent gets its own option back, byte-exact');
    const agentHistory = await a.ok('get_history', { conv_id: convId });
    assert.ok(JSON.stringify(agentHistory).includes('\u202E'), 'agents still read what was written, byte-exact');
  });

  test('group titles and messages in the live stream reach the owner without invisible characters', async () => {
    const [a, b] = await Promise.all([agent('titler'), agent('peer')]);
    const rt = runtimeInfo(served);
    const ac = new AbortController();
    const guard = setTimeout(() => ac.abort(), 20_000);
    try {
      const res = await fetch(`${rt.base_url}/api/owner/events`, {
        headers: { Authorization: `Bearer ${rt.owner_token}` },
        signal: ac.signal,
      });
      assert.equal(res.status, 200);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let raw = '';
      const g = await a.ok('create_group', { title: 'Team\u202Eevil', members: [b.agent.name] });
      const convId = g.conversation.conv_id as string;
      const marker = `marker-${Date.now()}`;
      await a.ok('send_message', { conv_id: convId, text: `${marker} pay\u200Bment \u202Efdp.exe` });
      const deadline = Date.now() + 10_000;
      while (!raw.includes(marker)) {
        assert.ok(Date.now() < deadline, 'the message reached the live stream');
        const r = await reader.read();
        if (r.done) break;
        raw += decoder.decode(r.value, { stream: true });
      }
      const line = raw.split('\n').find((l) => l.includes(marker))!;
      assertVisible('the live stream', line);
      assert.ok(line.includes(`${marker} payment fdp.exe`));

      const list = await owner(served, 'conversations.list', {});
      assertVisible('conversations.list', list.text);
      assert.ok((list.value.conversations as any[]).some((c) => c.conv_id === convId && c.title === 'Teamevil'));
    } finally {
      clearTimeout(guard);
      ac.abort();
    }
  });
});

describe('deeply nested arguments', () => {
  /** JSON text of arrays nested n levels deep (a client's own JSON.stringify overflows on such a value, so it is sent as text). */
  const deepJson = (n: number) => '['.repeat(n) + ']'.repeat(n);
  const DEEP = '"__DEEP__"';
  let rawId = 0;

  /** tools/call as raw JSON-RPC (2025 era), with each "__DEEP__" string in args replaced by `deep`; the tool result. */
  async function rawTool(key: string, name: string, args: Record<string, unknown>, deep: string): Promise<any> {
    rawId += 1;
    const body = JSON.stringify({ jsonrpc: '2.0', id: rawId, method: 'tools/call', params: { name, arguments: args } })
      .split(DEEP)
      .join(deep);
    const r = await rawPost(served.mcpUrl, key, body, { 'MCP-Protocol-Version': '2025-11-25' });
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.ok(r.json?.result, r.text.slice(0, 300));
    return r.json.result;
  }

  test(`state_put with a value nested 100,000 levels deep is invalid_argument naming limits.maxJsonDepth (${LIMITS.maxJsonDepth}), and stores nothing`, async () => {
    const a = await agent('nester');
    const who = await a.ok('whoami');
    assert.equal(who.limits.maxJsonDepth, LIMITS.maxJsonDepth, 'whoami reports the limit');
    const r = await rawTool(a.agent.key, 'state_put', { key: 'deep', value: '__DEEP__', version: 0 }, deepJson(100_000));
    assert.equal(r.isError, true);
    const err = r.structuredContent.error;
    assert.equal(err.code, 'invalid_argument', JSON.stringify(err));
    assert.match(err.message, new RegExp(`nested more than ${LIMITS.maxJsonDepth} levels deep`));
    assert.match(err.message, /value\[0\]/);
    assert.equal((await a.fail('state_get', { key: 'deep' })).code, 'not_found', 'nothing was stored');
    // Through the official client, at the edge: the arguments object is level 1, value level 2.
    const ok = await a.ok('state_put', { key: 'deep', value: JSON.parse(deepJson(LIMITS.maxJsonDepth - 1)), version: 0 });
    assert.equal(ok.version, 1);
    const over = await a.fail('state_put', { key: 'deep', value: JSON.parse(deepJson(LIMITS.maxJsonDepth)), version: 1 });
    assert.equal(over.code, 'invalid_argument');
    assert.match(over.message, /levels deep/);
  });

  test('every free-JSON argument (request context, card, progress data, refs) nested 100,000 deep is invalid_argument, not internal, and writes nothing', async () => {
    const a = await agent('nester2');
    const ownerName = (await ownerOk(served, 'hub.info')).owner.name as string;
    const convId = (await a.ok('open_direct', { user: ownerName })).conversation.conv_id as string;
    const before = (await a.ok('get_history', { conv_id: convId })).conversation_last_seq;
    const calls: Array<[string, Record<string, unknown>]> = [
      ['request_human', { conv_id: convId, kind: 'approve', title: 'deep', context: '__DEEP__' }],
      ['send_card', { conv_id: convId, text: 'deep', card: { blocks: [{ type: 'text', text: 'x' }], extra: '__DEEP__' } }],
      ['progress', { conv_id: convId, kind: 'step', text: 'deep', data: '__DEEP__' }],
      ['send_message', { conv_id: convId, text: 'deep', refs: ['__DEEP__'] }],
    ];
    for (const [name, args] of calls) {
      const r = await rawTool(a.agent.key, name, args, deepJson(100_000));
      assert.equal(r.isError, true, `${name} is refused`);
      const body = r.structuredContent.error;
      assert.equal(body.code, 'invalid_argument', `${name}: ${JSON.stringify(body)}`);
      assert.match(body.message, /levels deep/);
    }
    assert.equal((await a.ok('get_history', { conv_id: convId })).conversation_last_seq, before, 'nothing was written');
  });

  test('the owner API refuses a deeply nested input with invalid_argument and changes nothing', async () => {
    const a = await agent('carder');
    const ownerName = (await ownerOk(served, 'hub.info')).owner.name as string;
    const convId = (await a.ok('open_direct', { user: ownerName })).conversation.conv_id as string;
    const card = { blocks: [{ type: 'form', id: 'b', submit: 'Send', fields: [{ id: 'notes', label: 'Notes', type: 'text' }] }] };
    const sent = await a.ok('send_card', { conv_id: convId, text: 'answer me', card });
    const body = JSON.stringify({ msg_id: sent.msg_id, block_id: 'b', value: '__DEEP__' }).split(DEEP).join(deepJson(100_000));
    const r = await owner(served, 'cards.answer', body);
    assert.equal(r.status, 400, r.text.slice(0, 300));
    assert.equal(r.error?.code, 'invalid_argument');
    assert.match(r.error?.message ?? '', /levels deep/);
    const fine = await ownerOk(served, 'cards.answer', { msg_id: sent.msg_id, block_id: 'b', value: { notes: 'fine' } });
    assert.equal(fine.response_count, 1, 'the refused answer was not recorded: the next good one is the first');
  });
});
