// What `perch connect CLIENT NAME` puts in a client's own config files (pure: text in, text out; the CLI in
// src/main/cli/connect.ts reads and writes the files). The agent's key is never written: every entry refers
// to PERCH_KEY_<NAME> in the environment.
//   claude-code: ~/.claude.json mcpServers.perch (user scope: HTTP with the key by reference, or with --channel
//                the stdio `perch channel`), ~/.claude/settings.json hooks → perch hook (perchHooks below).
//   codex:       ~/.codex/config.toml [mcp_servers.perch] with bearer_token_env_var, ~/.codex/hooks.json
//                hooks → perch hook (the same shape as Claude Code's).
//   cursor:      ~/.cursor/mcp.json mcpServers.perch (HTTP, the key as ${env:PERCH_KEY_<NAME>}), ~/.cursor/hooks.json
//                (version 1) beforeShellExecution and beforeMCPExecution → perch hook permission-request --harness cursor.
// Other clients get their snippet (src/shared/snippets.ts) to paste; they have no permission hook Perch answers.
import { keyEnvVar } from './snippets';
import { upsertTomlTable, tomlString } from './toml-table';

/** The MCP server name Perch takes in a client's config (one agent per client config: the one of its key). */
export const SERVER_NAME = 'perch';
/** Both harnesses kill a command hook after 600 s by default; `perch hook` gives up before (its --timeout). */
export const HOOK_TIMEOUT_SECS = 600;

export const CONNECT_CLIENTS = ['claude-code', 'codex', 'claude-desktop', 'cursor', 'vscode', 'windsurf', 'gemini', 'zed'] as const;
export type ConnectClient = (typeof CONNECT_CLIENTS)[number];
/** The clients whose config files `perch connect --write` edits; the others print a snippet. */
export const WRITABLE_CLIENTS: readonly ConnectClient[] = ['claude-code', 'codex', 'cursor'];
/** Cursor's permission hooks (its hooks reference: each answers permission allow | deny | ask). */
export const CURSOR_HOOK_EVENTS = ['beforeShellExecution', 'beforeMCPExecution'] as const;
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

function shellWord(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Whether a hook entry is one `perch connect` wrote for this `perch hook` subcommand (any agent, any options). */
function isPerchHook(h: unknown, sub: string): boolean {
  const c = (h as Json | null)?.command;
  return typeof c === 'string' && new RegExp(`(^|[\\s/"'])perch(\\.js)?["']?\\s+hook\\s+${sub}\\b`).test(c);
}

/** One hook `perch connect` manages: the harness's event and the `perch hook` subcommand it runs. */
export interface PerchHook {
  event: string;
  sub: string;
  timeout: number;
}

/**
 * The hooks each harness gets. Claude Code: all six events of its hooks reference that Perch uses; with the channel
 * the PermissionRequest hook is left out (the channel relays the same prompts: both would file each one). Codex:
 * its reference has no Notification or SessionEnd event.
 */
export function perchHooks(client: 'claude-code' | 'codex', o: ConnectOptions): PerchHook[] {
  const status = (event: string, sub: string): PerchHook => ({ event, sub, timeout: 10 });
  const hooks: PerchHook[] = [];
  if (!(client === 'claude-code' && o.channel)) hooks.push({ event: 'PermissionRequest', sub: 'permission-request', timeout: HOOK_TIMEOUT_SECS });
  hooks.push(status('PreToolUse', 'pre-tool-use'));
  if (client === 'claude-code') hooks.push(status('Notification', 'notification'));
  hooks.push(status('Stop', 'stop'), status('SessionStart', 'session-start'));
  if (client === 'claude-code') hooks.push(status('SessionEnd', 'session-end'));
  return hooks;
}

/** Every hook subcommand `perch connect` may have written, by event (so a hook no longer wanted is taken out). */
const ALL_PERCH_HOOKS: readonly PerchHook[] = perchHooks('claude-code', { agent: '', mcpUrl: '' }).concat({ event: 'PermissionRequest', sub: 'permission-request', timeout: HOOK_TIMEOUT_SECS });

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

/** One hook entry set (or taken out, want false) in a parsed hooks file, once, in the place of an earlier one. */
function setHook(hooks: Json, o: ConnectOptions, file: string, h: PerchHook, want: boolean): void {
  const groups = hooks[h.event] ?? [];
  if (!Array.isArray(groups)) throw new ConfigFileError(`${file}: hooks.${h.event} is not a list`);
  const command = `perch hook ${h.sub} --agent ${shellWord(o.agent)} --url ${shellWord(o.mcpUrl)}`;
  const ours = { hooks: [{ type: 'command', command, timeout: h.timeout }] };
  const kept: unknown[] = [];
  let at = -1;
  for (const g of groups) {
    const list = (g as Json | null)?.hooks;
    if (!Array.isArray(list) || !list.some((x) => isPerchHook(x, h.sub))) {
      kept.push(g);
      continue;
    }
    if (at < 0) at = kept.length;
    const rest = list.filter((x) => !isPerchHook(x, h.sub));
    if (rest.length) kept.push({ ...(g as Json), hooks: rest });
  }
  if (want) {
    if (at < 0) kept.push(ours);
    else kept.splice(at, 0, ours);
  }
  if (kept.length) hooks[h.event] = kept;
  else if (h.event in hooks) delete hooks[h.event];
}

/** A hooks file (Claude Code settings.json, Codex hooks.json) with Perch's PermissionRequest hook, once. */
export function setPermissionHook(text: string | undefined, o: ConnectOptions, file: string): string {
  const root = parseObject(text, file);
  setHook(objectAt(root, 'hooks', file), o, file, { event: 'PermissionRequest', sub: 'permission-request', timeout: HOOK_TIMEOUT_SECS }, true);
  return jsonText(root);
}

/** A hooks file with every Perch hook of this harness once (and Perch's hooks it no longer wants taken out). */
export function setPerchHooks(text: string | undefined, client: 'claude-code' | 'codex', o: ConnectOptions, file: string): string {
  const root = parseObject(text, file);
  const hooks = objectAt(root, 'hooks', file);
  const wanted = perchHooks(client, o);
  for (const h of wanted) setHook(hooks, o, file, h, true);
  for (const h of ALL_PERCH_HOOKS) if (!wanted.some((w) => w.event === h.event && w.sub === h.sub)) setHook(hooks, o, file, h, false);
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

/** Cursor's MCP entry for the agent: HTTP, the key by reference (Cursor fills in ${env:NAME} from its environment). */
export function cursorMcpEntry(o: ConnectOptions): Json {
  return { url: o.mcpUrl, headers: { Authorization: `Bearer \${env:${keyEnvVar(o.agent)}}` } };
}

/** ~/.cursor/mcp.json with mcpServers.perch set (everything else as it was). */
export function setCursorMcp(text: string | undefined, o: ConnectOptions, file = '~/.cursor/mcp.json'): string {
  const root = parseObject(text, file);
  objectAt(root, 'mcpServers', file)[SERVER_NAME] = cursorMcpEntry(o);
  return jsonText(root);
}

/** The command Cursor's hooks run (Cursor's hook entries have a command and nothing else Perch needs). */
export function cursorHookCommand(o: ConnectOptions): string {
  return `perch hook permission-request --harness cursor --agent ${shellWord(o.agent)} --url ${shellWord(o.mcpUrl)}`;
}

/**
 * ~/.cursor/hooks.json (version 1) with Perch's hook once under beforeShellExecution and beforeMCPExecution, in the
 * place of an earlier one of Perch's; the other hooks as they were. Another version of the file is refused.
 */
export function setCursorHooks(text: string | undefined, o: ConnectOptions, file = '~/.cursor/hooks.json'): string {
  const root = parseObject(text, file);
  if (root.version === undefined) {
    const { hooks, ...rest } = root;
    for (const k of Object.keys(root)) delete root[k];
    Object.assign(root, { version: 1 }, rest, hooks === undefined ? {} : { hooks });
  } else if (root.version !== 1) {
    throw new ConfigFileError(`${file} has "version": ${JSON.stringify(root.version)}; Perch writes Cursor's version 1 hooks`);
  }
  const hooks = objectAt(root, 'hooks', file);
  for (const event of CURSOR_HOOK_EVENTS) {
    const list = hooks[event] ?? [];
    if (!Array.isArray(list)) throw new ConfigFileError(`${file}: hooks.${event} is not a list`);
    const at = list.findIndex((h) => isPerchHook(h, 'permission-request'));
    const kept = list.filter((h) => !isPerchHook(h, 'permission-request'));
    kept.splice(at < 0 ? kept.length : at, 0, { command: cursorHookCommand(o) });
    hooks[event] = kept;
  }
  return jsonText(root);
}

/** One config file edit: the file (relative to the home dir), what it gets, and the edit. */
export interface ConfigEdit {
  file: string;
  what: string;
  apply: (text: string | undefined) => string;
}

/** What a hooks file gets, in words (the CLI says "already has …" / "added …"). */
function hooksWhat(client: 'claude-code' | 'codex', o: ConnectOptions): string {
  return `the Perch hooks (${perchHooks(client, o).map((h) => h.event).join(', ')}: \`perch hook …\`)`;
}

export function configEdits(client: ConnectClient, o: ConnectOptions): ConfigEdit[] {
  if (client === 'claude-code') {
    return [
      { file: '.claude.json', what: o.channel ? 'Perch as the MCP server `perch` (the stdio channel: `perch channel`)' : 'Perch as the MCP server `perch` (user scope, HTTP)', apply: (t) => setClaudeMcp(t, o) },
      { file: '.claude/settings.json', what: hooksWhat('claude-code', o), apply: (t) => setPerchHooks(t, 'claude-code', o, '~/.claude/settings.json') },
    ];
  }
  if (client === 'codex') {
    return [
      { file: '.codex/config.toml', what: 'Perch as the MCP server [mcp_servers.perch]', apply: (t) => setCodexMcp(t, o) },
      { file: '.codex/hooks.json', what: hooksWhat('codex', o), apply: (t) => setPerchHooks(t, 'codex', o, '~/.codex/hooks.json') },
    ];
  }
  if (client === 'cursor') {
    return [
      { file: '.cursor/mcp.json', what: `Perch as the MCP server \`perch\` (HTTP, the key as \${env:${keyEnvVar(o.agent)}})`, apply: (t) => setCursorMcp(t, o) },
      { file: '.cursor/hooks.json', what: `the Perch permission hooks (${CURSOR_HOOK_EVENTS.join(', ')}: \`perch hook permission-request --harness cursor …\`)`, apply: (t) => setCursorHooks(t, o) },
    ];
  }
  return [];
}

/** How to start the client once connected (the key in the environment). */
export function startCommand(client: ConnectClient, o: ConnectOptions): string | undefined {
  if (client === 'claude-code') return o.channel ? `claude --dangerously-load-development-channels server:${SERVER_NAME}` : 'claude';
  if (client === 'codex') return 'codex';
  if (client === 'cursor') return 'cursor .';
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
    perch_connect: `perch connect claude-code ${agent} --write   # ~/.claude.json + ~/.claude/settings.json\nperch connect codex ${agent} --write         # ~/.codex/config.toml + ~/.codex/hooks.json\nperch connect cursor ${agent} --write        # ~/.cursor/mcp.json + ~/.cursor/hooks.json`,
    permission_hook: hooksSnippet(o),
  };
}
