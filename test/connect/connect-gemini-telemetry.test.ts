// `perch connect gemini NAME --write` turns Gemini CLI's OpenTelemetry to the hub on (src/main/cli/agents/connect-telemetry.ts,
// src/shared/agents/telemetry-config.ts setGeminiTelemetry): ~/.gemini/settings.json's telemetry block gets enabled,
// otlpProtocol "http" and otlpEndpoint BASE/otlp/<the agent's telemetry token> (Gemini CLI 0.61.0 takes no header from
// its settings, only from its environment, so the token is in the path). The user's own telemetry keys stay, an
// exporter of theirs is left whole with the reason printed, an earlier connection (hooks and MCP entry only) gets it
// on the next run, --project writes none (a project's settings are usually in its repository), and `perch disconnect
// gemini` takes out what connect wrote. The real Gemini CLI sends with these settings in test/real/real-gemini-ledger.test.ts.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addAgent, cliAsync, rawPost, tempDir, uniqueName, useSharedServe } from '../support/serve-harness';
import { snapshot } from '../support/dir-snapshot';
import { telemetryTokenIn } from '../../src/shared/agents/telemetry-config';
import { setGeminiSettings } from '../../src/shared/agents/harnesses/gemini';

const served = useSharedServe();
const base = () => served.mcpUrl.replace(/\/mcp$/, '');
const captured = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'gemini-otlp.json'), 'utf8'));

/** A user's own settings: API-key auth, and a telemetry key of theirs (no exporter). */
const USER = { security: { auth: { selectedType: 'gemini-api-key' } }, telemetry: { logPrompts: false } };

function home(settings: unknown): string {
  const h = tempDir('perch-connect-gemini-otel-');
  fs.mkdirSync(path.join(h, '.gemini'));
  fs.writeFileSync(path.join(h, '.gemini', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  return h;
}

const run = (cmd: 'connect' | 'disconnect', h: string, args: string[]) =>
  cliAsync([cmd, ...args, '--data-dir', served.dataDir], { env: { HOME: h } });
const settingsOf = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, '.gemini', 'settings.json'), 'utf8'));

describe("perch connect gemini --write turns Gemini CLI's telemetry to the hub on", () => {
  test("the telemetry block gets enabled, protocol http and the endpoint BASE/otlp/<token>; the user's own key stays; the agent key is in no file; twice changes nothing; the endpoint as written records", async () => {
    const a = await addAgent(served.dataDir, uniqueName('otel-gm'));
    const h = home(USER);
    const r = await run('connect', h, ['gemini', a.name, '--write']);
    assert.equal(r.code, 0, r.stderr);
    const t = settingsOf(h).telemetry;
    const token = telemetryTokenIn(t.otlpEndpoint);
    assert.ok(token, JSON.stringify(t));
    assert.deepEqual(t, { logPrompts: false, enabled: true, otlpProtocol: 'http', otlpEndpoint: `${base()}/otlp/${token}` });
    assert.deepEqual(settingsOf(h).security, USER.security);
    assert.ok(!r.stdout.includes(token!), 'the printed diff shows the token by its last four characters only');
    assert.ok(!Object.values(snapshot(h)).some((x) => x.includes(a.key)), 'the agent key is in no file');
    const files = snapshot(h);
    const again = await run('connect', h, ['gemini', a.name, '--write']);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(snapshot(h), files, 'a second run keeps the working token and changes nothing');
    // Gemini's exporter appends /v1/logs to the endpoint's path.
    const sent = await rawPost(`${t.otlpEndpoint}/v1/logs`, undefined, captured.logs);
    assert.equal(sent.status, 200, sent.text);
    const { costs } = JSON.parse((await cliAsync(['ledger', 'costs', '--agent', a.name, '--data-dir', served.dataDir, '--json'])).stdout);
    assert.deepEqual(
      costs.map((c: any) => [c.model, c.input_tokens]),
      [['gemini-2.5-pro', 600]],
    );
  });

  test('an earlier connection (the MCP entry and hooks, no telemetry) gets the telemetry on the next connect', async () => {
    const a = await addAgent(served.dataDir, uniqueName('otel-gm-old'));
    const h = home(USER);
    const file = path.join(h, '.gemini', 'settings.json');
    // What perch connect gemini wrote before it turned telemetry on.
    fs.writeFileSync(file, setGeminiSettings(fs.readFileSync(file, 'utf8'), { agent: a.name, mcpUrl: served.mcpUrl }));
    const old = settingsOf(h);
    assert.deepEqual(old.telemetry, USER.telemetry);
    const r = await run('connect', h, ['gemini', a.name, '--write']);
    assert.equal(r.code, 0, r.stderr);
    const now = settingsOf(h);
    assert.match(now.telemetry.otlpEndpoint, new RegExp(`^${base()}/otlp/perch_otlp_`));
    assert.deepEqual({ ...now, telemetry: undefined }, { ...old, telemetry: undefined }, 'its entries and hooks as they were');
  });

  test("the user's own exporter (an endpoint elsewhere, an outfile, or enabled alone: Gemini's default collector at localhost:4317) is left whole and the reason printed", async () => {
    for (const own of [{ otlpEndpoint: 'https://collector.example:4318' }, { outfile: '/tmp/gemini-telemetry.log' }, {}]) {
      const a = await addAgent(served.dataDir, uniqueName('otel-gm-own'));
      const settings = { ...USER, telemetry: { enabled: true, ...own } };
      const h = home(settings);
      const r = await run('connect', h, ['gemini', a.name, '--write']);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(settingsOf(h).telemetry, settings.telemetry);
      assert.match(r.stderr, /sends Gemini CLI's telemetry .*Perch left it as it is/);
    }
  });

  test('--project DIR writes no telemetry (the token would be in the repository) and says so', async () => {
    const a = await addAgent(served.dataDir, uniqueName('otel-gm-proj'));
    const h = home(USER);
    const project = tempDir('perch-gemini-otel-project-');
    const r = await run('connect', h, ['gemini', a.name, '--write', '--project', project]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(settingsOf(project).telemetry, undefined);
    assert.match(r.stdout, /OpenTelemetry .* is set up at the user scope only/);
  });

  test("perch disconnect gemini takes out Perch's telemetry with the rest; the user's own telemetry key stays", async () => {
    const a = await addAgent(served.dataDir, uniqueName('otel-gm-dis'));
    const h = home(USER);
    assert.equal((await run('connect', h, ['gemini', a.name, '--write'])).code, 0);
    assert.ok(telemetryTokenIn(settingsOf(h).telemetry.otlpEndpoint), 'connect wrote the telemetry');
    const r = await run('disconnect', h, ['gemini', a.name, '--write']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(settingsOf(h), USER);

    // Another agent's telemetry in the file is not this agent's to take out.
    const b = await addAgent(served.dataDir, uniqueName('otel-gm-other'));
    assert.equal((await run('connect', h, ['gemini', b.name, '--write'])).code, 0);
    const theirs = settingsOf(h).telemetry;
    assert.equal((await run('disconnect', h, ['gemini', a.name, '--write'])).code, 0);
    assert.deepEqual(settingsOf(h).telemetry, theirs);
  });
});
