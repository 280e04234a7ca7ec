// The cost ledger with the REAL Gemini CLI (pinned, installed on demand: test/support/real-harness.ts) against a real
// `perch serve`, configured only by `perch connect gemini NAME --write` (HOME a temp dir whose settings.json chose
// API-key auth and has a telemetry key of the user's own, perch not on its PATH, nothing in its environment for
// telemetry): connect turns Gemini's OpenTelemetry on in ~/.gemini/settings.json, its endpoint the hub's with the
// agent's telemetry token in the path. The model is the scripted Gemini API stand-in, whose every answer reports 1000
// prompt tokens (400 of them cached), 50 candidate and 20 thinking tokens; Gemini runs `touch perch-ledger.marker`
// with its shell tool (recorded from its AfterTool hook), then answers. Its log records reach the hub's OTLP door:
// one API request per model call, its tokens priced by the price table. `perch disconnect gemini` then takes its
// telemetry out again, the user's own key kept.
// And a wake run Perch starts with the Gemini recipe, in a HOME where connect never ran (Gemini's telemetry off in
// its settings), reports under the woken agent: the run's environment switches it on (run-telemetry.ts).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addAgent, cliAsync, ensureBuilt, eventually, ownerOk, uniqueName, useSharedServe } from '../support/serve-harness';
import { assertNoPerch, connectWrite, geminiCli, pathWithoutPerch, runGemini } from '../support/real-harness';
import { geminiFunctionResult, startGeminiStandIn, type GeminiPart, type GeminiRequest } from '../support/model-standin';
import { keyEnvVar } from '../../src/shared/agents/snippets';
import { SHIPPED_PRICES } from '../../src/shared/ledger/prices';
import { wakeRecipes } from '../../src/shared/agents/wake';

const served = useSharedServe();
const gemini = geminiCli();
const SHELL = 'run_shell_command';
const MODEL = 'gemini-2.5-flash';
const USAGE = {
  promptTokenCount: 1000,
  cachedContentTokenCount: 400,
  candidatesTokenCount: 50,
  thoughtsTokenCount: 20,
  totalTokenCount: 1070,
};

function script(req: GeminiRequest): GeminiPart[] {
  if (geminiFunctionResult(req, SHELL) === undefined)
    return [{ functionCall: { name: SHELL, args: { command: 'touch perch-ledger.marker', description: 'Write the marker file' } } }];
  return [{ text: 'done' }];
}

let model: Awaited<ReturnType<typeof startGeminiStandIn>> | undefined;
let root: string | undefined;
before(async () => {
  if (gemini.skip) return;
  ensureBuilt();
  model = await startGeminiStandIn(script, USAGE);
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-gemini-ledger-'));
});
after(async () => {
  await model?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

async function ledger(...args: string[]): Promise<any> {
  const r = await cliAsync(['ledger', ...args, '--data-dir', served.dataDir, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

describe(
  'the real Gemini CLI, configured only by perch connect gemini --write, reports its tokens to the ledger',
  { skip: gemini.skip },
  () => {
    test('one gemini -p run: each model call is an API request in the ledger, its tokens (cached apart, thinking as output) priced by the table; its shell call recorded once; disconnect takes the telemetry out', async () => {
      const agent = await addAgent(served.dataDir, uniqueName('gm-ledger'));
      const home = fs.mkdtempSync(path.join(root!, 'home-'));
      fs.mkdirSync(path.join(home, '.gemini'));
      const own = { security: { auth: { selectedType: 'gemini-api-key' } }, telemetry: { logPrompts: false } };
      fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify(own));
      await connectWrite('gemini', agent.name, served.dataDir, home);
      const written = fs.readFileSync(path.join(home, '.gemini', 'settings.json'), 'utf8');
      assert.ok(!written.includes(agent.key), 'the key is not in the file');
      assert.match(JSON.parse(written).telemetry.otlpEndpoint, /\/otlp\/perch_otlp_/);

      const dir = fs.mkdtempSync(path.join(home, 'project-'));
      const first = model!.requests.length;
      assertNoPerch({ PATH: pathWithoutPerch(), HOME: home });
      const run = await runGemini(gemini.bin!, ['-p', 'Write the marker file.', '--yolo', '-m', MODEL], {
        cwd: dir,
        home,
        env: { GOOGLE_GEMINI_BASE_URL: model!.url, [keyEnvVar(agent.name)]: agent.key },
      });
      assert.equal(run.code, 0, run.stderr);
      assert.ok(fs.existsSync(path.join(dir, 'perch-ledger.marker')), 'the command ran');
      const calls = model!.requests.slice(first).filter((q) => q.method !== 'countTokens');
      const answers = calls.length;
      assert.ok(answers >= 2, `the stand-in answered ${answers} model calls`);
      const models = [...new Set(calls.map((q) => q.model))];

      let costs: any[] = [];
      await eventually(
        async () => {
          costs = (await ledger('costs', '--agent', agent.name)).costs;
          return costs.reduce((n: number, c: any) => n + c.requests, 0) >= answers;
        },
        60_000,
        "Gemini's api_response records",
      );
      assert.deepEqual(
        costs.map((c: any) => c.model).sort(),
        models.sort(),
        'per model it was asked for (the stand-in answers as that model)',
      );
      const main = costs.find((c: any) => c.model === MODEL);
      assert.ok(main, JSON.stringify(costs));
      const n = main.requests;
      assert.equal(n, calls.filter((q) => q.model === MODEL).length, 'one record per model call');
      assert.equal(main.cost_source, 'price_table');
      assert.deepEqual([main.input_tokens, main.cache_read_tokens, main.output_tokens], [600 * n, 400 * n, 70 * n]);
      const p = SHIPPED_PRICES[MODEL]!;
      const expected = (n * (600 * p.input_per_mtok + 400 * p.cached_input_per_mtok + 70 * p.output_per_mtok)) / 1e6;
      assert.ok(main.cost_usd > 0 && Math.abs(main.cost_usd - expected) < 1e-12, `${main.cost_usd} = ${expected}`);

      const { calls: shell } = await ledger('calls', '--agent', agent.name, '--tool', SHELL);
      assert.equal(shell.length, 1, `its shell call once (its AfterTool hook): ${JSON.stringify(shell)}`);
      assert.equal(shell[0].harness, 'gemini');

      const off = await cliAsync(['disconnect', 'gemini', agent.name, '--write', '--data-dir', served.dataDir], {
        env: { HOME: home, PATH: pathWithoutPerch() },
      });
      assert.equal(off.code, 0, off.stderr);
      assert.deepEqual(JSON.parse(fs.readFileSync(path.join(home, '.gemini', 'settings.json'), 'utf8')), own);
    });
  },
);

describe(
  'a wake run of the real Gemini CLI (the recipe), without perch connect, reports its tokens under the woken agent',
  { skip: gemini.skip },
  () => {
    test("the run's environment turns Gemini's telemetry on, to this hub with the run's token", async () => {
      const agent = await addAgent(served.dataDir, uniqueName('gm-wake-ledger'));
      const home = fs.mkdtempSync(path.join(root!, 'wake-home-'));
      fs.mkdirSync(path.join(home, '.gemini'));
      const own = { security: { auth: { selectedType: 'gemini-api-key' } } };
      fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify(own));
      const dir = fs.mkdtempSync(path.join(home, 'project-'));
      // The recipe's `gemini` is the pinned Gemini CLI, through a shim on the run's PATH.
      const bin = fs.mkdtempSync(path.join(home, 'bin-'));
      fs.writeFileSync(path.join(bin, 'gemini'), `#!/bin/sh\nexec "${process.execPath}" "${gemini.bin}" "$@"\n`, { mode: 0o700 });
      const recipe = wakeRecipes(agent.name).find((r) => r.id === 'gemini')!;
      const first = model!.requests.length;
      await ownerOk(served, 'wake.set', {
        agent: agent.id,
        shell: `${recipe.form.shell!} -m ${MODEL}`,
        cwd: dir,
        env: {
          HOME: home,
          PATH: `${bin}:${pathWithoutPerch()}`,
          GEMINI_API_KEY: 'dummy',
          GEMINI_CLI_TRUST_WORKSPACE: 'true',
          GOOGLE_GEMINI_BASE_URL: model!.url,
        },
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
      assert.ok(fs.existsSync(path.join(dir, 'perch-ledger.marker')), 'the command ran');
      const answers = model!.requests.slice(first).filter((q) => q.method !== 'countTokens' && q.model === MODEL).length;
      assert.ok(answers >= 2, `the stand-in answered ${answers} model calls`);
      let costs: any[] = [];
      await eventually(
        async () => {
          costs = (await ledger('costs', '--agent', agent.name)).costs;
          return (costs.find((c: any) => c.model === MODEL)?.requests ?? 0) >= answers;
        },
        60_000,
        "Gemini's api_response records under the woken agent",
      );
      const main = costs.find((c: any) => c.model === MODEL);
      assert.deepEqual([main.harness, main.cost_source, main.requests], ['gemini', 'price_table', answers]);
      assert.deepEqual(JSON.parse(fs.readFileSync(path.join(home, '.gemini', 'settings.json'), 'utf8')), own, 'its settings untouched');
    });
  },
);
