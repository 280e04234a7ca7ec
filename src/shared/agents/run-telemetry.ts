// A wake run's telemetry: the environment that makes a harness the run starts report its tool calls, tokens and cost
// to the hub's OTLP receiver (src/main/mcp/otlp-door.ts) under the run's agent, with the run's own telemetry token
// (hub/identity/run-keys.ts: telemetry only, for that agent, while the run lives). Pure: environment in, environment out.
//   Claude Code: CLAUDE_CODE_ENABLE_TELEMETRY=1, OTEL_METRICS_EXPORTER / OTEL_LOGS_EXPORTER with otlp (an exporter of
//                the owner's, e.g. console, kept beside it), OTEL_EXPORTER_OTLP_PROTOCOL=http/json,
//                OTEL_EXPORTER_OTLP_ENDPOINT=<hub>, OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer <token>. The same
//                block goes into the env of PERCH_CLAUDE_SETTINGS, which (given with --settings) wins over the
//                user's and the project's settings.json for the run.
//   Codex:       its exporter is configured only in config.toml ([otel], or `-c otel.exporter=…` on its command line),
//                but its OTLP/HTTP exporter adds OTEL_EXPORTER_OTLP_HEADERS from the environment to the configured
//                headers (the environment's Authorization wins; checked with Codex 0.171.0). So the token travels in
//                the environment only, and the Codex recipe names the endpoint (no secret) with
//                -c "otel.exporter={otlp-http={endpoint=\"$PERCH_OTLP_LOGS_URL\",protocol=\"json\"}}".
// What wins: telemetry the owner set in the run's environment (the wake action's --env, or the hub's own environment
// the run inherits) — an OTLP endpoint elsewhere, OTLP headers, telemetry switched off. Then Perch adds none of its
// telemetry (its token would go to the owner's endpoint) and says why in the run's log.

/** The variables that are the owner's telemetry when set in a run's environment (see ownTelemetry). */
const ENDPOINTS = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_LOGS_ENDPOINT', 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT'];
const HEADERS = ['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_LOGS_HEADERS', 'OTEL_EXPORTER_OTLP_METRICS_HEADERS'];

/** Where Codex sends its logs in a run (the recipe's -c names it): the hub's /v1/logs. Set in every command run. */
export const RUN_OTLP_LOGS_VAR = 'PERCH_OTLP_LOGS_URL';

export interface RunTelemetry {
  /** The variables to add to the run's environment (and to PERCH_CLAUDE_SETTINGS' env); empty when the owner's win. */
  env: Record<string, string>;
  /** Why Perch added none (the owner's own telemetry), for the run's log. */
  owner?: string;
}

const off = (v: string) => /^(0|false|no|off)$/i.test(v.trim());

function sameBase(v: string, base: string): boolean {
  const u = v.trim().replace(/\/+$/, '');
  return u === base || u === `${base}/v1/logs` || u === `${base}/v1/metrics` || u === `${base}/v1/traces`;
}

/** The owner's own telemetry in a run's environment (which variable and why), or undefined. */
export function ownTelemetry(given: Readonly<Record<string, string | undefined>>, base: string): string | undefined {
  const set = (k: string) => given[k] !== undefined && given[k] !== '';
  const endpoint = ENDPOINTS.find((k) => set(k) && !sameBase(given[k]!, base));
  if (endpoint) return `${endpoint} sends it to ${given[endpoint]}`;
  const header = HEADERS.find(set);
  if (header) return `${header} is set`;
  if (set('CLAUDE_CODE_ENABLE_TELEMETRY') && off(given.CLAUDE_CODE_ENABLE_TELEMETRY!))
    return 'CLAUDE_CODE_ENABLE_TELEMETRY switches it off';
  if (set('OTEL_SDK_DISABLED') && !off(given.OTEL_SDK_DISABLED!)) return 'OTEL_SDK_DISABLED switches it off';
  for (const k of ['OTEL_LOGS_EXPORTER', 'OTEL_METRICS_EXPORTER'])
    if (set(k) && given[k]!.split(',').some((s) => s.trim() === 'none')) return `${k} is none`;
  return undefined;
}

function withOtlp(v: string | undefined): string {
  const list = (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return list.includes('otlp') ? list.join(',') : [...list, 'otlp'].join(',');
}

/**
 * The telemetry a run's environment gets: `given` is the environment the run would have without it (the hub's,
 * then the action's --env), `base` the hub's base URL, `token` the run's telemetry token.
 */
export function runTelemetry(given: Readonly<Record<string, string | undefined>>, base: string, token: string): RunTelemetry {
  const own = ownTelemetry(given, base);
  if (own)
    return {
      env: {},
      owner: `perch: this run's OpenTelemetry is yours (${own}), so Perch added none of its own; its tool calls and cost are not in Perch's ledger\n`,
    };
  return {
    env: {
      CLAUDE_CODE_ENABLE_TELEMETRY: '1',
      OTEL_METRICS_EXPORTER: withOtlp(given.OTEL_METRICS_EXPORTER),
      OTEL_LOGS_EXPORTER: withOtlp(given.OTEL_LOGS_EXPORTER),
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_ENDPOINT: base,
      OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${token}`,
    },
  };
}
