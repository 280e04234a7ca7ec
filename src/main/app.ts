// Composition root: the hub, its one HTTP server on 127.0.0.1 and the doors on it.
// Used by `perch serve` and by the Electron main process alike.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import crypto from 'node:crypto';
import { openDatabase, DB_FILE_NAME } from './store/db';
import { Hub } from './hub/hub';
import './hub/tools';
import { createMcpHandler, type McpLogLine } from './mcp/endpoint';
import { RUNTIME_FILE } from './paths';
import { sendJson } from './http-util';
import { startBackgroundJobs } from './hub/jobs';
import { createOwnerDoor, type OwnerDoor } from './owner/http';
import { DEFAULT_DAILY_BACKUPS, startDailyBackups } from './store/backup';

export interface StartOptions {
  dataDir: string;
  port: number;
  /** Per-agent calls per second (0 turns the limit off, e.g. for benchmarks). */
  ratePerSecond?: number;
  /** Where to serve the built UI from (defaults to dist/renderer beside this file). */
  uiDir?: string;
  /** Daily backups to keep in <dataDir>/backups (default 7; 0 turns them off). */
  dailyBackups?: number;
}

export interface RunningHub {
  hub: Hub;
  port: number;
  mcpUrl: string;
  baseUrl: string;
  dataDir: string;
  owner: OwnerDoor;
  close(): Promise<void>;
}

export interface RuntimeInfo {
  pid: number;
  port: number;
  mcp_url: string;
  base_url: string;
  /** Bearer token of the owner API for the local `perch owner` command. */
  owner_token: string;
  started_at: number;
}

/** Refusal to start a second hub on a data dir that a live hub already serves. */
export class AlreadyServingError extends Error {
  readonly code = 'PERCH_ALREADY_SERVING';
  constructor(readonly runtime: RuntimeInfo, dataDir: string) {
    super(`another Perch (pid ${runtime.pid}) is already serving ${dataDir} at ${runtime.mcp_url}. One hub owns a data dir: use that one, stop it first, or pick another --data-dir.`);
    this.name = 'AlreadyServingError';
  }
}

/**
 * The hub that runtime.json names, if it is alive and answering as Perch. One process owns the
 * database and the bus (DESIGN.md): a second hub on the same file would never wake the first one's
 * waiting agents. A runtime.json left by a crash (kill -9) names a dead pid or a silent port.
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
    await res.arrayBuffer();
    return /realm="perch"/.test(res.headers.get('www-authenticate') ?? '') ? rt : undefined;
  } catch {
    return undefined;
  }
}

export async function startHub(opts: StartOptions): Promise<RunningHub> {
  const other = await liveHubOf(opts.dataDir);
  if (other) throw new AlreadyServingError(other, opts.dataDir);
  fs.mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  const db = openDatabase(path.join(opts.dataDir, DB_FILE_NAME));
  const hub = new Hub({ db });
  hub.onClose(() => db.close());
  startBackgroundJobs(hub);

  fs.mkdirSync(path.join(opts.dataDir, 'logs'), { recursive: true, mode: 0o700 });
  const logStream = fs.createWriteStream(path.join(opts.dataDir, 'logs', 'hub.log'), { flags: 'a', mode: 0o600 });
  // One write per event-loop turn (or per 64 KiB), not one per call: the log is for people, not durability.
  let logBuffer = '';
  let logFlush: NodeJS.Immediate | undefined;
  const flushLog = () => {
    logFlush = undefined;
    if (logBuffer) logStream.write(logBuffer);
    logBuffer = '';
  };
  const log = (line: McpLogLine) => {
    logBuffer += `${JSON.stringify({ t: Date.now(), door: 'mcp', ...line })}\n`;
    if (logBuffer.length > 64 * 1024) flushLog();
    else logFlush ??= setImmediate(flushLog);
  };

  const mcp = createMcpHandler({ hub, ratePerSecond: opts.ratePerSecond, log });
  const ownerToken = crypto.randomBytes(24).toString('base64url');
  const owner = createOwnerDoor({ hub, cliToken: ownerToken, uiDir: opts.uiDir });

  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    if (url === '/mcp' || url === '/mcp/' || url.startsWith('/mcp?')) return mcp(req, res);
    if (owner.handles(url)) return owner.handle(req, res);
    sendJson(res, 404, { error: { code: 'not_found', message: `Nothing at ${url}.`, next_step: 'MCP clients use POST /mcp.' } });
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 70_000;
  server.requestTimeout = 0; // long waits (get_updates wait_secs) are bounded by the hub

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as { port: number }).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  hub.baseUrl = baseUrl;

  const runtimePath = path.join(opts.dataDir, RUNTIME_FILE);
  const runtime: RuntimeInfo = { pid: process.pid, port, mcp_url: `${baseUrl}/mcp`, base_url: baseUrl, owner_token: ownerToken, started_at: Date.now() };
  fs.writeFileSync(runtimePath, JSON.stringify(runtime, null, 2), { mode: 0o600 });
  fs.chmodSync(runtimePath, 0o600);

  const backups = startDailyBackups(db, opts.dataDir, opts.dailyBackups ?? DEFAULT_DAILY_BACKUPS, (line) => {
    logStream.write(`${JSON.stringify({ t: Date.now(), door: 'backup', ...line })}\n`);
  });

  let closed = false;
  return {
    hub,
    port,
    mcpUrl: runtime.mcp_url,
    baseUrl,
    dataDir: opts.dataDir,
    owner,
    async close() {
      if (closed) return;
      closed = true;
      await backups.stop();
      owner.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      try {
        const current = JSON.parse(fs.readFileSync(runtimePath, 'utf8')) as RuntimeInfo;
        if (current.pid === process.pid) fs.rmSync(runtimePath);
      } catch { /* already gone */ }
      if (logFlush) clearImmediate(logFlush);
      flushLog();
      await new Promise<void>((resolve) => logStream.end(resolve));
      hub.close();
    },
  };
}
