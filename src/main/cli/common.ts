// What every `perch` command family shares: the shape of a command (cli/index.ts dispatches to them), usage
// errors, output, the data dir, the hub on the database file, and the running hub's runtime file.
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_PORT, RUNTIME_FILE, defaultDataDir } from '../paths';
import { DB_FILE_NAME, openDatabase } from '../store/db/db';
import type { PerchHub } from '../hub/services';
import { createHub } from '../hub-services';

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
  process.stderr.write(`perch: ${message}\n`);
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

/** One JSON line (--json) or the human text. */
export function print(json: boolean, value: unknown, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
}

export const DATA_DIR_LINE = `  --data-dir DIR   where the SQLite file lives (default: PERCH_DATA_DIR or ${defaultDataDir()})`;

/** --data-dir DIR, or PERCH_DATA_DIR, or the default; absolute. */
export function dataDirOf(values: { 'data-dir'?: string }): string {
  return path.resolve(values['data-dir'] ?? defaultDataDir());
}

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
