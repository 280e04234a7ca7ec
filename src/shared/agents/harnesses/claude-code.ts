// Claude Code's entries of `perch connect claude-code NAME` (pure): the MCP server perch-NAME in ~/.claude.json (HTTP
// with the key by reference, or with --channel the stdio `perch channel`), the hooks in ~/.claude/settings.json
// (perchHooks: its own HTTP hooks to the hook door, or `perch hook …`) and permissions.allow mcp__perch-NAME; project
// scope DIR/.mcp.json and DIR/.claude/settings.local.json. Codex's hooks.json has the same shape, so its hooks are
// built here too (setPerchHooks 'codex': the curl command).
import { keyEnvVar } from '../key-env';
import { ConfigFileError, jsonText, objectAt, parseObject, sameJson, type Json } from '../config-json';
import {
  HOOK_TIMEOUT_SECS,
  STATUS_HOOK_SECS,
  checkHookAgents,
  curlHookCommand,
  hookUrl,
  isPerchHook,
  perchHookCommand,
  serverName,
  setPerchServer,
  type ConnectOptions,
  type PerchHook,
} from '../harness-config';

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
