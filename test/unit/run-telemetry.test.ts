// What a wake run's environment gets for its harness's OpenTelemetry (shared/agents/run-telemetry.ts): Perch's
// exporter settings with the run's token, unless the owner's own telemetry is set in the run's environment, which wins.
// (test/wake/wake-telemetry.test.ts runs it through a real perch serve; test/real/*-ledger.test.ts with the harnesses.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { geminiCommand, runTelemetry } from '../../src/shared/agents/run-telemetry';

const BASE = 'http://127.0.0.1:4567';
const TOKEN = 'perch_otlp_run_abc';

test("an environment without telemetry of its own gets Perch's, with the run's token; an exporter of the owner's stays beside otlp", () => {
  assert.deepEqual(runTelemetry({ PATH: '/bin' }, BASE, TOKEN), {
    env: {
      CLAUDE_CODE_ENABLE_TELEMETRY: '1',
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_LOGS_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_ENDPOINT: BASE,
      OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${TOKEN}`,
    },
  });
  const kept = runTelemetry({ OTEL_LOGS_EXPORTER: 'console', OTEL_METRICS_EXPORTER: 'otlp,console' }, BASE, TOKEN).env;
  assert.equal(kept.OTEL_LOGS_EXPORTER, 'console,otlp');
  assert.equal(kept.OTEL_METRICS_EXPORTER, 'otlp,console');
  // The endpoint already pointing at this hub (as the guide's Copilot line exports it) is not the owner's own.
  assert.equal(runTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: `${BASE}/` }, BASE, TOKEN).owner, undefined);
});

test("the owner's own telemetry in the run's environment wins: Perch adds nothing and says which setting", () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example' }, /OTEL_EXPORTER_OTLP_ENDPOINT sends it to https:\/\/otel\.example/],
    [{ OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'http://127.0.0.1:9/v1/logs' }, /OTEL_EXPORTER_OTLP_LOGS_ENDPOINT/],
    [{ OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=theirs' }, /OTEL_EXPORTER_OTLP_HEADERS is set/],
    [{ CLAUDE_CODE_ENABLE_TELEMETRY: '0' }, /CLAUDE_CODE_ENABLE_TELEMETRY switches it off/],
    [{ OTEL_SDK_DISABLED: 'true' }, /OTEL_SDK_DISABLED switches it off/],
    [{ OTEL_LOGS_EXPORTER: 'none' }, /OTEL_LOGS_EXPORTER is none/],
  ];
  for (const [env, why] of cases) {
    const r = runTelemetry(env, BASE, TOKEN);
    assert.deepEqual(r.env, {}, JSON.stringify(env));
    assert.match(r.owner ?? '', why);
    assert.ok(!(r.owner ?? '').includes(TOKEN));
  }
});

test("a Gemini CLI run also gets Gemini's telemetry switch and OTLP/HTTP, which win over its settings.json; another command does not", () => {
  const gemini = runTelemetry({ PATH: '/bin' }, BASE, TOKEN, true).env;
  assert.equal(gemini.GEMINI_TELEMETRY_ENABLED, 'true');
  assert.equal(gemini.GEMINI_TELEMETRY_OTLP_PROTOCOL, 'http');
  assert.equal(gemini.OTEL_EXPORTER_OTLP_ENDPOINT, BASE);
  assert.equal(gemini.OTEL_EXPORTER_OTLP_HEADERS, `Authorization=Bearer ${TOKEN}`);
  assert.equal(runTelemetry({}, BASE, TOKEN).env.GEMINI_TELEMETRY_ENABLED, undefined);
  for (const c of [
    { argv: ['gemini', '-p', 'go'] },
    { argv: ['/usr/local/bin/gemini'] },
    { argv: ['npx', '@google/gemini-cli@0.61.0', '-p', 'x'] },
    { shell: 'gemini -p "You were woken in Perch" --yolo' },
    { shell: 'cd sub && gemini -p go' },
    // a container's command line: the shell string after the image is one argument
    { argv: ['docker', 'run', '--rm', '-i', '-e', 'PERCH_KEY', 'node:22', 'sh', '-c', 'cd sub && gemini -p "go" --yolo'] },
  ])
    assert.ok(geminiCommand(c), JSON.stringify(c));
  for (const c of [{ argv: ['claude', '-p'] }, { shell: 'codex exec "go"' }, { argv: ['gemini-tools'] }])
    assert.ok(!geminiCommand(c), JSON.stringify(c));
});

test("Gemini CLI's own telemetry variables in the run's environment are the owner's and win", () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ GEMINI_TELEMETRY_ENABLED: 'false' }, /GEMINI_TELEMETRY_ENABLED switches it off/],
    [{ GEMINI_TELEMETRY_OTLP_ENDPOINT: 'http://collector:4318' }, /GEMINI_TELEMETRY_OTLP_ENDPOINT sends it to http:\/\/collector:4318/],
    [{ GEMINI_TELEMETRY_TARGET: 'gcp' }, /GEMINI_TELEMETRY_TARGET is gcp/],
    [{ GEMINI_TELEMETRY_OUTFILE: '/tmp/t.log' }, /GEMINI_TELEMETRY_OUTFILE is \/tmp\/t\.log/],
    [{ GEMINI_TELEMETRY_OTLP_PROTOCOL: 'grpc' }, /GEMINI_TELEMETRY_OTLP_PROTOCOL is grpc/],
  ];
  for (const [env, why] of cases) {
    const r = runTelemetry(env, BASE, TOKEN, true);
    assert.deepEqual(r.env, {}, JSON.stringify(env));
    assert.match(r.owner ?? '', why);
  }
  // Set as Perch would set them (on, to this hub, OTLP/HTTP) they are not the owner's own.
  const same = runTelemetry(
    {
      GEMINI_TELEMETRY_ENABLED: 'true',
      GEMINI_TELEMETRY_OTLP_ENDPOINT: BASE,
      GEMINI_TELEMETRY_OTLP_PROTOCOL: 'http',
      GEMINI_TELEMETRY_TARGET: 'local',
    },
    BASE,
    TOKEN,
    true,
  );
  assert.equal(same.owner, undefined);
});
