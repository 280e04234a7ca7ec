// `perch connect CLIENT NAME`: wires agent NAME into a client. For Claude Code, Codex and Cursor it shows the edits to
// the client's own config files (Perch as MCP server perch-NAME, the hooks) as a unified diff and, with --write,
// makes them: a timestamped backup of each file first, the rest of the file as it was, and nothing when it is
// already so (idempotent). Another agent's Perch entries in those files are replaced only with --replace; --project
// DIR edits the project's files instead of the user's. The other clients get their snippet to paste. The key is
// never written: the configs refer to PERCH_KEY_<NAME>; what the written config needs of the shell (that variable,
// `perch` on PATH) is checked and warned about. The edits themselves are pure (src/shared/agents/harnesses/).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DB_FILE_NAME } from '../../store/db/db';
import { findAgent } from '../../hub/identity/identities';
import {
  CONNECT_CLIENTS,
  HOOK_STYLES,
  hookBaseUrl,
  SNIPPET_OF,
  WRITABLE_CLIENTS,
  serverName,
  type ConnectClient,
  type ConnectOptions,
  type HookStyle,
} from '../../../shared/agents/harness-config';
import { configEdits, startCommand } from '../../../shared/agents/harnesses/connect-edits';
import { codexMcpLines } from '../../../shared/agents/harnesses/codex';
import { TomlEditError } from '../../../shared/text/toml-table';
import {
  COPILOT_LOCALHOST_ENV,
  COPILOT_OTLP_ENV,
  copilotConfigEdits,
  needsLocalhostSwitch,
} from '../../../shared/agents/harnesses/copilot';
import { geminiConfigEdits } from '../../../shared/agents/harnesses/gemini';
import { openCodeConfigEdits } from '../../../shared/agents/harnesses/opencode';
import { type ConfigScope } from './config-files';
import { filesJson, oneLine, planEdits, projectDir, writePlan } from './config-plan';
import { recordConnection } from '../../hub/control/connections';
import { sessionsNote } from './connection-notes';
import { withTelemetry } from './connect-telemetry';
import { PROMPT_HARNESS_LABEL } from '../../../shared/agents/harness';
import { connectionSnippets, keyEnvVar } from '../../../shared/agents/snippets';
import { DATA_DIR_LINE, UsageError, dataDirOf, fail, mcpUrlFor, print, withHub, type Command } from '../common';

export const CONNECT_HELP = `perch connect CLIENT NAME [--write] [--replace] [--project DIR] [--channel] [--hooks request|perch] [--ask] [--url URL] [--data-dir DIR] [--json]

Wires agent NAME into CLIENT: ${CONNECT_CLIENTS.join(', ')}.
  claude-code  ~/.claude.json: Perch as the MCP server "perch-NAME" (user scope); ~/.claude/settings.json: HTTP
               hooks to the hub, PermissionRequest (your Approvals inbox decides Claude Code's own permission
               prompts) and the status hooks, each POST BASE/hook/claude-code/EVENT?agent=NAME
  codex        ~/.codex/config.toml: [mcp_servers.perch-NAME] with bearer_token_env_var, and approval_policy =
               "on-request" (so Codex asks, and its prompts reach you; a policy that asks already is kept);
               ~/.codex/hooks.json: the same hooks as curl commands to BASE/hook/codex/EVENT (Codex asks you to
               trust them once, in /hooks)
  cursor       ~/.cursor/mcp.json: Perch as the MCP server "perch-NAME" (the key as \${env:PERCH_KEY_NAME});
               ~/.cursor/hooks.json: beforeShellExecution and beforeMCPExecution run curl to
               BASE/hook/cursor/permission-request
  copilot      ~/.copilot/mcp-config.json: Perch as the MCP server "perch-NAME" (the key as \${PERCH_KEY_NAME});
               ~/.copilot/hooks/perch.json: permissionRequest (your Approvals inbox decides its permission prompts)
               and preToolUse as curl commands that let Copilot carry on when the hub is down, the status hooks as
               Copilot's HTTP hooks, each POST BASE/hook/copilot/EVENT?agent=NAME; start it with
               COPILOT_HOOK_ALLOW_LOCALHOST=1 (it calls a plain-http hook URL only with that); its OpenTelemetry:
               ~/.copilot/perch-otlp-headers.json (the telemetry token) read by ~/.copilot/settings.json
               telemetry.headersProvider, and OTEL_EXPORTER_OTLP_ENDPOINT=BASE in its environment
  gemini       ~/.gemini/settings.json: Perch as the MCP server "perch-NAME" (the key as $PERCH_KEY_NAME, its tools
               trusted) and the hooks BeforeTool (pause, your standing deny rules), AfterTool (the ledger),
               AfterAgent, SessionStart, SessionEnd, Notification as curl commands to BASE/hook/gemini/EVENT;
               its OpenTelemetry (user scope): telemetry.otlpEndpoint BASE/otlp/<telemetry token>, protocol http
  opencode     ~/.config/opencode/opencode.json: Perch as the MCP server "perch-NAME" (the key as
               {env:PERCH_KEY_NAME}); ~/.config/opencode/plugin/perch.js: a small plugin, one fetch per hook to
               BASE/hook/opencode/EVENT?agent=NAME: tool.execute.before (pause, your standing deny rules), its
               permission prompts (your Approvals inbox decides them), tool results, session events and each
               model call's tokens and cost (the cost ledger)
  others       prints the config snippet to paste (no permission hook Perch answers)
BASE is the MCP URL without its final /mcp. Without --write it prints the changes as a diff and changes
nothing. With --write it edits those files (a backup FILE.perch-backup-<time> first; running it again changes
nothing; Perch hooks written before, \`perch hook …\` commands too, are replaced in place). The key is never
written: the configs read it from ${keyEnvVar('NAME')} (set it in the shell that starts the client). The
hooks need curl on the client's PATH (codex, cursor), --hooks perch and --channel need perch; what is
missing is warned about. When the hub is down or a request fails, Claude Code's or Codex's own dialog goes on.
  --hooks request|perch
               request (the default): each hook is one HTTP request (Claude Code's HTTP hooks, curl for
               Codex and Cursor); perch: the commands \`perch hook EVENT --agent NAME\` instead, for a
               machine where curl cannot be used (a Windows shell that does not expand $VAR)
  --replace      the files connect another agent already: make them NAME's (without it, nothing is written)
  --project DIR  the project's files instead of the user's, so each repository can be its own agent:
                 claude-code DIR/.mcp.json + DIR/.claude/settings.local.json, codex DIR/.codex/config.toml +
                 DIR/.codex/hooks.json (Codex reads them in a trusted project), cursor DIR/.cursor/mcp.json +
                 DIR/.cursor/hooks.json, copilot DIR/.github/mcp.json + DIR/.github/hooks/perch.json,
                 gemini DIR/.gemini/settings.json, opencode DIR/opencode.json + DIR/.opencode/plugin/perch.js
  --ask        gemini: a shell command or file write that no standing rule decides waits for your decision
               in the Approvals inbox (BeforeTool; Gemini's own approval dialog cannot be answered from Perch)
  --channel    claude-code: the MCP entry is the stdio \`perch channel\` (messages pushed into the running
               session; a research preview of Claude Code: start it with
               claude --dangerously-load-development-channels server:perch-NAME)
  --url URL    the hub's MCP URL (default: the running hub's, else the default port)
${DATA_DIR_LINE}
  --json       print the plan (and what was written) as JSON`;

function parseClient(s: string | undefined): ConnectClient {
  if (s === undefined)
    throw new UsageError(`perch connect needs CLIENT and NAME, e.g. perch connect claude-code kit (CLIENT: ${CONNECT_CLIENTS.join(', ')})`);
  if (!(CONNECT_CLIENTS as readonly string[]).includes(s))
    throw new UsageError(`unknown client ${JSON.stringify(s)}: use ${CONNECT_CLIENTS.join(', ')}`);
  return s as ConnectClient;
}

async function cmdConnect(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      write: { type: 'boolean' },
      replace: { type: 'boolean' },
      project: { type: 'string' },
      channel: { type: 'boolean' },
      hooks: { type: 'string' },
      ask: { type: 'boolean' },
      url: { type: 'string' },
      'data-dir': { type: 'string' },
      json: { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  });
  const client = parseClient(positionals[0]);
  const name = positionals[1];
  if (name === undefined) throw new UsageError(`perch connect ${client} needs the agent's NAME, e.g. perch connect ${client} kit`);
  if (positionals.length > 2) throw new UsageError(`unexpected ${JSON.stringify(positionals[2])}`);
  if (values.channel && client !== 'claude-code') throw new UsageError('--channel is for claude-code only');
  if (values.hooks !== undefined && !(HOOK_STYLES as readonly string[]).includes(values.hooks))
    throw new UsageError(`--hooks must be ${HOOK_STYLES.join(' or ')}, not ${JSON.stringify(values.hooks)}`);
  if (values.hooks !== undefined && client === 'copilot')
    throw new UsageError('--hooks is not for copilot: its hooks make one request each (curl, or its own HTTP hooks)');
  if (values.hooks !== undefined && client === 'gemini')
    throw new UsageError('--hooks is not for gemini: its hooks are curl commands, one request each');
  if (values.hooks !== undefined && client === 'opencode')
    throw new UsageError('--hooks is not for opencode: its hooks are a plugin Perch writes, one request each');
  if (values.ask && client !== 'gemini') throw new UsageError('--ask is for gemini only (the other harnesses file their own prompts)');
  const styled: readonly ConnectClient[] = WRITABLE_CLIENTS.filter((c) => c !== 'copilot' && c !== 'gemini' && c !== 'opencode');
  if (values.hooks !== undefined && !styled.includes(client))
    throw new UsageError(`--hooks is for ${styled.join(', ')}; ${client} has no hooks Perch writes`);
  if (values.url !== undefined && !/^https?:\/\/[^\s]+$/.test(values.url))
    throw new UsageError(`--url must be an http(s) URL, not ${JSON.stringify(values.url)}`);
  if (values.write && !WRITABLE_CLIENTS.includes(client)) {
    throw new UsageError(
      `--write edits the config files of ${WRITABLE_CLIENTS.join(', ')}; for ${client}, paste the snippet that \`perch connect ${client} ${name}\` prints`,
    );
  }
  const project = values.project === undefined ? undefined : projectDir(values.project);
  if (project !== undefined && !WRITABLE_CLIENTS.includes(client))
    throw new UsageError(
      `--project is for ${WRITABLE_CLIENTS.join(', ')}; for ${client}, put the snippet that \`perch connect ${client} ${name}\` prints in the project's config`,
    );
  const dataDir = dataDirOf(values);
  if (!fs.existsSync(path.join(dataDir, DB_FILE_NAME)))
    fail(`there is no Perch database in ${dataDir}: add the agent first (perch agent add ${name}), or check --data-dir.`, 1);
  const { name: agent, id: agentId } = withHub(dataDir, (hub) => findAgent(hub, name));
  const o: ConnectOptions = {
    agent,
    mcpUrl: values.url ?? mcpUrlFor(dataDir),
    channel: !!values.channel,
    replace: !!values.replace,
    project: project !== undefined,
    hooks: (values.hooks ?? 'request') as HookStyle,
    ask: !!values.ask,
  };
  const env = keyEnvVar(agent);
  const scope: ConfigScope = { base: project ?? os.homedir(), project: project !== undefined };

  if (!WRITABLE_CLIENTS.includes(client)) {
    const snippet = connectionSnippets(o.mcpUrl, agent, null)[SNIPPET_OF[client]]!;
    print(!!values.json, { client, agent, snippet }, () => `Add this to ${client}'s config (the key stays in ${env}):\n\n${snippet}`);
    return;
  }

  // The harness's telemetry to the hub's OTLP receiver, with the agent's telemetry-only token (connect-telemetry.ts).
  const edits =
    client === 'copilot'
      ? copilotConfigEdits(o)
      : client === 'gemini'
        ? geminiConfigEdits(o)
        : client === 'opencode'
          ? openCodeConfigEdits(o)
          : configEdits(client, o);
  const telemetry = withTelemetry(client, o, edits, { scope, agentId, dataDir, write: !!values.write });
  const planned = planEdits(scope, telemetry.edits, (err, abs) => {
    if (err instanceof TomlEditError)
      fail(
        `cannot add [mcp_servers.${serverName(agent)}] to ${oneLine(abs)}: ${oneLine(err.message)}. Nothing was written. Edit it by hand so it has this table:\n[mcp_servers.${serverName(agent)}]\n${codexMcpLines(o).join('\n')}`,
        1,
      );
  });
  const where = { client, scope: scope.project ? ('project' as const) : ('user' as const), dir: scope.base };
  if (values.write) writePlan(scope, planned);
  // Recorded (--write) so that one agent answers for a session: the hook door silences the less specific ones.
  const sessions = withHub(dataDir, (hub) => {
    if (values.write) recordConnection(hub.db, { ...where, agent_id: agentId, connected_at: Date.now() });
    return sessionsNote(hub.db, client, { id: agentId, name: agent }, where.scope, where.dir);
  });
  const start = startCommand(client, o);
  const files = filesJson(planned).map((f) => ({ ...f, diff: hideToken(f.diff, telemetry.token()) }));
  const warnings = [...sessions.warnings, ...shellWarnings(client, o, start ?? client), ...telemetry.notes];
  for (const w of warnings) process.stderr.write(`perch connect: warning: ${w}\n`);
  print(
    !!values.json,
    {
      client,
      agent,
      key_env: env,
      written: !!values.write,
      ...(project ? { project } : {}),
      files,
      sessions: sessions.line,
      start,
      warnings,
    },
    () => {
      const out: string[] = [];
      if (!files.some((f) => f.changed))
        out.push(
          `Already connected, nothing to change: ${files.map((f) => f.file).join(' and ')} ${files.length > 1 ? 'have' : 'has'} ${agent}'s Perch entries as this run would write them (nothing written, no backup).`,
        );
      else
        for (const f of files) {
          if (!f.changed) out.push(`${f.file}: already has ${f.what}.`);
          else if (values.write) out.push(`${f.file}: added ${f.what}${f.backup ? ` (backup: ${f.backup})` : ' (new file)'}:\n${f.diff}`);
          else out.push(`${f.file} would get ${f.what}:\n${f.diff}`);
        }
      if (!values.write && files.some((f) => f.changed))
        out.push(`Nothing was written. Run again with --write to make these changes (each file is backed up first).`);
      out.push(sessions.line);
      out.push(
        `Then start ${PROMPT_HARNESS_LABEL[client] ?? client} with ${agent}'s key in the environment (never in the config):\n  export ${env}=perch_…   # ${agent}'s key, shown when it was added (perch agent rotate-key ${agent} makes a new one)\n${copilotSwitch(client, o) ? `  export ${COPILOT_LOCALHOST_ENV}=1   # Copilot calls hooks at a plain-http 127.0.0.1 URL only with it\n` : ''}${client === 'copilot' && !project ? `  export ${COPILOT_OTLP_ENV}=${hookBaseUrl(o.mcpUrl)}   # Copilot's OpenTelemetry to Perch's ledger (it reads the endpoint from the environment only)\n` : ''}  ${start}`,
      );
      if (client === 'claude-code' && !o.channel)
        out.push(
          `Messages pushed into the running session (Claude Code channels, a preview): perch connect claude-code ${agent} --channel --write, then claude --dangerously-load-development-channels server:${serverName(agent)}`,
        );
      if (client === 'claude-code' && project)
        out.push(`Claude Code asks once whether to use the MCP servers of ${path.join(project, '.mcp.json')}: allow ${serverName(agent)}.`);
      if (client === 'codex')
        out.push(
          `Codex's first run asks twice: trust the new hooks (review them with /hooks; until then no prompt reaches Perch), and it may show a notice about the model; answer it in the terminal. approval_policy "on-request" makes Codex ask (with "never" nothing would reach you; \`codex -a on-request\` does the same for one run).${project ? ` Codex reads ${path.join(project, '.codex')} only in a project you trusted.` : ''}`,
        );
      if (client === 'copilot')
        out.push(
          `Copilot reads its hooks and MCP servers when a session starts: start a new one. Without ${COPILOT_LOCALHOST_ENV}=1 its HTTP status hooks do not run (its permission prompts and pause still reach Perch: those two hooks run curl). While the hub is stopped (or the key is not set) Copilot carries on without Perch: its own permission dialog decides and pause does not reach it.${project ? " Copilot's OpenTelemetry (the ledger's record of its tool calls and tokens) is set up at the user scope only: Copilot takes no telemetry settings from a repository; run perch connect copilot without --project for it." : ''}${project ? ` Copilot reads ${path.join(project, '.github')} only once you trusted that folder (its trust prompt when you first start copilot there).` : ''}`,
        );
      if (client === 'gemini')
        out.push(
          `Gemini reads ${path.join(project ?? '~', '.gemini', 'settings.json')} when a session starts: start a new one. Its own approval dialog is answered in its terminal, never from Perch (a hook cannot approve); ${o.ask ? 'with --ask, shell commands and file writes no standing rule decides wait for you in the Approvals inbox' : 'with --ask, shell commands and file writes no standing rule decides would wait for you in the Approvals inbox'}. While the hub is stopped (or the key is not set) its hooks fail as warnings and its tools run: the pause and your rules hold only while the hub runs.${project ? ` Gemini reads ${path.join(project, '.gemini')} only in a folder it trusts. Gemini's OpenTelemetry (the ledger's tokens and cost) is set up at the user scope only: a project's settings.json is usually in its repository; run perch connect gemini without --project for it.` : ` Its OpenTelemetry goes to the ledger unless GEMINI_TELEMETRY_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT is set where gemini starts (they win over its settings).`}`,
        );
      if (client === 'opencode')
        out.push(
          `OpenCode loads its plugins and MCP servers when it starts: start a new one. While the hub is stopped (or ${env} is not set) the plugin lets every tool call go on and says so once ("perch: the Perch hub did not answer …").${project ? ` Start opencode in ${project} (it reads opencode.json and .opencode/ from where it starts).` : ''}`,
        );
      if (client === 'cursor')
        out.push(
          'Cursor reads hooks.json and mcp.json when it starts: restart it (from that shell, so the hooks and the MCP entry see the key). Its Hooks settings tab shows whether the hooks ran.',
        );
      return out.join('\n\n');
    },
  );
}

/** A diff as printed: the telemetry token (a credential, in the file only) shown by its last four characters. */
function hideToken(diff: string, token: string | undefined): string {
  return token ? diff.split(token).join(`perch_otlp_…${token.slice(-4)}`) : diff;
}

/** Whether Copilot needs COPILOT_HOOK_ALLOW_LOCALHOST=1 for this hub (a plain-http URL). */
function copilotSwitch(client: ConnectClient, o: ConnectOptions): boolean {
  return client === 'copilot' && needsLocalhostSwitch(o.mcpUrl);
}

/** Whether an executable named `name` is on this shell's PATH. */
function onPath(name: string): boolean {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of process.platform === 'win32' ? ['.cmd', '.exe', ''] : ['']) {
      try {
        fs.accessSync(path.join(dir, name + ext), fs.constants.X_OK);
        return true;
      } catch {
        // not here
      }
    }
  }
  return false;
}

/** What the written config needs of the shell that starts the client, and this shell lacks. */
function shellWarnings(client: ConnectClient, o: ConnectOptions, start: string): string[] {
  const env = keyEnvVar(o.agent);
  const label = PROMPT_HARNESS_LABEL[client] ?? client;
  const out: string[] = [];
  if (!process.env[env])
    out.push(
      `${env} is not set in this shell: ${label} reads ${o.agent}'s key from it, and without it nothing reaches Perch. Run export ${env}=perch_… (${o.agent}'s key) in the shell that starts ${start}.`,
    );
  if (!WRITABLE_CLIENTS.includes(client)) return out;
  const perchFor = [...(o.hooks === 'perch' ? ['hooks run `perch hook …`'] : []), ...(o.channel ? ['MCP entry runs `perch channel`'] : [])];
  if (perchFor.length && !onPath('perch'))
    out.push(
      `perch is not on this shell's PATH: ${label}'s ${perchFor.join(' and its ')} and would fail. Install it (npm install -g, or npm link in the Perch clone) so that \`perch\` runs from the shell that starts ${start}.`,
    );
  if (copilotSwitch(client, o) && process.env[COPILOT_LOCALHOST_ENV] !== '1')
    out.push(
      `${COPILOT_LOCALHOST_ENV} is not 1 in this shell: Copilot calls hooks at a plain-http URL (${hookBaseUrl(o.mcpUrl)}) only with it, and without it none of its status hooks reaches Perch. Run export ${COPILOT_LOCALHOST_ENV}=1 in the shell that starts ${start}.`,
    );
  if (client === 'copilot' && !o.project && process.env[COPILOT_OTLP_ENV] !== hookBaseUrl(o.mcpUrl))
    out.push(
      `${COPILOT_OTLP_ENV} is not ${hookBaseUrl(o.mcpUrl)} in this shell: Copilot takes its OpenTelemetry endpoint from the environment only, and without it its tool calls and tokens are not recorded in the ledger. Run export ${COPILOT_OTLP_ENV}=${hookBaseUrl(o.mcpUrl)} in the shell that starts ${start}.`,
    );
  if (o.hooks !== 'perch' && client !== 'claude-code' && client !== 'opencode' && !onPath('curl'))
    out.push(
      `curl is not on this shell's PATH: ${label}'s hooks run curl to ${hookBaseUrl(o.mcpUrl)}/hook/… and without it no prompt reaches Perch (${label}'s own dialog goes on). Install curl${client === 'copilot' ? '' : ', or run again with --hooks perch'}.`,
    );
  return out;
}

export const connect: Command = {
  names: ['connect'],
  usage: `  perch connect CLIENT NAME [--write] [--replace] [--project DIR] [--channel] [--hooks request|perch]
      Wire an agent into Claude Code, Codex, Cursor, GitHub Copilot CLI or OpenCode (MCP entry and permission hook; a diff, --write applies it), or print another client's snippet.`,
  help: () => CONNECT_HELP,
  run: (argv) => cmdConnect(argv),
};
