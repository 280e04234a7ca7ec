// The owner UI's ordering of live events (src/renderer/sync/ordering.ts) and its pure state updates
// (sync/reduce.ts): each conversation's timeline gets every event once, in seq order, with gaps filled
// from history. Both modules are pure TypeScript, imported directly; the "hub" here is an in-memory log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createOrdering, type PageAfter } from '../../src/renderer/sync/ordering';
import { appendEvents, pinsAfter, rowsOfPage, toggleReaction, withMessages, type TimelineSlice } from '../../src/renderer/sync/reduce';
import type { EventView, Message } from '../../src/renderer/model';

interface Ev {
  seq: number;
}

/** A conversation log on "the hub" and one loaded timeline in "the UI", wired to an ordering. */
function setup(opts: { logTo: number; loadedTo: number | null; ready?: boolean; pageSize?: number; maxPages?: number }) {
  const log: Ev[] = Array.from({ length: opts.logTo }, (_, i) => ({ seq: i + 1 }));
  const tl = opts.loadedTo === null ? null : { lastSeq: opts.loadedTo, ready: opts.ready ?? true };
  const applied: number[] = [];
  const fetches: number[] = [];
  let failNext = 0;
  const waiters: Array<() => void> = [];
  const ordering = createOrdering<Ev>(
    {
      position: () => (tl ? { lastSeq: tl.lastSeq, ready: tl.ready } : null),
      apply: (_c, events) => {
        for (const e of events) {
          applied.push(e.seq);
          tl!.lastSeq = Math.max(tl!.lastSeq, e.seq);
        }
      },
      fetchAfter: async (_c, after): Promise<PageAfter<Ev>> => {
        fetches.push(after);
        await new Promise<void>((r) => waiters.push(r));
        if (failNext > 0) {
          failNext--;
          throw new Error('hub away');
        }
        const size = opts.pageSize ?? 200;
        const rest = log.filter((e) => e.seq > after).sort((a, b) => a.seq - b.seq); // history is in seq order
        return { events: rest.slice(0, size), more: rest.length > size };
      },
    },
    opts.maxPages,
  );
  /** Lets every waiting history read answer, until none is left (bounded). */
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setImmediate(r));
      const w = waiters.shift();
      if (!w) {
        await new Promise((r) => setImmediate(r));
        if (waiters.length === 0) return;
        continue;
      }
      w();
    }
    throw new Error('settle did not finish');
  };
  const push = (seq: number) => {
    if (!log.some((e) => e.seq === seq)) log.push({ seq });
    ordering.offer('c', { seq });
  };
  return {
    ordering,
    tl,
    applied,
    fetches,
    settle,
    push,
    log,
    failNextFetch: () => {
      failNext++;
    },
  };
}

const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

test('the next seq is applied at once; one already applied is dropped', () => {
  const h = setup({ logTo: 3, loadedTo: 3 });
  h.push(4);
  h.push(4);
  h.push(3);
  h.push(5);
  assert.deepEqual(h.applied, [4, 5]);
  assert.deepEqual(h.fetches, [], 'no history read without a gap');
});

test('events of a conversation with no loaded timeline are not kept', () => {
  const h = setup({ logTo: 0, loadedTo: null });
  h.push(1);
  assert.equal(h.ordering.held('c'), 0);
  assert.deepEqual(h.applied, []);
});

test('a gap is filled from history after the last applied seq, and the held event is applied once', async () => {
  const h = setup({ logTo: 7, loadedTo: 3 });
  h.push(7); // 4..6 missed
  assert.deepEqual(h.applied, [], 'an event after a gap waits');
  assert.equal(h.ordering.held('c'), 1);
  await h.settle();
  assert.deepEqual(h.fetches, [3], 'history read from the last applied seq');
  assert.deepEqual(h.applied, range(4, 7), 'every seq once, in order');
  assert.equal(h.ordering.held('c'), 0);
});

test('events that arrive during a catch-up wait for it and are applied after it, in order, once', async () => {
  const h = setup({ logTo: 10, loadedTo: 2 });
  h.push(6);
  h.push(12); // beyond what the catch-up reads
  h.push(11);
  h.push(8); // inside what the catch-up reads: a duplicate by then
  await h.settle();
  assert.deepEqual(h.fetches, [2], 'one catch-up, not one per event');
  assert.deepEqual(h.applied, range(3, 12));
});

test('while the first page loads, events are held; drain applies those above the page in seq order', () => {
  const h = setup({ logTo: 0, loadedTo: 0, ready: false });
  h.push(5);
  h.push(3);
  h.push(4);
  assert.deepEqual(h.applied, []);
  h.tl!.lastSeq = 3; // the first page ended at seq 3
  h.tl!.ready = true;
  h.ordering.drain('c');
  assert.deepEqual(h.applied, [4, 5]);
});

test('a catch-up reads page after page until the hub says there is no more', async () => {
  const h = setup({ logTo: 25, loadedTo: 0, pageSize: 10 });
  h.push(26);
  await h.settle();
  assert.deepEqual(h.fetches, [0, 10, 20]);
  assert.deepEqual(h.applied, range(1, 26));
});

test('a catch-up reads at most maxPages pages; the rest waits for the next event', async () => {
  const h = setup({ logTo: 50, loadedTo: 0, pageSize: 10, maxPages: 2 });
  h.push(51);
  await h.settle();
  // Two pages, then the held 51 is still after a gap: drain starts one more catch-up, itself bounded.
  assert.ok(h.fetches.length <= 6, `bounded history reads (${h.fetches.length})`);
  assert.deepEqual(h.applied, range(1, 51));
});

test('a failed history read is not retried in a loop: the next event tries again', async () => {
  const h = setup({ logTo: 6, loadedTo: 2 });
  h.failNextFetch();
  h.push(6);
  await h.settle();
  assert.deepEqual(h.fetches, [2], 'one read, no retry loop');
  assert.deepEqual(h.applied, []);
  assert.equal(h.ordering.held('c'), 1, 'the event after the gap is still held');
  h.push(7);
  await h.settle();
  assert.deepEqual(h.fetches, [2, 2]);
  assert.deepEqual(h.applied, range(3, 7));
});

test('forget drops what is held for a conversation', () => {
  const h = setup({ logTo: 0, loadedTo: 0, ready: false });
  h.push(1);
  h.push(2);
  h.ordering.forget('c');
  h.tl!.ready = true;
  h.ordering.drain('c');
  assert.deepEqual(h.applied, []);
});

// ---- the pure state updates ------------------------------------------------------------------

function msg(id: string, seq: number, extra: Partial<Message> = {}): Message {
  return {
    msg_id: id,
    conv_id: 'c',
    seq,
    kind: 'text',
    text: id,
    sender: { id: 'u_a', name: 'a', kind: 'agent' },
    created_at: seq,
    ...extra,
  } as Message;
}
function created(m: Message): EventView {
  return { seq: m.seq, conv_id: 'c', type: 'message.created', at: m.seq, actor: m.sender, message: m } as EventView;
}
function slice(lastSeq: number): TimelineSlice {
  return {
    convs: {
      c: {
        rows: [],
        firstSeq: null,
        lastSeq,
        hasOlder: false,
        loadingOlder: false,
        status: 'ready',
        pins: [],
        threadCounts: {},
        taskHistory: [],
      },
    },
    messages: new Map(),
    threads: {},
  };
}

test('appendEvents returns new state and leaves the old one as it was (no in-place Map mutation)', () => {
  const before = slice(0);
  const beforeMessages = before.messages;
  const after = appendEvents(before, 'c', [created(msg('m1', 1)), created(msg('m2', 2))]);
  assert.notEqual(after.messages, beforeMessages, 'a new Map');
  assert.equal(beforeMessages.size, 0, 'the old Map is unchanged');
  assert.equal(before.convs.c!.lastSeq, 0, 'the old timeline is unchanged');
  assert.deepEqual(
    after.convs.c!.rows.map((r) => r.key),
    ['m1', 'm2'],
  );
  assert.equal(after.convs.c!.lastSeq, 2);
  assert.equal(after.messages.get('m2')?.text, 'm2');
  const again = appendEvents(after, 'c', [created(msg('m2', 2))]);
  assert.deepEqual(
    again.convs.c!.rows.map((r) => r.key),
    ['m1', 'm2'],
    'an event at or below lastSeq is skipped',
  );
});

test('appendEvents counts a thread reply instead of adding a row, and adds it to an open thread', () => {
  const s = { ...slice(1), threads: { m1: { convId: 'c', replies: [], status: 'ready' as const } } };
  const after = appendEvents(s, 'c', [created(msg('r1', 2, { thread_id: 'm1' }))]);
  assert.deepEqual(after.convs.c!.rows, []);
  assert.equal(after.convs.c!.threadCounts.m1, 1);
  assert.deepEqual(after.threads.m1!.replies, ['r1']);
  assert.deepEqual(s.threads.m1.replies, [], 'the old thread is unchanged');
});

test('rowsOfPage and withMessages(keep) keep a message already known (it may be newer than the page)', () => {
  const known = new Map([['m1', msg('m1', 1, { text: 'edited' })]]);
  const built = rowsOfPage([created(msg('m1', 1)), created(msg('m2', 2))]);
  const merged = withMessages(known, built.messages, true);
  assert.equal(merged.get('m1')?.text, 'edited');
  assert.equal(merged.get('m2')?.text, 'm2');
  assert.equal(known.size, 1, 'the old Map is unchanged');
  assert.equal(withMessages(known, [msg('m1', 1)], true), known, 'nothing new: the same Map');
});

test('pinsAfter and toggleReaction', () => {
  const pin = (type: string, id: string) => ({ type, message: msg(id, 1) }) as EventView;
  assert.deepEqual(pinsAfter(['a'], [pin('pin.added', 'b'), pin('pin.added', 'a'), pin('pin.removed', 'b')]), ['a']);
  const on = toggleReaction([], 'ok', 'owner', true, true);
  assert.deepEqual(on, [{ key: 'ok', count: 1, users: ['owner'], mine: true }]);
  assert.deepEqual(toggleReaction(on, 'ok', 'owner', true, false), []);
});
