// The channel section of `npm run bench` (bench/run.ts, --only channel): `perch channel` (src/main/cli/channel/channel.ts)
// runs as Claude Code runs it, a child process on stdio with the agent's key in its environment, initialized by
// raw JSON-RPC lines; another agent sends it direct messages one at a time. Per message: from the event's commit
// (the message's created_at, the hub's clock, which is this machine's) to the notifications/claude/channel line
// read from the channel's stdout, and from the send_message call's start to that line.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { call, percentile, r3, summarize, sleep } from './client';

export interface ChannelBenchDeps {
  root: string;
  tmpRoot: string;
  samples: number;
  startHub: (name: string, dataDir: string) => Promise<{ port: number; child: ChildProcess; ownerToken: string }>;
  runProcess: (name: string, args: string[], timeoutMs: number) => Promise<string>;
  stopProcess: (child: ChildProcess) => Promise<void>;
  track: (child: ChildProcess) => void;
  progress: (line: string) => void;
  checkDeadline: (what: string) => void;
}

export async function channelPhase(d: ChannelBenchDeps) {
  const dir = path.join(d.tmpRoot, 'hub-channel');
  const add = async (name: string) =>
    JSON.parse((await d.runProcess('agent add', ['bin/perch.js', 'agent', 'add', name, '--data-dir', dir, '--json'], 30_000)).trim());
  const listener = await add('listener');
  const sender = await add('sender');
  const hub = await d.startHub('C', dir);
  const env = { ...process.env, PERCH_URL: `http://127.0.0.1:${hub.port}/mcp`, PERCH_KEY: listener.key };
  const child = spawn(process.execPath, [path.join(d.root, 'bin', 'perch.js'), 'channel'], {
    cwd: d.root,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  d.track(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  // Every push seen (msg_id → when its line was read), and the one wait for a msg_id, if any.
  const seen = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  const answers = new Map<number, (msg: any) => void>();
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    const at = Date.now();
    const msg = JSON.parse(line);
    if (msg.id !== undefined) answers.get(msg.id)?.(msg);
    else if (msg.method === 'notifications/claude/channel' && typeof msg.params?.meta?.msg_id === 'string') {
      seen.set(msg.params.meta.msg_id, at);
      waiting.get(msg.params.meta.msg_id)?.(at);
    }
  });
  const pushOf = (msgId: string) =>
    new Promise<number>((resolve, reject) => {
      const at = seen.get(msgId);
      if (at !== undefined) return resolve(at);
      const timer = setTimeout(() => reject(new Error(`channel push of ${msgId} not seen within 10 s; stderr: ${stderr}`)), 10_000);
      waiting.set(msgId, (t) => (clearTimeout(timer), waiting.delete(msgId), resolve(t)));
    });
  const request = (id: number, method: string, params: unknown) =>
    new Promise<any>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`channel: no answer to ${method}; stderr: ${stderr}`)), 15_000);
      answers.set(id, (m) => (clearTimeout(timer), resolve(m)));
      child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  try {
    const init = await request(1, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'bench', version: '0' },
    });
    if (!init.result?.capabilities?.experimental?.['claude/channel'])
      throw new Error(`channel: initialize without claude/channel: ${JSON.stringify(init).slice(0, 300)}`);
    child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const conv = (await call(hub.port, sender.key, 'open_direct', { user: 'listener' })).value.conversation.conv_id;
    await sleep(300); // the channel's first get_updates is waiting
    const fromCommit: number[] = [];
    const fromSend: number[] = [];
    for (let i = 0; i < d.samples; i++) {
      d.checkDeadline('a channel push');
      const t0 = Date.now();
      const sent = (await call(hub.port, sender.key, 'send_message', { conv_id: conv, text: `push ${i}` })).value;
      const at = await pushOf(sent.msg_id as string);
      fromCommit.push(at - (sent.created_at as number));
      fromSend.push(at - t0);
      await sleep(20);
    }
    const p95 = (xs: number[]) =>
      r3(
        percentile(
          [...xs].sort((a, b) => a - b),
          95,
        ),
      );
    const commit = { ...summarize(fromCommit), p95_ms: p95(fromCommit) };
    const send = { ...summarize(fromSend), p95_ms: p95(fromSend) };
    d.progress(
      `channel push: commit → notification written p50 ${commit.p50_ms} ms, p95 ${commit.p95_ms} ms (send start → written p50 ${send.p50_ms} ms)`,
    );
    return { n: commit.n, from_commit: commit, from_send: send };
  } finally {
    child.stdin!.end();
    await d.stopProcess(child);
    await d.stopProcess(hub.child);
  }
}
