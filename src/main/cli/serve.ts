// perch serve: the hub headless (MCP, owner API, the UI behind a one-time login link) until Ctrl+C. A start prints its
// ready line before the hub is built when it can (cli/serve-front.ts); else (and in the desktop app) the hub first.
import path from 'node:path';
import { DEFAULT_PORT } from '../paths';
import { BACKUPS_DIR, DEFAULT_DAILY_BACKUPS } from '../store/backup/backup';
import { DB_FILE_NAME, isStorageError, isUnreadableDatabase } from '../store/db/db';
import { isNoSpace } from '../store/backup/disk-space';
import { normalizePublicUrl, publicUrl, setPhoneSettings } from '../hub/phone/devices';
import { checkListenAddress } from '../listeners';
import { DATA_DIR_LINE, UsageError, fail, type Command } from './common';
import { readServeOptions } from './serve-options';
import { serveReadyFirst } from './serve-front';
import { STOP_SIGNALS, loginUnsavedNote, openInBrowser, printReady, type StopSignal } from './serve-ready';

/** What `perch --help` and `perch serve --help` say. */
const SERVE_TEXT: Omit<Command, 'run'> = {
  names: ['serve'],
  usage: `  perch serve [--data-dir DIR] [--port N] [--json] [--open] [--rate N] [--durability normal|full] [--backups N] [--containers] [--listen ADDR]...
      Run the hub headless. MCP at http://127.0.0.1:${DEFAULT_PORT}/mcp by default (--port 0 picks a free port).
      --containers also serves /mcp (only) on this computer's container bridges for agents in containers.
      Prints a one-time login link for the browser UI. --json prints one JSON line when ready.
      --durability (env PERCH_DURABILITY): normal (default) keeps every answered write through a crash
      of the hub; full also through a power cut, at one fsync per commit.`,
  help: () => `perch serve [--data-dir DIR] [--port N] [--json] [--open] [--rate N] [--durability normal|full] [--backups N] [--public-url URL] [--containers] [--listen ADDR]...

Runs the hub headless: MCP at http://127.0.0.1:${DEFAULT_PORT}/mcp, the UI in your browser.
  --port N      port on 127.0.0.1 (default ${DEFAULT_PORT}, or PERCH_PORT; 0 picks a free one)
  --json        print one JSON line {mcp_url, port, data_dir, login_url, listeners: [{url, serves}], …} when ready
  --containers  also listen on this computer's container bridge addresses (docker0, br-*, podman*, cni-podman*),
                same port, serving /mcp ONLY (never the app, login, files or pairing) to the Host names
                host.docker.internal and host.containers.internal; only keys allowed \`containers\` log in there
                (perch agent add NAME --from containers). No bridge: says so and serves on loopback only.
  --listen ADDR another address of this computer to serve /mcp on, like --containers (repeatable)
  --open        open the one-time login link in the browser
  --rate N      calls per second per agent (0 = no limit)
  --durability normal|full  normal (the default, or PERCH_DURABILITY) keeps every answered write through a
                crash of the hub; full also through a power cut, at one fsync per commit
  --backups N   daily backups to keep in <data dir>/${BACKUPS_DIR} (default ${DEFAULT_DAILY_BACKUPS}, or PERCH_BACKUPS; 0 = none)
  --public-url URL  the HTTPS front that forwards to this hub (e.g. https://laptop.tail1234.ts.net after
                \`tailscale serve --bg --https=443 http://127.0.0.1:PORT\`); saved, so later runs keep it. The hub
                still listens on 127.0.0.1 only; requests through the front need a paired device (perch device pair),
                or for /mcp a key allowed the tailnet (perch agent key from NAME tailnet).
${DATA_DIR_LINE}
If the port is taken, serve stops and says so (whatever holds the port receives agents' keys).`,
};

/** The command; readyFirst: try the start that prints the ready line before the hub is built (cli/serve-front.ts). */
export function serveCommand(readyFirst: boolean): Command {
  return { ...SERVE_TEXT, run: (argv) => cmdServe(argv, readyFirst) };
}

export const serve: Command = serveCommand(true);

async function cmdServe(argv: string[], readyFirst: boolean): Promise<void> {
  const o = readServeOptions(argv, (message) => new UsageError(message));
  const { dataDir, port, durability } = o;
  let wantPublicUrl: string | undefined;
  if (o.publicUrl !== undefined) {
    try {
      wantPublicUrl = normalizePublicUrl(o.publicUrl);
    } catch (e) {
      throw new UsageError(`--public-url: ${(e as Error).message}`);
    }
  }
  for (const a of o.listen) {
    const bad = checkListenAddress(a);
    if (bad) throw new UsageError(bad);
  }
  if (readyFirst && (await serveReadyFirst(o, () => import('./serve-hub')))) return;
  const { startHub } = await import('../app');
  let running;
  try {
    running = await startHub({
      dataDir,
      port,
      ratePerSecond: o.rate,
      durability,
      dailyBackups: o.dailyBackups,
      containers: o.containers,
      listen: o.listen,
    });
  } catch (err: any) {
    if (err?.code === 'EADDRINUSE') await failPortTaken(port);
    if (err?.code === 'PERCH_ALREADY_SERVING') fail(err.message);
    if (isUnreadableDatabase(err))
      fail(
        `${path.join(dataDir, DB_FILE_NAME)} is not a database SQLite can read (${String(err.code)}), so the hub did not start; nothing was changed. Put a backup in its place with \`perch restore FILE\` (daily backups are in ${path.join(dataDir, BACKUPS_DIR)}), or move the file aside to start with an empty database.`,
        1,
      );
    if (isNoSpace(err) || isStorageError(err))
      fail(
        `the disk holding ${dataDir} is full or failing (${String(err.code)}), so the hub could not start; nothing was changed. Free some disk space (a few MiB) and start it again.`,
        1,
      );
    throw err;
  }
  // The front's URL (tailscale serve): the flag overrides the setting and saves it (it survives restarts).
  // On a full disk the hub serves on (reads work, writes answer storage_full): what cannot be saved at start is said
  // in a note instead of taking it down.
  const hub = running.hub;
  const unsaved = <T>(what: string, fn: () => T): T | undefined => {
    try {
      return fn();
    } catch (err) {
      if (!hub.storageFailure(err)) throw err;
      running.notes.push(
        what === 'the login link'
          ? loginUnsavedNote(dataDir)
          : `The disk holding ${dataDir} is full: ${what} could not be saved. Free some disk space, then start the hub again.`,
      );
      return undefined;
    }
  };
  if (wantPublicUrl !== undefined) unsaved('--public-url', () => setPhoneSettings(hub, { public_url: wantPublicUrl }));
  const phoneUrl = publicUrl(running.hub);
  // Handlers first: whoever reads the ready line below may signal us at once.
  let stopping = false;
  const stop = (signal: StopSignal) => {
    if (stopping) return;
    stopping = true;
    // SIGHUP: the terminal is gone, and so is whatever would read this line.
    if (!o.json && signal !== 'SIGHUP') process.stdout.write(`\nStopping (${signal})…\n`);
    const force = setTimeout(() => process.exit(1), 5000);
    force.unref();
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  for (const signal of STOP_SIGNALS) process.on(signal, () => stop(signal));
  const login = unsaved('the login link', () => running.owner.loginLink()) ?? null;
  printReady(o.json, {
    mcpUrl: running.mcpUrl,
    port: running.port,
    dataDir,
    login,
    durability,
    publicUrl: phoneUrl,
    listeners: running.listeners,
    containerMcpUrl: running.hub.doors.containerMcpUrl,
    notes: running.notes,
  });
  if (o.open && login) void openInBrowser(login);
}

async function failPortTaken(port: number): Promise<never> {
  const { describePortHolder, portTakenMessage } = await import('../port-check');
  fail(portTakenMessage(port, await describePortHolder(port)), 1);
}
