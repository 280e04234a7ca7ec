// `perch connect claude-code|codex NAME --write` turns the harness's telemetry to the hub's OTLP receiver on, with the
// agent's telemetry-only token (src/main/cli/agents/connect-telemetry.ts, src/shared/agents/telemetry-config.ts): the
// user's own telemetry settings are kept (or, when they send elsewhere, left whole and the reason printed), a second
// run changes nothing, and the token written works at /v1/logs.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { addAgent, cliAsync, rawPost, uniqueName, useSharedServe, tempDir } from '../support/serve-harness';
import { snapshot } from '../support/dir-snapshot';
import { telemetryTokenIn } from '../../src/shared/agents/telemetry-config';
import { claudeCodeCall } from '../support/otlp-bodies';

const served = useSharedServe();
const base = () => served.mcpUrl.replace(/\/mcp$/, '');

function home(files: Record<string, string>): string {
  const h = tempDir('perch-connect-otel-');
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(h, rel)), { recursive: true });
    fs.writeFileSync(path.join(h, rel), text);
  }
  return h;
}

function connect(h: string, args: string[]) {
  return cliAsync(['connect', ...args, '--data-dir', served.dataDir], { env: { HOME: h } });
}

describe('perch connect --write turns the harness telemetry on, keeping the user’s own', () => {
  test("claude-code: settings.json env gets the OTLP settings with the telemetry token; the user's exporter and other OTEL settings stay; twice changes nothing; the token works", async () => {
    const a = await addAgent(served.dataDir, uniqueName('otel-cc'));
    const h = home({
      '.claude/settings.json': JSON.stringify({
        env: { OTEL_METRICS_EXPORTER: 'console', OTEL_METRIC_EXPORT_INTERVAL: '10000', FOO: 'bar' },
      }),
    });
    const r = await connect(h, ['claude-code', a.name, '--write']);
    assert.equal(r.code, 0, r.stderr);
    const env = JSON.parse(fs.readFileSync(path.join(h, '.claude', 'settings.json'), 'utf8')).env;
    const token = telemetryTokenIn(env.OTEL_EXPORTER_OTLP_HEADERS);
    assert.ok(token, JSON.stringify(env));
    assert.deepEqual(env, {
      OTEL_METRICS_EXPORTER: 'console,otlp',
      OTEL_METRIC_EXPORT_INTERVAL: '10000',
      FOO: 'bar',
      CLAUDE_CODE_ENABLE_TELEMETRY: '1',
      OTEL_LOGS_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_ENDPOINT: base(),
      OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${token}`,
    });
    assert.ok(!r.stdout.includes(token!), 'the printed diff shows the token by its last four characters only');
    assert.ok(!Object.values(snapshot(h)).some((t) => t.includes(a.key)), 'the agent key is in no file');
    const files = snapshot(h);
    const again = await connect(h, ['claude-code', a.name, '--write']);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(snapshot(h), files, 'a second run keeps the working token and changes nothing');
    const sent = await rawPost(`${base()}/v1/logs`, token, claudeCodeCall('s', 'toolu_c', 0.01));
    assert.equal(sent.status, 200, sent.text);
  });

  test("claude-code: the user's own OTLP endpoint elsewhere is left whole and the reason printed", async () => {
    const a = await addAgent(served.dataDir, uniqueName('otel-own'));
    const settings = JSON.stringify({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example:4318', OTEL_LOGS_EXPORTER: 'otlp' } });
    const h = home({ '.claude/settings.json': settings });
    const r = await connect(h, ['claude-code', a.name, '--write']);
    assert.equal(r.code, 0, r.stderr);
    const env = JSON.parse(fs.readFileSync(path.join(h, '.claude', 'settings.json'), 'utf8')).env;
    assert.deepEqual(env, JSON.parse(settings).env);
    assert.match(r.stderr, /sends Claude Code's telemetry to https:\/\/collector\.example:4318 .*Perch left it as it is/);
  });

  test("claude-code: a file whose own telemetry is left whole says so, not that Perch's was added, and the agent's working token is not replaced", async () => {
    const a = await addAgent(served.dataDir, uniqueName('otel-left'));
    // The owner's token by hand (perch ledger token), sent by some exporter Perch does not know of.
    const made = await cliAsync(['ledger', 'token', a.name, '--data-dir', served.dataDir, '--json']);
    const held = JSON.parse(made.stdout).token as string;
    const settings = JSON.stringify({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example:4318' } });
    const h = home({ '.claude/settings.json': settings });
    const r = await connect(h, ['claude-code', a.name, '--write']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /Perch left it as it is/);
    assert.doesNotMatch(r.stdout, /its OpenTelemetry to/, 'the summary does not claim what was not written');
    const sent = await rawPost(`${base()}/v1/logs`, held, claudeCodeCall('s', 'toolu_held', 0.01));
    assert.equal(sent.status, 200, `the token made by hand still works: ${sent.text}`);
  });

  test("codex: [otel] gets the OTLP/HTTP JSON exporter to /v1/logs with the token in its header; the table's other keys stay; a user's own exporter is left whole", async () => {
    const a = await addAgent(served.dataDir, uniqueName('otel-codex'));
    const h = home({ '.codex/config.toml': 'model = "gpt-5"\n\n[otel]\nenvironment = "dev"\nlog_user_prompt = false\n' });
    const r = await connect(h, ['codex', a.name, '--write']);
    assert.equal(r.code, 0, r.stderr);
    const toml = fs.readFileSync(path.join(h, '.codex', 'config.toml'), 'utf8');
    const token = telemetryTokenIn(toml);
    assert.match(
      toml,
      new RegExp(
        `\\[otel\\]\\nenvironment = "dev"\\nlog_user_prompt = false\\nexporter = \\{ otlp-http = \\{ endpoint = "${base()}/v1/logs", protocol = "json", headers = \\{ "Authorization" = "Bearer ${token}" \\} \\} \\}\\n`,
      ),
    );
    const own = '[otel]\nexporter = { otlp-http = { endpoint = "https://collector.example/v1/logs", protocol = "binary" } }\n';
    const b = await addAgent(served.dataDir, uniqueName('otel-codex-own'));
    const h2 = home({ '.codex/config.toml': own });
    const r2 = await connect(h2, ['codex', b.name, '--write']);
    assert.equal(r2.code, 0, r2.stderr);
    assert.ok(fs.readFileSync(path.join(h2, '.codex', 'config.toml'), 'utf8').includes(own), 'the user’s exporter is as it was');
    assert.match(r2.stderr, /an OpenTelemetry exporter of your own in \[otel\]/);
  });

  test("an agent has one telemetry token: connecting its second harness, or a project, reuses the working one, so the first harness's telemetry keeps working", async () => {
    const a = await addAgent(served.dataDir, uniqueName('otel-two'));
    const h = home({ '.claude/settings.json': '{}\n' });
    assert.equal((await connect(h, ['claude-code', a.name, '--write'])).code, 0);
    const first = telemetryTokenIn(fs.readFileSync(path.join(h, '.claude', 'settings.json'), 'utf8'));
    assert.ok(first);
    const r = await connect(h, ['codex', a.name, '--write']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      telemetryTokenIn(fs.readFileSync(path.join(h, '.codex', 'config.toml'), 'utf8')),
      first,
      "codex's config.toml has the same token",
    );
    const repo = home({});
    const p = await connect(h, ['claude-code', a.name, '--project', repo, '--write']);
    assert.equal(p.code, 0, p.stderr);
    assert.equal(telemetryTokenIn(fs.readFileSync(path.join(repo, '.claude', 'settings.local.json'), 'utf8')), first);
    const sent = await rawPost(`${base()}/v1/logs`, first, claudeCodeCall('s2', 'toolu_two', 0.01));
    assert.equal(sent.status, 200, `the token Claude Code sends with still works: ${sent.text}`);
  });
});
