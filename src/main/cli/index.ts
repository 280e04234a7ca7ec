// The `perch` command: serve the hub, manage agents, call tools, act as the owner. This file dispatches to one
// module per command family (each a Command, with its help beside it: cli/common.ts) and assembles
// `perch --help` from them. A new family is one module and one entry in COMMANDS.
import { NewerDatabaseError, isStorageError } from '../store/db/db';
import { isHubError } from '../../shared/errors';
import { PERCH_VERSION } from '../../shared/version';
import { DATA_DIR_LINE, UsageError, fail, type Command } from './common';
import { serve } from './serve';
import { agent } from './agents/agents';
import { device } from './owner/device';
import { call, owner } from './owner/call';
import { backup, restore } from './data/backup';
import { exportCmd, importCmd } from './data/export';
import { HOOK_HELP, cmdHook } from './hook/hook';
import { conv } from './owner/conv';
import { retention } from './data/retention';
import { ledger } from './data/ledger';
import { rules } from './owner/rules';
import { wake } from './agents/wake';
import { CHANNEL_HELP, cmdChannel } from './channel/channel';
import { connect } from './agents/connect';
import { disconnect } from './agents/disconnect';

const version: Command = {
  names: ['version'],
  usage: '',
  help: () => `perch version — prints the version (also --version, -v)`,
  run: () => void process.stdout.write(`${PERCH_VERSION}\n`),
};

const help: Command = {
  names: ['help'],
  usage: `  perch help COMMAND [SUBCOMMAND]      (or: perch COMMAND --help)
      Usage of one command.`,
  help: () => `perch help [COMMAND [SUBCOMMAND]] — usage of perch or of one command (also: perch COMMAND --help)`,
  run: (argv) => void process.stdout.write(`${helpText(argv[0], argv[1])}\n`),
};

/** Every command family, in the order of `perch --help`. */
/** A coding agent's harness runs this at its permission prompts and other hook events (bin/perch.js runs dist/hook.js for it, a bundle of its own). */
const hook: Command = {
  names: ['hook'],
  usage: `  perch hook permission-request [--agent NAME] [--timeout SECS]
      Claude Code's or Codex's PermissionRequest hook: their prompts go to your Approvals inbox (see docs/guide/harnesses.md).
  perch hook pre-tool-use | notification | stop | session-start | session-end [--agent NAME]
      Their other hooks: a paused agent's tool calls are blocked; its session's status shows in Fleet.`,
  help: () => HOOK_HELP,
  run: (argv) => cmdHook(argv),
};

/** Claude Code's MCP server for one agent: tools, pushed events, permission relay (bin/perch.js runs dist/channel.js for it). */
const channel: Command = {
  names: ['channel'],
  usage: `  perch channel [--agent NAME] [--instance NAME]
      A stdio MCP server for Claude Code: the agent's tools, its messages pushed into the session, its prompts relayed (see docs/guide/harnesses.md).`,
  help: () => CHANNEL_HELP,
  run: async (argv) => {
    process.exitCode = await cmdChannel(argv);
  },
};

const COMMANDS: readonly Command[] = [
  serve,
  agent,
  device,
  call,
  owner,
  conv,
  retention,
  ledger,
  rules,
  wake,
  hook,
  channel,
  connect,
  disconnect,
  backup,
  restore,
  exportCmd,
  importCmd,
  help,
  version,
];

function commandNamed(name: string): Command | undefined {
  return COMMANDS.find((c) => c.names.includes(name));
}

/** `perch --help`: every family's usage lines. */
function topHelp(): string {
  return `perch ${PERCH_VERSION} — a local hub for your own fleet of AI agents

Usage:
${COMMANDS.filter((c) => c.usage)
  .map((c) => c.usage)
  .join('\n')}

Common options:
${DATA_DIR_LINE}
`;
}

/** The usage of `perch CMD [SUB]`, or a UsageError for a command that does not exist. */
function helpText(cmd: string | undefined, sub?: string): string {
  if (cmd === undefined) return topHelp().trimEnd();
  const c = commandNamed(cmd);
  if (!c) throw new UsageError(`unknown command ${JSON.stringify(cmd)}. Run \`perch --help\` for the commands.`);
  if (c.subcommands && sub !== undefined) {
    const s = Object.hasOwn(c.subcommands, sub) ? c.subcommands[sub] : undefined;
    if (!s)
      throw new UsageError(
        `unknown ${c.names[0]} command ${JSON.stringify(sub)}: use ${Object.keys(c.subcommands).join(', ')}. Run \`perch ${c.names[0]} --help\`.`,
      );
    return s();
  }
  return c.help();
}

/** --help or -h among the options (not after `--`, not as a value such as a JSON argument). */
function asksForHelp(argv: string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}

/** The `perch help X` pointer for a usage error in `perch CMD [SUB]`. */
function helpPointer(cmd: string | undefined, argv: string[]): string {
  const c = cmd === undefined ? undefined : commandNamed(cmd);
  if (!c) return 'Run `perch --help`.';
  const sub = c.subcommands && argv[0] && Object.hasOwn(c.subcommands, argv[0]) ? ` ${argv[0]}` : '';
  return `Run \`perch ${cmd}${sub} --help\`.`;
}

/** parseArgs' message, shortened for an unknown option. */
function argsErrorText(err: Error): string {
  const unknown = /^Unknown option '([^']+)'/.exec(err.message);
  if (unknown) return `unknown option ${unknown[1]} (a value that starts with - goes after --).`;
  // node's text for "--opt -x" spans three lines; one line says the same.
  const ambiguous = /^Option '([^' ]+)[^']*' argument is ambiguous/.exec(err.message);
  if (ambiguous) return `${ambiguous[1]} needs a value, and the next word starts with - (write ${ambiguous[1]}=-VALUE for such a value).`;
  return /[.]$/.test(err.message) ? err.message : `${err.message}.`;
}

export async function main(argv: string[]): Promise<void> {
  const [cmd, ...rest] = argv;
  // `perch ledger export … | head`: the reader closing the pipe ends the command quietly, as it ends cat (exit 141,
  // SIGPIPE's), not with an EPIPE stack trace. Not perch serve: a hub does not stop on its output.
  if (cmd !== 'serve') process.stdout.on('error', onStdoutError);
  try {
    if (cmd === undefined || cmd === '--help' || cmd === '-h') {
      process.stdout.write(topHelp());
      return;
    }
    if (cmd === '--version' || cmd === '-v') return await version.run([]);
    const command = commandNamed(cmd);
    if (!command) throw new UsageError(`unknown command ${JSON.stringify(cmd)}. Run \`perch --help\` for the commands.`);
    if (command !== help && asksForHelp(rest)) {
      const sub = command.subcommands && rest[0] && !rest[0].startsWith('-') ? rest[0] : undefined;
      process.stdout.write(`${helpText(cmd, sub)}\n`);
      return;
    }
    return await command.run(rest);
  } catch (err) {
    if (err instanceof UsageError)
      fail(err.message.includes('--help') ? err.message : `${err.message.replace(/[.]$/, '')}. ${helpPointer(cmd, rest)}`);
    if (err instanceof NewerDatabaseError) fail(err.message);
    if (isHubError(err)) fail(`${err.message} ${err.nextStep}`, 1);
    if ((err as { code?: unknown })?.code === 'SQLITE_BUSY')
      fail(
        'the database is held by another process (SQLITE_BUSY: a hub holding it alone because its disk was full, or a long write); nothing was changed. Try again later, or stop that hub first.',
        1,
      );
    // SQLite could not write (a full or failing disk): it rolled back, so the database is as it was.
    if (isStorageError(err)) {
      const code = String((err as { code?: unknown }).code);
      // The shared-memory file is made when the database is first read, before anything is written.
      if (code.startsWith('SQLITE_IOERR_SHM'))
        fail(
          `the disk holding the database is too full for SQLite's shared-memory file (${code}; it needs 32 KiB beside the database), so this stopped before it began; nothing was changed. Free some disk space and run it again.`,
          1,
        );
      fail(
        `the disk is full or failing (${code}), so this stopped; the database was not changed (SQLite rolled back what it was writing). Free some disk space and run it again.`,
        1,
      );
    }
    if (
      (err as { code?: string })?.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ||
      (err as { code?: string })?.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' ||
      (err as { code?: string })?.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL'
    )
      fail(`${argsErrorText(err as Error)} ${helpPointer(cmd, rest)}`);
    throw err;
  }
}

function onStdoutError(err: NodeJS.ErrnoException): void {
  if (err.code === 'EPIPE') process.exit(141);
  throw err;
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`perch: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
