// The copy-ready connection snippets of an agent, one per MCP client (KeyDialog with the key, ConnectDialog without).
import { CopyButton } from '../common';

// One recipe per client, the key always from PERCH_KEY_<AGENT> (the export line: beside the key, or the first line).
const ENV_HINT = 'With the key exported (keep the export in your shell profile, e.g. ~/.zshrc, and restart the app),';
const CONNECT_HINT =
  'Run in a terminal: Perch as its MCP server and its own permission prompts in your Approvals inbox (without --write, a diff; --write edits the files, with a backup). Start it from a shell with the key exported:';
/**
 * The hooks of Claude Code, Codex, Cursor and GitHub Copilot CLI for a place `perch connect` cannot write to (what it would write there:
 * shared/agents/snippets.ts awaySnippets): the owner's Approvals inbox decides their permission prompts.
 */
function hookSnippets(where: 'container' | 'remote', label: string, there: string): Array<{ key: string; label: string; hint: string }> {
  const merge = `Merge into the file ${there} (your own hooks stay beside them); the key comes from the environment, never the file. When the hub cannot be reached, the client's own dialog goes on.`;
  return [
    { key: `claude_code_hooks_${where}`, label: `Claude Code hooks ${label}`, hint: `The hooks of .claude/settings.json. ${merge}` },
    {
      key: `codex_hooks_${where}`,
      label: `Codex hooks ${label}`,
      hint: `.codex/hooks.json (curl ${there}; Codex asks you once to trust them, in /hooks). ${merge}`,
    },
    { key: `cursor_hooks_${where}`, label: `Cursor hooks ${label}`, hint: `.cursor/hooks.json (curl ${there}). ${merge}` },
    {
      key: `copilot_hooks_${where}`,
      label: `GitHub Copilot CLI hooks ${label}`,
      hint: `~/.copilot/hooks/perch.json, a file of its own: every hook runs curl ${there} (Copilot calls HTTP hooks at plain http only on the loopback). ${merge}`,
    },
  ];
}

const SNIPPETS: Array<{ key: string; label: string; hint: string }> = [
  { key: 'claude_code', label: 'Claude Code', hint: CONNECT_HINT },
  { key: 'codex', label: 'Codex CLI', hint: `${CONNECT_HINT} (Codex asks you once to trust the hooks, in /hooks)` },
  { key: 'cursor', label: 'Cursor', hint: CONNECT_HINT },
  {
    key: 'copilot',
    label: 'GitHub Copilot CLI',
    hint: `${CONNECT_HINT} (and COPILOT_HOOK_ALLOW_LOCALHOST=1: Copilot calls hooks at a plain-http 127.0.0.1 URL only with it)`,
  },
  { key: 'opencode', label: 'OpenCode', hint: CONNECT_HINT },
  {
    key: 'claude_desktop',
    label: 'Claude Desktop',
    hint: 'Add to claude_desktop_config.json (Settings → Developer → Edit Config), with the key in place of the variable (Claude Desktop does not read your shell’s environment), then restart it. It runs mcp-remote through npx:',
  },
  { key: 'vscode', label: 'VS Code', hint: `${ENV_HINT} add the rest to .vscode/mcp.json:` },
  { key: 'windsurf', label: 'Windsurf', hint: `${ENV_HINT} add the rest to ~/.codeium/windsurf/mcp_config.json:` },
  {
    key: 'gemini',
    label: 'Gemini CLI',
    hint: 'Run in a terminal: Perch as its MCP server, its hooks to Perch (pause, your standing rules, status; its own approval dialog stays in its terminal, and with --ask shell commands and file writes wait for you in the Approvals inbox). Start it from a shell with the key exported:',
  },
  {
    key: 'zed',
    label: 'Zed',
    hint: 'Add to Zed’s settings.json, with the key in place of the variable (Zed does not read your shell’s environment):',
  },
  {
    key: 'perch_call',
    label: 'perch call',
    hint: 'Try the key from a shell (perch on your PATH: npm link in the Perch clone, see the README):',
  },
  // For keys that may connect from containers or the tailnet (shared/agents/snippets.ts awaySnippets); the hub runs with --containers.
  {
    key: 'docker_run',
    label: 'Docker',
    hint: 'Start the container with the key passed by name (-e takes it from your environment; never the key on the command line or in the image). Linux needs the --add-host line:',
  },
  { key: 'podman_run', label: 'Podman', hint: 'Podman names this computer host.containers.internal:' },
  {
    key: 'devcontainer',
    label: 'devcontainer.json',
    hint: 'Merge into the project’s .devcontainer/devcontainer.json; the key comes from your environment (localEnv):',
  },
  {
    key: 'mcp_json_container',
    label: '.mcp.json in the container',
    hint: 'The project’s .mcp.json inside the container (the client fills in the key from the environment):',
  },
  ...hookSnippets('container', 'inside the container', 'in the container'),
  {
    key: 'remote_machine',
    label: 'Another machine',
    hint: 'On a machine of your tailnet, through the HTTPS front (perch serve --public-url):',
  },
  ...hookSnippets('remote', 'on the other machine', 'on that machine'),
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
