// Copy-ready connection snippets for a new agent key.
export function connectionSnippets(mcpUrl: string, name: string, key: string): Record<string, string> {
  const header = `Bearer ${key}`;
  return {
    claude_code: `claude mcp add --transport http perch-${name} ${mcpUrl} --header "Authorization: ${header}"`,
    cursor: JSON.stringify({ mcpServers: { [`perch-${name}`]: { url: mcpUrl, headers: { Authorization: header } } } }, null, 2),
    vscode: JSON.stringify({ servers: { [`perch-${name}`]: { type: 'http', url: mcpUrl, headers: { Authorization: header } } } }, null, 2),
    perch_call: `PERCH_URL=${mcpUrl} PERCH_KEY=${key} npx perch call whoami`,
  };
}
