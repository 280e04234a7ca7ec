// Images cost CPU per pixel: send_file refuses, from the header, animated images with too many frames or too many
// pixels over their frames (a 90 KB GIF of 24 frames of 2000×2000 took seconds to process), and the sharp work runs
// in bounded job slots per agent and per hub (hub/core/image-jobs.ts), with a bounded queue and rate_limited beyond it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { flatAnimatedGif } from '../support/images';
import { withHub, type TestHub, callTool as call } from '../support/helpers';
import { LIMITS } from '../../src/shared/limits';
import { HubError } from '../../src/shared/errors';
import { JobSlots } from '../../src/main/hub/core/image-jobs';
import { readFile } from '../../src/main/hub/features/files/files';

type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any

function count(t: TestHub, sql: string, ...args: unknown[]): number {
  return (t.hub.db.prepare(sql).get(...args) as { n: number }).n;
}

test('an animated GIF over the frame or pixel limits is refused as too_large from its header and nothing is stored; one within them is kept with its frames', async () => {
  await withHub(async (t) => {
    const a = t.agent('alpha');
    t.agent('beta');
    const conv = (await call(t.hub, a.id, 'open_direct', { user: 'beta' })).conversation.conv_id as string;
    const seq0 = count(t, 'SELECT last_seq AS n FROM conversations WHERE id = ?', conv);
    const send = (gif: Buffer, name: string) => call(t.hub, a.id, 'send_file', { conv_id: conv, data: gif.toString('base64'), name });

    const bomb = flatAnimatedGif(2000, 2000, 24);
    assert.ok(bomb.length < 100_000, `the bomb is small: ${bomb.length} bytes`);
    await assert.rejects(send(bomb, 'bomb.gif'), (e: Any) => {
      assert.ok(e instanceof HubError);
      assert.equal(e.code, 'too_large');
      assert.match(e.message, /24 frames of 2000×2000: 96000000 pixels/);
      assert.equal(e.details?.max_animation_pixels, LIMITS.maxAnimationPixels);
      assert.match(e.nextStep, /fewer frames/);
      return true;
    });
    const flicker = flatAnimatedGif(4, 4, LIMITS.maxImageFrames + 1);
    await assert.rejects(send(flicker, 'flicker.gif'), (e: Any) => {
      assert.equal(e.code, 'too_large');
      assert.match(e.message, new RegExp(`${LIMITS.maxImageFrames + 1} frames; at most ${LIMITS.maxImageFrames}`));
      assert.equal(e.details?.max_frames, LIMITS.maxImageFrames);
      return true;
    });
    assert.equal(count(t, 'SELECT count(*) AS n FROM files'), 0, 'no file stored');
    assert.equal(count(t, 'SELECT last_seq AS n FROM conversations WHERE id = ?', conv), seq0, 'no message or event written');

    const fine = await send(flatAnimatedGif(64, 48, LIMITS.maxImageFrames), 'fine.gif');
    assert.deepEqual([fine.kind, fine.width, fine.height], ['image', 64, 48]);
    assert.equal((await sharp(readFile(t.hub, fine.file_id).data).metadata()).pages, LIMITS.maxImageFrames, 'all its frames are kept');

    const who = await call(t.hub, a.id, 'whoami', {});
    for (const k of [
      'maxImagePixels',
      'maxImageFrames',
      'maxAnimationPixels',
      'imageJobsPerAgent',
      'imageJobsPerHub',
      'imageQueuePerAgent',
      'imageQueuePerHub',
    ] as const) {
      assert.equal(who.limits[k], LIMITS[k], `whoami reports ${k}`);
    }
  });
});

test("send_file: an agent's images are processed one at a time, the next ones wait their turn, and one past the queue is rate_limited at once with nothing stored", async () => {
  await withHub(async (t) => {
    const a = t.agent('alpha');
    t.agent('beta');
    const conv = (await call(t.hub, a.id, 'open_direct', { user: 'beta' })).conversation.conv_id as string;
    const png = await sharp({ create: { width: 200, height: 150, channels: 3, background: '#0a0' } })
      .png()
      .toBuffer();
    const send = (i: number) => call(t.hub, a.id, 'send_file', { conv_id: conv, data: png.toString('base64'), name: `p${i}.png` });
    const n = LIMITS.imageJobsPerAgent + LIMITS.imageQueuePerAgent;
    const accepted = Array.from({ length: n }, (_, i) => send(i));
    await assert.rejects(send(n), (e: Any) => {
      assert.equal(e.code, 'rate_limited');
      assert.match(e.message, /not processed/);
      assert.match(e.nextStep, /one at a time/);
      return true;
    });
    const sent = await Promise.all(accepted);
    assert.equal(sent.length, n, 'the queued ones were processed in turn');
    assert.ok(sent.every((s) => s.kind === 'image'));
    assert.equal(count(t, 'SELECT count(*) AS n FROM files'), n, 'only those are stored');
    assert.equal((await send(n + 1)).kind, 'image', 'once the queue drained, the next is accepted');
  });
});

test('image job slots: at most perAgent per agent and perHub in all run; waiting jobs start in order, skipping agents at their limit; full queues refuse at once', async () => {
  const slots = new JobSlots({ perHub: 2, perAgent: 1, queuePerHub: 3, queuePerAgent: 2 });
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  const job = (agent: string, name: string) =>
    slots.run(agent, () => {
      started.push(name);
      return new Promise<string>((resolve) => finish.set(name, () => resolve(name)));
    });
  const a1 = job('a', 'a1');
  const a2 = job('a', 'a2'); // a is at its limit: waits
  const b1 = job('b', 'b1'); // the hub's second slot
  const a3 = job('a', 'a3'); // waits (a has 2 waiting now)
  await assert.rejects(job('a', 'a4'), (e: Any) => e.code === 'rate_limited' && /at most 1 at a time and 2 waiting/.test(e.message));
  const c1 = job('c', 'c1'); // waits: the hub is full (3 waiting now)
  await assert.rejects(job('d', 'd1'), (e: Any) => e.code === 'rate_limited' && /hub is busy/.test(e.message));
  assert.deepEqual(started, ['a1', 'b1']);
  assert.deepEqual([slots.runningCount(), slots.waitingCount(), slots.runningCount('a'), slots.waitingCount('a')], [2, 3, 1, 2]);

  const settle = () => new Promise((r) => setImmediate(r)); // every promise reaction of the finish has run
  finish.get('b1')!();
  assert.equal(await b1, 'b1');
  await settle();
  assert.deepEqual(started, ['a1', 'b1', 'c1'], "a's waiting jobs cannot start while a1 runs: c1 goes first");
  finish.get('a1')!();
  assert.equal(await a1, 'a1');
  await settle();
  assert.deepEqual(started, ['a1', 'b1', 'c1', 'a2']);
  finish.get('c1')!();
  await c1;
  await settle();
  assert.deepEqual(started, ['a1', 'b1', 'c1', 'a2'], 'a3 waits for a2, not for the hub');
  finish.get('a2')!();
  await a2;
  await settle();
  assert.deepEqual(started, ['a1', 'b1', 'c1', 'a2', 'a3']);
  finish.get('a3')!();
  await a3;
  assert.deepEqual([slots.runningCount(), slots.waitingCount()], [0, 0]);
  // A failing job frees its slot too.
  await assert.rejects(
    slots.run('a', async () => {
      throw new Error('boom');
    }),
    /boom/,
  );
  assert.equal(slots.runningCount('a'), 0);
});
