// Copy-ready connection snippets for an agent, one recipe per popular MCP client (pure: the hub answers them with a
// new key, the Agents page shows them again later without one). Each names the agent (server name perch-<agent>)
// and takes the key from the environment variable PERCH_KEY_<AGENT>: no snippet holds the key. The export line
// (keyExportLine) is shown once, next to the one-time key; the snippets shown again later start with it, the key's
// place saying where the key comes from. Claude Code, Codex, Cursor, GitHub Copilot CLI and Gemini CLI are connected by `perch connect` (MCP entry
// and hooks at once: src/shared/agents/harnesses/), the others by their own config. Away from this computer
// (a container, another machine) the hooks files `perch connect` would write there are snippets too (awaySnippets).

import { keyEnvVar } from './key-env';
import { hookFiles } from './harnesses/connect-edits';
import { copilotAwayHooks } from './harnesses/copilot';

/** The mcp-remote release the Claude Desktop snippet runs (the bridge from stdio to Perch's HTTP endpoint). */
export const MCP_REMOTE_VERSION = '0.15.1';

export { keyEnvVar };

/**
 * The variable a bearer token names instead of holding a key: a client sent `${PERCH_KEY_KIT}` (or `$PERCH_KEY_KIT`,
 * `${env:PERCH_KEY_KIT}`) as written because the variable was not set where it started. undefined for anything else.
 */
export function unexpandedKeyVar(bearer: string | undefined): string | undefined {
  return bearer ? /^\$\{?(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}?$/.exec(bearer)?.[1] : undefined;
}

/** What a hook or client that sent no key is told: the variable to set, and where (harness: the client's name, e.g. Claude Code). */
export function noKeyMessage(variable: string, harness: string | undefined): string {
  return `no key was sent: set ${variable} in the shell that starts ${harness ?? 'the client'}`;
}

/** The line that puts the agent's key in the environment: with the key (shown once, beside it), or saying where it comes from. */
export function keyExportLine(name: string, key: string | null): string {
  return key
    ? `export ${keyEnvVar(name)}=${key}`
    : `export ${keyEnvVar(name)}=perch_…   # ${name}'s key: the one shown when it was added (Rotate key makes a new one)`;
}

/**
 * The snippets for agent `name`, each taking the key from PERCH_KEY_<AGENT>. With the key (when it is issued) the
 * snippets refer to the variable only (keyExportLine goes beside the key); without it each starts with the export line.
 */
export function connectionSnippets(mcpUrl: string, name: string, key: string | null): Record<string, string> {
  const server = `perch-${name}`;
  const env = keyEnvVar(name);
  // Clients that read no environment (Claude Desktop, Zed) get the variable as a placeholder: the key goes there.
  const header = `Bearer \${${env}}`;
  const exportLine = key ? '' : `${keyExportLine(name, null)}\n`;
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  // Claude Code, Codex and Cursor: `perch connect` writes the MCP entry and the hooks (the one way, not also claude mcp add).
  const connect = (client: string, files: string, start: string) =>
    `${exportLine}perch connect ${client} ${name} --write   # ${files}\n${start}`;
  return {
    claude_code: connect('claude-code', '~/.claude.json + ~/.claude/settings.json (--project DIR: that repository only)', 'claude'),
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
    cursor: connect('cursor', '~/.cursor/mcp.json + ~/.cursor/hooks.json', 'cursor .'),
    // Copilot calls its hooks at a plain-http 127.0.0.1 URL only with COPILOT_HOOK_ALLOW_LOCALHOST=1 set.
    copilot: connect('copilot', '~/.copilot/mcp-config.json + ~/.copilot/hooks/perch.json', 'COPILOT_HOOK_ALLOW_LOCALHOST=1 copilot'),
    opencode: connect('opencode', '~/.config/opencode/opencode.json + ~/.config/opencode/plugin/perch.js', 'opencode'),
    vscode: `${exportLine}${json({ servers: { [server]: { type: 'http', url: mcpUrl, headers: { Authorization: `Bearer \${env:${env}}` } } } })}`,
    windsurf: `${exportLine}${json({ mcpServers: { [server]: { serverUrl: mcpUrl, headers: { Authorization: `Bearer \${env:${env}}` } } } })}`,
    codex: connect('codex', '~/.codex/config.toml (approval_policy "on-request") + ~/.codex/hooks.json', 'codex'),
    gemini: connect('gemini', '~/.gemini/settings.json (--ask: shell commands and file writes wait for you)', 'gemini'),
    zed: json({ context_servers: { [server]: { url: mcpUrl, headers: { Authorization: header } } } }),
    perch_call: `${exportLine}PERCH_URL=${mcpUrl} PERCH_KEY=$${env} perch call whoami`,
  };
}

/**
 * The hooks files of Claude Code, Codex and Cursor for an agent reaching the hub at mcpUrl (a container's or the
 * tailnet's): what `perch connect --write` writes, with that place's hook base (harnesses/connect-edits.ts hookFiles), as
 * claude_code_hooks_<where>, codex_hooks_<where>, cursor_hooks_<where>; and GitHub Copilot CLI's, every hook a curl
 * command (copilot_hooks_<where>). The key stays in PERCH_KEY_<AGENT>.
 */
function hookSnippets(name: string, mcpUrl: string, where: 'container' | 'remote'): Record<string, string> {
  const files = hookFiles({ agent: name, mcpUrl });
  return {
    [`claude_code_hooks_${where}`]: files['claude-code'].trimEnd(),
    [`codex_hooks_${where}`]: files.codex.trimEnd(),
    [`cursor_hooks_${where}`]: files.cursor.trimEnd(),
    [`copilot_hooks_${where}`]: copilotAwayHooks({ agent: name, mcpUrl }).trimEnd(),
  };
}

/** Where an agent away from the loopback reaches the hub (`perch serve --containers`, `--public-url`). */
export interface AwayUrls {
  /** The hub's port (the container listeners use the same one). */
  port: number;
  /** The HTTPS front's URL (tailnet), if set. */
  publicUrl?: string | null;
}

/**
 * Ready snippets for an agent whose key may connect from containers or the tailnet (shared/agents/places.ts). The key
 * stays in the environment variable PERCH_KEY_<AGENT>: passed into a container by name (`-e VAR`, no value in argv),
 * read by devcontainer's remoteEnv from the host's environment, expanded by the client from .mcp.json; never
 * written into an image, a command line or a file.
 */
export function awaySnippets(name: string, places: readonly string[], urls: AwayUrls, key: string | null): Record<string, string> {
  const env = keyEnvVar(name);
  const server = `perch-${name}`;
  // With the key, its export line goes beside it (keyExportLine), not into each snippet.
  const exportLine = key ? '' : `${keyExportLine(name, null)}\n`;
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  const mcpJson = (url: string) =>
    json({ mcpServers: { [server]: { type: 'http', url, headers: { Authorization: `Bearer \${${env}}` } } } });
  const out: Record<string, string> = {};
  if (places.includes('containers') || places.some((p) => p.includes('/'))) {
    const docker = `http://host.docker.internal:${urls.port}/mcp`;
    const podman = `http://host.containers.internal:${urls.port}/mcp`;
    out.docker_run = `${exportLine}# Linux needs the --add-host line (Docker Desktop on macOS and Windows has the name already).\ndocker run --rm -it --add-host=host.docker.internal:host-gateway -e ${env} -e PERCH_URL=${docker} IMAGE`;
    out.podman_run = `${exportLine}podman run --rm -it -e ${env} -e PERCH_URL=${podman} IMAGE`;
    out.devcontainer = json({
      runArgs: ['--add-host=host.docker.internal:host-gateway'],
      remoteEnv: { [env]: `\${localEnv:${env}}`, PERCH_URL: docker },
    });
    out.mcp_json_container = mcpJson(docker);
    Object.assign(out, hookSnippets(name, docker, 'container'));
  }
  if (places.includes('tailnet')) {
    const url = urls.publicUrl ? `${urls.publicUrl.replace(/\/+$/, '')}/mcp` : 'https://YOUR-LAPTOP.YOUR-TAILNET.ts.net/mcp';
    out.remote_machine = `# On the other machine (on your tailnet)${urls.publicUrl ? '' : '; first set the front: perch serve --public-url https://…ts.net'}:\n${exportLine}# .mcp.json in the project (the client reads the key from the environment):\n${mcpJson(url)}`;
    Object.assign(out, hookSnippets(name, url, 'remote'));
  }
  return out;
}
