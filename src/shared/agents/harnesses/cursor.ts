// Cursor's entries of `perch connect cursor NAME` (pure): ~/.cursor/mcp.json mcpServers.perch-NAME (HTTP, the key as
// ${env:PERCH_KEY_<NAME>}), ~/.cursor/hooks.json (version 1) beforeShellExecution and beforeMCPExecution →
// /hook/cursor/permission-request; project scope DIR/.cursor/mcp.json and DIR/.cursor/hooks.json.
import { keyEnvVar } from '../key-env';
import { ConfigFileError, jsonText, objectAt, parseObject, type Json } from '../config-json';
import { checkHookAgents, curlHookCommand, isPerchHook, perchHookCommand, setPerchServer, type ConnectOptions } from '../harness-config';

/** Cursor's permission hooks (its hooks reference: each answers permission allow | deny | ask). */
export const CURSOR_HOOK_EVENTS = ['beforeShellExecution', 'beforeMCPExecution'] as const;

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
