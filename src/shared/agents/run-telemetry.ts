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
//   Gemini CLI:  it takes OTEL_EXPORTER_OTLP_ENDPOINT over its settings' otlpEndpoint and its OTLP/HTTP exporter adds
//                OTEL_EXPORTER_OTLP_HEADERS, but it exports only with its telemetry on; so a run whose command is Gemini
//                (geminiCommand) also gets GEMINI_TELEMETRY_ENABLED=true and GEMINI_TELEMETRY_OTLP_PROTOCOL=http, which
//                win over its settings.json (checked in Gemini CLI 0.61.0's resolveTelemetrySettings: flag, then env,
//                then settings). Its own GEMINI_TELEMETRY_* variables count as the owner's (below).
// What wins: telemetry the owner set in the run's environment (the wake action's --env, or the hub's own environment
// the run inherits) — an OTLP endpoint elsewhere, OTLP headers, telemetry switched off. Then Perch adds none of its
// telemetry (its token would go to the owner's endpoint) and says why in the run's log.

/** The variables that are the owner's telemetry when set in a run's environment (see ownTelemetry). */
const ENDPOINTS = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_LOGS_ENDPOINT', 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT'];
const HEADERS = ['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_LOGS_HEADERS', 'OTEL_EXPORTER_OTLP_METRICS_HEADERS'];

/** Where Codex sends its logs in a run (the recipe's -c names it): the hub's /v1/logs. Set in every command run. */
export const RUN_OTLP_LOGS_VAR = 'PERCH_OTLP_LOGS_URL';

/**
 * Every variable a run's telemetry may set (runTelemetry's, and RUN_OTLP_LOGS_VAR): a run in a container is handed
 * them by name (shared/agents/wake-container.ts), so this is the one list of them.
 */
export const RUN_TELEMETRY_VARS = [
  'CLAUDE_CODE_ENABLE_TELEMETRY',
  'OTEL_METRICS_EXPORTER',
  'OTEL_LOGS_EXPORTER',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'GEMINI_TELEMETRY_ENABLED',
  'GEMINI_TELEMETRY_OTLP_PROTOCOL',
  RUN_OTLP_LOGS_VAR,
] as const;

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
  // Gemini CLI's own: its endpoint variable wins over OTEL_EXPORTER_OTLP_ENDPOINT there; it counts only "true" and "1"
  // as on; a gcp target, an outfile or the grpc protocol send it somewhere other than this hub's OTLP/HTTP receiver.
  if (set('GEMINI_TELEMETRY_OTLP_ENDPOINT') && !sameBase(given.GEMINI_TELEMETRY_OTLP_ENDPOINT!, base))
    return `GEMINI_TELEMETRY_OTLP_ENDPOINT sends it to ${given.GEMINI_TELEMETRY_OTLP_ENDPOINT}`;
  if (set('GEMINI_TELEMETRY_ENABLED') && !/^(true|1)$/.test(given.GEMINI_TELEMETRY_ENABLED!))
    return 'GEMINI_TELEMETRY_ENABLED switches it off';
  for (const k of ['GEMINI_TELEMETRY_OUTFILE', 'GEMINI_TELEMETRY_TARGET'])
    if (set(k) && !(k === 'GEMINI_TELEMETRY_TARGET' && given[k] === 'local')) return `${k} is ${given[k]}`;
  if (set('GEMINI_TELEMETRY_OTLP_PROTOCOL') && given.GEMINI_TELEMETRY_OTLP_PROTOCOL !== 'http')
    return `GEMINI_TELEMETRY_OTLP_PROTOCOL is ${given.GEMINI_TELEMETRY_OTLP_PROTOCOL}`;
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
 * Whether a run's command is Gemini CLI: a word of its argv or shell line is `gemini` (any folder, gemini.cmd on
 * Windows) or the npm package @google/gemini-cli (npx). An argument of the argv is read as words too (a container's
 * `… IMAGE sh -c 'gemini -p …'`). A word that only mentions it counts too: the extra variables are Gemini's own and
 * mean nothing to another program.
 */
export function geminiCommand(command: { argv?: readonly string[]; shell?: string }): boolean {
  const split = (s: string) => s.split(/[\s;&|()`'"]+/);
  const words = command.argv ? command.argv.flatMap(split) : split(command.shell ?? '');
  return words.some((w) => /(^|[\\/])gemini(\.cmd|\.exe)?$/i.test(w) || /^@google\/gemini-cli(@\S*)?$/.test(w));
}

/**
 * The telemetry a run's environment gets: `given` is the environment the run would have without it (the hub's,
 * then the action's --env), `base` the hub's base URL, `token` the run's telemetry token, `gemini` whether its command is Gemini CLI
 * (geminiCommand).
 */
export function runTelemetry(
  given: Readonly<Record<string, string | undefined>>,
  base: string,
  token: string,
  gemini = false,
): RunTelemetry {
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
      ...(gemini ? { GEMINI_TELEMETRY_ENABLED: 'true', GEMINI_TELEMETRY_OTLP_PROTOCOL: 'http' } : {}),
    },
  };
}
