// runtime.json: how the other \`perch\` commands find the hub that serves a data dir (its address, the owner token of
// the local CLI), and the refusal to start a second hub on a data dir a live hub serves. Light on purpose: \`perch
// serve\` reads and writes it before its ready line, before the hub's modules are loaded (cli/serve-front.ts).
import fs from 'node:fs';
import path from 'node:path';
import { RUNTIME_FILE } from './paths';
import { isNoSpace } from './store/backup/disk-space';
import type { ListenerInfo } from './listeners';

export interface RuntimeInfo {
  pid: number;
  port: number;
  mcp_url: string;
  base_url: string;
  /** Bearer token of the owner API for the local `perch owner` command. */
  owner_token: string;
  started_at: number;
  /** Every listener: the main one and those for agents in containers (listeners.ts). */
  listeners?: ListenerInfo[];
}

/** Refusal to start a second hub on a data dir that a live hub already serves. */
export class AlreadyServingError extends Error {
  readonly code = 'PERCH_ALREADY_SERVING';
  constructor(
    readonly runtime: RuntimeInfo,
    dataDir: string,
  ) {
    super(
      `another Perch (pid ${runtime.pid}) is already serving ${dataDir} at ${runtime.mcp_url}. One hub owns a data dir: use that one, stop it first, or pick another --data-dir.`,
    );
    this.name = 'AlreadyServingError';
  }
}

/**
 * The hub that runtime.json names, if it is alive and answering as Perch, or alive and not answering yet. One process
 * owns the database and the bus (docs/design.md, "Shape"): a second hub on the same file would never wake the first
 * one's waiting agents. A runtime.json left by a crash (kill -9) names a dead pid or a closed port. A live pid whose
 * port takes the request and does not answer within the wait is a hub between its ready line and its hub (its port
 * holds requests until the hub takes them: cli/serve-front.ts) or a busy one: it counts as live.
 */
export async function liveHubOf(dataDir: string): Promise<RuntimeInfo | undefined> {
  let rt: RuntimeInfo;
  try {
    rt = JSON.parse(fs.readFileSync(path.join(dataDir, RUNTIME_FILE), 'utf8')) as RuntimeInfo;
  } catch {
    return undefined;
  }
  if (!rt || typeof rt.pid !== 'number' || typeof rt.base_url !== 'string' || rt.pid === process.pid) return undefined;
  try {
    process.kill(rt.pid, 0);
  } catch (err) {
    if ((err as { code?: string }).code === 'ESRCH') return undefined;
  }
  try {
    const res = await fetch(`${rt.base_url}/mcp`, { method: 'POST', signal: AbortSignal.timeout(1500) });
    // An answer's head decides: its body is not waited for (a timeout below is one with no answer at all).
    void res.body?.cancel().catch(() => undefined);
    return /realm="perch"/.test(res.headers.get('www-authenticate') ?? '') ? rt : undefined;
  } catch (err) {
    return (err as { name?: string } | null)?.name === 'TimeoutError' ? rt : undefined;
  }
}

/**
 * Writes runtime.json (mode 0600). On a full disk it writes nothing (what was written of it is removed) and returns
 * false: the hub still serves, and the caller tries again later.
 */
export function writeRuntimeFile(dataDir: string, runtime: RuntimeInfo): boolean {
  const file = path.join(dataDir, RUNTIME_FILE);
  try {
    fs.writeFileSync(file, JSON.stringify(runtime, null, 2), { mode: 0o600 });
    fs.chmodSync(file, 0o600);
    return true;
  } catch (err) {
    if (!isNoSpace(err)) throw err;
    try {
      fs.rmSync(file, { force: true });
    } catch {
      /* what was written of it */
    }
    return false;
  }
}

/** How often a hub that could not write runtime.json (a full disk) tries again. */
export const RUNTIME_RETRY_MS = 10_000;

/** The ready line's note when runtime.json could not be written (writeRuntimeFile returned false). */
export function runtimeUnwrittenNote(dataDir: string): string {
  return `The disk holding ${dataDir} is full: the hub serves (reads work; writes answer storage_full until there is room), but other perch commands cannot find it until ${RUNTIME_FILE} can be written (tried again every ${RUNTIME_RETRY_MS / 1000} s). Free some disk space.`;
}

/** The ready line's note when the database was opened in EXCLUSIVE locking mode (store/db/db.ts, a full disk). */
export function exclusiveNote(dataDir: string): string {
  return `The disk holding ${dataDir} was too full for SQLite's shared-memory file, so this hub holds its database alone: other perch commands that open it directly (export, backup, agent add…) wait until the hub is restarted with room on the disk.`;
}
