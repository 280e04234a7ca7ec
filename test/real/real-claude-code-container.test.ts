// A wake run of the REAL Claude Code (pinned, installed on demand: test/support/real-harness.ts) in a container reports
// its cost to the ledger under the woken agent. `perch agent wake NAME --container …` on a real `perch serve
// --containers`; the `docker` it starts is test/fixtures/docker-standin.mjs (no container runtime here), which runs
// Claude Code in a network namespace behind a bridge (test/support/container-net.ts, root only) with the environment
// its `-e` options give and nothing else: no settings file, no MCP config, the hub and the model stand-in reachable
// only at host.docker.internal. What Claude Code's own OpenTelemetry sends there is all the ledger gets.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
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
import { claudeCode } from '../support/real-harness';
import { startStandIn, type StandIn } from '../support/model-standin';
import { containerNetMissing, dockerStandin, makeContainerNet, type ContainerNet } from '../support/container-net';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type R = any;

const claude = claudeCode();
const skip = claude.skip ?? containerNetMissing();
let net: ContainerNet | undefined;
let standin: ReturnType<typeof dockerStandin> | undefined;
let model: StandIn | undefined;
let served: Served | undefined;
let dir: string | undefined;
let work: string | undefined;

before(async () => {
  if (skip) return;
  net = makeContainerNet();
  standin = dockerStandin({ netns: net.netns, gateway: net.gateway });
  model = await startStandIn(() => [{ type: 'text', text: 'Read them; nothing to do.' }], net.gateway);
  dir = tempDataDir();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-claude-container-'));
  served = await startServe(dir, { args: ['--containers', '--listen', net.gateway], env: { PATH: `${standin.bin}:${process.env.PATH}` } });
});

after(async () => {
  await served?.stop();
  if (dir) removeDataDir(dir);
  await model?.close();
  net?.remove();
  standin?.remove();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

async function ledger(what: 'calls' | 'costs', agent: string): Promise<R[]> {
  const r = await cliAsync(['ledger', what, '--agent', agent, '--data-dir', dir!, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout)[what];
}

test(
  "a wake run of the real Claude Code in a container: its api_request cost reaches the ledger through the container listener, under the woken agent, equal to the run's total_cost_usd",
  { skip, timeout: 300_000 },
  async () => {
    const add = (base: string) => {
      const r = cli(['agent', 'add', uniqueName(base), '--from', 'containers', '--data-dir', dir!, '--json']);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout) as { id: string; name: string };
    };
    const agent = add('cc-boxed');
    const other = add('cc-boxed-other');
    const home = fs.mkdtempSync(path.join(work!, 'home-'));
    const project = fs.mkdtempSync(path.join(work!, 'project-'));
    const env = {
      HOME: home,
      ANTHROPIC_BASE_URL: model!.url.replace(net!.gateway, 'host.docker.internal'),
      ANTHROPIC_API_KEY: 'dummy',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      ENABLE_TOOL_SEARCH: 'false',
    };
    const set = await cliAsync([
      'agent',
      'wake',
      agent.name,
      '--container',
      'perch-test/bridge',
      '--project',
      project,
      '--timeout',
      '240',
      '--max-runs',
      '1',
      '--data-dir',
      dir!,
      ...Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
      '--',
      claude.bin!,
      '-p',
      'You were woken in Perch.',
      '--output-format',
      'json',
    ]);
    assert.equal(set.code, 0, set.stderr);
    const g = await ownerOk(served!, 'conversations.create_group', { title: `with ${agent.name}`, members: [agent.id] });
    await ownerOk(served!, 'messages.send', { conv_id: g.conversation.conv_id, text: 'have a look', to: [agent.id] });
    let run: R;
    await eventually(
      async () => {
        [run] = (await ownerOk(served!, 'wake.runs', { agent: agent.id })).runs;
        return run && run.status !== 'running' && run.status !== 'starting';
      },
      240_000,
      'the wake run to end',
    );
    assert.equal((await cliAsync(['agent', 'wake', agent.name, '--off', '--data-dir', dir!])).code, 0);
    const { tail } = await ownerOk(served!, 'wake.log', { run_id: run.id });
    assert.equal(run.status, 'succeeded', `${JSON.stringify(run)}\n${tail}`);
    assert.ok(model!.requests.length > 0, 'Claude Code reached the model at host.docker.internal');
    const reported = run.usage?.total_cost_usd as number;
    assert.ok(reported > 0, `the run's JSON result has its cost: ${JSON.stringify(run.usage)}`);

    await eventually(
      async () => Math.abs((await ledger('costs', agent.name)).reduce((s, c) => s + (c.cost_usd ?? 0), 0) - reported) < 1e-9,
      60_000,
      `the woken agent's ledger cost to reach the run's total_cost_usd ${reported}`,
    );
    const costs = await ledger('costs', agent.name);
    assert.ok(
      costs.every((c) => c.cost_source === 'harness' && c.harness === 'claude-code'),
      JSON.stringify(costs),
    );
    assert.deepEqual(await ledger('costs', other.name), [], "nothing under another agent's name");
  },
);
