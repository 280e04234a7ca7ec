// `perch disconnect CLIENT NAME [--project DIR]`: takes out of the client's config files exactly what `perch connect`
// put there for agent NAME (shared/agents/harness-unconfig.ts: its MCP server entry, its Perch hooks, Claude Code's
// permissions.allow rule, and Claude Code's and Codex's telemetry settings when they are Perch's for that agent: the
// hub's endpoint and the agent's perch_otlp_ token), keeps everything else, and forgets the recorded connection. The same diff, backup and dry
// run as connect (config-plan.ts): without --write it prints the diff and changes nothing.
import os from 'node:os';
import { parseArgs } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { DB_FILE_NAME } from '../../store/db/db';
import { findAgent } from '../../hub/identity/identities';
import { WRITABLE_CLIENTS, hookBaseUrl, type ConnectClient } from '../../../shared/agents/harness-config';
import type { UnsetTelemetryOptions } from '../../../shared/agents/telemetry-config';
import { telemetryTokenOwner } from '../../hub/features/ledger/telemetry-tokens';
import { unconfigEditsOf } from '../../../shared/agents/harnesses/connect-edits';
import { PROMPT_HARNESS_LABEL } from '../../../shared/agents/harness';
import { forgetConnection } from '../../hub/control/connections';
import { filesJson, planEdits, projectDir, writePlan } from './config-plan';
import type { ConfigScope } from './config-files';
import { DATA_DIR_LINE, UsageError, dataDirOf, fail, mcpUrlFor, print, withHub, type Command } from '../common';

export const DISCONNECT_HELP = `perch disconnect CLIENT NAME [--write] [--project DIR] [--data-dir DIR] [--json]

Takes agent NAME out of CLIENT (${WRITABLE_CLIENTS.join(', ')}): exactly what \`perch connect CLIENT NAME\` wrote at the
same scope (the MCP server "perch-NAME", NAME's Perch hooks, Claude Code's permissions.allow "mcp__perch-NAME", and
the telemetry settings sending to this hub with NAME's perch_otlp_ token), and nothing else: your own servers, hooks,
rules, telemetry and settings stay as they are. A file left holding nothing is removed.
Codex's approval_policy stays (connect may have set it; change it by hand if you like). Without --write it prints the
changes as a diff and changes nothing; with --write each changed file is backed up first (FILE.perch-backup-<time>-…).
  --project DIR  the project's files (as \`perch connect … --project DIR\` wrote them) instead of the user's
${DATA_DIR_LINE}
  --json       print the plan (and what was written) as JSON`;

async function cmdDisconnect(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { write: { type: 'boolean' }, project: { type: 'string' }, 'data-dir': { type: 'string' }, json: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  const [clientArg, name, extra] = positionals;
  if (clientArg === undefined || name === undefined)
    throw new UsageError(
      `perch disconnect needs CLIENT and NAME, e.g. perch disconnect claude-code kit (CLIENT: ${WRITABLE_CLIENTS.join(', ')})`,
    );
  if (!(WRITABLE_CLIENTS as readonly string[]).includes(clientArg))
    throw new UsageError(`perch disconnect is for ${WRITABLE_CLIENTS.join(', ')}, not ${JSON.stringify(clientArg)}`);
  if (extra !== undefined) throw new UsageError(`unexpected ${JSON.stringify(extra)}`);
  const client = clientArg as ConnectClient;
  const project = values.project === undefined ? undefined : projectDir(values.project);
  const dataDir = dataDirOf(values);
  if (!fs.existsSync(path.join(dataDir, DB_FILE_NAME))) fail(`there is no Perch database in ${dataDir}: check --data-dir.`, 1);
  const { name: agent, id: agentId } = withHub(dataDir, (hub) => findAgent(hub, name));
  const scope: ConfigScope = { base: project ?? os.homedir(), project: project !== undefined };
  // Telemetry settings are Perch's when they send to this hub with a perch_otlp_ token; whose token it is tells whose.
  const telemetry: UnsetTelemetryOptions = {
    base: hookBaseUrl(mcpUrlFor(dataDir)),
    owner: (token) => {
      const id = withHub(dataDir, (hub) => telemetryTokenOwner(hub, token));
      return id === agentId ? 'agent' : id === undefined ? 'none' : 'other';
    },
  };
  const edits = unconfigEditsOf(client, agent, scope.project, telemetry);
  const planned = planEdits(scope, edits);
  let forgot = false;
  if (values.write) {
    writePlan(scope, planned);
    forgot = withHub(dataDir, (hub) =>
      forgetConnection(hub.db, { client, scope: scope.project ? 'project' : 'user', dir: scope.base, agent_id: agentId }),
    );
  }
  const files = filesJson(planned);
  const label = PROMPT_HARNESS_LABEL[client] ?? client;
  print(
    !!values.json,
    { client, agent, written: !!values.write, ...(project ? { project } : {}), files, forgot_connection: forgot },
    () => {
      if (!files.some((f) => f.changed))
        return `Not connected here, nothing to change: ${files.map((f) => f.file).join(' and ')} hold nothing of ${agent}'s Perch entries.`;
      const out: string[] = [];
      for (const f of files) {
        if (!f.changed) out.push(`${f.file}: holds nothing of ${agent}'s.`);
        else if (values.write)
          out.push(
            `${f.file}: ${f.removed ? 'removed (nothing else was in it)' : `took out ${f.what}`}${f.backup ? ` (backup: ${f.backup})` : ''}:\n${f.diff}`,
          );
        else out.push(`${f.file} would lose ${f.what}:\n${f.diff}`);
      }
      out.push(
        values.write
          ? `${label} no longer runs ${agent}'s Perch hooks or server ${project ? `in ${project}` : 'at the user scope'}; restart running sessions.`
          : 'Nothing was written. Run again with --write to make these changes (each file is backed up first).',
      );
      return out.join('\n\n');
    },
  );
}

export const disconnect: Command = {
  names: ['disconnect'],
  usage: `  perch disconnect CLIENT NAME [--write] [--project DIR]
      Take an agent out of Claude Code, Codex, Cursor, GitHub Copilot CLI or OpenCode: exactly what perch connect wrote (a diff, --write applies it).`,
  help: () => DISCONNECT_HELP,
  run: (argv) => cmdDisconnect(argv),
};
