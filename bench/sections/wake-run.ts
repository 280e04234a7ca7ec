// The wakerun section: from the waking event's commit to the agent's process running, and to its first tool call.
import fs from 'node:fs';
import path from 'node:path';
import { summarize, ownerCaller, sleep } from '../client';
import { tmpRoot, runProcess, stopProcess, startHub } from '../lib/processes';
import { ROOT, WAKE_RUNS, progress, checkDeadline } from '../lib/settings';

/**
 * Wake runs: a hub W whose agent has a wake command (test/fixtures/wake-agent.mjs: connects with the MCP SDK
 * client, reads get_updates, replies, exits). The owner names the agent WAKE_RUNS times, one run at a time;
 * the hub records, per run, when the waking event was committed, when the process was running (spawned)
 * and when the run key made its first tool call.
 */
export async function wakeRunPhase() {
  const dir = path.join(tmpRoot, 'hub-wakerun');
  const added = JSON.parse(
    (await runProcess('agent add', ['bin/perch.js', 'agent', 'add', 'sleeper', '--data-dir', dir, '--json'], 30_000)).trim(),
  );
  await runProcess(
    'agent wake',
    [
      'bin/perch.js',
      'agent',
      'wake',
      'sleeper',
      '--data-dir',
      dir,
      '--max-runs',
      '600',
      '--',
      process.execPath,
      path.join(ROOT, 'test', 'fixtures', 'wake-agent.mjs'),
    ],
    30_000,
  );
  const hub = await startHub('W', dir);
  const owner = ownerCaller(hub);
  try {
    const conv = (await owner('conversations.create_group', { title: 'wake bench', members: [added.id] })).conversation.conv_id;
    const runs: any[] = [];
    for (let i = 0; i < WAKE_RUNS; i++) {
      checkDeadline('a wake run');
      await owner('messages.send', { conv_id: conv, text: `wake ${i}`, to: [added.id] });
      const deadline = Date.now() + 30_000;
      for (;;) {
        const [newest] = (await owner('wake.runs', { agent: 'sleeper', limit: 1 })).runs;
        if (newest && newest.id !== runs[runs.length - 1]?.id && newest.status !== 'running') {
          runs.push(newest);
          break;
        }
        if (Date.now() > deadline) throw new Error(`wake run ${i} did not end within 30 s`);
        await sleep(20);
      }
    }
    const ok = runs.filter((r) => r.status === 'succeeded' && r.running_at != null);
    const toRunning = summarize(ok.map((r) => r.running_at - r.woken_at));
    const toFirstCall = summarize(ok.filter((r) => r.first_call_at != null).map((r) => r.first_call_at - r.woken_at));
    const duration = summarize(ok.map((r) => r.duration_ms));
    progress(
      `wake runs: ${ok.length}/${runs.length} succeeded; commit → running p50 ${toRunning.p50_ms} ms, → first tool call p50 ${toFirstCall.p50_ms} ms`,
    );
    return { runs: runs.length, succeeded: ok.length, to_running: toRunning, to_first_call: toFirstCall, run_duration: duration };
  } finally {
    await stopProcess(hub.child);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
