// What every harness's `perch connect CLIENT NAME` entries share (pure: text in, text out; the CLI in
// src/main/cli/agents/connect.ts reads and writes the files; each harness's own entries are built in
// src/shared/agents/harnesses/, one file per harness, and harnesses/connect-edits.ts says which files each client
// gets). The agent's key is never written: every entry refers to PERCH_KEY_<NAME> in the environment. The MCP server
// is named perch-NAME (serverName), so the entries of two agents can sit side by side; one scope (the user's, or a
// project's with --project) is one agent's, and another agent's Perch entries there are replaced only with --replace
// (AgentConflict otherwise).
// The hooks reach the hub's hook door, POST <base>/hook/<harness>/<event>?agent=NAME (base: the MCP URL without its
// final /mcp), in one request each: the harness's own HTTP hooks where it has them, else the curl command below. With
// --hooks perch they are the commands `perch hook …` instead (as every Perch hook was before the hook door); either
// form is recognised as Perch's (perchHookSub), so a second run replaces an earlier entry in its place.
import { keyEnvVar } from './key-env';
import { ConfigFileError, type Json, sameJson } from './config-json';

/** The prefix of Perch's MCP server names (before this change, one agent's entry was named just this). */
export const SERVER_NAME = 'perch';
/** The MCP server name of agent NAME in a client's config: perch-NAME. */
export function serverName(agent: string): string {
  return `${SERVER_NAME}-${agent}`;
}
/** Both harnesses kill a command hook after 600 s by default; `perch hook` gives up before (its --timeout). */
export const HOOK_TIMEOUT_SECS = 600;
/** curl's --max-time of a permission-request hook: past the hub's wait for the owner (540 s), before the harness's 600 s. */
export const CURL_PERMISSION_SECS = 590;
/** The timeout of the status hooks (and their curl's --max-time): they report, and never wait for anyone. */
export const STATUS_HOOK_SECS = 10;

export const CONNECT_CLIENTS = [
  'claude-code',
  'codex',
  'claude-desktop',
  'cursor',
  'copilot',
  'opencode',
  'vscode',
  'windsurf',
  'gemini',
  'zed',
] as const;
export type ConnectClient = (typeof CONNECT_CLIENTS)[number];
/** The clients whose config files `perch connect --write` edits; the others print a snippet. */
export const WRITABLE_CLIENTS: readonly ConnectClient[] = ['claude-code', 'codex', 'cursor', 'copilot', 'gemini', 'opencode'];
/** The key of each client's snippet in connectionSnippets(). */
export const SNIPPET_OF: Record<ConnectClient, string> = {
  'claude-code': 'claude_code',
  codex: 'codex',
  'claude-desktop': 'claude_desktop',
  cursor: 'cursor',
  copilot: 'copilot',
  opencode: 'opencode',
  vscode: 'vscode',
  windsurf: 'windsurf',
  gemini: 'gemini',
  zed: 'zed',
};

export interface ConnectOptions {
  agent: string;
  mcpUrl: string;
  /** claude-code: the MCP entry is the stdio `perch channel` (pushes messages into the session) instead of HTTP. */
  channel?: boolean;
  /** Another agent's Perch entries in the same files are replaced; without it they make an AgentConflict. */
  replace?: boolean;
  /** The project scope: the files are a project's (DIR/.mcp.json, …), not the user's. */
  project?: boolean;
  /** How the hooks reach the hub: 'request' (the default: Claude Code's HTTP hooks, curl for Codex and Cursor) or 'perch' (`perch hook …`). */
  hooks?: HookStyle;
  /** gemini: BeforeTool files a card and waits for the owner when no standing rule decides a shell command or file write. */
  ask?: boolean;
}

/**
 * How the written hooks reach the hub. request: each hook is one HTTP request to the hub's hook door (Claude Code's
 * own HTTP hooks; a curl command for Codex and Cursor), so the harness needs neither perch nor Node. perch: the
 * command `perch hook …` (for a machine where curl cannot be used, e.g. a Windows shell without $VAR expansion).
 */
export const HOOK_STYLES = ['request', 'perch'] as const;
export type HookStyle = (typeof HOOK_STYLES)[number];

export { ConfigFileError };

/** The file connects another agent already: nothing is written unless --replace. */
export class AgentConflict extends ConfigFileError {}

/** Whether an MCP server name is one of Perch's (perch, perch-NAME). */
export function isPerchServer(name: string): boolean {
  return name === SERVER_NAME || name.startsWith(`${SERVER_NAME}-`);
}

/** The refusal for a file that connects another agent (`who`) already. */
export function conflict(file: string, who: string, o: ConnectOptions): AgentConflict {
  return new AgentConflict(
    `${file} connects ${who} already, and connecting ${o.agent} there would replace it. Run again with --replace to make it ${o.agent}${o.project ? '' : `, or connect ${o.agent} for one repository only with --project DIR`}`,
  );
}

/** Which agent's key a Perch MCP entry uses (its PERCH_KEY_… variable, the channel's --agent, else the name after perch-). */
export function entryKeyVar(name: string, entry: unknown): string | undefined {
  const args = (entry as Json | null)?.args;
  if (Array.isArray(args) && args.includes('--agent') && typeof args[args.indexOf('--agent') + 1] === 'string')
    return keyEnvVar(args[args.indexOf('--agent') + 1] as string);
  const m = /PERCH_KEY_[A-Z0-9_]+/.exec(JSON.stringify(entry) ?? '');
  if (m) return m[0];
  return name.startsWith(`${SERVER_NAME}-`) ? keyEnvVar(name.slice(SERVER_NAME.length + 1)) : undefined;
}

/** How the refusal names the agent of another Perch entry. */
export function entryWho(name: string, keyVar: string | undefined): string {
  if (name.startsWith(`${SERVER_NAME}-`)) return `agent ${name.slice(SERVER_NAME.length + 1)} (MCP server ${name})`;
  return keyVar ? `the agent of ${keyVar} (MCP server ${name})` : `another agent (MCP server ${name})`;
}

/** The servers object with agent's entry as perch-NAME: its own earlier entries go, another agent's only with --replace. */
export function setPerchServer(servers: Json, o: ConnectOptions, entry: Json, file: string): void {
  const mine = serverName(o.agent);
  for (const k of Object.keys(servers)) {
    if (k === mine || !isPerchServer(k)) continue;
    const v = entryKeyVar(k, servers[k]);
    if (v !== keyEnvVar(o.agent) && !o.replace) throw conflict(file, entryWho(k, v), o);
    delete servers[k];
  }
  // The entry as it is when it says the same (Claude Code may have written its keys in another order).
  if (!sameJson(servers[mine], entry)) servers[mine] = entry;
}

export function shellWord(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The event (the `perch hook` subcommand, the hook door's path) of a hook entry `perch connect` wrote, for any agent
 * and options, or undefined for anyone else's hook. Three forms are Perch's: the command `perch hook SUB …` (--hooks
 * perch, and every entry before the hook door), Claude Code's HTTP hook to …/hook/<harness>/SUB with a PERCH_KEY_…
 * header, and the curl command to …/hook/<harness>/SUB with a PERCH_KEY_… header (Codex, Cursor).
 */
export function perchHookSub(h: unknown): string | undefined {
  const e = h as Json | null;
  const c = typeof e?.command === 'string' ? e.command : e?.bash; // Copilot's command hooks: the command under "bash"
  if (typeof c === 'string') {
    const sub = /(?:^|[\s/"'])perch(?:\.js)?["']?\s+hook\s+([a-z-]+)/.exec(c)?.[1];
    if (sub) return sub;
    if (/(?:^|\s)curl\s/.test(c) && /PERCH_KEY_/.test(c)) return /\/hook\/[a-z-]+\/([a-z-]+)(?:[?'"\s]|$)/.exec(c)?.[1];
    return undefined;
  }
  if (e?.type === 'http' && typeof e.url === 'string' && /PERCH_KEY_/.test(JSON.stringify(e.headers ?? {})))
    return /\/hook\/[a-z-]+\/([a-z-]+)(?:[?#]|$)/.exec(e.url)?.[1];
  return undefined;
}

/** Whether a hook entry is one of Perch's for this event (the `perch hook` subcommand). */
export function isPerchHook(h: unknown, sub: string): boolean {
  return perchHookSub(h) === sub;
}

/** The agent a Perch hook names (--agent NAME, ?agent=NAME), or undefined (it reads PERCH_KEY). */
function hookAgent(h: Json): string | undefined {
  const text = typeof h.command === 'string' ? h.command : typeof h.bash === 'string' ? h.bash : '';
  const named = /\s--agent\s+'?([^\s']+)'?/.exec(text)?.[1];
  if (named) return named;
  const q = /[?&]agent=([^&'"\s#]+)/.exec(typeof h.url === 'string' ? h.url : text)?.[1];
  if (q === undefined) return undefined;
  try {
    return decodeURIComponent(q);
  } catch {
    return q;
  }
}

/** The key variable a Perch hook reads: PERCH_KEY_<NAME> of its agent, or PERCH_KEY for a `perch hook` without --agent. */
export function hookKeyVar(h: Json): string {
  const a = hookAgent(h);
  if (a !== undefined) return keyEnvVar(a);
  return /PERCH_KEY_[A-Z0-9_]+/.exec(JSON.stringify(h))?.[0] ?? 'PERCH_KEY';
}

/** Refuses (AgentConflict) a hooks object holding another agent's Perch hooks, unless --replace. */
export function checkHookAgents(hooks: Json, o: ConnectOptions, file: string): void {
  if (o.replace) return;
  for (const list of Object.values(hooks)) {
    if (!Array.isArray(list)) continue;
    // Claude Code and Codex: groups of { hooks: [{ command | url }] }; Cursor: [{ command }].
    for (const h of list.flatMap((g) => (Array.isArray((g as Json | null)?.hooks) ? ((g as Json).hooks as unknown[]) : [g]))) {
      if (perchHookSub(h) === undefined) continue;
      const v = hookKeyVar(h as Json);
      if (v === keyEnvVar(o.agent)) continue;
      const a = hookAgent(h as Json);
      throw conflict(
        file,
        v === 'PERCH_KEY' ? 'the agent of PERCH_KEY (a Perch hook without --agent)' : `agent ${a ?? v} (its Perch hooks)`,
        o,
      );
    }
  }
}

/** One hook `perch connect` manages: the harness's event and the `perch hook` subcommand it runs. */
export interface PerchHook {
  event: string;
  sub: string;
  timeout: number;
}

/** The hub's base URL of the hook door: the agent's MCP URL without its final /mcp (http://127.0.0.1:7457/mcp → http://127.0.0.1:7457). */
export function hookBaseUrl(mcpUrl: string): string {
  return mcpUrl.replace(/\/+$/, '').replace(/\/mcp$/, '');
}

/** The hook door's URL of one harness event for the agent: <base>/hook/<harness>/<sub>?agent=NAME. */
export function hookUrl(
  o: ConnectOptions,
  harness: 'claude-code' | 'codex' | 'cursor' | 'copilot' | 'gemini',
  sub: string,
  query?: string,
): string {
  return `${hookBaseUrl(o.mcpUrl)}/hook/${harness}/${sub}?agent=${encodeURIComponent(o.agent)}${query ? `&${query}` : ''}`;
}

/** A word in single quotes for a POSIX shell (every character literal). */
function shellQuoted(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command hook that makes the one request to the hook door with curl (Codex, Cursor, Copilot's permissionRequest and preToolUse, Gemini CLI; how: its --max-time and more of the query, else by the event): the harness's input on
 * stdin is the body, the door's answer on stdout. The key comes from PERCH_KEY_<NAME> (the harnesses run the
 * command through a shell, which expands it) and never reaches a process's argv, which every local user can read:
 * the shell's own printf (a builtin in sh, dash, bash and zsh: no process is started for it) writes the header as a
 * curl config into a pipe that curl reads as its stdin (-K -), and the harness's input is the body, read from fd 3
 * (@/dev/fd/3). `cat |` first puts that input on a pipe the shell made (/dev/fd/N opens a pipe, not the socket a
 * harness may hand its input over), and fd 3 is given to the group, not to curl (zsh would join two inputs of one
 * command). Every curl reads a config on stdin (curl 8.3's --variable is not needed). On a
 * non-2xx answer curl -f prints nothing and exits 22, and without curl the shell exits 127: both a non-blocking hook
 * error, so the harness's own dialog goes on. Never written: the key itself.
 */
export function curlHookCommand(
  o: ConnectOptions,
  harness: 'codex' | 'cursor' | 'copilot' | 'gemini',
  sub: string,
  how: { secs?: number; query?: string } = {},
): string {
  const secs = how.secs ?? (sub === 'permission-request' ? CURL_PERMISSION_SECS : STATUS_HOOK_SECS);
  return `cat | { printf 'header = "Authorization: Bearer %s"\\n' "$${keyEnvVar(o.agent)}" | curl -sS -f --max-time ${secs} -X POST -H 'Content-Type: application/json' -K - --data-binary @/dev/fd/3 ${shellQuoted(hookUrl(o, harness, sub, how.query))}; } 3<&0`;
}

/** The `perch hook` command of --hooks perch: `perch hook SUB [--harness cursor] --agent NAME --url URL` (it reads PERCH_KEY_<NAME>). */
export function perchHookCommand(o: ConnectOptions, sub: string, harness?: 'cursor'): string {
  return `perch hook ${sub}${harness ? ` --harness ${harness}` : ''} --agent ${shellWord(o.agent)} --url ${shellWord(o.mcpUrl)}`;
}

/** One config file edit: the file (relative to the home dir, or to the project dir with --project), what it gets, and the edit (file: the path to name in errors). */
export interface ConfigEdit {
  file: string;
  what: string;
  apply: (text: string | undefined, file: string) => string;
}
