// The copy-ready connection snippets of an agent, one per MCP client (KeyDialog with the key, ConnectDialog without).
import { CopyButton } from '../common';

const ENV_HINT = 'Put the first line in your shell profile (e.g. ~/.zshrc) and restart the app, then';
const SNIPPETS: Array<{ key: string; label: string; hint: string }> = [
  { key: 'perch_connect', label: 'perch connect', hint: 'One command per harness: Perch as its MCP server and its own permission prompts in your Approvals inbox (a diff first; --write edits the files, with a backup):' },
  { key: 'claude_code', label: 'Claude Code', hint: 'Run in a terminal (--scope user: every project of yours sees it):' },
  { key: 'claude_desktop', label: 'Claude Desktop', hint: 'Add to claude_desktop_config.json (Settings → Developer → Edit Config), then restart Claude Desktop. It runs mcp-remote through npx:' },
  { key: 'cursor', label: 'Cursor', hint: `${ENV_HINT} add the rest to ~/.cursor/mcp.json (or the project’s .cursor/mcp.json):` },
  { key: 'vscode', label: 'VS Code', hint: `${ENV_HINT} add the rest to .vscode/mcp.json:` },
  { key: 'windsurf', label: 'Windsurf', hint: `${ENV_HINT} add the rest to ~/.codeium/windsurf/mcp_config.json:` },
  { key: 'codex', label: 'Codex CLI', hint: `${ENV_HINT} add the rest to ~/.codex/config.toml:` },
  { key: 'gemini', label: 'Gemini CLI', hint: 'Run in a terminal (keep the export in your shell profile):' },
  { key: 'zed', label: 'Zed', hint: 'Add to Zed’s settings.json:' },
  { key: 'permission_hook', label: 'Permission hook', hint: 'The same hook by hand: Claude Code’s ~/.claude/settings.json or Codex’s ~/.codex/hooks.json (perch on your PATH):' },
  { key: 'perch_call', label: 'perch call', hint: 'Try the key from a shell (perch on your PATH: npm link in the Perch clone, see the README):' },
  // For keys that may connect from containers or the tailnet (shared/snippets.ts awaySnippets); the hub runs with --containers.
  { key: 'docker_run', label: 'Docker', hint: 'Start the container with the key passed by name (-e takes it from your environment; never the key on the command line or in the image). Linux needs the --add-host line:' },
  { key: 'podman_run', label: 'Podman', hint: 'Podman names this computer host.containers.internal:' },
  { key: 'devcontainer', label: 'devcontainer.json', hint: 'Merge into the project’s .devcontainer/devcontainer.json; the key comes from your environment (localEnv):' },
  { key: 'mcp_json_container', label: '.mcp.json in the container', hint: 'The project’s .mcp.json inside the container (the client fills in the key from the environment):' },
  { key: 'remote_machine', label: 'Another machine', hint: 'On a machine of your tailnet, through the HTTPS front (perch serve --public-url):' },
];

export function Snippets({ snippets }: { snippets: Record<string, string> }) {
  return (
    <>
      {SNIPPETS.filter((s) => snippets[s.key]).map((s) => (
        <section key={s.key} className="snippet" aria-label={`${s.label} snippet`}>
          <div className="row-between">
            <h3>{s.label}</h3>
            <CopyButton text={snippets[s.key]!} label={`Copy ${s.label} snippet`} />
          </div>
          <p className="muted small">{s.hint}</p>
          <pre>
            <code>{snippets[s.key]}</code>
          </pre>
        </section>
      ))}
    </>
  );
}
