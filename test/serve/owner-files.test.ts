// The owner sends files and images (files.send) over a real `perch serve`: the same processing as an agent's
// send_file (type read from the bytes, EXIF/GPS dropped, a thumbnail), a body limit fitted to a file's base64,
// the owner door's checks (bearer, Origin), and bad input refused with nothing changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import sharp from 'sharp';
import { LIMITS } from '../../src/shared/limits';
import { gpsJpeg } from '../support/images';
import { owner, ownerFail, ownerOk, runtimeInfo, useSharedServe, type AgentClient } from '../support/serve-harness';

const served = useSharedServe();

/** Reads the agent's get_updates until a message.created of the given msg_id arrives. */
async function messageSeenBy(agent: AgentClient, msgId: string): Promise<Record<string, any>> {
  for (let i = 0; i < 20; i++) {
    const r = await agent.ok('get_updates', { wait_secs: 2 });
    const hit = (r.events as Array<Record<string, any>>).find((e) => e.type === 'message.created' && e.message?.msg_id === msgId);
    if (hit) return hit;
  }
  assert.fail(`the agent never saw message ${msgId}`);
}

/** A conversation an agent made without the owner in it, and the state of it that a refusal must leave as it was. */
async function convWithoutOwner(agent: AgentClient): Promise<{ convId: string; snapshot: () => Promise<string> }> {
  const convId = (await agent.ok('create_group', { title: `no owner yet ${crypto.randomUUID().slice(0, 6)}`, members: [] })).conversation
    .conv_id as string;
  const snapshot = async () => {
    const c = (await ownerOk(served, 'conversations.get', { conv_id: convId })).conversation;
    return JSON.stringify({ members: c.members.map((m: { id: string }) => m.id), last_seq: c.last_seq });
  };
  return { convId, snapshot };
}

test('files.send: a photo from the owner reaches an agent as an image with a thumbnail, and what the agent downloads carries no EXIF or GPS', async () => {
  const agent = await served.agent('photo-reader');
  const convId = (await agent.ok('open_direct', { user: 'owner' })).conversation.conv_id as string;
  const jpeg = await gpsJpeg({ orientation: 6 });
  assert.ok((await sharp(jpeg).metadata()).exif, 'the input carries EXIF');

  const sent = await ownerOk(served, 'files.send', {
    conv_id: convId,
    name: 'holiday.jpg',
    data: jpeg.toString('base64'),
    caption: 'From my phone',
    to: [agent.agent.name],
  });
  assert.equal(sent.kind, 'image');
  assert.equal(sent.mime, 'image/jpeg');
  assert.deepEqual([sent.width, sent.height], [800, 1200], 'turned upright (orientation 6)');
  assert.equal(sent.has_thumb, true);
  assert.deepEqual(sent.woken, [agent.agent.name]);

  const ev = await messageSeenBy(agent, sent.msg_id);
  assert.equal(ev.message.kind, 'image');
  assert.equal(ev.message.text, 'From my phone');
  assert.equal(ev.message.payload.file_id, sent.file_id);
  assert.equal(ev.actor.kind, 'human', 'sent as the owner');

  const link = await agent.ok('file_url', { conv_id: convId, file_id: sent.file_id });
  const bytes = Buffer.from(await (await fetch(link.url)).arrayBuffer());
  const meta = await sharp(bytes).metadata();
  assert.equal(meta.format, 'jpeg');
  assert.equal(meta.exif, undefined, 'no EXIF (hence no GPS) in what the agent downloads');
  assert.ok(!bytes.includes(Buffer.from('TestCam')), 'no camera strings left');
  const thumb = await agent.ok('file_url', { conv_id: convId, file_id: sent.file_id, variant: 'thumb' });
  const thumbMeta = await sharp(Buffer.from(await (await fetch(thumb.url)).arrayBuffer())).metadata();
  assert.ok(Math.max(thumbMeta.width!, thumbMeta.height!) <= 320, 'a thumbnail inside the 320px box');
});

test('files.send takes a body over 1 MiB (a file of megabytes, as send_file does), into a thread, while other actions keep the 1 MiB limit', async () => {
  const agent = await served.agent('big-reader');
  const convId = (await agent.ok('open_direct', { user: 'owner' })).conversation.conv_id as string;
  const root = await agent.ok('send_message', { conv_id: convId, text: 'Send the dump in this thread.' });
  const blob = crypto.randomBytes(3 * 1024 * 1024);
  const sent = await ownerOk(served, 'files.send', {
    conv_id: convId,
    name: 'dump.bin',
    data: blob.toString('base64'),
    thread_id: root.msg_id,
  });
  assert.equal(sent.kind, 'file');
  assert.equal(sent.thread_id, root.msg_id, 'sent in the thread');
  assert.equal(sent.size, blob.length);
  const link = await agent.ok('file_url', { conv_id: convId, file_id: sent.file_id });
  const got = Buffer.from(await (await fetch(link.url)).arrayBuffer());
  assert.ok(got.equals(blob), 'the agent downloads the very bytes');

  const tooBig = await owner(served, 'messages.send', { conv_id: convId, text: 'x', pad: 'y'.repeat(LIMITS.maxBodyBytes) });
  assert.equal(tooBig.status, 413, 'other actions still refuse a body over 1 MiB');
});

test('files.send refuses bad input and changes nothing: unknown conversation, bad base64, a file over 16 MiB (413, saying the limit and what to do), a body over the file limit, a PNG named .jpg', async () => {
  const agent = await served.agent('no-owner');
  const { convId, snapshot } = await convWithoutOwner(agent);
  const before = await snapshot();
  const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#08f' } })
    .png()
    .toBuffer();

  const unknown = await ownerFail(
    served,
    'files.send',
    { conv_id: 'c_0000000000000000', name: 'a.png', data: png.toString('base64') },
    404,
  );
  assert.equal(unknown.code, 'not_found');
  const badB64 = await ownerFail(served, 'files.send', { conv_id: convId, name: 'a.txt', data: 'not base64!' }, 400);
  assert.match(badB64.message, /not valid base64/);
  // A file over 16 MiB is content too large (413) whether the hub finds it (its base64 fits the body limit) or the
  // door does (the body is over it); either answer says the limit and what to do.
  const over = await ownerFail(
    served,
    'files.send',
    { conv_id: convId, name: 'big.bin', data: Buffer.alloc(LIMITS.maxFileBytes + 3).toString('base64') },
    413,
  );
  assert.equal(over.code, 'too_large');
  assert.match(over.message, /16 MiB/);
  assert.match(over.next_step, /smaller file.*split it into parts of at most 16 MiB/);
  const overBody = await owner(served, 'files.send', { conv_id: convId, name: 'x.bin', data: 'A'.repeat(LIMITS.maxFileBodyBytes) });
  assert.equal(overBody.status, 413);
  assert.equal(overBody.error?.code, 'too_large');
  assert.match(overBody.error?.message, /over the 16 MiB limit/);
  assert.match(overBody.error?.next_step, /smaller file.*split it into parts of at most 16 MiB/);
  const disguised = await ownerFail(served, 'files.send', { conv_id: convId, name: 'photo.jpg', data: png.toString('base64') }, 400);
  assert.match(disguised.message, /claims to be JPEG/);
  const noName = await ownerFail(served, 'files.send', { conv_id: convId, data: png.toString('base64') }, 400);
  assert.match(noName.message, /name/);

  assert.equal(await snapshot(), before, 'no message and the owner did not join the conversation');
});

test("files.send goes through the owner door's checks: no bearer is 401 before any body is read, another origin is 403", async () => {
  const agent = await served.agent('door');
  const convId = (await agent.ok('open_direct', { user: 'owner' })).conversation.conv_id as string;
  const input = { conv_id: convId, name: 'a.bin', data: Buffer.from('hello').toString('base64') };
  const rt = runtimeInfo(served);
  const noBearer = await owner(served, 'files.send', { ...input, data: 'A'.repeat(4 * 1024 * 1024) }, { bearer: '' });
  assert.equal(noBearer.status, 401);
  const foreign = await owner(served, 'files.send', input, { headers: { Origin: 'http://127.0.0.1:1' } });
  assert.equal(foreign.status, 403);
  const own = await owner(served, 'files.send', input, { headers: { Origin: rt.base_url } });
  assert.equal(own.status, 200, own.text);
});
