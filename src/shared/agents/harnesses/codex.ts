// Codex's entries of `perch connect codex NAME` (pure): ~/.codex/config.toml [mcp_servers.perch-NAME] with
// bearer_token_env_var and approval_policy "on-request" (so Codex asks, and its prompts reach Perch); its hooks in
// ~/.codex/hooks.json have Claude Code's shape (claude-code.ts setPerchHooks). Project scope: DIR/.codex/config.toml
// and DIR/.codex/hooks.json.
import { keyEnvVar } from '../key-env';
import { removeTomlTable, setTomlTopLevel, tomlTables, upsertTomlTable, tomlString } from '../../text/toml-table';
import { conflict, entryKeyVar, entryWho, isPerchServer, serverName, type ConnectOptions } from '../harness-config';

/** The approval policy `perch connect codex` sets: Codex asks (and so runs the PermissionRequest hook) when the model wants more. */
export const CODEX_APPROVAL_POLICY = 'on-request';
/** Codex's approval mode for every tool of the agent's Perch server (its values: auto, prompt, writes, approve): approve, no prompt. */
export const CODEX_TOOLS_APPROVAL = 'approve';

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
