// A wake run's end is not lost to a full disk, against a real `perch serve` whose data dir is a real small tmpfs: the
// disk is filled while a run lives, the run ends (printing a Claude-Code-like result large enough that its record
// needs new room in the database), so its end cannot be written; the hub keeps it and, once the disk has room again,
// writes it: the run is recorded succeeded with its usage, not left running forever. And a hub killed with SIGKILL
// while a run lives, started again on the full disk: it starts (it cannot record the run interrupted yet), ends what is
// left of the run all the same, and writes its interrupted record once there is room.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addAgent, cliAsync, eventually, ownerOk, startServe, uniqueName } from '../support/serve-harness';
import { fillDisk, smallDisk, unmount } from '../support/small-disk';

const probe = smallDisk('8m');
if (probe.dir) unmount(probe.dir);

test(
  'a wake run that ends while the disk is full (a real 8 MiB tmpfs) has its end written once there is room: recorded succeeded, not left running',
  { skip: probe.why, timeout: 180_000 },
  async () => {
    const disk = smallDisk('8m').dir!;
    try {
      const data = path.join(disk, 'data');
      fs.mkdirSync(data);
      const a = await addAgent(data, uniqueName('full-disk'));
      const go = path.join(disk, 'go');
      // The run waits for the test's go (the disk is full by then), then prints a 200 KB result and exits 0.
      const shell = `while [ ! -e '${go}' ]; do sleep 0.1; done; printf '{"total_cost_usd":0.01,"usage":{"input_tokens":7,"pad":"'; head -c 200000 /dev/zero | tr '\\0' x; printf '"}}\\n'`;
      const r = await cliAsync(['agent', 'wake', a.name, '--data-dir', data, '--timeout', '120', '--shell', shell]);
      assert.equal(r.code, 0, r.stderr);
      const served = await startServe(data, { args: ['--backups', '0'], env: { PERCH_WAKE_BACKOFF_MS: '60000' } });
      let filler: string | undefined;
      try {
        const g = await ownerOk(served, 'conversations.create_group', { title: 'x', members: [a.id] });
        await ownerOk(served, 'messages.send', { conv_id: g.conversation.conv_id, text: 'wake up', to: [a.id] });
        let runId = '';
        await eventually(
          async () => {
            const [run] = (await ownerOk(served, 'wake.runs', { agent: a.name })).runs as any[];
            runId = run?.status === 'running' && run.pid ? run.id : '';
            return runId !== '';
          },
          20_000,
          'the run to be running',
        );
        filler = fillDisk(disk);
        fs.writeFileSync(go, ''); // an empty file: it needs no block
        await eventually(() => /wake run \S+ (is )?not recorded/.test(served.stderr()), 30_000, 'the end to fail to be written');
        const [during] = (await ownerOk(served, 'wake.runs', { agent: a.name })).runs as any[];
        assert.equal(during.status, 'running', 'while the disk is full its record still says running');
        fs.rmSync(filler); // room again
        filler = undefined;
        let run: any;
        await eventually(
          async () => {
            [run] = (await ownerOk(served, 'wake.runs', { agent: a.name })).runs as any[];
            return run.status !== 'running';
          },
          60_000,
          'the end to be written once there is room',
        );
        assert.equal(run.id, runId);
        assert.equal(run.status, 'succeeded', JSON.stringify({ ...run, usage: undefined }));
        assert.equal(run.exit_code, 0);
        assert.equal(run.usage?.usage?.input_tokens, 7, 'its usage is kept with it');
        assert.match(served.stderr(), /the end of wake run \S+ is recorded now that the disk allows/);
        await ownerOk(served, 'wake.set', { agent: a.name, off: true });
      } finally {
        if (filler) fs.rmSync(filler, { force: true });
        assert.equal(await served.stop(), 0, 'it stops cleanly');
      }
    } finally {
      unmount(disk);
    }
  },
);

test(
  'a hub killed with SIGKILL mid-run, started again on a full disk (a real 8 MiB tmpfs): it starts, ends the run it left, and records it interrupted once there is room; the queued wake of its agent waits, then runs',
  { skip: probe.why, timeout: 180_000 },
  async () => {
    const disk = smallDisk('8m').dir!;
    // Outside the small disk: the run's shell writes its pid here (the first run only; a later run exits at once).
    const marks = path.join(os.tmpdir(), `perch-killed-full-${crypto.randomUUID()}`);
    let runPid = 0;
    let filler: string | undefined;
    let served: Awaited<ReturnType<typeof startServe>> | undefined;
    try {
      const data = path.join(disk, 'data');
      fs.mkdirSync(data);
      const a = await addAgent(data, uniqueName('killed-full'));
      const shell = `[ -e '${marks}' ] && exit 0; echo $$ > '${marks}'; exec sleep 300`;
      const r = await cliAsync(['agent', 'wake', a.name, '--data-dir', data, '--timeout', '600', '--shell', shell]);
      assert.equal(r.code, 0, r.stderr);
      served = await startServe(data, { args: ['--backups', '0'], env: { PERCH_WAKE_BACKOFF_MS: '60000' } });
      const g = await ownerOk(served, 'conversations.create_group', { title: 'x', members: [a.id] });
      await ownerOk(served, 'messages.send', { conv_id: g.conversation.conv_id, text: 'wake up', to: [a.id] });
      let runId = '';
      await eventually(
        async () => {
          const [run] = (await ownerOk(served!, 'wake.runs', { agent: a.name })).runs as any[];
          runId = run?.status === 'running' && run.pid && fs.existsSync(marks) ? run.id : '';
          return runId !== '' && fs.readFileSync(marks, 'utf8').trim() !== '';
        },
        20_000,
        'the run to be running',
      );
      runPid = Number(fs.readFileSync(marks, 'utf8').trim());
      await served.kill();
      assert.ok(fs.existsSync(`/proc/${runPid}`), 'the run outlived the hub killed with SIGKILL');
      filler = fillDisk(disk);

      served = await startServe(data, { args: ['--backups', '0'], env: { PERCH_WAKE_BACKOFF_MS: '60000' } });
      await eventually(() => !fs.existsSync(`/proc/${runPid}`), 20_000, 'the run the killed hub left to be ended');
      assert.match(served.stderr(), /the wake runs a previous hub left are not recorded interrupted yet/);
      const [during] = (await ownerOk(served, 'wake.runs', { agent: a.name })).runs as any[];
      assert.equal(during.id, runId);
      assert.equal(during.status, 'running', 'while the disk is full its record still says running');
      fs.rmSync(filler); // room again
      filler = undefined;
      let run: any;
      await eventually(
        async () => {
          run = ((await ownerOk(served!, 'wake.runs', { agent: a.name })).runs as any[]).find((x) => x.id === runId);
          return run?.status !== 'running';
        },
        60_000,
        'the interrupted record to be written once there is room',
      );
      assert.equal(run.status, 'interrupted');
      assert.equal(run.error, 'The hub stopped while it ran.');
      assert.match(served.stderr(), new RegExp(`the end of wake run ${runId} is recorded now that the disk allows`));
      // Its agent's wake was not answered: it waited in the queue while no run could be recorded, and runs now.
      await eventually(
        async () =>
          ((await ownerOk(served!, 'wake.runs', { agent: a.name })).runs as any[]).some((x) => x.id !== runId && x.status === 'succeeded'),
        30_000,
        "the agent's queued wake to run once there is room",
      );
      await ownerOk(served, 'wake.set', { agent: a.name, off: true });
      assert.equal(await served.stop(), 0, 'it stops cleanly');
    } finally {
      if (runPid && fs.existsSync(`/proc/${runPid}`)) process.kill(runPid, 'SIGKILL');
      await served?.kill();
      if (filler) fs.rmSync(filler, { force: true });
      fs.rmSync(marks, { force: true });
      unmount(disk);
    }
  },
);
