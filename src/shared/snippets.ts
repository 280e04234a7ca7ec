// Copy-ready connection snippets for an agent, one per popular MCP client (pure: the hub answers them with a new
// key, the Agents page shows them again later without one). Each names the agent (server name perch-<agent>);
// where a client reads the key from an environment variable, the snippet sets PERCH_KEY_<AGENT> (first line)
// and the config refers to it instead of holding the key. Without a key (shown again later), the key's place
// holds that variable: the export line says where the key comes from.

/** The mcp-remote release the Claude Desktop snippet runs (the bridge from stdio to Perch's HTTP endpoint). */
export const MCP_REMOTE_VERSION = '0.15.1';

/** PERCH_KEY_<AGENT>: the environment variable a snippet keeps the agent's key in. */
export function keyEnvVar(agent: string): string {
  return `PERCH_KEY_${agent.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** The snippets for agent `name`; key null: the key is not known here, each snippet refers to PERCH_KEY_<AGENT>. */
export function connectionSnippets(mcpUrl: string, name: string, key: string | null): Record<string, string> {
  const server = `perch-${name}`;
  const env = keyEnvVar(name);
  // Clients that keep the header as written get the key itself, or (no key here) the variable as a placeholder.
  const header = `Bearer ${key ?? `\${${env}}`}`;
  const exportLine = key ? `export ${env}=${key}` : `export ${env}=perch_…   # ${name}'s key: the one shown when it was added (Rotate key makes a new one)`;
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  return {
    claude_code: key
      ? `claude mcp add --scope user --transport http ${server} ${mcpUrl} --header "Authorization: Bearer ${key}"`
      : `${exportLine}\nclaude mcp add --scope user --transport http ${server} ${mcpUrl} --header "Authorization: Bearer $${env}"`,
    // mcp-remote bridges Claude Desktop's stdio to the hub; it expands ${PERCH_AUTH} from env (no spaces in args).
    claude_desktop: json({
      mcpServers: {
        [server]: {
          command: 'npx',
          args: ['-y', `mcp-remote@${MCP_REMOTE_VERSION}`, mcpUrl, '--transport', 'http-only', '--header', 'Authorization:${PERCH_AUTH}'],
          env: { PERCH_AUTH: header },
        },
      },
    }),
    cursor: `${exportLine}\n\n${json({ mcpServers: { [server]: { url: mcpUrl, headers: { Authorization: `Bearer \${env:${env}}` } } } })}`,
    vscode: `${exportLine}\n\n${json({ servers: { [server]: { type: 'http', url: mcpUrl, headers: { Authorization: `Bearer \${env:${env}}` } } } })}`,
    windsurf: `${exportLine}\n\n${json({ mcpServers: { [server]: { serverUrl: mcpUrl, headers: { Authorization: `Bearer \${env:${env}}` } } } })}`,
    codex: `${exportLine}\n\n[mcp_servers.${server}]\nurl = "${mcpUrl}"\nbearer_token_env_var = "${env}"`,
    // Single quotes: Gemini CLI stores the reference, not the key, and fills in ${VAR} from the environment when it
    // loads its settings.json.
    gemini: `${exportLine}\ngemini mcp add --scope user --transport http --header 'Authorization: Bearer \${${env}}' ${server} ${mcpUrl}`,
    zed: json({ context_servers: { [server]: { url: mcpUrl, headers: { Authorization: header } } } }),
    perch_call: key ? `PERCH_URL=${mcpUrl} PERCH_KEY=${key} perch call whoami` : `${exportLine}\nPERCH_URL=${mcpUrl} PERCH_KEY=$${env} perch call whoami`,
  };
}
