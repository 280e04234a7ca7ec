// What the tests of `perch connect` and `perch disconnect` share: temporary folders removed after the file's tests, a
// HOME holding the config files people have there already, and the command run against the shared `perch serve`.
import { after } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cliAsync, type CliResult } from './serve-harness';

/**
 * A maker of temporary folders, each removed after the test file. Named as the file system names them (realpath:
 * `--project DIR` is resolved so, and a session's cwd too), so paths compare as printed.
 */
export function useTempDirs(): (prefix: string) => string {
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });
  return (prefix) => {
    const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
    dirs.push(d);
    return d;
  };
}

/** A user's ~/.claude.json: their own settings and MCP server (the key by reference). */
export const CLAUDE_JSON = {
  numStartups: 12,
  theme: 'dark',
  projects: { '/home/me/app': { allowedTools: [], hasTrustDialogAccepted: true, mcpServers: {} } },
  mcpServers: { github: { type: 'http', url: 'https://api.example/mcp', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } } },
};
/** A user's ~/.claude/settings.json: their own permission rules and hook. */
export const SETTINGS = {
  $schema: 'https://json.schemastore.org/claude-code-settings.json',
  permissions: { allow: ['Bash(npm test)'], deny: ['Read(./.env)'] },
  hooks: { PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'npx prettier --write "$CLAUDE_FILE_PATHS"' }] }] },
  model: 'opus',
};
/** A user's ~/.codex/config.toml: a comment, their policy, their MCP server and a profile. */
export const CODEX_TOML = `# my Codex config
model = "gpt-5.5"
approval_policy = "on-request"

[mcp_servers.docs]
command = "npx"
args = ["-y", "@example/docs-mcp"]

[profiles.fast]
model = "gpt-5.5-mini"
`;
/** A user's ~/.cursor/mcp.json. */
export const CURSOR_MCP = { mcpServers: { docs: { command: 'docs-mcp' } } };

/** A temporary HOME with the files above (no hooks files: connect makes those). */
export function homeWithConfigs(tempDir: (prefix: string) => string, prefix = 'perch-connect-home-'): string {
  const home = tempDir(prefix);
  const files: Record<string, string> = {
    '.claude.json': `${JSON.stringify(CLAUDE_JSON, null, 2)}\n`,
    '.claude/settings.json': `${JSON.stringify(SETTINGS, null, 2)}\n`,
    '.codex/config.toml': CODEX_TOML,
    '.cursor/mcp.json': `${JSON.stringify(CURSOR_MCP, null, 2)}\n`,
  };
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(home, rel)), { recursive: true });
    fs.writeFileSync(path.join(home, rel), text);
  }
  return home;
}

/** `perch connect|disconnect ARGS` against the data dir with HOME set to home. */
export function perchAt(dataDir: string, cmd: 'connect' | 'disconnect', home: string, args: string[]): Promise<CliResult> {
  return cliAsync([cmd, ...args, '--data-dir', dataDir], { env: { HOME: home } });
}
