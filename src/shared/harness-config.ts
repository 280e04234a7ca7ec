// What `perch connect CLIENT NAME` puts in a client's own config files (pure: text in, text out; the CLI in
// src/main/cli/connect.ts reads and writes the files). The agent's key is never written: every entry refers
// to PERCH_KEY_<NAME> in the environment.
//   claude-code: ~/.claude.json mcpServers.perch (user scope: HTTP with the key by reference, or with --channel
//                the stdio `perch channel`), ~/.claude/settings.json hooks.PermissionRequest → perch hook.
//   codex:       ~/.codex/config.toml [mcp_servers.perch] with bearer_token_env_var, ~/.codex/hooks.json
//                hooks.PermissionRequest → perch hook (the same shape as Claude Code's).
// Other clients get their snippet (src/shared/snippets.ts) to paste; they have no permission hook.
import { keyEnvVar } from './snippets';
import { upsertTomlTable, tomlString } from './toml-table';

/** The MCP server name Perch takes in a client's config (one agent per client config: the one of its key). */
export const SERVER_NAME = 'perch';
/** Both harnesses kill a command hook after 600 s by default; `perch hook` gives up before (its --timeout). */
export const HOOK_TIMEOUT_SECS = 600;

export const CONNECT_CLIENTS = ['claude-code', 'codex', 'claude-desktop', 'cursor', 'vscode', 'windsurf', 'gemini', 'zed'] as const;
export type ConnectClient = (typeof CONNECT_CLIENTS)[number];
/** The clients whose config files `perch connect --write` edits; the others print a snippet. */
export const WRITABLE_CLIENTS: readonly ConnectClient[] = ['claude-code', 'codex'];
/** The key of each client's snippet in connectionSnippets(). */
export const SNIPPET_OF: Record<ConnectClient, string> = {
  'claude-code': 'claude_code', codex: 'codex', 'claude-desktop': 'claude_desktop', cursor: 'cursor', vscode: 'vscode', windsurf: 'windsurf', gemini: 'gemini', zed: 'zed',
};

export interface ConnectOptions {
  agent: string;
  mcpUrl: string;
  /** claude-code: the MCP entry is the stdio `perch channel` (pushes messages into the session) instead of HTTP. */
  channel?: boolean;
}

/** A problem with a config file that is there (not JSON, an unexpected shape): nothing is written. */
export class ConfigFileError extends Error {}

type Json = Record<string, unknown>;

/** The hook command line: the agent by name (its key from PERCH_KEY_<NAME>), the hub's URL explicit. */
export function permissionHookCommand(o: ConnectOptions): string {
  return `perch hook permission-request --agent ${shellWord(o.agent)} --url ${shellWord(o.mcpUrl)}`;
}

function shellWord(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Whether a hook entry is one `perch connect` wrote (any agent, any options). */
function isPerchPermissionHook(h: unknown): boolean {
  const c = (h as Json | null)?.command;
  return typeof c === 'string' && /(^|[\s/"'])perch(\.js)?["']?\s+hook\s+permission-request\b/.test(c);
}

function parseObject(text: string | undefined, file: string): Json {
  if (text === undefined || text.trim() === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new ConfigFileError(`${file} is not valid JSON (${(e as Error).message}); fix or move it, then run again`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new ConfigFileError(`${file} is not a JSON object`);
  return v as Json;
}

function objectAt(o: Json, key: string, file: string): Json {
  const v = o[key];
  if (v === undefined) return (o[key] = {});
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new ConfigFileError(`${file}: "${key}" is not an object`);
  return v as Json;
}

/** JSON as both harnesses write their files: two spaces, a final newline. */
function jsonText(o: Json): string {
  return `${JSON.stringify(o, null, 2)}\n`;
}

/** Claude Code's MCP entry for the agent. */
export function claudeMcpEntry(o: ConnectOptions): Json {
  if (o.channel) return { type: 'stdio', command: 'perch', args: ['channel', '--agent', o.agent], env: { PERCH_URL: o.mcpUrl } };
  return { type: 'http', url: o.mcpUrl, headers: { Authorization: `Bearer \${${keyEnvVar(o.agent)}}` } };
}

/** ~/.claude.json with mcpServers.perch set (everything else as it was). */
export function setClaudeMcp(text: string | undefined, o: ConnectOptions, file = '~/.claude.json'): string {
  const root = parseObject(text, file);
  objectAt(root, 'mcpServers', file)[SERVER_NAME] = claudeMcpEntry(o);
  return jsonText(root);
}

/** A hooks file (Claude Code settings.json, Codex hooks.json) with Perch's PermissionRequest hook, once. */
export function setPermissionHook(text: string | undefined, o: ConnectOptions, file: string): string {
  const root = parseObject(text, file);
  const hooks = objectAt(root, 'hooks', file);
  const groups = hooks.PermissionRequest ?? [];
  if (!Array.isArray(groups)) throw new ConfigFileError(`${file}: hooks.PermissionRequest is not a list`);
  const ours = { hooks: [{ type: 'command', command: permissionHookCommand(o), timeout: HOOK_TIMEOUT_SECS }] };
  const kept: unknown[] = [];
  let at = -1;
  for (const g of groups) {
    const list = (g as Json | null)?.hooks;
    if (!Array.isArray(list) || !list.some(isPerchPermissionHook)) {
      kept.push(g);
      continue;
    }
    if (at < 0) at = kept.length;
    const rest = list.filter((h) => !isPerchPermissionHook(h));
    if (rest.length) kept.push({ ...(g as Json), hooks: rest });
  }
  if (at < 0) kept.push(ours);
  else kept.splice(at, 0, ours);
  hooks.PermissionRequest = kept;
  return jsonText(root);
}

/** The lines of Codex's [mcp_servers.perch] table. */
export function codexMcpLines(o: ConnectOptions): string[] {
  return [`url = ${tomlString(o.mcpUrl)}`, `bearer_token_env_var = ${tomlString(keyEnvVar(o.agent))}`];
}

/** ~/.codex/config.toml with [mcp_servers.perch] added or replaced (every other line kept as it was). */
export function setCodexMcp(text: string | undefined, o: ConnectOptions): string {
  return upsertTomlTable(text ?? '', ['mcp_servers', SERVER_NAME], codexMcpLines(o));
}

/** One config file edit: the file (relative to the home dir), what it gets, and the edit. */
export interface ConfigEdit {
  file: string;
  what: string;
  apply: (text: string | undefined) => string;
}

export function configEdits(client: ConnectClient, o: ConnectOptions): ConfigEdit[] {
  if (client === 'claude-code') {
    return [
      { file: '.claude.json', what: o.channel ? 'Perch as the MCP server `perch` (the stdio channel: `perch channel`)' : 'Perch as the MCP server `perch` (user scope, HTTP)', apply: (t) => setClaudeMcp(t, o) },
      { file: '.claude/settings.json', what: 'the PermissionRequest hook (`perch hook permission-request`)', apply: (t) => setPermissionHook(t, o, '~/.claude/settings.json') },
    ];
  }
  if (client === 'codex') {
    return [
      { file: '.codex/config.toml', what: 'Perch as the MCP server [mcp_servers.perch]', apply: (t) => setCodexMcp(t, o) },
      { file: '.codex/hooks.json', what: 'the PermissionRequest hook (`perch hook permission-request`)', apply: (t) => setPermissionHook(t, o, '~/.codex/hooks.json') },
    ];
  }
  return [];
}

/** How to start the client once connected (the key in the environment). */
export function startCommand(client: ConnectClient, o: ConnectOptions): string | undefined {
  if (client === 'claude-code') return o.channel ? `claude --dangerously-load-development-channels server:${SERVER_NAME}` : 'claude';
  if (client === 'codex') return 'codex';
  return undefined;
}

/** The hooks part of each harness's config, as a snippet (the Agents page's Connect dialog shows it). */
export function hooksSnippet(o: ConnectOptions): string {
  return setPermissionHook(undefined, o, 'hooks').trimEnd();
}

/**
 * The snippets the Agents page adds to a client's connection snippets: the one `perch connect` command per
 * harness (MCP entry and permission hook at once) and the hook itself, to paste into a hooks file by hand.
 */
export function harnessSnippets(mcpUrl: string, agent: string): Record<string, string> {
  const o = { agent, mcpUrl };
  return {
    perch_connect: `perch connect claude-code ${agent} --write   # ~/.claude.json + ~/.claude/settings.json\nperch connect codex ${agent} --write         # ~/.codex/config.toml + ~/.codex/hooks.json`,
    permission_hook: hooksSnippet(o),
  };
}
