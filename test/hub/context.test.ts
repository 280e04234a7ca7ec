// Summaries and context: put_summary / get_context within a token budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withHub, type TestHub, callTool as call } from '../support/helpers';
import { TOOL_BY_NAME } from '../../src/shared/api/catalog';
import { HubError } from '../../src/shared/errors';
import { LIMITS } from '../../src/shared/limits';
import { estimateTokens } from '../../src/main/hub/features/memory/context';

type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any

// The fixtures are long two-agent chats with no person: to the brakes a loop (hub/control/brakes.ts). They are not
// what this file tests, so its hubs run without them.
process.env.PERCH_BRAKES = 'off';
type T = TestHub;

async function refused(p: Promise<unknown>, code: string): Promise<HubError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof HubError, `expected a HubError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    return e;
  }
  assert.fail(`expected a ${code} refusal`);
}

/** Two agents in a direct conversation with n messages; returns the conversation id and its last seq. */
async function chat(t: T, n: number, text = (i: number) => `message number ${i}: ${'lorem ipsum '.repeat(8)}`) {
  const a = t.agent('alpha');
  const b = t.agent('beta');
  const conv = (await call(t.hub, a.id, 'open_direct', { user: 'beta' })).conversation.conv_id as string;
  let last = 0;
  for (let i = 1; i <= n; i++) {
    const from = i % 2 ? a : b;
    last = (await call(t.hub, from.id, 'send_message', { conv_id: conv, text: text(i) })).seq;
  }
  return { a, b, conv, last };
}

/** The documented estimate, recomputed independently: ceil(JSON length / 4) per item. */
function recount(ctx: Any): number {
  const items = [...(ctx.summary ? [ctx.summary] : []), ...ctx.events];
  return items.reduce((s: number, x: unknown) => s + Math.ceil(JSON.stringify(x).length / 4), 0);
}

test('get_context without a summary returns every visible event, oldest first, with its token estimate', async () => {
  await withHub(async (t) => {
    const { a, conv, last } = await chat(t, 5);
    const ctx = await call(t.hub, a.id, 'get_context', { conv_id: conv });
    assert.equal(ctx.summary, null);
    assert.equal(ctx.max_tokens, LIMITS.contextDefaultTokens);
    assert.equal(ctx.truncated, false);
    assert.equal(ctx.omitted_events, 0);
    const seqs = ctx.events.map((e: Any) => e.seq);
    assert.deepEqual(
      seqs,
      Array.from({ length: last }, (_, i) => i + 1),
    );
    assert.equal(ctx.first_seq, 1);
    assert.equal(ctx.last_seq, last);
    assert.equal(ctx.token_estimate, recount(ctx));
    assert.ok(ctx.token_estimate <= ctx.max_tokens);
    assert.equal(estimateTokens({ a: 1 }), Math.ceil('{"a":1}'.length / 4));
  });
});

test('get_context starts after the latest summary and stays within max_tokens, keeping the newest events', async () => {
  await withHub(async (t) => {
    const { a, b, conv, last } = await chat(t, 60);
    const put = await call(t.hub, a.id, 'put_summary', {
      conv_id: conv,
      from_seq: 1,
      to_seq: 20,
      text: 'We agreed on the plan; alpha does the parser.',
    });
    assert.equal(put.to_seq, 20);

    // A budget large enough for everything newer than the summary.
    const wide = await call(t.hub, a.id, 'get_context', { conv_id: conv, max_tokens: 100_000 });
    assert.equal(wide.summary.text, 'We agreed on the plan; alpha does the parser.');
    assert.deepEqual([wide.summary.from_seq, wide.summary.to_seq], [1, 20]);
    assert.equal(wide.events[0].seq, 21, 'events start right after the summary');
    assert.equal(wide.events.length, last - 20);
    assert.equal(wide.truncated, false);
    assert.equal(wide.token_estimate, recount(wide));

    // A tight budget: only the newest events that fit, contiguous, ending at the last seq.
    const perEvent = Math.max(...wide.events.map((e: Any) => estimateTokens(e)));
    const summaryCost = estimateTokens(wide.summary);
    for (const maxTokens of [summaryCost + perEvent, summaryCost + perEvent * 3 + 7, perEvent * 10]) {
      const ctx = await call(t.hub, a.id, 'get_context', { conv_id: conv, max_tokens: maxTokens });
      assert.ok(ctx.token_estimate <= maxTokens, `${ctx.token_estimate} > ${maxTokens}`);
      assert.equal(ctx.token_estimate, recount(ctx));
      assert.equal(ctx.truncated, true);
      assert.ok(ctx.events.length > 0 && ctx.events.length < last - 20);
      const seqs = ctx.events.map((e: Any) => e.seq);
      assert.equal(seqs[seqs.length - 1], last, 'the newest event is kept');
      for (let i = 1; i < seqs.length; i++) assert.equal(seqs[i], seqs[i - 1] + 1, 'oldest first, no holes');
      assert.ok(seqs[0] > 20, 'starts after the summary');
      assert.equal(ctx.first_seq, seqs[0]);
      assert.equal(ctx.omitted_events, seqs[0] - 21);
      // The next older event would not have fitted.
      const older = wide.events.find((e: Any) => e.seq === seqs[0] - 1);
      assert.ok(ctx.token_estimate + estimateTokens(older) > maxTokens);
      assert.match(ctx.next_step, /get_history/);
    }

    // The summary is the caller's own: beta sees none and gets everything from seq 1.
    const other = await call(t.hub, b.id, 'get_context', { conv_id: conv, max_tokens: 100_000 });
    assert.equal(other.summary, null);
    assert.equal(other.events[0].seq, 1);

    // A newer summary replaces the older one as the starting point.
    await call(t.hub, a.id, 'put_summary', { conv_id: conv, from_seq: 1, to_seq: 55, text: 'Almost done.' });
    const later = await call(t.hub, a.id, 'get_context', { conv_id: conv, max_tokens: 100_000 });
    assert.equal(later.summary.to_seq, 55);
    assert.equal(later.events[0].seq, 56);
  });
});

test('a summary larger than the budget is cut to fit and no events are returned', async () => {
  await withHub(async (t) => {
    const { a, conv, last } = await chat(t, 6);
    const text = 'Long summary. '.repeat(2000);
    await call(t.hub, a.id, 'put_summary', { conv_id: conv, from_seq: 1, to_seq: 3, text });
    const ctx = await call(t.hub, a.id, 'get_context', { conv_id: conv, max_tokens: 100 });
    assert.ok(ctx.token_estimate <= 100);
    assert.equal(ctx.token_estimate, recount(ctx));
    assert.equal(ctx.summary.truncated, true);
    assert.ok(ctx.summary.text.length > 0 && text.startsWith(ctx.summary.text));
    assert.ok(ctx.token_estimate >= 99, 'the cut uses the budget');
    assert.deepEqual(ctx.events, []);
    assert.equal(ctx.truncated, true);
    assert.equal(ctx.omitted_events, last - 3);
  });
});

test('put_summary refuses ranges the agent cannot see, and non-members', async () => {
  await withHub(async (t) => {
    const { a, b, last } = await chat(t, 4);
    const c = t.agent('gamma');
    const group = (await call(t.hub, a.id, 'create_group', { title: 'g', members: ['beta'] })).conversation.conv_id as string;
    for (let i = 0; i < 4; i++) await call(t.hub, a.id, 'send_message', { conv_id: group, text: `g${i}` });
    // gamma joins seeing only the 2 latest messages.
    await call(t.hub, a.id, 'add_member', { conv_id: group, user: 'gamma', history: 2 });
    const gLast = (await call(t.hub, a.id, 'send_message', { conv_id: group, text: 'after join' })).seq;
    const visible = (await call(t.hub, c.id, 'get_history', { conv_id: group })).visible_from_seq as number;
    assert.ok(visible > 1);

    await refused(call(t.hub, c.id, 'put_summary', { conv_id: group, from_seq: 1, to_seq: gLast, text: 'x' }), 'invalid_argument');
    await refused(
      call(t.hub, c.id, 'put_summary', { conv_id: group, from_seq: visible, to_seq: gLast + 1, text: 'x' }),
      'invalid_argument',
    );
    await refused(call(t.hub, c.id, 'put_summary', { conv_id: group, from_seq: gLast, to_seq: visible, text: 'x' }), 'invalid_argument');
    const ok = await call(t.hub, c.id, 'put_summary', { conv_id: group, from_seq: visible, to_seq: gLast, text: 'fine' });
    assert.equal(ok.from_seq, visible);

    // gamma's context never reaches before what it may see.
    const ctxNoSummary = await call(t.hub, b.id, 'get_context', { conv_id: group });
    assert.equal(ctxNoSummary.events[0].seq, 1);
    const d = t.agent('delta');
    await call(t.hub, a.id, 'add_member', { conv_id: group, user: 'delta', history: 0 });
    const dctx = await call(t.hub, d.id, 'get_context', { conv_id: group });
    assert.ok(dctx.events.every((e: Any) => e.seq > gLast));

    // Not a member: refused; unknown conversation: not found.
    const direct = (await call(t.hub, a.id, 'open_direct', { user: 'beta' })).conversation.conv_id as string;
    await refused(call(t.hub, c.id, 'put_summary', { conv_id: direct, from_seq: 1, to_seq: last, text: 'x' }), 'not_member');
    await refused(call(t.hub, c.id, 'get_context', { conv_id: direct }), 'not_member');
    await refused(call(t.hub, a.id, 'get_context', { conv_id: 'c_nope' }), 'not_found');
    // Too long: the catalog refuses it before the hub.
    assert.throws(() =>
      TOOL_BY_NAME.get('put_summary')!.input.parse({
        conv_id: direct,
        from_seq: 1,
        to_seq: 1,
        text: 'x'.repeat(LIMITS.maxSummaryChars + 1),
      }),
    );
  });
});
