// What `perch disconnect CLIENT NAME` takes out of a client's config files (pure: text in, text out, undefined for
// "remove the file"): exactly what `perch connect` put there for that agent (harness-config.ts), and nothing of
// anyone else's. The agent's MCP server entry perch-NAME (and an earlier unnamed "perch" entry with its key), its
// Perch hooks of either form, Claude Code's permissions.allow mcp__perch-NAME; a list, object or table left empty by
// that goes too, and a file left holding nothing is removed. Codex's approval_policy stays (connect sets it only where
// a file had none or "never", and cannot tell afterwards whether it did). Claude Code's and Codex's telemetry settings
// go too when they are Perch's for that agent (telemetry-config.ts: the hub's endpoint and the agent's perch_otlp_
// token); a user's own telemetry stays.
import { keyEnvVar } from './key-env';
import { jsonText, objectAt, parseObject, sameJson, type Json } from './config-json';
import { entryKeyVar, hookKeyVar, isPerchServer, perchHookSub, serverName, type ConnectClient } from './harness-config';
import { perchAllowRule } from './harnesses/claude-code';
import { removeTomlTable, tomlTables } from '../text/toml-table';
import { unsetClaudeTelemetry, unsetCodexTelemetry, type UnsetTelemetryOptions } from './telemetry-config';

/** The text for what is left: undefined (remove the file) when nothing is, the old text when nothing changed. */
function leftText(root: Json, old: string | undefined): string | undefined {
  if (old === undefined) return undefined;
  if (Object.keys(root).length === 0) return undefined;
  return jsonText(root, old);
}

/** Drops key from o when its value is an empty object or list. */
function dropEmpty(o: Json, key: string): void {
  const v = o[key];
  if (v && typeof v === 'object' && Object.keys(v).length === 0) delete o[key];
}

/** Whether an MCP server entry of the file is this agent's Perch server. */
function isAgentServer(name: string, entry: unknown, agent: string): boolean {
  return name === serverName(agent) || (isPerchServer(name) && entryKeyVar(name, entry) === keyEnvVar(agent));
}

/** mcpServers without the agent's Perch server (Claude Code's ~/.claude.json or .mcp.json, Cursor's mcp.json). */
export function unsetMcpServer(text: string | undefined, agent: string, file: string): string | undefined {
  const root = parseObject(text, file);
  if (root.mcpServers === undefined) return text;
  const servers = objectAt(root, 'mcpServers', file);
  for (const name of Object.keys(servers)) if (isAgentServer(name, servers[name], agent)) delete servers[name];
  dropEmpty(root, 'mcpServers');
  return leftText(root, text);
}

/** Whether a hook entry is a Perch hook of this agent (either form; the key variable it reads tells whose). */
function isAgentHook(h: unknown, agent: string): boolean {
  return perchHookSub(h) !== undefined && hookKeyVar(h as Json) === keyEnvVar(agent);
}

/**
 * A hooks file (Claude Code's settings, Codex's hooks.json, Cursor's hooks.json) without the agent's Perch hooks (and,
 * given telemetry, Claude Code's settings without the agent's Perch telemetry).
 */
export function unsetPerchHooks(
  text: string | undefined,
  client: ConnectClient,
  agent: string,
  file: string,
  telemetry?: UnsetTelemetryOptions,
): string | undefined {
  const root = parseObject(text, file);
  let held = false;
  if (root.hooks !== undefined) {
    const hooks = objectAt(root, 'hooks', file);
    for (const event of Object.keys(hooks)) {
      const list = hooks[event];
      if (!Array.isArray(list)) continue;
      const kept: unknown[] = [];
      for (const g of list) {
        const inner = (g as Json | null)?.hooks;
        if (Array.isArray(inner)) {
          // Claude Code and Codex: groups of { matcher?, hooks: [...] }; a group left without hooks goes.
          const rest = inner.filter((h) => !isAgentHook(h, agent));
          if (rest.length !== inner.length) held = true;
          if (rest.length === inner.length) kept.push(g);
          else if (rest.length) kept.push({ ...(g as Json), hooks: rest });
        } else if (!isAgentHook(g, agent))
          kept.push(g); // Cursor: [{ command }]
        else held = true;
      }
      if (kept.length) hooks[event] = kept;
      else delete hooks[event];
    }
    dropEmpty(root, 'hooks');
  }
  if (client === 'claude-code' && root.permissions && typeof root.permissions === 'object' && !Array.isArray(root.permissions)) {
    const permissions = root.permissions as Json;
    if (Array.isArray(permissions.allow)) {
      const allow = permissions.allow.filter((r) => r !== perchAllowRule(agent));
      if (allow.length !== permissions.allow.length) held = true;
      permissions.allow = allow;
      dropEmpty(permissions, 'allow');
    }
    dropEmpty(root, 'permissions');
  }
  if (client === 'claude-code' && telemetry) unsetClaudeTelemetry(root, telemetry, held);
  // Cursor's hooks.json: the version connect put in a new file is all that is left of it.
  if (client === 'cursor' && sameJson(root, { version: 1 })) return leftText({}, text);
  return leftText(root, text);
}

/** Codex's config.toml without [mcp_servers.perch-NAME] (and its sub-tables), every other line as it was. */
export function unsetCodexMcp(text: string | undefined, agent: string): string | undefined {
  if (text === undefined) return undefined;
  let t = text;
  const mine = tomlTables(t).filter(
    (x) =>
      x.path.length === 2 &&
      x.path[0] === 'mcp_servers' &&
      (x.path[1] === serverName(agent) ||
        (isPerchServer(x.path[1]!) &&
          x.body.some((l) => new RegExp(`^\\s*bearer_token_env_var\\s*=\\s*["']${keyEnvVar(agent)}["']`).test(l)))),
  );
  for (const table of mine.reverse()) t = removeTomlTable(t, table.path);
  if (t === text) return text;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  // removeTomlTable joins the lines left: the file keeps its final newline.
  if (text.endsWith(eol) && !t.endsWith(eol)) t += eol;
  return t.trim() === '' ? undefined : t;
}

/** One config file edit of disconnect (as configEdits for connect): the file and the edit (undefined: remove the file). */
export interface UnconfigEdit {
  file: string;
  what: string;
  apply: (text: string | undefined, file: string) => string | undefined;
}

/** The files `perch disconnect` edits for a client: the ones `perch connect` writes at the same scope. */
export function unconfigEdits(client: ConnectClient, agent: string, project: boolean, telemetry?: UnsetTelemetryOptions): UnconfigEdit[] {
  const server = `the MCP server \`${serverName(agent)}\``;
  const hooks = `${agent}'s Perch hooks`;
  if (client === 'claude-code')
    return [
      { file: project ? '.mcp.json' : '.claude.json', what: server, apply: (t, f) => unsetMcpServer(t, agent, f) },
      {
        file: project ? '.claude/settings.local.json' : '.claude/settings.json',
        what: `${hooks}, permissions.allow ${perchAllowRule(agent)}${telemetry ? ` and ${agent}'s Perch telemetry (env)` : ''}`,
        apply: (t, f) => unsetPerchHooks(t, client, agent, f, telemetry),
      },
    ];
  if (client === 'codex')
    return [
      {
        file: '.codex/config.toml',
        what: `[mcp_servers.${serverName(agent)}]${telemetry ? ` and ${agent}'s Perch exporter in [otel]` : ''}`,
        apply: (t) => {
          const left = unsetCodexMcp(t, agent);
          return telemetry ? unsetCodexTelemetry(left, telemetry, left !== t) : left;
        },
      },
      { file: '.codex/hooks.json', what: hooks, apply: (t, f) => unsetPerchHooks(t, client, agent, f) },
    ];
  if (client === 'cursor')
    return [
      { file: '.cursor/mcp.json', what: server, apply: (t, f) => unsetMcpServer(t, agent, f) },
      { file: '.cursor/hooks.json', what: hooks, apply: (t, f) => unsetPerchHooks(t, client, agent, f) },
    ];
  return [];
}
