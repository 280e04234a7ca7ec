// A wake run in a container reports its OpenTelemetry to this hub's ledger under the woken agent: a real `perch serve
// --containers` starts `docker run …` (shared/agents/wake-container.ts) — here test/fixtures/docker-standin.mjs, as no
// container runtime runs on the test machine — which hands the container its environment by name only. Inside,
// test/fixtures/wake-agent.mjs posts an OTLP body (test/support/otlp-bodies.ts) as a harness's exporter does, from the
// OTEL_* it was given, then does its work over MCP at PERCH_URL. As root the "container" is a process in a network
// namespace behind a bridge (test/support/container-net.ts; the hub listens on the bridge's address with --listen): it
// reaches this computer only at host.docker.internal, the container listener; or, as with Docker Desktop, through the
// loopback with that Host name (the runtime's proxy). Elsewhere only the command line and environment handed to docker
// are checked.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ROOT,
  cli,
  cliAsync,
  eventually,
  ownerOk,
  removeDataDir,
  startServe,
  tempDataDir,
  uniqueName,
  type Served,
} from '../support/serve-harness';
import { claudeCodeCall } from '../support/otlp-bodies';
import { fetchResolving } from '../support/name-fetch';
import { containerNetMissing, dockerStandin, makeContainerNet, postFromNetns, type ContainerNet } from '../support/container-net';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type R = any;

const AGENT_SCRIPT = path.join(ROOT, 'test', 'fixtures', 'wake-agent.mjs');
const noNet = containerNetMissing();
/** What a harness in the run reads its telemetry from (shared/agents/run-telemetry.ts sets each of them). */
const TELEMETRY_VARS = [
  'CLAUDE_CODE_ENABLE_TELEMETRY',
  'OTEL_METRICS_EXPORTER',
  'OTEL_LOGS_EXPORTER',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'GEMINI_TELEMETRY_ENABLED',
  'GEMINI_TELEMETRY_OTLP_PROTOCOL',
  'PERCH_OTLP_LOGS_URL',
];
/** The owner's own telemetry in the hub's environment: a container never sees it (it gets only what -e passes). */
const HUB_OTEL = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector.example:4318', OTEL_EXPORTER_OTLP_HEADERS: 'x-owner=hub-secret' };

let dir: string;
let served: Served;
let net: ContainerNet | undefined;
let standin: ReturnType<typeof dockerStandin>;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-ctel-'));

before(async () => {
  dir = tempDataDir();
  if (!noNet) net = makeContainerNet();
  standin = dockerStandin({ netns: net?.netns, gateway: net?.gateway });
  served = await startServe(dir, {
    args: ['--containers', ...(net ? ['--listen', net.gateway] : [])],
    env: { PATH: `${standin.bin}:${process.env.PATH}`, ...HUB_OTEL, PERCH_WAKE_BACKOFF_MS: '300', PERCH_WAKE_KILL_GRACE_MS: '300' },
  });
});

after(async () => {
  await served?.stop();
  removeDataDir(dir);
  net?.remove();
  standin?.remove();
  fs.rmSync(work, { recursive: true, force: true });
});

/** A new agent allowed to connect from containers (its runs' keys and telemetry tokens follow it). */
function boxedAgent(base: string, from = 'containers'): { id: string; name: string } {
  const r = cli(['agent', 'add', uniqueName(base), '--from', from, '--data-dir', dir, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout) as R;
  return { id: j.id, name: j.name };
}

interface Woken {
  run: R;
  /** What the process in the container was handed (wake-agent.mjs's WAKE_AGENT_ENV_FILE), when it ran. */
  handed: { env: Record<string, string> } | undefined;
  /** What the docker process was started with: its argv and its environment. */
  docker: { argv: string[]; env: Record<string, string> };
}

/** Sets the agent's wake action to a container of IMAGE running wake-agent.mjs, wakes it once, waits for the run to end. */
async function wakeInContainer(
  agent: { id: string; name: string },
  image: string,
  o: { body?: string; env?: string[] } = {},
): Promise<Woken> {
  const files = fs.mkdtempSync(path.join(work, 'run-'));
  const handedFile = path.join(files, 'handed.json');
  const flags = ['--env', `WAKE_AGENT_ENV_FILE=${handedFile}`];
  if (o.body !== undefined) {
    fs.writeFileSync(path.join(files, 'body.json'), o.body);
    flags.push('--env', `WAKE_AGENT_OTLP_BODY_FILE=${path.join(files, 'body.json')}`);
  }
  for (const e of o.env ?? []) flags.push('--env', e);
  const set = await cliAsync([
    'agent',
    'wake',
    agent.name,
    '--container',
    image,
    '--project',
    files,
    '--data-dir',
    dir,
    ...flags,
    '--',
    process.execPath,
    AGENT_SCRIPT,
  ]);
  assert.equal(set.code, 0, set.stderr);
  const g = await ownerOk(served, 'conversations.create_group', { title: `with ${agent.name}`, members: [agent.id] });
  await ownerOk(served, 'messages.send', { conv_id: g.conversation.conv_id, text: 'have a look', to: [agent.id] });
  let run: R;
  await eventually(
    async () => {
      [run] = (await ownerOk(served, 'wake.runs', { agent: agent.id })).runs;
      return run && run.status !== 'running' && run.status !== 'starting';
    },
    60_000,
    `the wake run of ${agent.name} to end`,
  );
  // One run is what the test looks at: no retry or later run starts another docker.
  assert.equal((await cliAsync(['agent', 'wake', agent.name, '--off', '--data-dir', dir])).code, 0);
  const docker = JSON.parse(fs.readFileSync(path.join(standin.records, `${run.id}.json`), 'utf8'));
  const handed = fs.existsSync(handedFile) ? JSON.parse(fs.readFileSync(handedFile, 'utf8')) : undefined;
  return { run, handed, docker };
}

const tokenIn = (headers: string | undefined) => /^Authorization=Bearer (perch_otlp_run_[A-Za-z0-9_-]{32})$/.exec(headers ?? '')?.[1];

async function ledger(what: 'calls' | 'costs', agent: string): Promise<R[]> {
  const r = await cliAsync(['ledger', what, '--agent', agent, '--data-dir', dir, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout)[what];
}

describe('a wake run in a container: what docker is handed', () => {
  test("docker's argv passes every telemetry variable by name, never a value; its environment points them at the hub as the container sees it (host.docker.internal) with the run's own token; the hub's own OTEL_* stay out", async () => {
    const agent = boxedAgent('ctel-argv');
    const { docker, run } = await wakeInContainer(agent, 'perch-test/record');
    const hub = `http://host.docker.internal:${served.port}`;
    const e = (name: string) => docker.argv.some((a, i) => a === name && docker.argv[i - 1] === '-e');
    for (const name of TELEMETRY_VARS) assert.ok(e(name), `-e ${name} in ${docker.argv.join(' ')}`);
    assert.ok(
      !docker.argv.some((a) => /^(OTEL_|CLAUDE_CODE_|GEMINI_TELEMETRY_|PERCH_OTLP)/.test(a) && a.includes('=')),
      'no value on the argv',
    );
    assert.equal(docker.env.OTEL_EXPORTER_OTLP_ENDPOINT, hub);
    assert.equal(docker.env.PERCH_OTLP_LOGS_URL, `${hub}/v1/logs`);
    assert.equal(docker.env.OTEL_EXPORTER_OTLP_PROTOCOL, 'http/json');
    assert.equal(docker.env.CLAUDE_CODE_ENABLE_TELEMETRY, '1');
    const token = tokenIn(docker.env.OTEL_EXPORTER_OTLP_HEADERS);
    assert.ok(token, `the run's telemetry token, not the hub's own header: ${docker.env.OTEL_EXPORTER_OTLP_HEADERS}`);
    for (const secret of [token, docker.env.PERCH_KEY!])
      assert.ok(!docker.argv.some((a) => a.includes(secret)), 'neither the token nor the run key is on the argv');
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
  });

  test("the owner's own telemetry given with --env wins in the container: Perch adds none (no token), the hub's own header is not passed in, and the run's log says why", async () => {
    const agent = boxedAgent('ctel-own');
    const { docker, run } = await wakeInContainer(agent, 'perch-test/record', {
      env: ['OTEL_EXPORTER_OTLP_ENDPOINT=http://collector.example:4318'],
    });
    assert.equal(docker.env.OTEL_EXPORTER_OTLP_ENDPOINT, 'http://collector.example:4318');
    assert.equal(docker.env.OTEL_EXPORTER_OTLP_HEADERS, undefined, "no token of Perch's, and not the hub's x-owner header");
    assert.equal(docker.env.CLAUDE_CODE_ENABLE_TELEMETRY, undefined);
    const { tail } = await ownerOk(served, 'wake.log', { run_id: run.id });
    assert.match(tail, /this run's OpenTelemetry is yours \(OTEL_EXPORTER_OTLP_ENDPOINT sends it to http:\/\/collector\.example:4318\)/);
  });
});

describe('a wake run in a container reaches the ledger', { skip: noNet }, () => {
  test("through the container listener: a process in a network namespace behind a bridge (like docker0) posts OTLP with the run's token; the records are the woken agent's alone, and the token is refused there once the run ended", async () => {
    const agent = boxedAgent('ctel-bridge');
    const other = boxedAgent('ctel-other');
    const session = `box-${crypto.randomUUID()}`;
    const { run, handed, docker } = await wakeInContainer(agent, 'perch-test/bridge', {
      body: claudeCodeCall(session, 'toolu_box_1', 0.0321),
    });
    const { tail } = await ownerOk(served, 'wake.log', { run_id: run.id });
    assert.equal(run.status, 'succeeded', `${JSON.stringify(run)}\n${tail}`);
    const hub = `http://host.docker.internal:${served.port}`;
    assert.ok(handed, 'the process in the container ran');
    assert.equal(handed.env.OTEL_EXPORTER_OTLP_ENDPOINT, hub);
    assert.equal(handed.env.PERCH_URL, `${hub}/mcp`);
    assert.equal(handed.env.OTEL_EXPORTER_OTLP_HEADERS.includes('hub-secret'), false);
    const token = tokenIn(handed.env.OTEL_EXPORTER_OTLP_HEADERS);
    assert.ok(token, `a run telemetry token in the container: ${handed.env.OTEL_EXPORTER_OTLP_HEADERS}`);
    assert.ok(!docker.argv.some((a) => a.includes(token)));
    assert.match(tail, /OTLP answered 200/);
    assert.ok(!tail.includes(token), "the token is not in the run's log");

    const calls = await ledger('calls', agent.name);
    assert.deepEqual(
      calls.map((c) => [c.call_id, c.session_id, c.harness]),
      [['toolu_box_1', session, 'claude-code']],
    );
    assert.deepEqual(
      (await ledger('costs', agent.name)).map((c) => [c.cost_usd, c.cost_source]),
      [[0.0321, 'harness']],
    );
    assert.deepEqual(await ledger('calls', other.name), [], "nothing under another agent's name");

    // The run is over: its token is refused at the container listener, from the same place, and nothing is added.
    const status = await postFromNetns(net!.netns, `${hub}/v1/logs`, token, claudeCodeCall(session, 'toolu_box_2', 1));
    assert.equal(status, 401);
    assert.equal((await ledger('calls', agent.name)).length, 1);
  });

  test("through a runtime's proxy (Docker Desktop: host.docker.internal arrives on the loopback): the run's token is taken as from containers; refused once the run ended", async () => {
    const agent = boxedAgent('ctel-desktop');
    const session = `desk-${crypto.randomUUID()}`;
    const { run, handed } = await wakeInContainer(agent, 'perch-test/desktop', { body: claudeCodeCall(session, 'toolu_desk_1', 0.0123) });
    const { tail } = await ownerOk(served, 'wake.log', { run_id: run.id });
    assert.equal(run.status, 'succeeded', `${JSON.stringify(run)}\n${tail}`);
    assert.match(tail, /OTLP answered 200/);
    const token = tokenIn(handed!.env.OTEL_EXPORTER_OTLP_HEADERS)!;
    assert.deepEqual(
      (await ledger('calls', agent.name)).map((c) => c.call_id),
      ['toolu_desk_1'],
    );
    const viaProxy = fetchResolving({ 'host.docker.internal': '127.0.0.1' });
    const res = await viaProxy(`http://host.docker.internal:${served.port}/v1/logs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: claudeCodeCall(session, 'toolu_desk_2', 1),
    });
    await res.arrayBuffer();
    assert.equal(res.status, 401);
  });

  test("an agent whose key may connect from this computer only: its run's telemetry from the container is refused as its key is, and nothing is recorded", async () => {
    const agent = boxedAgent('ctel-local', 'local');
    const { run } = await wakeInContainer(agent, 'perch-test/bridge', {
      body: claudeCodeCall(`loc-${crypto.randomUUID()}`, 'toolu_loc', 0.5),
    });
    const { tail } = await ownerOk(served, 'wake.log', { run_id: run.id });
    assert.match(tail, /OTLP answered 403/);
    assert.deepEqual(await ledger('calls', agent.name), []);
  });
});
