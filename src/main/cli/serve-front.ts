// `perch serve`'s start up to its ready line, before the hub's modules are loaded: the database opened (its schema
// brought up to date), the main listener bound on 127.0.0.1 with the hub's limits, the login link's token stored,
// runtime.json written; then the ready line, and only then the hub (cli/serve-hub.ts, its own bundle
// dist/serve-hub.js), which takes over the requests that came meanwhile: they wait, in order, and none is refused.
// What the ready line names is thus true when it is printed. A start that wants more before it (a listener for
// containers, --public-url to save) or meets any problem here goes the whole way first (cli/serve.ts), as before.
import fs from 'node:fs';
import path from 'node:path';
import { DB_FILE_NAME, isExclusive, isStorageError, openDatabase, type Db } from '../store/db/db';
import { isNoSpace } from '../store/backup/disk-space';
import { holdPort, type HeldListener } from '../held-listener';
import { RUNTIME_FILE } from '../paths';
import { exclusiveNote, liveHubOf, runtimeUnwrittenNote, writeRuntimeFile, type RuntimeInfo } from '../runtime-file';
import { saveLoginToken } from '../store/tables/agents/owner-logins';
import { sha256 } from '../../shared/sha256';
import { containersSettingOn, publicUrlSetting } from '../store/tables/talk/start-settings';
import { OWNER_LOGIN_PATH } from '../../shared/api/owner-paths';
import type { ListenerInfo } from '../listeners';
import type { RunningHub, ServeFront } from '../app';
import { STOP_SIGNALS, loginUnsavedNote, openInBrowser, printReady, type StopSignal } from './serve-ready';
import type { ServeOptions } from './serve-options';

/** The hub's part of `perch serve` (cli/serve-hub.ts), loaded after the ready line. */
export interface HubPart {
  continueServe(o: ServeOptions, front: ServeFront): Promise<RunningHub>;
}

/**
 * Whether this start may print its ready line before the hub is built: the ready line names no listener but the
 * main one (--containers, --listen and the saved container switch are listeners the hub starts), and there is no
 * --public-url to check and save.
 */
export function mayBeReadyFirst(o: ServeOptions): boolean {
  return !o.containers && o.listen.length === 0 && o.publicUrl === undefined;
}

/**
 * Starts `perch serve` ready line first. false: nothing is listening and the database is closed again (a live hub on
 * the data dir, a database that does not open, the port taken, the container switch on): the caller goes the whole
 * way first, which says what is wrong as it always has. Once the ready line is out, a hub that fails to start
 * ends the process (exit 1, the error on stderr).
 */
export async function serveReadyFirst(o: ServeOptions, loadHub: () => Promise<HubPart>): Promise<boolean> {
  if (!mayBeReadyFirst(o) || (await liveHubOf(o.dataDir))) return false;
  let db: Db;
  try {
    fs.mkdirSync(o.dataDir, { recursive: true, mode: 0o700 });
    db = openDatabase(path.join(o.dataDir, DB_FILE_NAME), { durability: o.durability, fullDiskFallback: true });
  } catch {
    return false;
  }
  let held: HeldListener;
  try {
    if (containersSettingOn(db)) throw new Error('the container listener is on: the hub starts it before the ready line');
    held = await holdPort(o.port, '127.0.0.1');
  } catch {
    db.close();
    return false;
  }
  const port = held.port();
  const baseUrl = `http://127.0.0.1:${port}`;
  const notes: string[] = [];
  if (isExclusive(db)) notes.push(exclusiveNote(o.dataDir));
  let login: string | null = null;
  try {
    const token = await randomToken(24);
    saveLoginToken(db, Buffer.from(sha256(token)), Date.now());
    login = `${baseUrl}${OWNER_LOGIN_PATH}#token=${token}`;
  } catch (err) {
    // On a full disk the hub serves on (reads work, writes answer storage_full): the link is not saved, a note says so.
    if (!isStorageError(err) && !isNoSpace(err)) throw err;
    notes.push(loginUnsavedNote(o.dataDir));
  }
  const listeners: ListenerInfo[] = [{ url: baseUrl, serves: ['mcp', 'owner', 'ui'], place: 'local' }];
  const runtime: RuntimeInfo = {
    pid: process.pid,
    port,
    mcp_url: `${baseUrl}/mcp`,
    base_url: baseUrl,
    owner_token: await randomToken(24),
    started_at: Date.now(),
    listeners,
  };
  const runtimeWritten = writeRuntimeFile(o.dataDir, runtime);
  if (!runtimeWritten) notes.push(runtimeUnwrittenNote(o.dataDir));
  const front: ServeFront = { db, held, ownerToken: runtime.owner_token, runtime, runtimeWritten };

  // A hub that did not start (or a start abandoned before it): nothing is left listening or open, and runtime.json,
  // which names this process, goes; the held connections are closed with the listener.
  const abandon = (): never => {
    held.close();
    try {
      db.close();
    } catch {
      /* closed by the hub that failed */
    }
    try {
      const current = JSON.parse(fs.readFileSync(path.join(o.dataDir, RUNTIME_FILE), 'utf8')) as RuntimeInfo;
      if (current.pid === process.pid) fs.rmSync(path.join(o.dataDir, RUNTIME_FILE));
    } catch {
      /* not written, or another hub's */
    }
    process.exit(1);
  };

  // Handlers first: whoever reads the ready line may signal at once. Stopping waits for the hub if it is starting.
  const hub: { starting?: Promise<RunningHub> } = {};
  let stopping = false;
  const stop = (signal: StopSignal) => {
    if (stopping) return;
    stopping = true;
    // SIGHUP: the terminal is gone, and so is whatever would read this line.
    if (!o.json && signal !== 'SIGHUP') process.stdout.write(`\nStopping (${signal})…\n`);
    const force = setTimeout(() => process.exit(1), 5000);
    force.unref();
    (hub.starting ?? Promise.reject(new Error('not started'))).then((running) => running.close().then(() => process.exit(0)), abandon);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, () => stop(signal));

  printReady(o.json, {
    mcpUrl: runtime.mcp_url,
    port,
    dataDir: o.dataDir,
    login,
    durability: o.durability,
    publicUrl: publicUrlSetting(db),
    listeners,
    containerMcpUrl: null,
    notes,
  });
  if (o.open && login) void openInBrowser(login);
  hub.starting = loadHub().then((part) => part.continueServe(o, front));
  hub.starting.catch((err: unknown) => {
    process.stderr.write(
      `perch: the hub did not start after its ready line: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    abandon();
  });
  return true;
}

/**
 * n random bytes, base64url: read from /dev/urandom (the kernel's generator, which node:crypto draws on too), so that
 * the ready line does not wait for node:crypto to load (about 10 ms of CPU); node:crypto where there is no such file.
 */
async function randomToken(n: number): Promise<string> {
  if (process.platform !== 'win32') {
    try {
      const fd = fs.openSync('/dev/urandom', 'r');
      try {
        const bytes = Buffer.alloc(n);
        for (let got = 0; got < n;) {
          const read = fs.readSync(fd, bytes, got, n - got, null);
          if (read <= 0) throw new Error('/dev/urandom ended');
          got += read;
        }
        return bytes.toString('base64url');
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      /* node:crypto below */
    }
  }
  const { randomBytes } = await import('node:crypto');
  return randomBytes(n).toString('base64url');
}
