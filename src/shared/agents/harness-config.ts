// What `perch connect CLIENT NAME` puts in a client's own config files (pure: text in, text out; the CLI in
// src/main/cli/agents/connect.ts reads and writes the files). The agent's key is never written: every entry refers
// to PERCH_KEY_<NAME> in the environment. The MCP server is named perch-NAME (serverName), so the entries of
// two agents can sit side by side; one scope (the user's, or a project's with --project) is one agent's, and
// another agent's Perch entries there are replaced only with --replace (AgentConflict otherwise).
// The hooks reach the hub's hook door, POST <base>/hook/<harness>/<event>?agent=NAME (base: the MCP URL without its
// final /mcp), in one request each: Claude Code's own HTTP hooks, a curl command for Codex and Cursor. With --hooks
// perch they are the commands `perch hook …` instead (as every Perch hook was before the hook door); either form is
// recognised as Perch's, so a second run replaces an earlier entry in its place.
//   claude-code: ~/.claude.json mcpServers.perch-NAME (user scope: HTTP with the key by reference, or with --channel
//                the stdio `perch channel`), ~/.claude/settings.json hooks (perchHooks below);
//                project scope: DIR/.mcp.json and DIR/.claude/settings.local.json.
//   codex:       ~/.codex/config.toml [mcp_servers.perch-NAME] with bearer_token_env_var and approval_policy
//                "on-request" (so Codex asks, and its prompts reach Perch), ~/.codex/hooks.json hooks (the same
//                shape as Claude Code's); project scope: DIR/.codex/config.toml and DIR/.codex/hooks.json.
//   cursor:      ~/.cursor/mcp.json mcpServers.perch-NAME (HTTP, the key as ${env:PERCH_KEY_<NAME>}), ~/.cursor/hooks.json
//                (version 1) beforeShellExecution and beforeMCPExecution → /hook/cursor/permission-request;
//                project scope: DIR/.cursor/mcp.json and DIR/.cursor/hooks.json.
//   copilot:     ~/.copilot/mcp-config.json and ~/.copilot/hooks/perch.json (its HTTP hooks), project scope
//                DIR/.github/mcp.json and DIR/.github/hooks/perch.json: built in copilot-config.ts.
// Every hook entry is built in one place (hookEntry, cursorHookCommand). Other clients get their snippet
// (src/shared/agents/snippets.ts) to paste; they have no permission hook Perch answers.
import { keyEnvVar } from './key-env';
import { ConfigFileError, jsonText, objectAt, parseObject, sameJson, type Json } from './config-json';
import { removeTomlTable, setTomlTopLevel, tomlTables, upsertTomlTable, tomlString } from '../text/toml-table';

/** The prefix of Perch's MCP server names (before this change, one agent's entry was named just this). */
export const SERVER_NAME = 'perch';
/** The MCP server name of agent NAME in a client's config: perch-NAME. */
export function serverName(agent: string): string {
  return `${SERVER_NAME}-${agent}`;
}
/** The approval policy `perch connect codex` sets: Codex asks (and so runs the PermissionRequest hook) when the model wants more. */
export const CODEX_APPROVAL_POLICY = 'on-request';
/** Codex's approval mode for every tool of the agent's Perch server (its values: auto, prompt, writes, approve): approve, no prompt. */
export const CODEX_TOOLS_APPROVAL = 'approve';
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
  'vscode',
  'windsurf',
  'gemini',
  'zed',
] as const;
export type ConnectClient = (typeof CONNECT_CLIENTS)[number];
/** The clients whose config files `perch connect --write` edits; the others print a snippet. */
export const WRITABLE_CLIENTS: readonly ConnectClient[] = ['claude-code', 'codex', 'cursor', 'copilot'];
/** Cursor's permission hooks (its hooks reference: each answers permission allow | deny | ask). */
export const CURSOR_HOOK_EVENTS = ['beforeShellExecution', 'beforeMCPExecution'] as const;
/** The key of each client's snippet in connectionSnippets(). */
export const SNIPPET_OF: Record<ConnectClient, string> = {
  'claude-code': 'claude_code',
  codex: 'codex',
  'claude-desktop': 'claude_desktop',
  cursor: 'cursor',
  copilot: 'copilot',
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
function conflict(file: string, who: string, o: ConnectOptions): AgentConflict {
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
function entryWho(name: string, keyVar: string | undefined): string {
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

function shellWord(s: string): string {
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
  const c = e?.command;
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
function isPerchHook(h: unknown, sub: string): boolean {
  return perchHookSub(h) === sub;
}

/** The agent a Perch hook names (--agent NAME, ?agent=NAME), or undefined (it reads PERCH_KEY). */
function hookAgent(h: Json): string | undefined {
  const text = typeof h.command === 'string' ? h.command : '';
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

/**
 * The hooks each harness gets. Claude Code: all six events of its hooks reference that Perch uses; with the channel
 * the PermissionRequest hook is left out (the channel relays the same prompts: both would file each one). Codex:
 * its reference has no Notification or SessionEnd event.
 */
export function perchHooks(client: 'claude-code' | 'codex', o: ConnectOptions): PerchHook[] {
  const status = (event: string, sub: string): PerchHook => ({ event, sub, timeout: STATUS_HOOK_SECS });
  const hooks: PerchHook[] = [];
  if (!(client === 'claude-code' && o.channel))
    hooks.push({ event: 'PermissionRequest', sub: 'permission-request', timeout: HOOK_TIMEOUT_SECS });
  hooks.push(status('PreToolUse', 'pre-tool-use'));
  if (client === 'claude-code') hooks.push(status('Notification', 'notification'));
  hooks.push(status('Stop', 'stop'), status('SessionStart', 'session-start'));
  if (client === 'claude-code') hooks.push(status('SessionEnd', 'session-end'));
  return hooks;
}

/** Every hook subcommand `perch connect` may have written, by event (so a hook no longer wanted is taken out). */
const ALL_PERCH_HOOKS: readonly PerchHook[] = perchHooks('claude-code', { agent: '', mcpUrl: '' }).concat({
  event: 'PermissionRequest',
  sub: 'permission-request',
  timeout: HOOK_TIMEOUT_SECS,
});

/** Claude Code's MCP entry for the agent. */
export function claudeMcpEntry(o: ConnectOptions): Json {
  if (o.channel) return { type: 'stdio', command: 'perch', args: ['channel', '--agent', o.agent], env: { PERCH_URL: o.mcpUrl } };
  return { type: 'http', url: o.mcpUrl, headers: { Authorization: `Bearer \${${keyEnvVar(o.agent)}}` } };
}

/** ~/.claude.json (or a project's .mcp.json) with mcpServers.perch-NAME set (everything else as it was). */
export function setClaudeMcp(text: string | undefined, o: ConnectOptions, file = '~/.claude.json'): string {
  const root = parseObject(text, file);
  setPerchServer(objectAt(root, 'mcpServers', file), o, claudeMcpEntry(o), file);
  return jsonText(root, text);
}

/** The hub's base URL of the hook door: the agent's MCP URL without its final /mcp (http://127.0.0.1:7457/mcp → http://127.0.0.1:7457). */
export function hookBaseUrl(mcpUrl: string): string {
  return mcpUrl.replace(/\/+$/, '').replace(/\/mcp$/, '');
}

/** The hook door's URL of one harness event for the agent: <base>/hook/<harness>/<sub>?agent=NAME. */
export function hookUrl(o: ConnectOptions, harness: 'claude-code' | 'codex' | 'cursor' | 'copilot', sub: string): string {
  return `${hookBaseUrl(o.mcpUrl)}/hook/${harness}/${sub}?agent=${encodeURIComponent(o.agent)}`;
}

/** A word in single quotes for a POSIX shell (every character literal). */
function shellQuoted(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command hook that makes the one request to the hook door with curl (Codex, Cursor): the harness's input on
 * stdin is the body, the door's answer on stdout. The key comes from PERCH_KEY_<NAME> (both harnesses run the
 * command through a shell, which expands it) and never reaches a process's argv, which every local user can read:
 * the shell's own printf (a builtin in sh, dash, bash and zsh: no process is started for it) writes the header as a
 * curl config into a pipe that curl reads as its stdin (-K -), and the harness's input is the body, read from fd 3
 * (@/dev/fd/3). `cat |` first puts that input on a pipe the shell made (/dev/fd/N opens a pipe, not the socket a
 * harness may hand its input over), and fd 3 is given to the group, not to curl (zsh would join two inputs of one
 * command). Every curl reads a config on stdin (curl 8.3's --variable is not needed). On a
 * non-2xx answer curl -f prints nothing and exits 22, and without curl the shell exits 127: both a non-blocking hook
 * error, so the harness's own dialog goes on. Never written: the key itself.
 */
export function curlHookCommand(o: ConnectOptions, harness: 'codex' | 'cursor', sub: string): string {
  const secs = sub === 'permission-request' ? CURL_PERMISSION_SECS : STATUS_HOOK_SECS;
  return `cat | { printf 'header = "Authorization: Bearer %s"\\n' "$${keyEnvVar(o.agent)}" | curl -sS -f --max-time ${secs} -X POST -H 'Content-Type: application/json' -K - --data-binary @/dev/fd/3 ${shellQuoted(hookUrl(o, harness, sub))}; } 3<&0`;
}

/** The `perch hook` command of --hooks perch: `perch hook SUB [--harness cursor] --agent NAME --url URL` (it reads PERCH_KEY_<NAME>). */
function perchHookCommand(o: ConnectOptions, sub: string, harness?: 'cursor'): string {
  return `perch hook ${sub}${harness ? ` --harness ${harness}` : ''} --agent ${shellWord(o.agent)} --url ${shellWord(o.mcpUrl)}`;
}

/**
 * The one hook group Perch puts under a Claude Code or Codex hook event; every Perch hook of both harnesses is built
 * here. Claude Code: its HTTP hook to the hook door, the header naming PERCH_KEY_<NAME> (allowedEnvVars lets Claude
 * Code fill it in). Codex: the curl command (curlHookCommand). With --hooks perch: the command `perch hook SUB
 * --agent NAME --url URL`.
 */
export function hookEntry(client: 'claude-code' | 'codex', o: ConnectOptions, h: PerchHook): Json {
  if (o.hooks === 'perch') return { hooks: [{ type: 'command', command: perchHookCommand(o, h.sub), timeout: h.timeout }] };
  if (client === 'codex') return { hooks: [{ type: 'command', command: curlHookCommand(o, 'codex', h.sub), timeout: h.timeout }] };
  const env = keyEnvVar(o.agent);
  return {
    hooks: [
      {
        type: 'http',
        url: hookUrl(o, 'claude-code', h.sub),
        headers: { Authorization: `Bearer $${env}` },
        allowedEnvVars: [env],
        timeout: h.timeout,
      },
    ],
  };
}

/** One hook entry set (or taken out, want false) in a parsed hooks file, once, in the place of an earlier one. */
function setHook(hooks: Json, client: 'claude-code' | 'codex', o: ConnectOptions, file: string, h: PerchHook, want: boolean): void {
  const groups = hooks[h.event] ?? [];
  if (!Array.isArray(groups)) throw new ConfigFileError(`${file}: hooks.${h.event} is not a list`);
  let ours: unknown = hookEntry(client, o, h);
  const kept: unknown[] = [];
  let at = -1;
  for (const g of groups) {
    const list = (g as Json | null)?.hooks;
    if (!Array.isArray(list) || !list.some((x) => isPerchHook(x, h.sub))) {
      kept.push(g);
      continue;
    }
    if (at < 0) {
      at = kept.length;
      // The group as it is when it says the same (its keys perhaps in another order): no change to show.
      if (sameJson(g, ours)) ours = g;
    }
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

/** A hooks file with every Perch hook of this harness once (and Perch's hooks it no longer wants taken out). */
export function setPerchHooks(text: string | undefined, client: 'claude-code' | 'codex', o: ConnectOptions, file: string): string {
  const root = parseObject(text, file);
  const hooks = objectAt(root, 'hooks', file);
  checkHookAgents(hooks, o, file);
  const wanted = perchHooks(client, o);
  for (const h of wanted) setHook(hooks, client, o, file, h, true);
  for (const h of ALL_PERCH_HOOKS)
    if (!wanted.some((w) => w.event === h.event && w.sub === h.sub)) setHook(hooks, client, o, file, h, false);
  if (client === 'claude-code') setPerchAllow(root, o, file);
  return jsonText(root, text);
}

/** Claude Code's permission rule that allows every tool of the agent's own Perch server: mcp__perch-NAME. */
export function perchAllowRule(agent: string): string {
  return `mcp__${serverName(agent)}`;
}

/** Whether a permissions.allow entry is a whole Perch server's rule (mcp__perch, mcp__perch-NAME; not one tool's). */
export function isPerchAllowRule(rule: unknown): boolean {
  return typeof rule === 'string' && /^mcp__perch(-(?:(?!__).)+)?$/.test(rule);
}

/**
 * permissions.allow with mcp__perch-NAME once (added at the end): Perch's own tools need no approval in Claude Code,
 * since the hub governs every call of them itself (scopes, pause, review, brakes). Another agent's server rule goes
 * only with --replace, as its hooks do; the user's own rules stay as they are.
 */
function setPerchAllow(root: Json, o: ConnectOptions, file: string): void {
  const permissions = objectAt(root, 'permissions', file);
  const allow = permissions.allow ?? [];
  if (!Array.isArray(allow)) throw new ConfigFileError(`${file}: "permissions.allow" is not a list`);
  const mine = perchAllowRule(o.agent);
  const kept = o.replace ? allow.filter((r) => r === mine || !isPerchAllowRule(r)) : allow;
  if (!kept.includes(mine)) kept.push(mine);
  permissions.allow = kept;
}

/** The lines of Codex's [mcp_servers.perch] table. */
export function codexMcpLines(o: ConnectOptions): string[] {
  return [
    `url = ${tomlString(o.mcpUrl)}`,
    `bearer_token_env_var = ${tomlString(keyEnvVar(o.agent))}`,
    // Codex runs this server's tools without asking: the hub governs every call of them itself.
    `default_tools_approval_mode = ${tomlString(CODEX_TOOLS_APPROVAL)}`,
  ];
}

/**
 * ~/.codex/config.toml (or a project's .codex/config.toml) with [mcp_servers.perch-NAME] added or replaced (the
 * agent's earlier [mcp_servers.perch] taken out; another agent's only with --replace) and approval_policy
 * "on-request" unless the file has a policy that asks already (only "never" is changed); every other line as it was.
 */
export function setCodexMcp(text: string | undefined, o: ConnectOptions, file = '~/.codex/config.toml'): string {
  let t = text ?? '';
  const mine = serverName(o.agent);
  for (const table of tomlTables(t)) {
    const [a, b] = table.path;
    if (table.path.length !== 2 || a !== 'mcp_servers' || !isPerchServer(b!) || b === mine) continue;
    const v = table.body.map((l) => /^\s*bearer_token_env_var\s*=\s*["']([^"']+)["']/.exec(l)?.[1]).find(Boolean) ?? entryKeyVar(b!, null);
    if (v !== keyEnvVar(o.agent) && !o.replace) throw conflict(file, entryWho(b!, v), o);
  }
  const others = tomlTables(t).filter(
    (x) => x.path.length === 2 && x.path[0] === 'mcp_servers' && isPerchServer(x.path[1]!) && x.path[1] !== mine,
  );
  const hasMine = tomlTables(t).some((x) => x.path.length === 2 && x.path[0] === 'mcp_servers' && x.path[1] === mine);
  for (const table of others.slice(hasMine ? 0 : 1).reverse()) t = removeTomlTable(t, table.path);
  if (!hasMine && others[0]) {
    // The first earlier table becomes this agent's, in its place (upsertTomlTable then replaces its lines).
    const lines = t.split('\n');
    for (const sub of tomlTables(t).filter((x) => x.path[0] === 'mcp_servers' && x.path[1] === others[0]!.path[1])) {
      const rest = sub.path
        .slice(2)
        .map((k) => (/^[A-Za-z0-9_-]+$/.test(k) ? `.${k}` : `.${tomlString(k)}`))
        .join('');
      lines[sub.start] = `[mcp_servers.${mine}${rest}]${lines[sub.start]!.endsWith('\r') ? '\r' : ''}`;
    }
    t = lines.join('\n');
  }
  t = upsertTomlTable(t, ['mcp_servers', mine], codexMcpLines(o));
  return setTomlTopLevel(t, 'approval_policy', tomlString(CODEX_APPROVAL_POLICY), (v) => !/^["']never["']$/.test(v));
}

/** Cursor's MCP entry for the agent: HTTP, the key by reference (Cursor fills in ${env:NAME} from its environment). */
export function cursorMcpEntry(o: ConnectOptions): Json {
  return { url: o.mcpUrl, headers: { Authorization: `Bearer \${env:${keyEnvVar(o.agent)}}` } };
}

/** ~/.cursor/mcp.json with mcpServers.perch-NAME set (everything else as it was). */
export function setCursorMcp(text: string | undefined, o: ConnectOptions, file = '~/.cursor/mcp.json'): string {
  const root = parseObject(text, file);
  setPerchServer(objectAt(root, 'mcpServers', file), o, cursorMcpEntry(o), file);
  return jsonText(root, text);
}

/**
 * The command Cursor's permission hooks run (Cursor's hook entries have a command and nothing else Perch needs): the
 * curl request to /hook/cursor/permission-request, or with --hooks perch `perch hook permission-request --harness cursor`.
 */
export function cursorHookCommand(o: ConnectOptions): string {
  return o.hooks === 'perch' ? perchHookCommand(o, 'permission-request', 'cursor') : curlHookCommand(o, 'cursor', 'permission-request');
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
  checkHookAgents(hooks, o, file);
  for (const event of CURSOR_HOOK_EVENTS) {
    const list = hooks[event] ?? [];
    if (!Array.isArray(list)) throw new ConfigFileError(`${file}: hooks.${event} is not a list`);
    const at = list.findIndex((h) => isPerchHook(h, 'permission-request'));
    const kept = list.filter((h) => !isPerchHook(h, 'permission-request'));
    kept.splice(at < 0 ? kept.length : at, 0, { command: cursorHookCommand(o) });
    hooks[event] = kept;
  }
  return jsonText(root, text);
}

/**
 * The hooks files `perch connect --write` creates where there were none, for an agent reaching the hub at
 * o.mcpUrl: Claude Code's settings.json, Codex's hooks.json, Cursor's hooks.json. The snippets for a place the CLI
 * cannot write to (a container, another machine: snippets.ts awaySnippets) are these, so both come from one builder.
 */
export function hookFiles(o: ConnectOptions): Record<'claude-code' | 'codex' | 'cursor', string> {
  return {
    'claude-code': setPerchHooks(undefined, 'claude-code', o, 'settings.json'),
    codex: setPerchHooks(undefined, 'codex', o, 'hooks.json'),
    cursor: setCursorHooks(undefined, o, 'hooks.json'),
  };
}

/** One config file edit: the file (relative to the home dir, or to the project dir with --project), what it gets, and the edit (file: the path to name in errors). */
export interface ConfigEdit {
  file: string;
  what: string;
  apply: (text: string | undefined, file: string) => string;
}

/** What a hooks file gets, in words (the CLI says "already has …" / "added …"). */
function hooksWhat(client: 'claude-code' | 'codex' | 'cursor', o: ConnectOptions): string {
  const events = client === 'cursor' ? [...CURSOR_HOOK_EVENTS] : perchHooks(client, o).map((h) => h.event);
  const how =
    o.hooks === 'perch'
      ? `\`perch hook …${client === 'cursor' ? ' --harness cursor' : ''} --agent ${o.agent}\``
      : `${client === 'claude-code' ? 'HTTP hooks to' : 'curl to'} ${hookBaseUrl(o.mcpUrl)}/hook/${client}/…?agent=${encodeURIComponent(o.agent)}, the key from ${keyEnvVar(o.agent)}`;
  const allow = client === 'claude-code' ? ` and permissions.allow ${perchAllowRule(o.agent)} (Perch's own tools need no approval)` : '';
  return `the Perch ${client === 'cursor' ? 'permission hooks' : 'hooks'} (${events.join(', ')}: ${how})${allow}`;
}

/** The files `perch connect` edits for a client, user scope (relative to ~) or project scope (relative to DIR). */
export function configEdits(client: ConnectClient, o: ConnectOptions): ConfigEdit[] {
  const server = serverName(o.agent);
  if (client === 'claude-code') {
    const scope = o.project ? 'project scope' : 'user scope';
    return [
      {
        file: o.project ? '.mcp.json' : '.claude.json',
        what: o.channel
          ? `Perch as the MCP server \`${server}\` (${scope}, the stdio channel: \`perch channel\`)`
          : `Perch as the MCP server \`${server}\` (${scope}, HTTP)`,
        apply: (t, f) => setClaudeMcp(t, o, f),
      },
      {
        file: o.project ? '.claude/settings.local.json' : '.claude/settings.json',
        what: hooksWhat('claude-code', o),
        apply: (t, f) => setPerchHooks(t, 'claude-code', o, f),
      },
    ];
  }
  if (client === 'codex') {
    return [
      {
        file: '.codex/config.toml',
        what: `Perch as the MCP server [mcp_servers.${server}] (its tools run without asking: default_tools_approval_mode = "${CODEX_TOOLS_APPROVAL}") and approval_policy = "${CODEX_APPROVAL_POLICY}" (Codex asks, so its prompts reach Perch)`,
        apply: (t, f) => setCodexMcp(t, o, f),
      },
      { file: '.codex/hooks.json', what: hooksWhat('codex', o), apply: (t, f) => setPerchHooks(t, 'codex', o, f) },
    ];
  }
  if (client === 'cursor') {
    return [
      {
        file: '.cursor/mcp.json',
        what: `Perch as the MCP server \`${server}\` (HTTP, the key as \${env:${keyEnvVar(o.agent)}})`,
        apply: (t, f) => setCursorMcp(t, o, f),
      },
      {
        file: '.cursor/hooks.json',
        what: hooksWhat('cursor', o),
        apply: (t, f) => setCursorHooks(t, o, f),
      },
    ];
  }
  return [];
}

/** How to start the client once connected (the key in the environment). */
export function startCommand(client: ConnectClient, o: ConnectOptions): string | undefined {
  if (client === 'claude-code')
    return o.channel ? `claude --dangerously-load-development-channels server:${serverName(o.agent)}` : 'claude';
  if (client === 'codex') return 'codex';
  if (client === 'cursor') return 'cursor .';
  if (client === 'copilot') return 'copilot';
  return undefined;
}
