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

/** Where an agent away from the loopback reaches the hub (`perch serve --containers`, `--public-url`). */
export interface AwayUrls {
  /** The hub's port (the container listeners use the same one). */
  port: number;
  /** The HTTPS front's URL (tailnet), if set. */
  publicUrl?: string | null;
}

/**
 * Ready snippets for an agent whose key may connect from containers or the tailnet (shared/places.ts). The key
 * stays in the environment variable PERCH_KEY_<AGENT>: passed into a container by name (`-e VAR`, no value in argv),
 * read by devcontainer's remoteEnv from the host's environment, expanded by the client from .mcp.json; never
 * written into an image, a command line or a file.
 */
export function awaySnippets(name: string, places: readonly string[], urls: AwayUrls, key: string | null): Record<string, string> {
  const env = keyEnvVar(name);
  const server = `perch-${name}`;
  const exportLine = key ? `export ${env}=${key}` : `export ${env}=perch_…   # ${name}'s key: the one shown when it was added`;
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  const mcpJson = (url: string) => json({ mcpServers: { [server]: { type: 'http', url, headers: { Authorization: `Bearer \${${env}}` } } } });
  const out: Record<string, string> = {};
  if (places.includes('containers') || places.some((p) => p.includes('/'))) {
    const docker = `http://host.docker.internal:${urls.port}/mcp`;
    const podman = `http://host.containers.internal:${urls.port}/mcp`;
    out.docker_run = `${exportLine}\n# Linux needs the --add-host line (Docker Desktop on macOS and Windows has the name already).\ndocker run --rm -it --add-host=host.docker.internal:host-gateway -e ${env} -e PERCH_URL=${docker} IMAGE`;
    out.podman_run = `${exportLine}\npodman run --rm -it -e ${env} -e PERCH_URL=${podman} IMAGE`;
    out.devcontainer = json({
      runArgs: ['--add-host=host.docker.internal:host-gateway'],
      remoteEnv: { [env]: `\${localEnv:${env}}`, PERCH_URL: docker },
    });
    out.mcp_json_container = mcpJson(docker);
  }
  if (places.includes('tailnet')) {
    const url = urls.publicUrl ? `${urls.publicUrl.replace(/\/+$/, '')}/mcp` : 'https://YOUR-LAPTOP.YOUR-TAILNET.ts.net/mcp';
    out.remote_machine = `# On the other machine (on your tailnet)${urls.publicUrl ? '' : '; first set the front: perch serve --public-url https://…ts.net'}:\n${exportLine}\n# .mcp.json in the project (the client reads the key from the environment):\n${mcpJson(url)}`;
  }
  return out;
}
