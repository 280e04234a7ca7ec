// A wake run says why it was woken, newest first: the reasons of a run woken with several events waiting list the
// latest one first (the one the owner just sent), against a real `perch serve` and a real wake command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addAgent, cliAsync, eventually, ownerOk, removeDataDir, startServe, tempDataDir } from '../support/serve-harness';

test("a wake run woken with several events waiting lists its reasons newest first (the owner's latest mention leads)", async () => {
  const dir = tempDataDir();
  try {
    const hub = await startServe(dir, { args: ['--backups', '0'] });
    try {
      const kit = await addAgent(dir, 'kit');
      const conv = (await ownerOk(hub, 'conversations.create_group', { title: 'with kit', members: [kit.id] })).conversation
        .conv_id as string;
      const seqs: number[] = [];
      // Three mentions while kit has no wake action: they wait, unread.
      for (let i = 1; i <= 3; i++)
        seqs.push((await ownerOk(hub, 'messages.send', { conv_id: conv, text: `mention ${i}`, to: [kit.id] })).seq);
      const set = await cliAsync(['agent', 'wake', 'kit', '--data-dir', dir, '--', process.execPath, '-e', '0']);
      assert.equal(set.code, 0, set.stderr);
      seqs.push((await ownerOk(hub, 'messages.send', { conv_id: conv, text: 'mention 4', to: [kit.id] })).seq);
      let run: any;
      await eventually(
        async () => {
          run = (await ownerOk(hub, 'wake.runs', { agent: 'kit' })).runs[0];
          return run !== undefined;
        },
        20_000,
        "kit's wake run",
      );
      assert.equal(run.why.count, 4);
      assert.deepEqual(
        run.why.reasons.map((r: { seq: number }) => r.seq),
        [...seqs].reverse(),
        'newest first',
      );
      assert.equal(run.why.reasons[0].by, 'owner');
    } finally {
      await hub.stop();
    }
  } finally {
    removeDataDir(dir);
  }
});
