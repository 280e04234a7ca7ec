// Cursor's entries of `perch connect cursor NAME` (pure): ~/.cursor/mcp.json mcpServers.perch-NAME (HTTP, the key as
// ${env:PERCH_KEY_<NAME>}), ~/.cursor/hooks.json (version 1) beforeShellExecution and beforeMCPExecution →
// /hook/cursor/permission-request, afterShellExecution, afterMCPExecution and afterFileEdit → /hook/cursor/post-tool-use (each call's
// result in the flight recorder; the curl form only); project scope DIR/.cursor/mcp.json and DIR/.cursor/hooks.json.
import { keyEnvVar } from '../key-env';
import { ConfigFileError, jsonText, objectAt, parseObject, type Json } from '../config-json';
import { checkHookAgents, curlHookCommand, isPerchHook, perchHookCommand, setPerchServer, type ConnectOptions } from '../harness-config';
import { CURSOR_RESULT_EVENTS } from './cursor-wire';

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

/** The command Cursor's after-execution hooks run: the curl request to /hook/cursor/post-tool-use (there is no `perch hook` form). */
export function cursorResultHookCommand(o: ConnectOptions): string {
  return curlHookCommand(o, 'cursor', 'post-tool-use');
}

/** The hooks Perch writes in Cursor's hooks.json: each event, its door, and the command (none: Perch's is taken out). */
export function cursorHooks(o: ConnectOptions): Array<{ event: string; sub: string; command: string | undefined }> {
  return [
    ...CURSOR_HOOK_EVENTS.map((event) => ({ event, sub: 'permission-request', command: cursorHookCommand(o) })),
    // With --hooks perch, no result hooks: they are curl requests only (an earlier one of Perch's is taken out).
    ...CURSOR_RESULT_EVENTS.map((event) => ({
      event,
      sub: 'post-tool-use',
      command: o.hooks === 'perch' ? undefined : cursorResultHookCommand(o),
    })),
  ];
}

/**
 * ~/.cursor/hooks.json (version 1) with Perch's hook once under beforeShellExecution and beforeMCPExecution (its
 * permission hooks) and afterShellExecution, afterMCPExecution and afterFileEdit (the results), each in the place of an earlier one
 * of Perch's; the other hooks as they were. Another version of the file is refused.
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
  for (const { event, sub, command } of cursorHooks(o)) {
    const list = hooks[event] ?? [];
    if (!Array.isArray(list)) throw new ConfigFileError(`${file}: hooks.${event} is not a list`);
    const at = list.findIndex((h) => isPerchHook(h, sub));
    const kept = list.filter((h) => !isPerchHook(h, sub));
    if (command !== undefined) kept.splice(at < 0 ? kept.length : at, 0, { command });
    if (kept.length || command !== undefined) hooks[event] = kept;
    else if (at >= 0) delete hooks[event]; // only Perch's was there
  }
  return jsonText(root, text);
}
