// Composition root: the hub, its one HTTP server on 127.0.0.1 and the doors on it.
// Used by `perch serve` and by the Electron main process alike.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { openDatabase, isExclusive, DB_FILE_NAME, type Db } from './store/db/db';
import type { Durability } from './store/db/durability';
import type { PerchHub } from './hub/services';
import { createHub, type ServiceDeps } from './hub-services';
import { createMcpHandler, type McpHandler, type McpLogLine } from './mcp/endpoint';
import { ensureShellParser } from './hub/features/rules/shell-parser';
import { createHookDoor, isHookPath } from './mcp/hook-door/door';
import { createOtlpDoor, isOtlpPath } from './mcp/otlp-door';
import { RUNTIME_FILE } from './paths';
import {
  AlreadyServingError,
  RUNTIME_RETRY_MS,
  exclusiveNote,
  liveHubOf,
  runtimeUnwrittenNote,
  writeRuntimeFile,
  type RuntimeInfo,
} from './runtime-file';
import { envMs, hubServer, listenOn, serverLimits } from './hub-server';
import type { HeldListener } from './held-listener';
import { totalHandler } from './http-util';
import { startRequestExpiry } from './hub/features/requests/request-expiry';
import { markUndeliveredPrompts, withdrawOrphanedPrompts } from './hub/features/requests/abandoned-prompts';
import { startFloorExpiry } from './hub/features/coordination/floor';
import { startControlWatch } from './hub/control/control';
import { startFleetLive } from './hub/control/fleet-live';
import { fleetWake } from './hub/wake-runs/wake-limits';
import { startKeyWatch } from './hub/identity/key-waits';
import { startBrakes } from './hub/control/brakes';
import { startBackgroundStore, type BackgroundStore } from './store/worker/background';
import { createOwnerDoor, type OwnerDoor } from './owner/http';
import { hasFrontHeaders } from './owner/device-door';
import { createLogWriter, type LogStats } from './log';
import { frontFileLink, frontMcp, isProxyHost, proxiedFileLink, proxiedMcp, startExtraListeners, type ListenerInfo } from './listeners';
import { startContainerSwitch } from './container-switch';
import { DEFAULT_DAILY_BACKUPS, startDailyBackups } from './store/backup/backup';
import { ProcessLauncher } from './launcher/runner';
import { sendWebPush } from './push/web-push';
import { sendNtfy } from './push/ntfy';
import { recordFoundConnections } from './connections-found';

export interface StartOptions {
  dataDir: string;
  /** The hub's clock (tests move it to expire pairings); default Date.now. */
  now?: () => number;
  /** The device door's rate limits (owner/device-door.ts); defaults there. */
  deviceLimits?: import('./owner/device-door').DeviceDoorLimits;
  /**
   * Tests and development only: also accept push subscriptions whose endpoint is on loopback (a test push service),
   * besides the known Web Push services. Env PERCH_TEST_LOOPBACK_PUSH=1 sets it; nothing a caller sends can.
   */
  loopbackPushServices?: boolean;
  port: number;
  /** Per-agent calls per second (0 turns the limit off, e.g. for benchmarks). */
  ratePerSecond?: number;
  /** Where to serve the built UI from (defaults to dist/renderer beside this file). */
  uiDir?: string;
  /** normal (default: survives a crash of the hub) or full (also a power cut; fsync per commit). */
  durability?: Durability;
  /** Longest time to receive a request's headers (ms, default 15 s); then 408 and the socket is closed. */
  headersTimeoutMs?: number;
  /**
   * Longest time to receive a whole request, headers and body (ms, default 30 s); then 408 and the socket
   * is closed. It bounds reading the request only: a long-poll (wait_secs, the owner event stream) waits
   * for its answer as long as it asks once its request is in.
   */
  requestTimeoutMs?: number;
  /** Size at which logs/hub.log rotates (bytes; default 10 MiB, PERCH_LOG_MAX_BYTES overrides). */
  logMaxBytes?: number;
  /** Rotated logs kept: hub.log.1 … hub.log.<logKeep> (default 4). */
  logKeep?: number;
  /** Daily backups to keep in <dataDir>/backups (default 7; 0 turns them off). */
  dailyBackups?: number;
  /**
   * Wake runs' timings (ms): re-run backoff start, SIGTERM→SIGKILL grace, webhook retry start. Defaults in
   * shared/agents/wake.ts; PERCH_WAKE_BACKOFF_MS, PERCH_WAKE_KILL_GRACE_MS, PERCH_WAKE_WEBHOOK_RETRY_MS override them
   * (and PERCH_WAKE_SAMPLE_MS, PERCH_WAKE_CEILING_GRACE_MS: how often runs are sampled, how long over a memory ceiling;
   * PERCH_WAKE_EXIT_GRACE_MS: how long a run whose root exited may hold its output; PERCH_WAKE_CGROUP=off: no cgroups).
   */
  wake?: { backoffMs?: number; killGraceMs?: number; webhookRetryMs?: number };
  /** Also listen on this computer's container bridge addresses (docker0, br-*, podman*), serving /mcp only (listeners.ts). */
  containers?: boolean;
  /** Extra addresses to listen on by hand (IP addresses of this computer), serving /mcp only, as place containers. */
  listen?: string[];
  /**
   * What `perch serve` did before its ready line (cli/serve-front.ts): the database it opened, the main listener it
   * bound (its requests held until this hub takes them), runtime.json with this owner token. Without it startHub
   * does all of that itself (the desktop app, tests).
   */
  front?: ServeFront;
}

/** `perch serve`'s part of a start, done before its ready line (StartOptions.front). */
export interface ServeFront {
  db: Db;
  held: HeldListener;
  ownerToken: string;
  runtime: RuntimeInfo;
  /** false: the disk was full, runtime.json is to be written as soon as there is room. */
  runtimeWritten: boolean;
}

export { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from './hub-server';
export { AlreadyServingError, liveHubOf, type RuntimeInfo } from './runtime-file';
/** How long running wake processes get to end after SIGTERM when the hub stops (the CLI gives close() 5 s). */
const WAKE_SHUTDOWN_GRACE_MS = 2_000;

export interface RunningHub {
  hub: PerchHub;
  port: number;
  mcpUrl: string;
  baseUrl: string;
  dataDir: string;
  owner: OwnerDoor;
  /** Every listener: the main one (everything) and the extra ones for agents in containers (/mcp only). */
  listeners: ListenerInfo[];
  /** What the owner should know about the listeners (e.g. no container bridge found). */
  notes: string[];
  /** How the hub log fares (lines written, dropped while writing failed, rotations). */
  logStats(): LogStats;
  close(): Promise<void>;
}

/**
 * A running hub's background work, started here in this order when it starts; each stops when the hub
 * closes. Nothing starts by being imported: a hub made elsewhere (tests, the CLI) runs none of it.
 */
const BACKGROUND_JOBS: ReadonlyArray<(hub: PerchHub, afterReady: (fn: () => void) => void) => void> = [
  startStoreWorker, // WAL checkpoints and the search index, on a worker thread (store/worker/background.ts), once ready
  startRequestExpiry, // requests that fell due while the hub was down expire at start, later ones on time (hub/features/requests/request-expiry.ts)
  withdrawOrphanedPrompts, // hook prompts filed before this start have no hook waiting any more: withdrawn (hub/features/requests/abandoned-prompts.ts)
  markUndeliveredPrompts, // decisions the last hub recorded but never answered to their hook: marked undelivered (the same file)
  startFloorExpiry, // floors run out on time (hub/features/coordination/floor.ts)
  startKeyWatch, // a key revoked by the CLI while the hub runs ends the calls waiting under it at once (hub/identity/key-waits.ts)
  startControlWatch, // a pause written by `perch agent pause` while the hub runs wakes the agent at once (hub/control/control.ts)
  (hub) => startFleetLive(hub, () => fleetWake(hub)), // the agents, their pause, caps, usage and wake runs pushed to the owner's live stream when they change (hub/control/fleet-live.ts)
  startBrakes, // paused conversations and per-agent budgets load at start; counts rebuild per conversation on first use (hub/control/brakes.ts)
  startRetention, // the owner's retention rules, applied in small steps between requests (hub/features/retention/retention-job.ts)
  startFoundConnections, // connections in the harnesses' files that nothing records yet (an earlier Perch's): recorded once, after start (connections-found.ts)
];

/** Soon after start, off the path to ready: reads a few small files. A hub that cannot write (a full disk) records nothing. */
function startFoundConnections(hub: PerchHub): void {
  const timer = setTimeout(() => {
    try {
      const found = recordFoundConnections(hub.db);
      for (const c of found)
        process.stderr.write(
          `perch: found ${c.agent} connected in ${c.client}'s files (${c.scope === 'user' ? 'user scope' : c.dir}); recorded it\n`,
        );
    } catch {
      /* the files stay as they are; tried again at the next start */
    }
  }, 200);
  timer.unref();
  hub.onClose(() => clearTimeout(timer));
}

function startRetention(hub: PerchHub): void {
  hub.services.retention.start();
}

/**
 * The store's worker thread: no request waits for a checkpoint or for indexing. Its thread starts after the caller's
 * ready line (starting it is a noticeable part of a cold start); until then the hub's connection checkpoints by itself
 * and search reads the conversations directly, as whenever the worker is not running (store/worker/background.ts).
 */
function startStoreWorker(hub: PerchHub, afterReady: (fn: () => void) => void): void {
  let background: BackgroundStore | undefined;
  let closed = false;
  afterReady(() => {
    if (!closed) background = startBackgroundStore(hub.db);
  });
  hub.onClose(() => {
    closed = true;
    background?.close();
  });
}

/**
 * Wake runs: an agent with a wake action is started when an event wakes it and nothing of it listens.
 * The policy (hub/wake-runs/wake-runs.ts) decides; the launcher (launcher/runner.ts) starts processes and POSTs webhooks.
 * Started once the port is known (runs are told the MCP URL); on close, running processes get SIGTERM.
 */
function wakeDeps(opts: StartOptions): NonNullable<ServiceDeps['wake']> {
  const launcher = new ProcessLauncher({
    dir: path.join(opts.dataDir, 'wake'),
    killGraceMs: opts.wake?.killGraceMs ?? envMs('PERCH_WAKE_KILL_GRACE_MS'),
    webhookRetryMs: opts.wake?.webhookRetryMs ?? envMs('PERCH_WAKE_WEBHOOK_RETRY_MS'),
    sampleMs: envMs('PERCH_WAKE_SAMPLE_MS'),
    exitGraceMs: envMs('PERCH_WAKE_EXIT_GRACE_MS'),
  });
  return {
    launcher,
    options: {
      backoffMs: opts.wake?.backoffMs ?? envMs('PERCH_WAKE_BACKOFF_MS'),
      keepRuns: envMs('PERCH_WAKE_KEEP_RUNS'),
      ceilingGraceMs: envMs('PERCH_WAKE_CEILING_GRACE_MS'),
    },
  };
}

export async function startHub(opts: StartOptions): Promise<RunningHub> {
  const front = opts.front;
  if (!front) {
    const other = await liveHubOf(opts.dataDir);
    if (other) throw new AlreadyServingError(other, opts.dataDir);
    fs.mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  }
  const db = front?.db ?? openDatabase(path.join(opts.dataDir, DB_FILE_NAME), { durability: opts.durability, fullDiskFallback: true });
  // The log never takes the hub down (a failing write drops lines) and never fills the disk (it rotates).
  const logWriter = createLogWriter({
    file: path.join(opts.dataDir, 'logs', 'hub.log'),
    maxBytes: opts.logMaxBytes ?? (Number(process.env.PERCH_LOG_MAX_BYTES) || undefined),
    keep: opts.logKeep,
    onTrouble: (message) => process.stderr.write(`perch: ${message}\n`),
  });
  const hub = createHub({
    db,
    now: opts.now,
    wake: wakeDeps(opts),
    // Push notices to paired phones (Web Push) and ntfy: hub/phone/notify.ts decides, src/main/push/* sends.
    notify: {
      senders: { webPush: sendWebPush, ntfy: sendNtfy, log: (message) => logWriter.write({ t: Date.now(), door: 'push', message }) },
      options: { loopbackPushServices: opts.loopbackPushServices ?? process.env.PERCH_TEST_LOOPBACK_PUSH === '1' },
    },
    // A retention pass whose export-first failed (it deleted nothing) says so in the hub's log.
    retention: { log: (message) => logWriter.write({ t: Date.now(), door: 'retention', message }) },
  });
  hub.onClose(() => db.close());
  // What runs once the caller has printed its ready line (the setImmediate at the end of startHub).
  const afterReady: Array<() => void> = [];
  for (const job of BACKGROUND_JOBS) job(hub, (fn) => afterReady.push(fn));

  const log = (line: McpLogLine) => logWriter.write({ t: Date.now(), door: 'mcp', ...line });

  const mcp = createMcpHandler({ hub, ratePerSecond: opts.ratePerSecond, log });
  const hookDoor = createHookDoor(hub);
  const otlp = createOtlpDoor(hub);
  // The agent's doors beside /mcp (served wherever it is): the hook doors, and the OTLP receiver for its harness's telemetry.
  const hooks: McpHandler = (req, res, at) => (isOtlpPath((req.url ?? '').split('?')[0]!) ? otlp(req, res, at) : hookDoor(req, res, at));
  const ownerToken = front?.ownerToken ?? crypto.randomBytes(24).toString('base64url');
  const owner = createOwnerDoor({ hub, cliToken: ownerToken, uiDir: opts.uiDir, deviceLimits: opts.deviceLimits });

  const limits = serverLimits(opts);
  // Every door is total (totalHandler): nothing a request carries may throw out of here or crash the hub on a stream error.
  const handler = totalHandler((req, res, target) => {
    const p = target.pathname;
    if (p === '/mcp' || p === '/mcp/') {
      // Through the HTTPS front (tailscale serve): only keys allowed the tailnet, with the phone front's checks.
      if (hasFrontHeaders(req)) return frontMcp(hub, mcp, req, res);
      // From a container through its runtime's proxy (Docker Desktop, Podman machine): Host host.docker.internal.
      if (isProxyHost(req)) return proxiedMcp(hub, mcp, req, res);
      return mcp(req, res);
    }
    if (isHookPath(p) || isOtlpPath(p)) {
      // A harness's hooks, behind the agent's key, served where /mcp is: the front and a runtime's proxy with their
      // checks and places (a key's places apply to its hooks exactly as to /mcp), else the loopback.
      if (hasFrontHeaders(req)) return frontMcp(hub, hooks, req, res);
      if (isProxyHost(req)) return proxiedMcp(hub, hooks, req, res);
      return hooks(req, res);
    }
    // A file link made for an agent on the tailnet, through the front (listeners.ts); the owner's stay refused there.
    if (p.startsWith('/files/') && hasFrontHeaders(req) && frontFileLink(hub, req, res, target.path.slice('/files/'.length))) return;
    // A file link made for an agent that called through a container runtime's proxy (listeners.ts); nothing else with that Host.
    if (
      p.startsWith('/files/') &&
      !hasFrontHeaders(req) &&
      isProxyHost(req) &&
      proxiedFileLink(hub, req, res, target.path.slice('/files/'.length))
    )
      return;
    // Everything else is the owner door's (its own 404 for paths it does not serve).
    return owner.handle(req, res, target);
  });

  // perch serve bound the main listener before its ready line: the requests that came since wait for the handler.
  const server = hubServer(limits, handler);
  if (front) front.held.take(server);
  else await listenOn(server, opts.port, '127.0.0.1');
  const port = front ? front.held.port() : (server.address() as { port: number }).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  // The extra listeners for agents in containers, on the same port: /mcp only (listeners.ts).
  // Those on the container bridges are a switch the owner turns in the app (container-switch.ts); --listen ones stay.
  let extra: Awaited<ReturnType<typeof startExtraListeners>>;
  let containers: Awaited<ReturnType<typeof startContainerSwitch>>;
  try {
    extra = await startExtraListeners({ hub, mcp, hooks, port, limits, containers: false, listen: opts.listen ?? [] });
    containers = await startContainerSwitch({
      hub,
      mcp,
      hooks,
      port,
      limits,
      forced: !!opts.containers,
      byHand: extra.listeners.map((l) => l.url.replace(/^http:\/\/\[?|\]?:\d+$/g, '')),
    });
  } catch (err) {
    front?.held.close();
    await Promise.all([server, ...(extra! ? extra.servers : [])].map((srv) => new Promise<void>((resolve) => srv.close(() => resolve()))));
    hub.close();
    throw err;
  }
  const listeners: ListenerInfo[] = [
    { url: baseUrl, serves: ['mcp', 'owner', 'ui'], place: 'local' },
    ...extra.listeners,
    ...containers.listeners(),
  ];
  hub.doors.opened({
    baseUrl,
    containerSwitch: containers,
    containerMcpUrl: containers.listeners()[0]?.container_mcp_url ?? extra.listeners[0]?.container_mcp_url ?? null,
  });
  // Once the port is known: wake runs are told the MCP URL, and pushes link to this hub.
  const wakeRuns = hub.services.wakeRuns;
  wakeRuns.start();
  hub.services.notify?.start();

  const runtimePath = path.join(opts.dataDir, RUNTIME_FILE);
  const runtime: RuntimeInfo = {
    pid: process.pid,
    port,
    mcp_url: `${baseUrl}/mcp`,
    base_url: baseUrl,
    owner_token: ownerToken,
    started_at: front?.runtime.started_at ?? Date.now(),
    listeners,
  };
  // On a full disk the hub still starts and serves (reads work, writes answer storage_full); runtime.json, which
  // lets the other perch commands find it, is then written as soon as there is room again. perch serve wrote it
  // before its ready line (with the main listener, the only one when it does so).
  const writeRuntime = (): boolean => writeRuntimeFile(opts.dataDir, runtime);
  const notes = [...extra.notes, ...containers.notes()];
  if (isExclusive(db)) notes.push(exclusiveNote(opts.dataDir));
  let runtimeRetry: NodeJS.Timeout | undefined;
  const written = front && listeners.length === front.runtime.listeners?.length ? front.runtimeWritten : writeRuntime();
  if (!written) {
    notes.push(runtimeUnwrittenNote(opts.dataDir));
    runtimeRetry = setInterval(() => {
      if (writeRuntime()) clearInterval(runtimeRetry);
    }, RUNTIME_RETRY_MS);
    runtimeRetry.unref();
  }

  const backups = startDailyBackups(db, opts.dataDir, opts.dailyBackups ?? DEFAULT_DAILY_BACKUPS, (line) => {
    logWriter.write({ t: Date.now(), door: 'backup', ...line });
  });

  // After the caller's ready line (it runs once startHub's promise has resolved): what the first tools/list needs, and
  // the shell parser standing rules read commands with (a prompt filed before it has loaded waits for it).
  setImmediate(() => {
    for (const fn of afterReady) fn();
    mcp.warm();
    void ensureShellParser().then(({ failure }) => failure && logWriter.write({ t: Date.now(), door: 'rules', message: failure }));
  }).unref();

  let closed = false;
  return {
    hub,
    port,
    mcpUrl: runtime.mcp_url,
    baseUrl,
    dataDir: opts.dataDir,
    owner,
    listeners,
    notes,
    logStats: () => logWriter.stats(),
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(runtimeRetry);
      await backups.stop();
      // Running wake processes get SIGTERM, then (2 s later, if still there) SIGKILL of their group: none outlives the hub.
      await wakeRuns.shutdown(WAKE_SHUTDOWN_GRACE_MS);
      owner.close();
      hub.doors.closing();
      await containers.close();
      front?.held.close();
      await Promise.all(
        [server, ...extra.servers].map(
          (srv) =>
            new Promise<void>((resolve) => {
              srv.close(() => resolve());
              srv.closeAllConnections();
            }),
        ),
      );
      try {
        const current = JSON.parse(fs.readFileSync(runtimePath, 'utf8')) as RuntimeInfo;
        if (current.pid === process.pid) fs.rmSync(runtimePath);
      } catch {
        /* already gone */
      }
      await logWriter.close();
      hub.close();
    },
  };
}
