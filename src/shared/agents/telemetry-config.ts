// The telemetry settings `perch connect claude-code|codex|copilot|gemini … --write` adds, so that the harness reports its tool calls,
// tokens and cost to the hub's OTLP receiver (src/main/mcp/otlp-door.ts), with the agent's telemetry-only token (the
// settings are a file, so the agent's key is never there). Pure: text in, text out, and a note when the user's own
// telemetry is left as it was.
//   claude-code: settings.json "env": CLAUDE_CODE_ENABLE_TELEMETRY=1, OTEL_METRICS_EXPORTER / OTEL_LOGS_EXPORTER
//                with otlp (a user's other exporters, e.g. console, kept beside it), OTEL_EXPORTER_OTLP_PROTOCOL=http/json,
//                OTEL_EXPORTER_OTLP_ENDPOINT=<hub>, OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer <token> (written
//                exactly so: Claude Code sends the value as written, a %20 literally). The user's other OTEL_ settings stay.
//   codex:       config.toml [otel] exporter = { otlp-http = { endpoint = "<hub>/v1/logs", protocol = "json",
//                headers = { "Authorization" = "Bearer <token>" } } } (Codex does not expand ${VAR} there); the
//                table's other keys stay.
//   copilot:     (user scope only: Copilot never takes a repository's telemetry settings) ~/.copilot/perch-otlp-headers.json
//                {"Authorization": "Bearer <token>"}, which ~/.copilot/settings.json telemetry.headersProvider reads with
//                cat (no shell, no token on a command line), and telemetry.capture toolArguments / toolOutput (what each
//                call was asked and its output, for the record). Copilot 1.0.102 takes its endpoint from the environment
//                only (OTEL_EXPORTER_OTLP_ENDPOINT; settings.json's telemetry.endpoint is refused as "Unsupported local
//                telemetry setting"): `perch connect` prints the export line.
//   gemini:      (user scope only: a project's .gemini/settings.json is usually in its repository, and the token would
//                be there too) ~/.gemini/settings.json telemetry: enabled, otlpProtocol "http" (OTLP/HTTP with JSON),
//                otlpEndpoint <hub>/otlp/<token>. Gemini CLI 0.61.0 takes headers from its environment only
//                (OTEL_EXPORTER_OTLP_HEADERS), never from its settings, so the token is in the endpoint's path, which
//                the hub's OTLP door reads as it reads the header. The block's other keys stay.
// An OTLP exporter can have one endpoint: when the user's own sends somewhere else, Perch does not take it over and
// says so (the user's telemetry goes on; the ledger then has no harness figures for this agent).
import { ConfigFileError, jsonText, objectAt, parseObject } from './config-json';
import { removeTomlTable, tomlString, tomlTables, upsertTomlTable } from '../text/toml-table';

/** A telemetry token in a config's text (to keep using it when it still works), or undefined. */
export function telemetryTokenIn(text: string | undefined): string | undefined {
  return text ? /perch_otlp_[A-Za-z0-9_-]{32}/.exec(text)?.[0] : undefined;
}

/** The file (relative to the scope's folder) where `perch connect` writes a client's telemetry, or undefined. */
export function telemetryFile(client: string, project: boolean): string | undefined {
  if (client === 'claude-code') return project ? '.claude/settings.local.json' : '.claude/settings.json';
  if (client === 'codex') return '.codex/config.toml';
  if (client === 'copilot' && !project) return COPILOT_HEADERS_FILE;
  if (client === 'gemini' && !project) return GEMINI_SETTINGS_FILE;
  return undefined;
}

/** The file holding the header Copilot's OpenTelemetry sends (the agent's telemetry token), beside its settings. */
export const COPILOT_HEADERS_FILE = '.copilot/perch-otlp-headers.json';
const HEADERS_NAME = 'perch-otlp-headers.json';

/** Copilot's headers file: the one header, the telemetry token. */
export function setCopilotTelemetry(_text: string | undefined, o: TelemetryOptions): TelemetryEdit {
  return { text: `${JSON.stringify({ Authorization: `Bearer ${o.token}` }, null, 2)}\n` };
}

/** Whether a headersProvider is Perch's: cat of a perch-otlp-headers.json. */
function isPerchProvider(v: unknown): boolean {
  const p = v as { path?: unknown; args?: unknown } | null;
  return (
    !!p &&
    p.path === 'cat' &&
    Array.isArray(p.args) &&
    p.args.length === 1 &&
    typeof p.args[0] === 'string' &&
    p.args[0].endsWith(HEADERS_NAME)
  );
}

/**
 * Copilot's settings.json with telemetry.headersProvider reading the headers file (`headers`: its absolute path) and
 * telemetry.capture's toolArguments and toolOutput on; the rest as it was. A headersProvider of the user's own is
 * left as it is (Copilot has one), and nothing of Perch's is added.
 */
export function setCopilotTelemetrySettings(text: string | undefined, headers: string, file: string): string {
  const root = parseObject(text, file);
  const telemetry = objectAt(root, 'telemetry', file);
  if (telemetry.headersProvider !== undefined && !isPerchProvider(telemetry.headersProvider)) return text ?? jsonText(root);
  telemetry.headersProvider = { path: 'cat', args: [headers] };
  const capture = objectAt(telemetry, 'capture', file);
  capture.toolArguments = true;
  capture.toolOutput = true;
  return jsonText(root, text);
}

/** Copilot's settings.json without Perch's headersProvider and the capture it turned on (for `perch disconnect`). */
export function unsetCopilotTelemetrySettings(text: string | undefined, file: string): string | undefined {
  if (text === undefined) return undefined;
  const root = parseObject(text, file);
  const telemetry = root.telemetry as Record<string, unknown> | undefined;
  if (!telemetry || typeof telemetry !== 'object' || !isPerchProvider(telemetry.headersProvider)) return text;
  delete telemetry.headersProvider;
  const capture = telemetry.capture as Record<string, unknown> | undefined;
  if (capture && typeof capture === 'object') {
    delete capture.toolArguments;
    delete capture.toolOutput;
    if (Object.keys(capture).length === 0) delete telemetry.capture;
  }
  if (Object.keys(telemetry).length === 0) delete root.telemetry;
  return Object.keys(root).length === 0 ? undefined : jsonText(root, text);
}

export interface TelemetryOptions {
  /** The hub's base URL (the MCP URL without /mcp): the OTLP paths are /v1/logs and /v1/metrics below it. */
  base: string;
  token: string;
}

export interface TelemetryEdit {
  text: string;
  /** Why the user's telemetry was left as it was (nothing of Perch's added), when it was. */
  note?: string;
}

function isPerchEndpoint(v: unknown, base: string): boolean {
  return typeof v === 'string' && (v.replace(/\/+$/, '') === base || v.replace(/\/+$/, '') === `${base}/v1/logs`);
}

function withOtlp(v: unknown): string {
  const list =
    typeof v === 'string'
      ? v
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s && s !== 'none')
      : [];
  return list.includes('otlp') ? list.join(',') : [...list, 'otlp'].join(',');
}

/** Claude Code's settings.json with Perch's telemetry in its env block (the user's own endpoint elsewhere: unchanged, with a note). */
export function setClaudeTelemetry(text: string | undefined, o: TelemetryOptions, file: string): TelemetryEdit {
  const root = parseObject(text, file);
  const env = objectAt(root, 'env', file);
  for (const k of Object.keys(env)) if (typeof env[k] !== 'string') throw new ConfigFileError(`${file}: "env.${k}" is not a string`);
  const theirs = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_LOGS_ENDPOINT'].find(
    (k) => env[k] !== undefined && !isPerchEndpoint(env[k], o.base),
  );
  if (theirs)
    return {
      text: text ?? jsonText(root),
      note: `${file} sends Claude Code's telemetry to ${String(env[theirs])} (${theirs}); an exporter has one endpoint, so Perch left it as it is and this agent's tool calls and cost are not recorded. To record them, point it at ${o.base} or remove it, and run perch connect again.`,
    };
  env.CLAUDE_CODE_ENABLE_TELEMETRY = '1';
  env.OTEL_METRICS_EXPORTER = withOtlp(env.OTEL_METRICS_EXPORTER);
  env.OTEL_LOGS_EXPORTER = withOtlp(env.OTEL_LOGS_EXPORTER);
  env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json';
  env.OTEL_EXPORTER_OTLP_ENDPOINT = o.base;
  env.OTEL_EXPORTER_OTLP_HEADERS = `Authorization=Bearer ${o.token}`;
  return { text: jsonText(root, text) };
}

/** The exporter line of Codex's [otel] table for the hub. */
export function codexExporterLine(o: TelemetryOptions): string {
  return `exporter = { otlp-http = { endpoint = ${tomlString(`${o.base}/v1/logs`)}, protocol = "json", headers = { "Authorization" = ${tomlString(`Bearer ${o.token}`)} } } }`;
}

/** Codex's config.toml with Perch's exporter in [otel] (the table's other keys kept; the user's own exporter: unchanged, with a note). */
export function setCodexTelemetry(text: string | undefined, o: TelemetryOptions, file: string): TelemetryEdit {
  const t = text ?? '';
  const tables = tomlTables(t).filter((x) => x.path[0] === 'otel');
  const own = tables.find((x) => x.path.length === 1);
  const sub = tables.find((x) => x.path.length > 1);
  const exporter = own?.body.find((l) => /^\s*exporter\s*=/.test(l));
  const ours = (l: string) => /=\s*["']none["']\s*$/.test(l) || l.includes(`${o.base}/v1/logs`) || /perch_otlp_/.test(l);
  if (sub || (exporter !== undefined && !ours(exporter)))
    return {
      text: t,
      note: `${file} has an OpenTelemetry exporter of your own in [${(sub ?? own)!.path.join('.')}]; Codex has one, so Perch left it as it is and this agent's tool calls and tokens are not recorded. To record them, remove it and run perch connect again.`,
    };
  const body = (own?.body ?? []).filter((l) => !/^\s*exporter\s*=/.test(l));
  while (body.length && body[body.length - 1]!.trim() === '') body.pop();
  return { text: upsertTomlTable(t, ['otel'], [...body, codexExporterLine(o)]) };
}

/** Gemini CLI's user settings, where its telemetry block is. */
export const GEMINI_SETTINGS_FILE = '.gemini/settings.json';

/** The token in a Gemini telemetry endpoint of this hub's (<base>/otlp/<token>), or undefined. */
function geminiEndpointToken(v: unknown, base: string): string | undefined {
  if (typeof v !== 'string' || !v.startsWith(`${base}/otlp/`)) return undefined;
  return /^\/otlp\/(perch_otlp_[A-Za-z0-9_-]{32})\/?$/.exec(v.slice(base.length))?.[1];
}

/**
 * Gemini CLI's settings.json with Perch's telemetry in its telemetry block: enabled, otlpProtocol "http",
 * otlpEndpoint <base>/otlp/<token> (the block's other keys kept). A telemetry of the user's own (an endpoint elsewhere,
 * an outfile, the gcp target, a collector, or enabled without an endpoint: Gemini then sends to localhost:4317):
 * unchanged, with a note. An enabled: false is turned on (and taken out again by disconnect).
 */
export function setGeminiTelemetry(text: string | undefined, o: TelemetryOptions, file: string): TelemetryEdit {
  const root = parseObject(text, file);
  const t = objectAt(root, 'telemetry', file);
  const ours = typeof t.otlpEndpoint === 'string' && t.otlpEndpoint.startsWith(`${o.base}/otlp/perch_otlp_`);
  const theirs = ours
    ? undefined
    : t.otlpEndpoint !== undefined
      ? `to ${String(t.otlpEndpoint)} (telemetry.otlpEndpoint)`
      : t.outfile !== undefined
        ? `to the file ${String(t.outfile)} (telemetry.outfile)`
        : t.target === 'gcp' || t.useCollector === true
          ? 'to Google Cloud (telemetry.target, telemetry.useCollector)'
          : t.enabled === true
            ? "to a collector at http://localhost:4317 (telemetry.enabled without an endpoint: Gemini's default)"
            : undefined;
  if (theirs)
    return {
      text: text ?? jsonText(root),
      note: `${file} sends Gemini CLI's telemetry ${theirs}; it has one exporter, so Perch left it as it is and this agent's tokens are not recorded. To record them, remove it and run perch connect again.`,
    };
  t.enabled = true;
  t.otlpProtocol = 'http';
  t.otlpEndpoint = `${o.base}/otlp/${o.token}`;
  return { text: jsonText(root, text) };
}

/**
 * Takes Perch's telemetry for the agent out of a parsed Gemini settings object (for `perch disconnect`): only when its
 * endpoint is the hub's with a token of this agent (heldAgent: the file held the agent's entries, for a token no one
 * has any more). Its enabled and otlpProtocol go too (connect found no telemetry of the user's on, or it would have
 * left the block alone); a block left empty goes.
 */
export function unsetGeminiTelemetry(root: Record<string, unknown>, o: UnsetTelemetryOptions, heldAgent: boolean): void {
  const t = root.telemetry;
  if (!t || typeof t !== 'object' || Array.isArray(t)) return;
  const b = t as Record<string, unknown>;
  const token = geminiEndpointToken(b.otlpEndpoint, o.base);
  if (!token || !agentsToRemove(token, o, heldAgent)) return;
  delete b.otlpEndpoint;
  if (b.otlpProtocol === 'http') delete b.otlpProtocol;
  if (b.enabled === true) delete b.enabled;
  if (Object.keys(b).length === 0) delete root.telemetry;
}

/** Whose a Perch telemetry token found in a config is: this agent's, another agent's, or no one's now (an old one). */
export type TokenOwner = 'agent' | 'other' | 'none';

export interface UnsetTelemetryOptions {
  /** The hub's base URL: only settings pointing here are Perch's. */
  base: string;
  owner: (token: string) => TokenOwner;
}

/** Whether a token's settings are this agent's to take out: its own token, or an old one in a file that held its entries. */
function agentsToRemove(token: string, o: UnsetTelemetryOptions, heldAgent: boolean): boolean {
  const owner = o.owner(token);
  return owner === 'agent' || (owner === 'none' && heldAgent);
}

/**
 * Takes Perch's telemetry for the agent out of a parsed Claude Code settings object (for `perch disconnect`): only when
 * its endpoint is the hub's and its header a perch_otlp_ token of this agent (heldAgent: the file held the agent's
 * hooks, for a token no one has any more). The otlp exporter goes from OTEL_METRICS_EXPORTER / OTEL_LOGS_EXPORTER (a
 * user's other exporters stay), CLAUDE_CODE_ENABLE_TELEMETRY only when no exporter is left; an env left empty goes.
 */
export function unsetClaudeTelemetry(root: Record<string, unknown>, o: UnsetTelemetryOptions, heldAgent: boolean): void {
  const env = root.env;
  if (!env || typeof env !== 'object' || Array.isArray(env)) return;
  const e = env as Record<string, unknown>;
  const header = e.OTEL_EXPORTER_OTLP_HEADERS;
  const token = typeof header === 'string' ? /^Authorization=Bearer (perch_otlp_[A-Za-z0-9_-]{32})$/.exec(header)?.[1] : undefined;
  if (!token || !isPerchEndpoint(e.OTEL_EXPORTER_OTLP_ENDPOINT, o.base) || !agentsToRemove(token, o, heldAgent)) return;
  delete e.OTEL_EXPORTER_OTLP_ENDPOINT;
  delete e.OTEL_EXPORTER_OTLP_HEADERS;
  if (e.OTEL_EXPORTER_OTLP_PROTOCOL === 'http/json') delete e.OTEL_EXPORTER_OTLP_PROTOCOL;
  let exporters = false;
  for (const k of ['OTEL_METRICS_EXPORTER', 'OTEL_LOGS_EXPORTER']) {
    if (typeof e[k] !== 'string') continue;
    const rest = (e[k] as string)
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s && s !== 'otlp');
    if (rest.length) {
      e[k] = rest.join(',');
      exporters = true;
    } else delete e[k];
  }
  if (!exporters && e.CLAUDE_CODE_ENABLE_TELEMETRY === '1') delete e.CLAUDE_CODE_ENABLE_TELEMETRY;
  if (Object.keys(e).length === 0) delete root.env;
}

/**
 * Codex's config.toml without Perch's exporter line in [otel] (for `perch disconnect`): only when it sends to the hub
 * with a perch_otlp_ token of this agent (heldAgent: the file held its MCP server, for a token no one has any more).
 * The table's other lines stay; a table left with nothing goes, and a file left with nothing is undefined.
 */
export function unsetCodexTelemetry(text: string | undefined, o: UnsetTelemetryOptions, heldAgent: boolean): string | undefined {
  if (text === undefined) return undefined;
  const own = tomlTables(text).find((x) => x.path.length === 1 && x.path[0] === 'otel');
  const exporter = own?.body.find((l) => /^\s*exporter\s*=/.test(l));
  const token = exporter && exporter.includes(`${o.base}/v1/logs`) ? telemetryTokenIn(exporter) : undefined;
  if (!own || !token || !agentsToRemove(token, o, heldAgent)) return text;
  const body = own.body.filter((l) => l !== exporter);
  let t: string;
  if (body.some((l) => l.trim() !== '' && !l.trim().startsWith('#'))) {
    while (body.length && body[body.length - 1]!.trim() === '') body.pop();
    t = upsertTomlTable(text, ['otel'], body);
  } else {
    t = removeTomlTable(text, ['otel']);
    const eol = text.includes('\r\n') ? '\r\n' : '\n';
    // removeTomlTable joins the lines left: the file keeps its final newline.
    if (text.endsWith(eol) && !t.endsWith(eol)) t += eol;
  }
  return t.trim() === '' ? undefined : t;
}
