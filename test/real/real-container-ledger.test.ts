// Wake runs of the REAL Claude Code, Codex and Gemini CLI (pinned, installed on demand: test/support/real-harness.ts) in
// a container report their cost to the ledger under the woken agent. `perch agent wake NAME --container …` on a real
// `perch serve --containers`; the `docker` it starts is test/fixtures/docker-standin.mjs (no container runtime here),
// which runs the harness in a network namespace behind a bridge (test/support/container-net.ts, root only) with the
// environment its `-e` options give and nothing else: no settings file, no MCP config of Perch's, the hub and the model
// stand-ins reachable only at host.docker.internal. What the harness's own OpenTelemetry sends there is all the ledger
// gets.
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
import { claudeCode, codex, geminiCli } from '../support/real-harness';
import {
  functionOutputs,
  geminiFunctionResult,
  startGeminiStandIn,
  startResponsesStandIn,
  startStandIn,
  type ResponsesRequest,
  type StandIn,
} from '../support/model-standin';
import { containerNetMissing, dockerStandin, makeContainerNet, type ContainerNet } from '../support/container-net';
import { wakeRecipes } from '../../src/shared/agents/wake';
import { codexExporterLine } from '../../src/shared/agents/telemetry-config';
import { endProcesses, processesWithEnv } from '../../scripts/leftovers';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type R = any;

const claude = claudeCode();
const cx = codex();
const noNet = containerNetMissing();
const claudeSkip = claude.skip ?? noNet;
const codexSkip = cx.skip ?? noNet;
const gemini = geminiCli();
const geminiSkip = gemini.skip ?? noNet;
const GEMINI_MODEL = 'gemini-2.5-flash';
const GEMINI_SHELL = 'run_shell_command';
const MODEL = 'gpt-5.5';
const CALL = 'call_box_echo';
const USAGE = { input: 1200, cached: 200, output: 80 };

let net: ContainerNet | undefined;
let standin: ReturnType<typeof dockerStandin> | undefined;
let claudeModel: StandIn | undefined;
let codexModel: Awaited<ReturnType<typeof startResponsesStandIn>> | undefined;
let geminiModel: Awaited<ReturnType<typeof startGeminiStandIn>> | undefined;
let served: Served | undefined;
let dir: string | undefined;
let work: string | undefined;
const homes: string[] = [];

before(async () => {
  if (claudeSkip && codexSkip && geminiSkip) return;
  net = makeContainerNet();
  standin = dockerStandin({ netns: net.netns, gateway: net.gateway });
  if (!claudeSkip) claudeModel = await startStandIn(() => [{ type: 'text', text: 'Read them; nothing to do.' }], net.gateway);
  if (!codexSkip)
    codexModel = await startResponsesStandIn(
      (req: ResponsesRequest) => {
        if (!req.tools?.some((t) => t.name === 'exec_command')) return { type: 'message', text: 'ok' };
        if (functionOutputs(req).length) return { type: 'message', text: 'done' };
        return { type: 'function_call', call_id: CALL, name: 'exec_command', arguments: { cmd: 'echo perch-in-a-box' } };
      },
      USAGE,
      net.gateway,
    );
  if (!geminiSkip)
    geminiModel = await startGeminiStandIn(
      (req) =>
        geminiFunctionResult(req, GEMINI_SHELL) === undefined
          ? [{ functionCall: { name: GEMINI_SHELL, args: { command: 'touch perch-box.marker', description: 'Write the marker file' } } }]
          : [{ text: 'done' }],
      { promptTokenCount: 1000, cachedContentTokenCount: 400, candidatesTokenCount: 50, thoughtsTokenCount: 20, totalTokenCount: 1070 },
      net.gateway,
    );
  dir = tempDataDir();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-container-ledger-'));
  served = await startServe(dir, { args: ['--containers', '--listen', net.gateway], env: { PATH: `${standin.bin}:${process.env.PATH}` } });
});

after(async () => {
  for (const home of homes) await endProcesses(processesWithEnv('HOME', home), 'HOME', home);
  await served?.stop();
  if (dir) removeDataDir(dir);
  await claudeModel?.close();
  await codexModel?.close();
  await geminiModel?.close();
  net?.remove();
  standin?.remove();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** A new agent whose key (and so its runs' keys and telemetry tokens) may connect from containers. */
function boxedAgent(base: string): { id: string; name: string } {
  const r = cli(['agent', 'add', uniqueName(base), '--from', 'containers', '--data-dir', dir!, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

/** A HOME for the harness in the container (a folder of this computer: the stand-in mounts nothing). */
function newHome(): string {
  const home = fs.mkdtempSync(path.join(work!, 'home-'));
  homes.push(home);
  return home;
}

/** Sets the agent's wake action to the command in a container (perch-test/bridge), wakes it once, waits for the run. */
async function wakeInContainer(
  agent: { id: string; name: string },
  env: Record<string, string>,
  command: string[],
  project = fs.mkdtempSync(path.join(work!, 'project-')),
): Promise<R> {
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
    ...command,
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
  return run;
}

async function perch(...args: string[]): Promise<R> {
  const r = await cliAsync([...args, '--data-dir', dir!, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

/** The model stand-in's URL as the container reaches it. */
const inBox = (url: string) => url.replace(net!.gateway, 'host.docker.internal');

test(
  "a wake run of the real Claude Code in a container: its api_request cost reaches the ledger through the container listener, under the woken agent, equal to the run's total_cost_usd",
  { skip: claudeSkip, timeout: 300_000 },
  async () => {
    const agent = boxedAgent('cc-boxed');
    const other = boxedAgent('cc-boxed-other');
    const run = await wakeInContainer(
      agent,
      {
        HOME: newHome(),
        ANTHROPIC_BASE_URL: inBox(claudeModel!.url),
        ANTHROPIC_API_KEY: 'dummy',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        ENABLE_TOOL_SEARCH: 'false',
      },
      [claude.bin!, '-p', 'You were woken in Perch.', '--output-format', 'json'],
    );
    assert.ok(claudeModel!.requests.length > 0, 'Claude Code reached the model at host.docker.internal');
    const reported = run.usage?.total_cost_usd as number;
    assert.ok(reported > 0, `the run's JSON result has its cost: ${JSON.stringify(run.usage)}`);
    const sum = async () =>
      ((await perch('ledger', 'costs', '--agent', agent.name)).costs as R[]).reduce((s, c) => s + (c.cost_usd ?? 0), 0);
    await eventually(
      async () => Math.abs((await sum()) - reported) < 1e-9,
      60_000,
      `the woken agent's ledger cost to reach the run's total_cost_usd ${reported}`,
    );
    const { costs } = await perch('ledger', 'costs', '--agent', agent.name);
    assert.ok(
      costs.every((c: R) => c.cost_source === 'harness' && c.harness === 'claude-code'),
      JSON.stringify(costs),
    );
    assert.deepEqual((await perch('ledger', 'costs', '--agent', other.name)).costs, [], "nothing under another agent's name");
  },
);

test(
  "a wake run of the real Codex in a container (the recipe, in sh -c): its shell call and priced responses reach the ledger under the woken agent, not the agent whose token its config.toml's [otel] holds",
  { skip: codexSkip, timeout: 300_000 },
  async () => {
    const agent = boxedAgent('cx-boxed');
    const other = boxedAgent('cx-boxed-other');
    const { token: otherToken } = await perch('ledger', 'token', other.name);
    const home = newHome();
    fs.mkdirSync(path.join(home, '.codex'));
    fs.writeFileSync(
      path.join(home, '.codex', 'config.toml'),
      `model = "${MODEL}"\nmodel_provider = "standin"\n\n[model_providers.standin]\nname = "standin"\nbase_url = "${inBox(codexModel!.url)}"\nwire_api = "responses"\nenv_key = "STANDIN_KEY"\n\n[otel]\n${codexExporterLine({ base: `http://host.docker.internal:${served!.port}`, token: otherToken })}\n`,
    );
    await perch('ledger', 'prices', 'set', MODEL, '--input', '2', '--cached-input', '0.5', '--output', '10');
    const recipe = wakeRecipes(agent.name).find((r) => r.id === 'codex')!;
    const shell = recipe.form.shell!.replace(/^codex exec /, `"${process.execPath}" "${cx.bin}" exec --skip-git-repo-check `);
    const before = codexModel!.requests.length;
    await wakeInContainer(agent, { HOME: home, STANDIN_KEY: 'dummy' }, ['/bin/sh', '-c', shell]);
    const responses = codexModel!.requests.length - before;
    assert.ok(responses >= 2, `the turn that ran the command and the one after it: ${responses}`);
    let costs: R[] = [];
    await eventually(
      async () => {
        costs = (await perch('ledger', 'costs', '--agent', agent.name)).costs;
        return costs.reduce((n, c) => n + c.requests, 0) >= responses;
      },
      60_000,
      `a record for each of the ${responses} responses under the woken agent`,
    );
    assert.deepEqual(
      costs.map((c) => [c.harness, c.model, c.cost_source]),
      costs.map(() => ['codex', MODEL, 'price_table']),
    );
    const { calls } = await perch('ledger', 'calls', '--agent', agent.name);
    assert.equal(calls.filter((c: R) => c.call_id === CALL).length, 1, JSON.stringify(calls));
    assert.deepEqual(
      (await perch('ledger', 'costs', '--agent', other.name)).costs,
      [],
      'nothing under the agent whose token config.toml holds',
    );
  },
);

test(
  "a wake run of the real Gemini CLI in a container (the recipe, in sh -c), without perch connect: the run's environment turns its telemetry on, and its model calls reach the ledger under the woken agent",
  { skip: geminiSkip, timeout: 300_000 },
  async () => {
    const agent = boxedAgent('gm-boxed');
    const home = newHome();
    fs.mkdirSync(path.join(home, '.gemini'));
    const own = { security: { auth: { selectedType: 'gemini-api-key' } } };
    fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify(own));
    // The recipe's `gemini` is the pinned Gemini CLI, through a shim on the container's PATH (given with --env, so it is
    // the docker process's PATH too: the stand-in's folder first, as the hub's PATH has it).
    const bin = fs.mkdtempSync(path.join(home, 'bin-'));
    fs.writeFileSync(path.join(bin, 'gemini'), `#!/bin/sh\nexec "${process.execPath}" "${gemini.bin}" "$@"\n`, { mode: 0o700 });
    const recipe = wakeRecipes(agent.name).find((r) => r.id === 'gemini')!;
    const project = fs.mkdtempSync(path.join(work!, 'project-'));
    const first = geminiModel!.requests.length;
    await wakeInContainer(
      agent,
      {
        HOME: home,
        PATH: `${standin!.bin}:${bin}:/usr/local/bin:/usr/bin:/bin`,
        GEMINI_API_KEY: 'dummy',
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
        GOOGLE_GEMINI_BASE_URL: inBox(geminiModel!.url),
      },
      ['/bin/sh', '-c', `${recipe.form.shell!} -m ${GEMINI_MODEL}`],
      project,
    );
    assert.ok(fs.existsSync(path.join(project, 'perch-box.marker')), 'the command ran in the project');
    const answers = geminiModel!.requests.slice(first).filter((q) => q.method !== 'countTokens' && q.model === GEMINI_MODEL).length;
    assert.ok(answers >= 2, `the stand-in answered ${answers} model calls`);
    let costs: R[] = [];
    await eventually(
      async () => {
        costs = (await perch('ledger', 'costs', '--agent', agent.name)).costs;
        return (costs.find((c) => c.model === GEMINI_MODEL)?.requests ?? 0) >= answers;
      },
      60_000,
      "Gemini's api_response records under the woken agent",
    );
    const main = costs.find((c) => c.model === GEMINI_MODEL);
    assert.deepEqual([main.harness, main.cost_source, main.requests], ['gemini', 'price_table', answers]);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(home, '.gemini', 'settings.json'), 'utf8')), own, 'its settings untouched');
  },
);
