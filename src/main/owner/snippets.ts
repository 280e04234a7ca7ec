// The connection snippets live in src/shared/agents/snippets.ts (the Agents page shows them again without a key).
export { MCP_REMOTE_VERSION, connectionSnippets, keyEnvVar, keyExportLine } from '../../shared/agents/snippets';
