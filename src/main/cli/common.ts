// What every `perch` command family shares: the shape of a command (cli/index.ts dispatches to them), usage
// errors, output, the data dir, the hub on the database file, and the running hub's runtime file.
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_PORT, RUNTIME_FILE, defaultDataDir } from '../paths';
import { DB_FILE_NAME, openDatabase } from '../store/db/db';
import type { PerchHub } from '../hub/services';
import { createHub } from '../hub-services';
import { visibleText } from '../../shared/text/text';

/**
 * One command family of `perch` (a module of cli/): its names, its lines in `perch --help`, its own help beside
 * it, and how it runs. Adding a family is one module exporting a Command and one entry in cli/index.ts COMMANDS.
 * Heavy modules (the server, QR codes, readline) are imported inside run, with import(), so other commands do
 * not load them.
 */
export interface Command {
  /** Its name, then its aliases (`perch agents` is `perch agent`). */
  readonly names: readonly string[];
  /** Its lines under Usage in `perch --help`, indented as there ('' = not listed). */
  readonly usage: string;
  /** `perch help NAME`, `perch NAME --help`. */
  readonly help: () => string;
  /** Subcommands with a help of their own (`perch help agent add`, `perch agent add --help`): name → its help. */
  readonly subcommands?: Readonly<Record<string, () => string>>;
  /** Runs `perch NAME ARGV...`; a UsageError exits 2 with a pointer to the help. */
  readonly run: (argv: string[]) => Promise<void> | void;
}

/** Bad input on the command line: exits 2 with the message and a pointer to the command's --help. */
export class UsageError extends Error {}

export function fail(message: string, code = 2): never {
  // What was typed or stored may be echoed in it: no escape sequence or bidi control reaches the terminal.
  process.stderr.write(`perch: ${visibleText(message)}\n`);
  process.exit(code);
}

/**
 * The folder of a file a command is to write where the owner named it (--out, --to) must exist: a folder that does
 * not is refused, not created (it is most likely a typo), and so is a file in its place. One line on stderr naming
 * it, exit 2, nothing written.
 */
export function requireFolderOf(file: string, flag: string): void {
  const dir = path.dirname(file);
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(dir);
  } catch {
    /* missing, or below a file: not a folder there */
  }
  if (!st) fail(`the folder ${dir} does not exist; nothing was written. Create it first, or pick another ${flag}.`, 2);
  if (!st.isDirectory()) fail(`${dir} is not a folder; nothing was written. Pick another ${flag}.`, 2);
}

/**
 * The text of an input the owner named on the command line — FILE, or stdin for '-' — at most `max` bytes, for
 * `what` (the key, the arguments, the rules file). FILE is opened once, without waiting for a writer, and must be a
 * regular file (a folder, a FIFO or a device such as /dev/zero is refused: never a hang, never an endless read); stdin
 * must not be a terminal and is read to its end, or refused past `max`. Every refusal is a UsageError of one line.
 */
export async function readInput(source: string, max: number, what: string): Promise<string> {
  if (source === '-') {
    if (process.stdin.isTTY) throw new UsageError(`- reads ${what} from stdin, but stdin is a terminal: pipe ${what} in`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > max) throw new UsageError(`${what} on stdin is over ${max} bytes`);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
  }
  const why = (e: unknown) => {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
  };
  let fh: fs.promises.FileHandle;
  try {
    fh = await fs.promises.open(source, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (e) {
    throw new UsageError(`cannot read ${what} from ${source}: ${why(e)}`);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new UsageError(`${source} (${what}) is not a file`);
    if (st.size > max) throw new UsageError(`${source} (${what}) is ${st.size} bytes, over the ${max} it may be`);
    // At most one byte more than its size said: a file that grows meanwhile is refused, not read on.
    const buf = Buffer.alloc(st.size + 1);
    let n = 0;
    for (let r; n < buf.length && (r = await fh.read(buf, n, buf.length - n, n)).bytesRead > 0;) n += r.bytesRead;
    if (n > st.size) throw new UsageError(`${source} (${what}) changed while it was read`);
    return buf.subarray(0, n).toString('utf8');
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`cannot read ${what} from ${source}: ${why(e)}`);
  } finally {
    await fh.close();
  }
}

/**
 * A command family parses every subcommand's options with one table; `perch X SUB` refuses those SUB does not take
 * (besides --data-dir and --json), and words after SUB when it takes none: an option another subcommand has must not
 * be silently ignored (`perch rules import FILE --agent NEW` imports for the file's agents, not NEW).
 */
export function onlyOptions(
  what: string,
  values: Record<string, unknown>,
  takes: readonly string[],
  extraWords: readonly string[] = [],
): void {
  const other = Object.keys(values).find((k) => values[k] !== undefined && k !== 'data-dir' && k !== 'json' && !takes.includes(k));
  if (other !== undefined) throw new UsageError(`${what} takes no --${other}`);
  if (extraWords.length) throw new UsageError(`${what} takes no ${JSON.stringify(extraWords[0]!.slice(0, 80))}`);
}

/**
 * One JSON line (--json) or the human text. The human text goes to a terminal and holds what agents and harnesses
 * wrote (a tool call's command, a name): through visibleText, so no escape sequence or bidi control in it acts on the
 * owner's terminal (JSON.stringify escapes the controls itself).
 */
export function print(json: boolean, value: unknown, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${visibleText(human())}\n`);
}

export const DATA_DIR_LINE = `  --data-dir DIR   where the SQLite file lives (default: PERCH_DATA_DIR or ${defaultDataDir()})`;

export { dataDirOf } from '../paths';

/** Runs fn on a Hub over the data dir's database file (whether or not a hub serves it), then closes the file. */
export function withHub<T>(dataDir: string, fn: (hub: PerchHub) => T): T {
  const db = openDatabase(path.join(dataDir, DB_FILE_NAME));
  try {
    return fn(createHub({ db }));
  } finally {
    db.close();
  }
}

/** The running hub's MCP URL (its runtime file), or the default one. */
export function mcpUrlFor(dataDir: string): string {
  try {
    const rt = JSON.parse(fs.readFileSync(path.join(dataDir, RUNTIME_FILE), 'utf8'));
    return rt.mcp_url;
  } catch {
    return `http://127.0.0.1:${DEFAULT_PORT}/mcp`;
  }
}

/** The running hub's address and owner token (its runtime file); exits 2 when no hub runs. */
export function runtimeOf(dataDir: string): { base_url: string; owner_token: string } {
  const file = path.join(dataDir, RUNTIME_FILE);
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    fail(
      `no running hub found (${file} is missing). Start it with \`perch serve\`${dataDir !== defaultDataDir() ? ` --data-dir ${dataDir}` : ''}.`,
    );
  }
}

export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; json: any; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}
