// The snippets `perch agent add NAME --from containers|tailnet` prints (shared/agents/snippets.ts awaySnippets): the port
// of the running hub (or the default), and the HTTPS front's URL when one is set.
import fs from 'node:fs';
import path from 'node:path';
import type { PerchHub } from '../../hub/services';
import { DEFAULT_PORT, RUNTIME_FILE } from '../../paths';
import { publicUrl } from '../../hub/phone/devices';
import { awaySnippets } from '../../../shared/agents/snippets';

const TITLES: Record<string, string> = {
  docker_run: 'Docker (the key stays in your environment: -e passes it by name)',
  podman_run: 'Podman',
  devcontainer: 'devcontainer.json (merge into yours; the key comes from your environment)',
  mcp_json_container: '.mcp.json inside the container',
  claude_code_hooks_container: 'Claude Code inside the container: the hooks of .claude/settings.json (merge into yours)',
  codex_hooks_container: 'Codex inside the container: .codex/hooks.json (merge into yours; needs curl in the image)',
  cursor_hooks_container: 'Cursor inside the container: .cursor/hooks.json (merge into yours; needs curl in the image)',
  copilot_hooks_container:
    'GitHub Copilot CLI inside the container: ~/.copilot/hooks/perch.json (every hook runs curl: Copilot calls an HTTP hook at plain http only on the loopback; needs curl in the image)',
  remote_machine: 'Another machine on your tailnet',
  claude_code_hooks_remote: 'Claude Code on that machine: the hooks of ~/.claude/settings.json (merge into yours)',
  codex_hooks_remote: 'Codex on that machine: ~/.codex/hooks.json (merge into yours; needs curl)',
  cursor_hooks_remote: 'Cursor on that machine: ~/.cursor/hooks.json (merge into yours; needs curl)',
  copilot_hooks_remote: 'GitHub Copilot CLI on that machine: ~/.copilot/hooks/perch.json (every hook runs curl; needs curl)',
};

/** Snippets for an agent that connects from containers or the tailnet; undefined when it connects only locally. */
export function placeSnippets(
  dataDir: string,
  hub: PerchHub,
  agent: string,
  places: readonly string[],
  key: string | null,
): { snippets: Record<string, string>; text: string } | undefined {
  let port = Number(process.env.PERCH_PORT) || DEFAULT_PORT;
  try {
    port = (JSON.parse(fs.readFileSync(path.join(dataDir, RUNTIME_FILE), 'utf8')) as { port: number }).port || port;
  } catch {
    /* no hub runs: the default port */
  }
  const snippets = awaySnippets(agent, places, { port, publicUrl: publicUrl(hub) }, key);
  if (Object.keys(snippets).length === 0) return undefined;
  const text = [
    ...('docker_run' in snippets ? ['Containers reach the hub when it runs with `perch serve --containers`.\n'] : []),
    ...Object.entries(snippets).map(
      ([k, v]) =>
        `${TITLES[k] ?? k}:\n${v
          .split('\n')
          .map((l) => `  ${l}`)
          .join('\n')}\n`,
    ),
  ].join('\n');
  return { snippets, text };
}
