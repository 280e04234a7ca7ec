// Which files `perch connect CLIENT NAME` edits for each client and what each gets (configEdits), the hooks files
// written where there were none (hookFiles, also the snippets for a place the CLI cannot write to), and how to start
// the client once connected. Each client's entries are built in its own file beside this one.
import { keyEnvVar } from '../key-env';
import { hookBaseUrl, serverName, type ConfigEdit, type ConnectClient, type ConnectOptions } from '../harness-config';
import { perchAllowRule, perchHooks, setClaudeMcp, setPerchHooks } from './claude-code';
import { CODEX_APPROVAL_POLICY, CODEX_TOOLS_APPROVAL, setCodexMcp } from './codex';
import { CURSOR_HOOK_EVENTS, cursorHooks, setCursorHooks, setCursorMcp } from './cursor';
import { copilotUnconfigEdits } from './copilot';
import { geminiUnconfigEdits } from './gemini';
import { openCodeUnconfigEdits } from './opencode';
import { unconfigEdits, type UnconfigEdit } from '../harness-unconfig';
import type { UnsetTelemetryOptions } from '../telemetry-config';

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

/** What a hooks file gets, in words (the CLI says "already has …" / "added …"). */
function hooksWhat(client: 'claude-code' | 'codex' | 'cursor', o: ConnectOptions): string {
  const how =
    o.hooks === 'perch'
      ? `\`perch hook …${client === 'cursor' ? ' --harness cursor' : ''} --agent ${o.agent}\``
      : `${client === 'claude-code' ? 'HTTP hooks to' : 'curl to'} ${hookBaseUrl(o.mcpUrl)}/hook/${client}/…?agent=${encodeURIComponent(o.agent)}, the key from ${keyEnvVar(o.agent)}`;
  if (client === 'cursor') {
    // Its result hooks (after a shell command, an MCP call, a file edit: the flight recorder) are curl requests only.
    const results = cursorHooks(o).filter((h) => h.sub === 'post-tool-use' && h.command !== undefined);
    const also = results.length ? ` and result hooks (${results.map((h) => h.event).join(', ')})` : '';
    return `the Perch permission hooks (${CURSOR_HOOK_EVENTS.join(', ')})${also}: ${how}`;
  }
  const allow = client === 'claude-code' ? ` and permissions.allow ${perchAllowRule(o.agent)} (Perch's own tools need no approval)` : '';
  return `the Perch hooks (${perchHooks(client, o)
    .map((h) => h.event)
    .join(', ')}: ${how})${allow}`;
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
  if (client === 'gemini') return 'gemini';
  if (client === 'opencode') return 'opencode';
  return undefined;
}

/** What `perch disconnect CLIENT NAME` takes out (and what holds a connection of the agent), for every client. */
export function unconfigEditsOf(client: ConnectClient, agent: string, project: boolean, telemetry?: UnsetTelemetryOptions): UnconfigEdit[] {
  if (client === 'copilot') return copilotUnconfigEdits(agent, project);
  if (client === 'gemini') return geminiUnconfigEdits(agent, project ? undefined : telemetry);
  if (client === 'opencode') return openCodeUnconfigEdits(agent, project);
  return unconfigEdits(client, agent, project, telemetry);
}
