// What a wake run's environment gets for its harness's OpenTelemetry (shared/agents/run-telemetry.ts): Perch's
// exporter settings with the run's token, unless the owner's own telemetry is set in the run's environment, which wins.
// (test/wake/wake-telemetry.test.ts runs it through a real perch serve; test/real/*-ledger.test.ts with the harnesses.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runTelemetry } from '../../src/shared/agents/run-telemetry';

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
