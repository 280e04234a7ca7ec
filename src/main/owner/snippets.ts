// Copy-ready connection snippets for an agent key, one per popular MCP client. Each names the agent
// (server name perch-<agent>); where a client reads the key from an environment variable, the snippet
// sets PERCH_KEY_<AGENT> (first line) and the config refers to it instead of holding the key.

/** The mcp-remote release the Claude Desktop snippet runs (the bridge from stdio to Perch's HTTP endpoint). */
export const MCP_REMOTE_VERSION = '0.15.1';

/** PERCH_KEY_<AGENT>: the environment variable a snippet keeps the agent's key in. */
export function keyEnvVar(agent: string): string {
  return `PERCH_KEY_${agent.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

export function connectionSnippets(mcpUrl: string, name: string, key: string): Record<string, string> {
  const header = `Bearer ${key}`;
  const server = `perch-${name}`;
  const env = keyEnvVar(name);
  const exportLine = `export ${env}=${key}`;
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  return {
    claude_code: `claude mcp add --transport http ${server} ${mcpUrl} --header "Authorization: ${header}"`,
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
    gemini: `${exportLine}\ngemini mcp add --scope user --transport http --header "Authorization: Bearer $${env}" ${server} ${mcpUrl}`,
    zed: json({ context_servers: { [server]: { url: mcpUrl, headers: { Authorization: header } } } }),
    perch_call: `PERCH_URL=${mcpUrl} PERCH_KEY=${key} npx perch call whoami`,
  };
}
