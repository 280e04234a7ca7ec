// The perch command's dispatch: from argv to one command of a list, `perch --help` and `perch CMD --help` from that
// list, and the one-line errors every command shares. cli/index.ts runs it over every command family; the serve entry
// (cli/serve-main.ts, its own bundle dist/serve.js) over `perch serve` alone, so a hub's start reads no other command.
import { NewerDatabaseError, isStorageError } from '../store/db/db';
import { isHubError } from '../../shared/errors';
import { PERCH_VERSION } from '../../shared/version';
import { DATA_DIR_LINE, UsageError, fail, type Command } from './common';

function commandNamed(commands: readonly Command[], name: string): Command | undefined {
  return commands.find((c) => c.names.includes(name));
}

/** `perch --help`: every family's usage lines. */
function topHelp(commands: readonly Command[]): string {
  return `perch ${PERCH_VERSION} — a local hub for your own fleet of AI agents

Usage:
${commands
  .filter((c) => c.usage)
  .map((c) => c.usage)
  .join('\n')}

Common options:
${DATA_DIR_LINE}
`;
}

/** The usage of `perch CMD [SUB]`, or a UsageError for a command that does not exist. */
export function helpText(commands: readonly Command[], cmd: string | undefined, sub?: string): string {
  if (cmd === undefined) return topHelp(commands).trimEnd();
  const c = commandNamed(commands, cmd);
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
function helpPointer(commands: readonly Command[], cmd: string | undefined, argv: string[]): string {
  const c = cmd === undefined ? undefined : commandNamed(commands, cmd);
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

/** Runs `perch ARGV...` (argv without node and the script) over these command families, in the order of `perch --help`. */
export async function runCli(commands: readonly Command[], argv: string[]): Promise<void> {
  const [cmd, ...rest] = argv;
  // `perch ledger export … | head`: the reader closing the pipe ends the command quietly, as it ends cat (exit 141,
  // SIGPIPE's), not with an EPIPE stack trace. Not perch serve: a hub does not stop on its output.
  if (cmd !== 'serve') process.stdout.on('error', onStdoutError);
  try {
    if (cmd === undefined || cmd === '--help' || cmd === '-h') {
      process.stdout.write(topHelp(commands));
      return;
    }
    if (cmd === '--version' || cmd === '-v') return void process.stdout.write(`${PERCH_VERSION}\n`);
    const command = commandNamed(commands, cmd);
    if (!command) throw new UsageError(`unknown command ${JSON.stringify(cmd)}. Run \`perch --help\` for the commands.`);
    if (command.names[0] !== 'help' && asksForHelp(rest)) {
      const sub = command.subcommands && rest[0] && !rest[0].startsWith('-') ? rest[0] : undefined;
      process.stdout.write(`${helpText(commands, cmd, sub)}\n`);
      return;
    }
    return await command.run(rest);
  } catch (err) {
    if (err instanceof UsageError)
      fail(err.message.includes('--help') ? err.message : `${err.message.replace(/[.]$/, '')}. ${helpPointer(commands, cmd, rest)}`);
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
      fail(`${argsErrorText(err as Error)} ${helpPointer(commands, cmd, rest)}`);
    throw err;
  }
}

function onStdoutError(err: NodeJS.ErrnoException): void {
  if (err.code === 'EPIPE') process.exit(141);
  throw err;
}
