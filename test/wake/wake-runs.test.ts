// Wake runs against a real `perch serve`: real processes (test/fixtures/wake-agent.mjs, an agent on the
// official MCP client), a real loopback webhook receiver, the real CLI and owner API.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import {
  ROOT,
  addAgent,
  alive,
  cliAsync,
  eventually,
  untilWaiting,
  owner,
  ownerFail,
  ownerOk,
  rawPost,
  runtimeInfo,
  sleep,
  startServe,
  tempDataDir,
  uniqueName,
  useSharedServe,
} from '../support/serve-harness';

const AGENT_SCRIPT = path.join(ROOT, 'test', 'fixtures', 'wake-agent.mjs');
const TIMINGS = { PERCH_WAKE_BACKOFF_MS: '300', PERCH_WAKE_KILL_GRACE_MS: '300', PERCH_WAKE_WEBHOOK_RETRY_MS: '50' };

const served = useSharedServe({ env: TIMINGS });

/** A new agent with a wake command (set with the CLI while the hub runs) and a group where the owner can name it. */
async function wakeableAgent(base: string, wakeArgs: string[]): Promise<{ id: string; name: string; conv: string }> {
  const a = await addAgent(served.dataDir, uniqueName(base));
  const r = await cliAsync(['agent', 'wake', a.name, '--data-dir', served.dataDir, '--json', ...wakeArgs]);
  assert.equal(r.code, 0, `perch agent wake failed: ${r.stderr}`);
  const g = await ownerOk(served, 'conversations.create_group', { title: `with ${a.name}`, members: [a.id] });
  return { id: a.id, name: a.name, conv: g.conversation.conv_id };
}

async function mention(conv: string, agentId: string, text = 'please have a look'): Promise<void> {
  await ownerOk(served, 'messages.send', { conv_id: conv, text, to: [agentId] });
}

async function runsOf(agent: string): Promise<any[]> {
  return (await ownerOk(served, 'wake.runs', { agent })).runs;
}

async function settled(agent: string, ms = 20_000): Promise<any[]> {
  let runs: any[] = [];
  await eventually(
    async () => {
      runs = await runsOf(agent);
      const st = (await ownerOk(served, 'wake.get', { agent })).wake;
      return runs.length > 0 && runs.every((r) => r.status !== 'running') && st.running === null;
    },
    ms,
    `the wake runs of ${agent} to end`,
  );
  return runs;
}

describe('wake runs', () => {
  test("an owner mention starts the agent's wake command; it reads, replies, exits; the run is recorded and its key stops working", async () => {
    const keyFile = path.join(served.dataDir, `key-${crypto.randomUUID()}`);
    const a = await wakeableAgent('sleeper', ['--env', `WAKE_AGENT_KEY_FILE=${keyFile}`, '--', process.execPath, AGENT_SCRIPT]);
    await mention(a.conv, a.id, `@${a.name} please have a look`);
    const [run] = await settled(a.name);
    assert.equal(run.status, 'succeeded', `run: ${JSON.stringify(run)}`);
    assert.equal(run.exit_code, 0);
    assert.equal(run.why.reasons[0].type, 'message.created', 'why it was woken: the mention');
    assert.equal(run.why.reasons[0].conv_id, a.conv);
    assert.equal(run.why.reasons[0].by, 'owner');
    assert.ok(run.running_at >= run.started_at && run.first_call_at >= run.running_at, 'it ran, then made a tool call with its run key');
    assert.deepEqual(
      run.usage,
      { total_cost_usd: 0.0123, usage: { input_tokens: 12, output_tokens: 3 } },
      "Claude Code's JSON result is counted",
    );
    const ctl = (await ownerOk(served, 'agents.controls', {})).agents.find((c: any) => c.agent.id === a.id);
    assert.equal(ctl.today.cost_usd, 0.0123, "the run's cost counts toward the agent's daily usage (caps)");
    assert.equal(ctl.today.input_tokens, 12);

    const history = await ownerOk(served, 'conversations.history', { conv_id: a.conv });
    const reply = history.events.find((e: any) => e.type === 'message.created' && e.actor?.id === a.id);
    assert.ok(reply, "the woken agent's reply is in the conversation");
    assert.match(reply.message.text, new RegExp(`run ${run.id}`));

    const key = fs.readFileSync(keyFile, 'utf8');
    assert.match(key, /^perch_run_/);
    const after = await rawPost(
      `${runtimeBase()}/mcp`,
      key,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
      { 'MCP-Protocol-Version': '2025-11-25' },
    );
    assert.equal(after.status, 401, 'the run key stops working once the run ended');

    const { tail } = await ownerOk(served, 'wake.log', { run_id: run.id });
    assert.match(tail, /woken by 1 event/);
    assert.ok(!tail.includes(key), 'the run key is not in the log');
    const logFile = path.join(served.dataDir, 'wake', 'logs', `${run.id}.log`);
    assert.equal(fs.statSync(logFile).mode & 0o777, 0o600, 'the run log is 0600');
  });

  test("a run's MCP config is kept outside the data dir, and nothing the run is handed carries the owner's credential", async () => {
    const handedFile = path.join(os.tmpdir(), `perch-handed-${crypto.randomUUID()}.json`);
    try {
      const a = await wakeableAgent('handed', ['--env', `WAKE_AGENT_ENV_FILE=${handedFile}`, '--', process.execPath, AGENT_SCRIPT]);
      await mention(a.conv, a.id, `@${a.name} what were you given?`);
      const [run] = await settled(a.name);
      assert.equal(run.status, 'succeeded', `run: ${JSON.stringify(run)}`);
      const handed = JSON.parse(fs.readFileSync(handedFile, 'utf8')) as {
        env: Record<string, string>;
        cwd: string;
        mcp_config: string;
        mcp_config_text: string;
        claude_settings_text: string;
      };

      const dataDir = fs.realpathSync(served.dataDir);
      const inside = (p: string) => !path.relative(dataDir, p).startsWith('..') && !path.isAbsolute(path.relative(dataDir, p));
      assert.ok(path.isAbsolute(handed.mcp_config), 'PERCH_MCP_CONFIG is a path');
      const configDir = path.dirname(handed.mcp_config);
      assert.ok(!inside(handed.mcp_config), `the run's MCP config (${handed.mcp_config}) is not in the data dir (${dataDir})`);
      assert.ok(!fs.existsSync(path.join(configDir, 'runtime.json')), "no runtime.json sits next to the run's config");
      assert.match(handed.mcp_config_text, /perch_run_/, 'the config carries the run key');
      // The Claude Code settings beside it: the PermissionRequest hook is one HTTP request to this hub's hook door,
      // the run's key taken from PERCH_KEY by Claude Code (allowedEnvVars), not written and not a `perch` process.
      const settings = JSON.parse(handed.claude_settings_text) as {
        hooks: { PermissionRequest: Array<{ hooks: Array<Record<string, unknown>> }> };
      };
      assert.deepEqual(settings.hooks.PermissionRequest[0]!.hooks[0], {
        type: 'http',
        url: `${served.mcpUrl.replace(/\/mcp$/, '')}/hook/claude-code/permission-request?agent=${a.name}`,
        headers: { Authorization: 'Bearer $PERCH_KEY' },
        allowedEnvVars: ['PERCH_KEY'],
        timeout: 600,
      });
      assert.ok(!handed.claude_settings_text.includes('perch_run_'), 'the settings carry no key');
      // OpenCode's config for the run (the recipe's OPENCODE_CONFIG_CONTENT): the key only by reference.
      assert.deepEqual(JSON.parse(handed.env.PERCH_OPENCODE_CONFIG!), {
        mcp: {
          [`perch-${a.name}`]: { type: 'remote', url: served.mcpUrl, headers: { Authorization: 'Bearer {env:PERCH_KEY}' }, enabled: true },
        },
      });
      assert.equal(fs.existsSync(configDir), false, "the run's config folder is deleted after the run");
      assert.equal(fs.existsSync(path.join(served.dataDir, 'wake', 'tmp')), false, 'nothing for runs is made in the data dir');

      const rt = runtimeInfo(served);
      const all = JSON.stringify(handed.env) + handed.mcp_config_text;
      assert.ok(!all.includes(rt.owner_token), 'the owner token is nowhere in what the run was handed');
      assert.ok(!all.includes(dataDir) && !all.includes(served.dataDir), 'neither is the data dir (where runtime.json is)');
      assert.ok(!all.includes('runtime.json'));
      const perchVars = Object.keys(handed.env)
        .filter((k) => k.toUpperCase().startsWith('PERCH_'))
        .sort();
      assert.deepEqual(
        perchVars,
        [
          'PERCH_AGENT',
          'PERCH_CLAUDE_SETTINGS',
          'PERCH_KEY',
          'PERCH_MCP_CONFIG',
          'PERCH_OPENCODE_CONFIG',
          'PERCH_OTLP_LOGS_URL',
          'PERCH_RUN_ID',
          'PERCH_URL',
          'PERCH_WAKE',
        ],
        "only the run's own PERCH_ variables",
      );
    } finally {
      fs.rmSync(handedFile, { force: true });
    }
  });

  test('an agent whose get_updates is waiting hears the wake itself: no run starts', async () => {
    const a = await wakeableAgent('listener', ['--', process.execPath, AGENT_SCRIPT]);
    const key = (await cliAsync(['agent', 'rotate-key', a.name, '--data-dir', served.dataDir, '--json'])).stdout;
    const agentKey = JSON.parse(key).key as string;
    const first = await rawPost(
      served.mcpUrl,
      agentKey,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_updates', arguments: { limit: 500 } } },
      { 'MCP-Protocol-Version': '2025-11-25' },
    );
    const ack = first.json.result.structuredContent.ack as string; // what it has read so far (joining the group)
    const waiting = rawPost(
      served.mcpUrl,
      agentKey,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_updates', arguments: { ack, wait_secs: 20 } } },
      { 'MCP-Protocol-Version': '2025-11-25' },
    );
    await untilWaiting(served, a.id);
    await mention(a.conv, a.id);
    const r = await waiting;
    assert.equal(r.json.result.structuredContent.woken, true, 'the waiting call was woken');
    await sleep(300);
    assert.deepEqual(await runsOf(a.name), [], 'no wake run started');
    // Control: the same mention while nobody waits (the first one read but not confirmed) does start a run.
    await mention(a.conv, a.id);
    const [run] = await settled(a.name);
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
  });

  test('a wake storm (100 mentions at once) gives at most 2 runs, and every mention is read', async () => {
    const a = await wakeableAgent('stormy', ['--', process.execPath, AGENT_SCRIPT]);
    await Promise.all(Array.from({ length: 100 }, (_, i) => mention(a.conv, a.id, `storm ${i}`)));
    const runs = await settled(a.name, 30_000);
    await sleep(800); // longer than the backoff: a re-run would have started by now
    const final = await settled(a.name);
    assert.ok(final.length >= 1 && final.length <= 2, `runs: ${final.length}`);
    assert.ok(
      final.every((r) => r.status === 'succeeded'),
      JSON.stringify(final.map((r) => r.status)),
    );
    assert.equal(runs.length, final.length);
    const st = (await ownerOk(served, 'wake.get', { agent: a.name })).wake;
    assert.equal(st.running, null);
  });

  test('a hanging command is killed at its timeout (SIGTERM, then SIGKILL of its group) and recorded as timed out', async () => {
    const a = await wakeableAgent('hanger', ['--timeout', '2', '--env', 'WAKE_AGENT_MODE=hang', '--', process.execPath, AGENT_SCRIPT]);
    await mention(a.conv, a.id);
    const [run] = await settled(a.name, 15_000);
    assert.equal(run.status, 'timed_out', JSON.stringify(run));
    assert.equal(run.signal, 'SIGKILL', 'it ignored SIGTERM, so SIGKILL ended it');
    assert.ok(run.pid > 0 && !alive(run.pid), 'the process is gone');
    const { tail } = await ownerOk(served, 'wake.log', { run_id: run.id });
    assert.match(tail, /SIGTERM ignored/, 'it was sent SIGTERM first');
  });

  test('a crashing command backs off, and after five failures in a row its wake action is switched off and the owner told why', async () => {
    const a = await wakeableAgent('crasher', ['--env', 'WAKE_AGENT_MODE=crash', '--', process.execPath, AGENT_SCRIPT]);
    await mention(a.conv, a.id);
    await eventually(
      async () => (await ownerOk(served, 'wake.get', { agent: a.name })).wake.enabled === false,
      30_000,
      'the wake action to be switched off',
    );
    const st = (await ownerOk(served, 'wake.get', { agent: a.name })).wake;
    assert.match(st.off_reason, /5 runs in a row failed/);
    assert.equal(st.consecutive_failures, 5);
    await sleep(1000);
    const runs = (await runsOf(a.name)).reverse();
    assert.equal(runs.length, 5, 'no run after it was switched off');
    assert.ok(runs.every((r) => r.status === 'failed' && r.exit_code === 3));
    for (let i = 1; i < runs.length; i++) {
      const gap = runs[i].started_at - runs[i - 1].ended_at;
      assert.ok(gap >= 300 * 2 ** (i - 1) * 0.9, `re-run ${i} waited ${Math.round(gap)} ms: the backoff doubles from 300 ms`);
    }
    await mention(a.conv, a.id);
    await sleep(500);
    assert.equal((await runsOf(a.name)).length, 5, 'a switched-off agent is not started');
  });

  test("a run key printed in pieces (split over writes, or cut in two lines, on stdout and stderr) leaves no piece of it in the run's log", async () => {
    const keyFile = path.join(served.dataDir, `key-${crypto.randomUUID()}`);
    // Each write after a pause reaches the hub as a chunk of its own.
    const script = `
      const key = process.env.PERCH_KEY, pause = () => new Promise((r) => setTimeout(r, 150));
      require('node:fs').writeFileSync(process.env.KEY_FILE, key);
      (async () => {
        process.stdout.write('key: ' + key.slice(0, 12)); await pause();
        process.stdout.write(key.slice(12) + ' (split over writes)\\n'); await pause();
        process.stdout.write(key.slice(0, 12) + '\\n'); await pause();
        process.stdout.write(key.slice(12) + '\\n'); await pause();
        process.stderr.write(key.slice(0, 20)); await pause();
        process.stderr.write(key.slice(20) + '\\n'); await pause();
        process.stdout.write('done\\n');
      })();`;
    const a = await wakeableAgent('leaky', ['--env', `KEY_FILE=${keyFile}`, '--', process.execPath, '-e', script]);
    await mention(a.conv, a.id);
    const [run] = await settled(a.name);
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    const key = fs.readFileSync(keyFile, 'utf8');
    assert.match(key, /^perch_run_/);
    const log = fs.readFileSync(path.join(served.dataDir, 'wake', 'logs', `${run.id}.log`), 'utf8');
    assert.match(log, /done/, `the rest of the output is there: ${log}`);
    assert.match(log, /\[run key redacted\] \(split over writes\)/);
    for (let i = 0; i + 12 <= key.length; i++) {
      assert.ok(!log.includes(key.slice(i, i + 12)), `no 12 characters of the key in a row (at ${i}) in the log: ${log}`);
    }
    const { tail } = await ownerOk(served, 'wake.log', { run_id: run.id });
    assert.ok(!tail.includes(key.slice(0, 12)) && !tail.includes(key.slice(12)), 'nor in what the owner reads');
  });

  test('a revoked agent is not started (a live agent woken by the same message is)', async () => {
    const a = await wakeableAgent('revoked', ['--', process.execPath, AGENT_SCRIPT]);
    const control = await addAgent(served.dataDir, uniqueName('unrevoked'));
    const w = await cliAsync(['agent', 'wake', control.name, '--data-dir', served.dataDir, '--', process.execPath, AGENT_SCRIPT]);
    assert.equal(w.code, 0, w.stderr);
    const g = await ownerOk(served, 'conversations.create_group', { title: 'revoked and not', members: [a.id, control.id] });
    await ownerOk(served, 'agents.revoke', { agent: a.id });
    await ownerOk(served, 'messages.send', { conv_id: g.conversation.conv_id, text: 'both of you please', to: [a.id, control.id] });
    const [run] = await settled(control.name);
    assert.equal(run.status, 'succeeded', 'the control agent, woken by the same message, ran');
    assert.deepEqual(await runsOf(a.name), [], 'the revoked agent was not started');
  });

  test("a wake action set in the hub (wake.set) starts the next mention's run; removed (off), it starts nothing", async () => {
    const agent = await addAgent(served.dataDir, uniqueName('late'));
    const conv = (await ownerOk(served, 'conversations.create_group', { title: `with ${agent.name}`, members: [agent.id] })).conversation
      .conv_id;
    await mention(conv, agent.id);
    await sleep(300);
    assert.deepEqual(await runsOf(agent.name), [], 'no wake action yet: nothing starts');
    await ownerOk(served, 'wake.set', { agent: agent.name, argv: [process.execPath, AGENT_SCRIPT] });
    await mention(conv, agent.id);
    assert.equal((await settled(agent.name)).length, 1, 'the hub knows at once of an action it set itself');
    await ownerOk(served, 'wake.set', { agent: agent.name, off: true });
    await mention(conv, agent.id);
    await sleep(500);
    assert.equal((await runsOf(agent.name)).length, 1, 'no run after the hub removed the action');
  });

  test('a paused agent is not started; resuming it (agent.resumed wakes it) starts it', async () => {
    const a = await wakeableAgent('paused', ['--', process.execPath, AGENT_SCRIPT]);
    await ownerOk(served, 'agents.pause', { agent: a.id, reason: 'lunch' });
    await mention(a.conv, a.id);
    await sleep(500);
    assert.deepEqual(await runsOf(a.name), [], 'no run while paused');
    await ownerOk(served, 'agents.resume', { agent: a.id });
    const runs = await settled(a.name);
    assert.ok(runs.length >= 1, 'the resume woke it and a run started');
  });

  test('the webhook variant delivers a signed POST to a loopback server, retrying after a failure', async () => {
    const got: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req
        .setEncoding('utf8')
        .on('data', (c) => (body += c))
        .on('end', () => {
          got.push({ headers: req.headers, body });
          res.writeHead(got.length === 1 ? 503 : 200).end('ok');
        });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as { port: number }).port;
      const a = await wakeableAgent('hooked', ['--webhook', `http://127.0.0.1:${port}/perch`]);
      const secret = (await ownerOk(served, 'wake.get', { agent: a.name })).wake.webhook_secret as string;
      assert.ok(secret.length >= 32);
      await mention(a.conv, a.id);
      const [run] = await settled(a.name);
      assert.equal(run.status, 'succeeded', JSON.stringify(run));
      assert.equal(got.length, 2, 'the first answer (503) was retried');
      for (const g of got) {
        const expected = `sha256=${crypto.createHmac('sha256', secret).update(g.body).digest('hex')}`;
        assert.equal(g.headers['x-perch-signature'], expected, 'the body is signed with the secret');
      }
      const body = JSON.parse(got[1]!.body);
      assert.equal(body.agent.name, a.name);
      assert.equal(body.run_id, run.id);
      assert.equal(body.wake.reasons[0].type, 'message.created');
      assert.ok(!('key' in body), 'no key travels in a webhook');
    } finally {
      server.close();
    }
  });

  test('bad wake settings are refused with a clear error and change nothing', async () => {
    const a = await wakeableAgent('picky', ['--', process.execPath, AGENT_SCRIPT]);
    const before = (await ownerOk(served, 'wake.get', { agent: a.name })).wake;
    const both = await ownerFail(served, 'wake.set', { agent: a.name, argv: ['x'], shell: 'x' }, 400);
    assert.equal(both.code, 'invalid_argument');
    const remote = await ownerFail(served, 'wake.set', { agent: a.name, webhook: 'http://example.com/hook' }, 400);
    assert.match(remote.message, /on this machine/);
    const reserved = await ownerFail(served, 'wake.set', { agent: a.name, argv: ['x'], env: { PERCH_KEY: 'mine' } }, 400);
    assert.match(reserved.message, /PERCH_/);
    const nowhere = await ownerFail(
      served,
      'wake.set',
      { agent: a.name, argv: ['x'], cwd: path.join(served.dataDir, 'no-such-folder') },
      400,
    );
    assert.match(nowhere.message, /is not a folder/);
    assert.deepEqual((await ownerOk(served, 'wake.get', { agent: a.name })).wake, before);
    const cli = await cliAsync(['agent', 'wake', a.name, '--data-dir', served.dataDir, '--timeout', 'soon', '--', 'x']);
    assert.equal(cli.code, 2);
    assert.match(cli.stderr, /--timeout must be a whole number/);
    const off = await cliAsync(['agent', 'wake', a.name, '--data-dir', served.dataDir, '--off', '--json']);
    assert.equal(off.code, 0);
    assert.equal(JSON.parse(off.stdout).wake.action, null);
    const help = await cliAsync(['agent', 'wake', '--help']);
    assert.match(help.stdout, /--webhook URL/);
  });
});

test('a wake process that ignores SIGTERM does not outlive the hub: it is killed with its group when the hub stops', async () => {
  const dir = tempDataDir();
  const hub = await startServe(dir, { env: TIMINGS });
  let pid = 0;
  try {
    const a = await addAgent(dir, uniqueName('stubborn'));
    const r = await cliAsync([
      'agent',
      'wake',
      a.name,
      '--data-dir',
      dir,
      '--env',
      'WAKE_AGENT_MODE=hang',
      '--',
      process.execPath,
      AGENT_SCRIPT,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const g = await ownerOk(hub, 'conversations.create_group', { title: 'x', members: [a.id] });
    await ownerOk(hub, 'messages.send', { conv_id: g.conversation.conv_id, text: 'wake up', to: [a.id] });
    let runId = '';
    await eventually(
      async () => {
        const [run] = (await ownerOk(hub, 'wake.runs', { agent: a.name })).runs;
        pid = run?.pid ?? 0;
        runId = run?.id ?? '';
        return pid > 0;
      },
      10_000,
      'the run to be running',
    );
    // It prints this once its SIGTERM handler is in place: until then a SIGTERM alone would end it.
    await eventually(
      async () => /wake-agent: hanging/.test((await ownerOk(hub, 'wake.log', { run_id: runId })).tail),
      10_000,
      'the wake process to ignore SIGTERM',
    );
  } finally {
    assert.equal(await hub.stop(), 0);
  }
  assert.equal(alive(pid), false, 'the stubborn process ended with the hub');
});

function runtimeBase(): string {
  return JSON.parse(fs.readFileSync(path.join(served.dataDir, 'runtime.json'), 'utf8')).base_url;
}

test('on hub shutdown a running wake process gets SIGTERM, its run is recorded as interrupted, and the next hub runs its wake again', async () => {
  const dir = tempDataDir();
  let hub = await startServe(dir, { env: TIMINGS });
  try {
    const a = await addAgent(dir, uniqueName('sleepy'));
    const r = await cliAsync(['agent', 'wake', a.name, '--data-dir', dir, '--', process.execPath, '-e', 'setInterval(() => {}, 1000)']);
    assert.equal(r.code, 0, r.stderr);
    const g = await ownerOk(hub, 'conversations.create_group', { title: 'x', members: [a.id] });
    await ownerOk(hub, 'messages.send', { conv_id: g.conversation.conv_id, text: 'wake up', to: [a.id] });
    let pid = 0;
    let runId = '';
    await eventually(
      async () => {
        const [run] = (await ownerOk(hub, 'wake.runs', { agent: a.name })).runs;
        pid = run?.pid ?? 0;
        runId = run?.id ?? '';
        return pid > 0;
      },
      10_000,
      'the run to be running',
    );
    assert.equal(await hub.stop(), 0);
    await eventually(() => !alive(pid), 5000, 'the wake process to end after SIGTERM');
    hub = await startServe(dir, { env: TIMINGS });
    const runs = (await ownerOk(hub, 'wake.runs', { agent: a.name })).runs as any[];
    assert.equal(runs.find((r) => r.id === runId)?.status, 'interrupted');
    // Its wake was not answered: the next hub runs the agent again (the queue survives a restart).
    await eventually(
      async () => ((await ownerOk(hub, 'wake.runs', { agent: a.name })).runs as any[]).some((r) => r.id !== runId),
      10_000,
      'the interrupted wake to run again after the restart',
    );
    const unknown = await owner(hub, 'wake.log', { run_id: 'run_nope' });
    assert.equal(unknown.status, 404);
  } finally {
    await hub.stop();
  }
});

describe('wake run history is bounded', () => {
  const few = useSharedServe({ env: { ...TIMINGS, PERCH_WAKE_KEEP_RUNS: '2' } });

  test('with 2 runs kept per agent, a third run drops the oldest ended run and deletes its log file', async () => {
    const a = await addAgent(few.dataDir, uniqueName('historian'));
    const r = await cliAsync(['agent', 'wake', a.name, '--data-dir', few.dataDir, '--json', '--', process.execPath, AGENT_SCRIPT]);
    assert.equal(r.code, 0, r.stderr);
    const g = await ownerOk(few, 'conversations.create_group', { title: `with ${a.name}`, members: [a.id] });
    const ids: string[] = [];
    let logs: string[] = [];
    for (let i = 0; i < 3; i++) {
      await ownerOk(few, 'messages.send', { conv_id: g.conversation.conv_id, text: `round ${i}`, to: [a.id] });
      await eventually(
        async () => {
          const runs = (await ownerOk(few, 'wake.runs', { agent: a.name })).runs as any[];
          const st = (await ownerOk(few, 'wake.get', { agent: a.name })).wake;
          const fresh = runs.find((x) => !ids.includes(x.run_id ?? x.id));
          if (!fresh || fresh.status === 'running' || st.running !== null) return false;
          ids.push(fresh.run_id ?? fresh.id);
          return true;
        },
        20_000,
        `run ${i} of ${a.name} to end`,
      );
      if (i === 0) logs = fs.readdirSync(path.join(few.dataDir, 'wake', 'logs')).filter((f) => f.startsWith(ids[0]!));
    }
    assert.equal(logs.length, 1, 'the first run had a log file');
    const left = ((await ownerOk(few, 'wake.runs', { agent: a.name })).runs as any[]).map((x) => x.run_id ?? x.id);
    assert.deepEqual(left.sort(), ids.slice(1).sort(), 'only the newest 2 runs are kept');
    assert.equal(fs.existsSync(path.join(few.dataDir, 'wake', 'logs', logs[0]!)), false, "the dropped run's log is deleted");
    for (const id of ids.slice(1)) {
      assert.ok(
        fs.readdirSync(path.join(few.dataDir, 'wake', 'logs')).some((f) => f.startsWith(id)),
        'kept runs keep their logs',
      );
    }
  });
});
