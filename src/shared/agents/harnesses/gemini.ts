// What `perch connect gemini NAME` puts in Gemini CLI's settings file, and `perch disconnect gemini NAME` takes out
// again (pure: text in, text out; the CLI reads and writes the file through config-files.ts, as for the other
// harnesses). One file holds both: ~/.gemini/settings.json (user scope) or DIR/.gemini/settings.json (project scope).
//   mcpServers.perch-NAME: {httpUrl, headers: {Authorization: "Bearer $PERCH_KEY_<NAME>"}, trust: true}; Gemini
//     expands the variable from its environment, so the key is never in the file; trust: its tools run without
//     Gemini's confirmation (the hub governs every call of them itself, as Claude Code's allow rule says).
//   hooks: BeforeTool, AfterTool, AfterAgent, SessionStart, SessionEnd, Notification, each one command hook that makes
//     the one request to the hub's door POST <base>/hook/gemini/<event>?agent=NAME with curl (harness-config.ts
//     curlHookCommand: the key read from PERCH_KEY_<NAME> by the shell, never on curl's argv). Gemini's hook timeout
//     is in milliseconds. With --ask, BeforeTool's URL says ask=1: a shell command or file write no standing rule
//     decides waits for the owner's decision on a card (the door: src/main/mcp/hook-door/gemini.ts), so its timeout is
//     the long one.
//   telemetry (user scope, added by connect's telemetry plan: telemetry-config.ts setGeminiTelemetry): enabled,
//     otlpProtocol "http", otlpEndpoint <base>/otlp/<the agent's telemetry token>.
import { keyEnvVar } from '../key-env';
import { ConfigFileError, jsonText, objectAt, parseObject, sameJson, type Json } from '../config-json';
import {
  CURL_PERMISSION_SECS,
  HOOK_TIMEOUT_SECS,
  STATUS_HOOK_SECS,
  checkHookAgents,
  curlHookCommand,
  hookBaseUrl,
  perchHookSub,
  serverName,
  setPerchServer,
  type ConfigEdit,
  type ConnectOptions,
} from '../harness-config';
import { unsetMcpServer, unsetPerchHooks, type UnconfigEdit } from '../harness-unconfig';
import { unsetGeminiTelemetry, type UnsetTelemetryOptions } from '../telemetry-config';

/** Gemini's hook events Perch uses, each with its door event. */
export const GEMINI_HOOKS: readonly { event: string; sub: string }[] = [
  { event: 'BeforeTool', sub: 'pre-tool-use' },
  { event: 'AfterTool', sub: 'post-tool-use' },
  { event: 'AfterAgent', sub: 'stop' },
  { event: 'SessionStart', sub: 'session-start' },
  { event: 'SessionEnd', sub: 'session-end' },
  { event: 'Notification', sub: 'notification' },
];

/** The settings file, relative to the home dir (user scope) or the project dir. */
export const GEMINI_SETTINGS = '.gemini/settings.json';

/** Gemini's MCP entry for the agent: streamable HTTP, the key by reference, its tools trusted (no confirmation). */
export function geminiMcpEntry(o: ConnectOptions): Json {
  return { httpUrl: o.mcpUrl, headers: { Authorization: `Bearer $${keyEnvVar(o.agent)}` }, trust: true };
}

/** Whether a hook waits for the owner: BeforeTool with --ask. */
function waits(o: ConnectOptions, sub: string): boolean {
  return !!o.ask && sub === 'pre-tool-use';
}

/** One Perch hook group of Gemini's: the curl command to the door, named, its timeout in milliseconds. */
export function geminiHookGroup(o: ConnectOptions, sub: string): Json {
  const long = waits(o, sub);
  return {
    hooks: [
      {
        type: 'command',
        name: `perch-${sub}`,
        command: curlHookCommand(o, 'gemini', sub, long ? { secs: CURL_PERMISSION_SECS, query: 'ask=1' } : { secs: STATUS_HOOK_SECS }),
        timeout: (long ? HOOK_TIMEOUT_SECS : STATUS_HOOK_SECS) * 1000,
      },
    ],
  };
}

/** settings.json with mcpServers.perch-NAME and Perch's hooks once under each event (in the place of earlier ones). */
export function setGeminiSettings(text: string | undefined, o: ConnectOptions, file = `~/${GEMINI_SETTINGS}`): string {
  const root = parseObject(text, file);
  setPerchServer(objectAt(root, 'mcpServers', file), o, geminiMcpEntry(o), file);
  const hooks = objectAt(root, 'hooks', file);
  checkHookAgents(hooks, o, file);
  for (const h of GEMINI_HOOKS) {
    const groups = hooks[h.event] ?? [];
    if (!Array.isArray(groups)) throw new ConfigFileError(`${file}: hooks.${h.event} is not a list`);
    let ours: unknown = geminiHookGroup(o, h.sub);
    const kept: unknown[] = [];
    let at = -1;
    for (const g of groups) {
      const list = (g as Json | null)?.hooks;
      if (!Array.isArray(list) || !list.some((x) => perchHookSub(x) === h.sub)) {
        kept.push(g);
        continue;
      }
      if (at < 0) {
        at = kept.length;
        if (sameJson(g, ours)) ours = g;
      }
      const rest = list.filter((x) => perchHookSub(x) !== h.sub);
      if (rest.length) kept.push({ ...(g as Json), hooks: rest });
    }
    kept.splice(at < 0 ? kept.length : at, 0, ours);
    hooks[h.event] = kept;
  }
  return jsonText(root, text);
}

/** The file `perch connect gemini` edits. */
export function geminiConfigEdits(o: ConnectOptions): ConfigEdit[] {
  const how = `curl to ${hookBaseUrl(o.mcpUrl)}/hook/gemini/…?agent=${encodeURIComponent(o.agent)}, the key from ${keyEnvVar(o.agent)}`;
  return [
    {
      file: GEMINI_SETTINGS,
      what: `Perch as the MCP server \`${serverName(o.agent)}\` (HTTP, the key as $${keyEnvVar(o.agent)}, trusted) and the Perch hooks (${GEMINI_HOOKS.map((h) => h.event).join(', ')}: ${how}${o.ask ? '; BeforeTool asks you about shell commands and file writes no standing rule decides' : ''})`,
      apply: (t, file) => setGeminiSettings(t, o, file),
    },
  ];
}

/**
 * The file `perch disconnect gemini` edits: the agent's server and hooks out, and (telemetry given) its Perch
 * telemetry (telemetry-config.ts); a file left empty goes.
 */
export function geminiUnconfigEdits(agent: string, telemetry?: UnsetTelemetryOptions): UnconfigEdit[] {
  return [
    {
      file: GEMINI_SETTINGS,
      what: `the MCP server \`${serverName(agent)}\` and ${agent}'s Perch hooks${telemetry ? ` and ${agent}'s Perch telemetry` : ''}`,
      apply: (t, file) => {
        const server = unsetMcpServer(t, agent, file);
        let left = server === undefined ? undefined : unsetPerchHooks(server, 'gemini', agent, file);
        if (left !== undefined && telemetry) {
          const root = parseObject(left, file);
          const was = JSON.stringify(root);
          unsetGeminiTelemetry(root, telemetry, left !== t);
          if (JSON.stringify(root) !== was) left = Object.keys(root).length === 0 ? undefined : jsonText(root, left);
        }
        return left;
      },
    },
  ];
}
