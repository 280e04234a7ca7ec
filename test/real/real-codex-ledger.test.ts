// The flight recorder and the cost ledger with the REAL Codex CLI (pinned, installed on demand:
// test/support/real-harness.ts) against a real `perch serve`, configured only by `perch connect codex NAME --write`
// (HOME a temp dir, the key in PERCH_KEY_NAME, perch not on its PATH): the [otel] table connect wrote, with the
// agent's telemetry-only token, is how Codex reports. The model is the scripted Responses stand-in
// (test/support/model-standin.ts), which runs one shell command (`echo`, allowed in Codex's read-only sandbox, so
// `codex exec` needs no approval) and reports fixed token counts on every response. The ledger shows the shell call
// once with its outcome, and every response's tokens priced by the price table (the owner's price for the model).
// And a wake run Perch starts with the Codex recipe reports under the woken agent: the recipe's -c names the endpoint,
// the run's own telemetry token comes from its environment (OTEL_EXPORTER_OTLP_HEADERS, which Codex's exporter adds
// to the configured headers and which wins over them), even where config.toml's [otel] holds another agent's token.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addAgent, cliAsync, eventually, exitOf, ownerOk, uniqueName, useSharedServe } from '../support/serve-harness';
import { wakeRecipes } from '../../src/shared/agents/wake';
import { codexExporterLine } from '../../src/shared/agents/telemetry-config';
import { assertNoPerch, codex, connectWrite, pathWithoutPerch } from '../support/real-harness';
import { functionOutputs, startResponsesStandIn, type ResponsesRequest } from '../support/model-standin';
import { keyEnvVar } from '../../src/shared/agents/snippets';
import { endProcesses, processesWithEnv } from '../../scripts/leftovers';

const cli = codex();
const served = useSharedServe();
const MODEL = 'gpt-5.5';
const CALL = 'call_ledger_echo';
/** What every response reports: OpenAI counts the cached tokens within the input. */
const USAGE = { input: 1200, cached: 200, output: 80 };
/** The owner's price for the model, USD per million tokens. */
const PRICE = { input: 2, cached: 0.5, output: 10 };
const PER_RESPONSE = ((USAGE.input - USAGE.cached) * PRICE.input + USAGE.cached * PRICE.cached + USAGE.output * PRICE.output) / 1e6;

let model: Awaited<ReturnType<typeof startResponsesStandIn>>;
let home: string;

before(async () => {
  if (cli.skip) return;
  model = await startResponsesStandIn((req: ResponsesRequest) => {
    if (!req.tools?.some((t) => t.name === 'exec_command')) return { type: 'message', text: 'ok' };
    if (functionOutputs(req).length) return { type: 'message', text: 'done' };
    return { type: 'function_call', call_id: CALL, name: 'exec_command', arguments: { cmd: 'echo perch-ledger' } };
  }, USAGE);
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-codex-ledger-home-'));
});

after(async () => {
  if (cli.skip) return;
  if (home) await endProcesses(processesWithEnv('HOME', home), 'HOME', home);
  await model?.close();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

async function perch(...args: string[]): Promise<any> {
  const r = await cliAsync([...args, '--data-dir', served.dataDir, '--json']);
  assert.equal(r.code, 0, `perch ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

describe(
  'the real Codex, configured only by perch connect --write, reports its shell call and tokens to the ledger',
  { skip: cli.skip },
  () => {
    test('the shell call is in the ledger once with its outcome; every response is priced by the price table', async () => {
      const agent = await addAgent(served.dataDir, uniqueName('cx-ledger'));
      fs.mkdirSync(path.join(home, '.codex'), { recursive: true });
      fs.writeFileSync(
        path.join(home, '.codex', 'config.toml'),
        `# the stand-in model\nmodel = "${MODEL}"\nmodel_provider = "standin"\n\n[model_providers.standin]\nname = "standin"\nbase_url = "${model.url}"\nwire_api = "responses"\nenv_key = "STANDIN_KEY"\n`,
      );
      await connectWrite('codex', agent.name, served.dataDir, home);
      const config = fs.readFileSync(path.join(home, '.codex', 'config.toml'), 'utf8');
      assert.match(config, /\[otel\]/, 'perch connect turned the telemetry on');
      assert.match(config, /Bearer perch_otlp_/, 'with the telemetry-only token');
      assert.ok(!config.includes(agent.key), "the agent's key is not in the file");
      await perch(
        'ledger',
        'prices',
        'set',
        MODEL,
        '--input',
        String(PRICE.input),
        '--cached-input',
        String(PRICE.cached),
        '--output',
        String(PRICE.output),
      );

      const dir = fs.mkdtempSync(path.join(home, 'project-'));
      const env = { HOME: home, PATH: pathWithoutPerch(), STANDIN_KEY: 'dummy', [keyEnvVar(agent.name)]: agent.key };
      assertNoPerch(env);
      const before = model.requests.length;
      const p = spawn(process.execPath, [cli.bin!, 'exec', '--skip-git-repo-check', 'Print the marker.'], {
        cwd: dir,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const run = await exitOf(p, 'codex exec', 180_000);
      assert.equal(run.code, 0, run.stderr);
      const output = model.requests
        .slice(before)
        .flatMap(functionOutputs)
        .find((o) => o.call_id === CALL);
      assert.match(String(output?.output), /perch-ledger/, 'the command ran and its output went to the model');
      const responses = model.requests.length - before;

      let call: any;
      await eventually(
        async () => {
          const { calls } = await perch('ledger', 'calls', '--agent', agent.name);
          call = calls.find((c: any) => c.call_id === CALL);
          return !!call?.outcome;
        },
        90_000,
        "Codex's telemetry of the shell call",
      );
      const { calls } = await perch('ledger', 'calls', '--agent', agent.name);
      assert.equal(calls.filter((c: any) => c.call_id === CALL).length, 1, `once: ${JSON.stringify(calls)}`);
      assert.equal(call.harness, 'codex');
      assert.equal(call.outcome.success, true, JSON.stringify(call));
      assert.match(call.asked ?? '', /echo perch-ledger/);
      assert.ok(call.decision && call.decided_by, `the call's decision and who made it: ${JSON.stringify(call)}`);

      let costs: any[] = [];
      await eventually(
        async () => {
          costs = (await perch('ledger', 'costs', '--agent', agent.name)).costs;
          return costs.reduce((n: number, c: any) => n + c.requests, 0) >= responses;
        },
        60_000,
        `a record for each of the ${responses} responses`,
      );
      assert.ok(responses >= 2, 'the turn that ran the command and the one after it');
      assert.deepEqual(
        costs.map((c: any) => [c.harness, c.model, c.cost_source]),
        costs.map(() => ['codex', MODEL, 'price_table']),
        JSON.stringify(costs),
      );
      const requests = costs.reduce((n: number, c: any) => n + c.requests, 0);
      const exported = await cliAsync(['ledger', 'export', '--since', '2000-01-01', '--agent', agent.name, '--data-dir', served.dataDir]);
      const apiRecords = exported.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .filter((r) => r.kind === 'api_request');
      assert.equal(requests, responses, `each response once: ${JSON.stringify(apiRecords)}`);
      assert.equal(
        costs.reduce((n: number, c: any) => n + c.input_tokens, 0),
        requests * (USAGE.input - USAGE.cached),
      );
      assert.equal(
        costs.reduce((n: number, c: any) => n + c.cache_read_tokens, 0),
        requests * USAGE.cached,
      );
      assert.equal(
        costs.reduce((n: number, c: any) => n + c.output_tokens, 0),
        requests * USAGE.output,
      );
      const total = costs.reduce((s: number, c: any) => s + c.cost_usd, 0);
      assert.ok(Math.abs(total - requests * PER_RESPONSE) < 1e-12, `${total} = ${requests} × ${PER_RESPONSE}`);
    });
  },
);

describe('a wake run of the real Codex (the recipe) reports its tokens to the ledger under the woken agent', { skip: cli.skip }, () => {
  test("the run's shell call and priced responses are the agent's, not the agent's whose token config.toml's [otel] holds", async () => {
    const agent = await addAgent(served.dataDir, uniqueName('cx-wake-ledger'));
    const other = await addAgent(served.dataDir, uniqueName('cx-wake-other'));
    const { token: otherToken } = await perch('ledger', 'token', other.name);
    const runHome = fs.mkdtempSync(path.join(home, 'wake-home-'));
    const dir = fs.mkdtempSync(path.join(home, 'wake-project-'));
    fs.mkdirSync(path.join(runHome, '.codex'));
    const base = served.mcpUrl.replace(/\/mcp$/, '');
    fs.writeFileSync(
      path.join(runHome, '.codex', 'config.toml'),
      `model = "${MODEL}"\nmodel_provider = "standin"\n\n[model_providers.standin]\nname = "standin"\nbase_url = "${model.url}"\nwire_api = "responses"\nenv_key = "STANDIN_KEY"\n\n[otel]\n${codexExporterLine({ base, token: otherToken })}\n`,
    );
    await perch(
      'ledger',
      'prices',
      'set',
      MODEL,
      '--input',
      String(PRICE.input),
      '--cached-input',
      String(PRICE.cached),
      '--output',
      String(PRICE.output),
    );
    const recipe = wakeRecipes(agent.name).find((r) => r.id === 'codex')!;
    assert.match(recipe.form.shell!, /otel\.exporter=\{otlp-http=\{endpoint=\\"\$PERCH_OTLP_LOGS_URL\\"/);
    assert.ok(!/perch_otlp_|perch_run_/.test(recipe.form.shell!), 'no secret on its command line');
    const before = model.requests.length;
    await ownerOk(served, 'wake.set', {
      agent: agent.id,
      shell: recipe.form.shell!.replace(/^codex exec /, `"${process.execPath}" "${cli.bin}" exec --skip-git-repo-check `),
      cwd: dir,
      env: { HOME: runHome, PATH: pathWithoutPerch(), STANDIN_KEY: 'dummy' },
      timeout_secs: 240,
      max_runs_per_hour: 1,
    });
    const group = await ownerOk(served, 'conversations.create_group', { title: `with ${agent.name}`, members: [agent.id] });
    await ownerOk(served, 'messages.send', { conv_id: group.conversation.conv_id, text: 'have a look', to: [agent.id] });
    let run: any;
    await eventually(
      async () => {
        [run] = (await ownerOk(served, 'wake.runs', { agent: agent.id })).runs;
        return run && run.status !== 'running' && run.status !== 'starting';
      },
      180_000,
      'the wake run to end',
    );
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    const responses = model.requests.length - before;
    assert.ok(responses >= 2, `the turn that ran the command and the one after it: ${responses}`);
    let costs: any[] = [];
    await eventually(
      async () => {
        costs = (await perch('ledger', 'costs', '--agent', agent.name)).costs;
        return costs.reduce((n: number, c: any) => n + c.requests, 0) >= responses;
      },
      60_000,
      `a record for each of the ${responses} responses under the woken agent`,
    );
    assert.deepEqual(
      costs.map((c: any) => [c.harness, c.model, c.cost_source]),
      costs.map(() => ['codex', MODEL, 'price_table']),
    );
    const { calls } = await perch('ledger', 'calls', '--agent', agent.name);
    assert.equal(calls.filter((c: any) => c.call_id === CALL).length, 1, JSON.stringify(calls));
    assert.deepEqual(
      (await perch('ledger', 'costs', '--agent', other.name)).costs,
      [],
      'nothing under the agent whose token config.toml holds',
    );
  });
});
