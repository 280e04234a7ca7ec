// What `perch connect copilot NAME` puts in GitHub Copilot CLI's own config files, and `perch disconnect copilot NAME`
// takes out again (pure: text in, text out; the CLI reads and writes the files through config-files.ts, as for the
// other harnesses). The agent's key is never written: both files refer to PERCH_KEY_<NAME> in the environment.
//   user scope:    ~/.copilot/mcp-config.json mcpServers.perch-NAME (HTTP, the key as ${PERCH_KEY_<NAME>}, which
//                  Copilot fills in from its environment), ~/.copilot/hooks/perch.json (version 1: the hooks below)
//   project scope: DIR/.github/mcp.json and DIR/.github/hooks/perch.json (Copilot's repository-level files)
// Each hook makes one request to the hub's door POST <base>/hook/copilot/<event>?agent=NAME (src/main/mcp/hook-door/):
// permissionRequest (its permission prompts in the owner's inbox), preToolUse (pause), notification, agentStop,
// sessionStart, sessionEnd (live status). The two that decide are command hooks; the status events are Copilot's own
// HTTP hooks, the header "Authorization: Bearer $PERCH_KEY_<NAME>" filled in by Copilot from the variable
// allowedEnvVars names; Copilot calls a plain-http hook URL only with COPILOT_HOOK_ALLOW_LOCALHOST=1 in its environment
// (and only on localhost / 127.* / [::1]); an https URL (the tailnet front) needs nothing. Copilot 1.0.102 takes an
// HTTP preToolUse or permissionRequest hook that fails (the hub down, a non-2xx answer) as a denial ("hook errored",
// "Permission request hook failed"), so a connected Copilot would run no tool while the hub is stopped. Both are
// instead command hooks making the same request with curl (curlHookCommand, the key never on an argv) that answer {}
// when the request fails: Copilot carries on as without Perch (its own permission flow decides). A reachable hub's
// answer (the owner's decision, a paused agent's deny) is passed on as it came (test/real/real-copilot.test.ts).
import { keyEnvVar } from '../key-env';
import { ConfigFileError, jsonText, objectAt, parseObject, sameJson, type Json } from '../config-json';
import {
  HOOK_TIMEOUT_SECS,
  STATUS_HOOK_SECS,
  checkHookAgents,
  curlHookCommand,
  hookBaseUrl,
  hookUrl,
  perchHookSub,
  serverName,
  setPerchServer,
  type ConfigEdit,
  type ConnectOptions,
} from '../harness-config';
import { unsetMcpServer, unsetPerchHooks, type UnconfigEdit } from '../harness-unconfig';
import { COPILOT_HEADERS_FILE, setCopilotTelemetrySettings, telemetryTokenIn, unsetCopilotTelemetrySettings } from '../telemetry-config';

/** Copilot's user settings (its OpenTelemetry headers and capture; never a repository's: Copilot ignores those there). */
export const COPILOT_SETTINGS_FILE = '.copilot/settings.json';

/** The variable Copilot takes its OpenTelemetry endpoint from (its settings cannot name one). */
export const COPILOT_OTLP_ENV = 'OTEL_EXPORTER_OTLP_ENDPOINT';

/** The switch Copilot needs in its environment to call a hook at a plain-http localhost URL. */
export const COPILOT_LOCALHOST_ENV = 'COPILOT_HOOK_ALLOW_LOCALHOST';

/** Copilot's wait for the preToolUse command: past curl's own --max-time, so a hub that hangs is curl's failure ({}), not Copilot's. */
export const COPILOT_COMMAND_SECS = STATUS_HOOK_SECS + 5;
// (permissionRequest: curl's --max-time is CURL_PERMISSION_SECS, ten seconds short of HOOK_TIMEOUT_SECS.)

/** Copilot's hook events Perch uses, each with its door event and timeout (seconds); `command`: the fail-open curl command. */
export const COPILOT_HOOKS: readonly { event: string; sub: string; timeout: number; command?: true }[] = [
  { event: 'permissionRequest', sub: 'permission-request', timeout: HOOK_TIMEOUT_SECS, command: true },
  { event: 'preToolUse', sub: 'pre-tool-use', timeout: COPILOT_COMMAND_SECS, command: true },
  { event: 'notification', sub: 'notification', timeout: STATUS_HOOK_SECS },
  { event: 'agentStop', sub: 'stop', timeout: STATUS_HOOK_SECS },
  { event: 'sessionStart', sub: 'session-start', timeout: STATUS_HOOK_SECS },
  { event: 'sessionEnd', sub: 'session-end', timeout: STATUS_HOOK_SECS },
];

/** The files, relative to the home dir (user scope) or the project dir. */
export function copilotFiles(project: boolean): { mcp: string; hooks: string } {
  return project
    ? { mcp: '.github/mcp.json', hooks: '.github/hooks/perch.json' }
    : { mcp: '.copilot/mcp-config.json', hooks: '.copilot/hooks/perch.json' };
}

/** Whether the hub's URL is plain http, so Copilot needs COPILOT_HOOK_ALLOW_LOCALHOST=1 to call its hooks. */
export function needsLocalhostSwitch(mcpUrl: string): boolean {
  return /^http:/i.test(mcpUrl);
}

/** Copilot's MCP entry for the agent: HTTP, the key by reference, every tool of the server offered. */
export function copilotMcpEntry(o: ConnectOptions): Json {
  return { type: 'http', url: o.mcpUrl, headers: { Authorization: `Bearer \${${keyEnvVar(o.agent)}}` }, tools: ['*'] };
}

/** mcp-config.json (or a project's .github/mcp.json) with mcpServers.perch-NAME set, everything else as it was. */
export function setCopilotMcp(text: string | undefined, o: ConnectOptions, file = '~/.copilot/mcp-config.json'): string {
  const root = parseObject(text, file);
  setPerchServer(objectAt(root, 'mcpServers', file), o, copilotMcpEntry(o), file);
  return jsonText(root, text);
}

/**
 * The command that makes the door request with curl and fails open: the door's answer when the request succeeded
 * (curl -f: a 2xx), else {} (the hub down, a non-2xx answer, no curl), always with exit 0, so Copilot goes on as if
 * Perch were not there. The answer is held whole before it is written, so a request cut off midway adds nothing.
 */
export function copilotFailOpenCommand(o: ConnectOptions, sub: string): string {
  return `out=$(${curlHookCommand(o, 'copilot', sub)}) && printf '%s' "$out" || printf '{}'`;
}

/** One Perch hook of Copilot's: HTTP, or the fail-open curl command. */
export function copilotHookEntry(o: ConnectOptions, h: { sub: string; timeout: number; command?: true }): Json {
  if (h.command) return { type: 'command', bash: copilotFailOpenCommand(o, h.sub), timeoutSec: h.timeout };
  const env = keyEnvVar(o.agent);
  return {
    type: 'http',
    url: hookUrl(o, 'copilot', h.sub),
    headers: { Authorization: `Bearer $${env}` },
    allowedEnvVars: [env],
    timeoutSec: h.timeout,
  };
}

/**
 * The hooks file (version 1) with Perch's hook once under each event, in the place of an earlier one of Perch's; the
 * other hooks as they were. Another agent's Perch hooks are refused without --replace; another version of the file is.
 */
export function setCopilotHooks(text: string | undefined, o: ConnectOptions, file = '~/.copilot/hooks/perch.json'): string {
  const root = parseObject(text, file);
  if (root.version === undefined) {
    const rest = { ...root };
    for (const k of Object.keys(root)) delete root[k];
    Object.assign(root, { version: 1 }, rest);
  } else if (root.version !== 1) {
    throw new ConfigFileError(`${file} has "version": ${JSON.stringify(root.version)}; Perch writes Copilot's version 1 hooks`);
  }
  const hooks = objectAt(root, 'hooks', file);
  checkHookAgents(hooks, o, file);
  for (const h of COPILOT_HOOKS) {
    const list = hooks[h.event] ?? [];
    if (!Array.isArray(list)) throw new ConfigFileError(`${file}: hooks.${h.event} is not a list`);
    const at = list.findIndex((x) => perchHookSub(x) === h.sub);
    const ours = copilotHookEntry(o, h);
    const kept = list.filter((x) => perchHookSub(x) !== h.sub);
    kept.splice(at < 0 ? kept.length : at, 0, at >= 0 && sameJson(list[at], ours) ? list[at] : ours);
    hooks[h.event] = kept;
  }
  return jsonText(root, text);
}

/**
 * Copilot's hooks file for a hub away from the loopback (a container's http://host.docker.internal:…, the tailnet's
 * https front): every hook the fail-open curl command, since Copilot calls an HTTP hook at a plain-http URL only on
 * the loopback (and only with COPILOT_HOOK_ALLOW_LOCALHOST=1); curl does not care. Needs curl where Copilot runs.
 */
export function copilotAwayHooks(o: ConnectOptions): string {
  const hooks: Json = {};
  for (const h of COPILOT_HOOKS)
    hooks[h.event] = [
      { type: 'command', bash: copilotFailOpenCommand(o, h.sub), timeoutSec: h.command ? h.timeout : COPILOT_COMMAND_SECS },
    ];
  return jsonText({ version: 1, hooks });
}

/** The files `perch connect copilot` edits. */
export function copilotConfigEdits(o: ConnectOptions): ConfigEdit[] {
  const f = copilotFiles(!!o.project);
  const telemetry: ConfigEdit[] = o.project
    ? []
    : [
        // The token goes in here from connect's telemetry plan (connect-telemetry.ts); settings.json reads it with cat.
        { file: COPILOT_HEADERS_FILE, what: "the header of Copilot's OpenTelemetry", apply: (t) => t ?? '' },
        {
          file: COPILOT_SETTINGS_FILE,
          what: `telemetry.headersProvider (cat ${COPILOT_HEADERS_FILE.split('/').pop()}) and telemetry.capture of tool arguments and output, unless it has a headersProvider of your own`,
          apply: (t, file) => setCopilotTelemetrySettings(t, file.replace(/settings\.json$/, COPILOT_HEADERS_FILE.split('/').pop()!), file),
        },
      ];
  const how = `hooks to ${hookBaseUrl(o.mcpUrl)}/hook/copilot/…?agent=${encodeURIComponent(o.agent)}, the key from ${keyEnvVar(o.agent)}; preToolUse with curl, letting Copilot carry on when the hub cannot be reached`;
  return [
    {
      file: f.mcp,
      what: `Perch as the MCP server \`${serverName(o.agent)}\` (HTTP, the key as \${${keyEnvVar(o.agent)}})`,
      apply: (t, file) => setCopilotMcp(t, o, file),
    },
    {
      file: f.hooks,
      what: `the Perch hooks (${COPILOT_HOOKS.map((h) => h.event).join(', ')}: ${how})`,
      apply: (t, file) => setCopilotHooks(t, o, file),
    },
    ...telemetry,
  ];
}

/** The files `perch disconnect copilot` edits: the agent's server and hooks out; a hooks file left with only its version goes. */
export function copilotUnconfigEdits(agent: string, project: boolean): UnconfigEdit[] {
  const f = copilotFiles(project);
  return [
    { file: f.mcp, what: `the MCP server \`${serverName(agent)}\``, apply: (t, file) => unsetMcpServer(t, agent, file) },
    {
      file: f.hooks,
      what: `${agent}'s Perch hooks`,
      apply: (t, file) => {
        const left = unsetPerchHooks(t, 'copilot', agent, file);
        return left !== undefined && left !== t && sameJson(JSON.parse(left), { version: 1 }) ? undefined : left;
      },
    },
    ...(project
      ? []
      : [
          {
            file: COPILOT_SETTINGS_FILE,
            what: "Perch's telemetry.headersProvider and the capture it turned on",
            apply: (t: string | undefined, file: string) => unsetCopilotTelemetrySettings(t, file),
          },
          {
            file: COPILOT_HEADERS_FILE,
            what: "the header of Copilot's OpenTelemetry (the telemetry token)",
            apply: (t: string | undefined) => (t !== undefined && telemetryTokenIn(t) ? undefined : t),
          },
        ]),
  ];
}
