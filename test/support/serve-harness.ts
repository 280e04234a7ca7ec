// Integration harness: a real `perch serve` process on a temporary data dir, agents added with the
// real CLI, and the OFFICIAL MCP clients of both protocol eras connected as those agents.
//   v1: @modelcontextprotocol/sdk 1.x Client + StreamableHTTPClientTransport (2025 handshake era)
//   v2: @modelcontextprotocol/client 2.x pinned to 2026-07-28 (server/discover, per-request _meta)
// Everything is bounded in time and cleaned up (processes killed, temp dirs removed).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';

export const ROOT = path.resolve(__dirname, '..', '..');
export const BIN = path.join(ROOT, 'bin', 'perch.js');
const DIST = path.join(ROOT, 'dist', 'cli.js');

export type Era = 'v1' | 'v2';
export const ERAS: readonly Era[] = ['v1', 'v2'];
export const ERA_NAME: Record<Era, string> = { v1: '2025 era (sdk v1 client)', v2: '2026-07-28 era (v2 client, pinned)' };

// ---- build ---------------------------------------------------------------------------------

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else if (e.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

let built = false;
/** Builds dist/cli.js when it is missing or older than the sources (once per process, under a lock across processes). */
export function ensureBuilt(): void {
  if (built) return;
  const stale = () =>
    !fs.existsSync(DIST) ||
    fs.statSync(DIST).mtimeMs < Math.max(newestMtime(path.join(ROOT, 'src', 'main')), newestMtime(path.join(ROOT, 'src', 'shared')));
  if (stale()) {
    const lock = path.join(os.tmpdir(), 'perch-test-build.lock');
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        fs.mkdirSync(lock);
        break;
      } catch {
        // Another test process is building; a lock older than a minute is left over from a crash.
        try {
          if (Date.now() - fs.statSync(lock).mtimeMs > 60_000) fs.rmSync(lock, { recursive: true, force: true });
        } catch {
          /* gone */
        }
        if (Date.now() > deadline) throw new Error('timed out waiting for the build lock');
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
      }
    }
    try {
      if (stale()) {
        const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build-main.mjs')], {
          cwd: ROOT,
          encoding: 'utf8',
          timeout: 120_000,
        });
        if (r.status !== 0) throw new Error(`build failed: ${r.stderr || r.stdout}`);
      }
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
  built = true;
}

// ---- temp dirs & processes -------------------------------------------------------------------

const tempDirs = new Set<string>();
const live = new Set<ChildProcess>();

process.on('exit', () => {
  for (const p of live) {
    try {
      p.kill('SIGKILL');
    } catch {
      /* gone */
    }
  }
  for (const d of tempDirs) {
    try {
      fs.rmSync(d, { recursive: true, force: true });
    } catch {
      /* best effort */
    }
  }
});

export function tempDataDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-it-'));
  tempDirs.add(d);
  return d;
}

/** A fresh temporary folder (its real path, links resolved), removed when the test process exits. */
export function tempDir(prefix: string): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  tempDirs.add(d);
  return d;
}

export function removeDataDir(d: string): void {
  fs.rmSync(d, { recursive: true, force: true });
  tempDirs.delete(d);
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `perch ARGS` to completion (bounded). */
export function cli(args: string[], opts: { env?: Record<string, string>; timeoutMs?: number } = {}): CliResult {
  ensureBuilt();
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: opts.timeoutMs ?? 20_000,
    env: { ...process.env, ...opts.env },
  });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * A started process's exit code and what it printed (stdout and stderr piped); past timeoutMs it is killed and the
 * promise rejects, naming WHAT. It is killed too if this test process exits first.
 */
export function exitOf(p: ChildProcess, what: string, timeoutMs: number): Promise<CliResult> {
  live.add(p);
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    p.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    p.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error(`${what} did not finish within ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    p.on('error', reject);
    p.on('close', (code) => {
      clearTimeout(timer);
      live.delete(p);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs `perch ARGS` without blocking the event loop (needed while this process serves or calls the hub). */
export function cliAsync(args: string[], opts: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<CliResult> {
  ensureBuilt();
  const p = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return exitOf(p, `perch ${args.join(' ')}`, opts.timeoutMs ?? 20_000);
}

export interface AgentKey {
  id: string;
  name: string;
  key: string;
}

/** `perch agent add NAME --data-dir D --json` */
export async function addAgent(dataDir: string, name: string): Promise<AgentKey> {
  const r = await cliAsync(['agent', 'add', name, '--data-dir', dataDir, '--json']);
  assert.equal(r.code, 0, `perch agent add ${name} failed: ${r.stderr}`);
  const j = JSON.parse(r.stdout) as AgentKey;
  assert.match(j.key, /^perch_/);
  return { id: j.id, name: j.name, key: j.key };
}

let nameCounter = 0;
/** A fresh agent name (unique per process). */
export function uniqueName(base: string): string {
  nameCounter += 1;
  return `${base}-${process.pid.toString(36)}-${nameCounter}`;
}

// ---- the hub process -------------------------------------------------------------------------

export interface Served {
  dataDir: string;
  mcpUrl: string;
  port: number;
  loginUrl: string;
  /** The whole JSON ready line. */
  ready?: Record<string, unknown>;
  proc: ChildProcess;
  /** Everything the hub wrote on stderr so far (for failure messages). */
  stderr(): string;
  /** SIGTERM and wait for a clean exit (SIGKILL if it does not stop within 8 s). Returns the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait until the process is gone. */
  kill(): Promise<void>;
}

export interface ServeOptions {
  args?: string[];
  timeoutMs?: number;
  /** Extra environment for the hub process. */
  env?: Record<string, string>;
}

/** Spawns `node bin/perch.js serve --data-dir D --port 0 --json` and waits (bounded) for its JSON line. */
export function startServe(dataDir: string, opts: ServeOptions = {}): Promise<Served> {
  ensureBuilt();
  const proc = spawn(process.execPath, [BIN, 'serve', '--data-dir', dataDir, '--port', '0', '--json', ...(opts.args ?? [])], {
    cwd: ROOT,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(proc);
  let stderr = '';
  proc.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = new Promise<number | null>((resolve) =>
    proc.on('exit', (code) => {
      live.delete(proc);
      resolve(code);
    }),
  );

  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`perch serve did not print its JSON line within ${opts.timeoutMs ?? 60_000} ms; stderr: ${stderr}`));
    }, opts.timeoutMs ?? 60_000);
    const onData = (c: string) => {
      out += c;
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      proc.stdout!.off('data', onData);
      proc.stdout!.resume();
      let info: { mcp_url: string; port: number; data_dir: string; login_url: string };
      try {
        info = JSON.parse(out.slice(0, nl));
      } catch {
        proc.kill('SIGKILL');
        return reject(new Error(`perch serve printed a line that is not JSON: ${out.slice(0, nl)}`));
      }
      const served: Served = {
        dataDir: info.data_dir,
        mcpUrl: info.mcp_url,
        port: info.port,
        loginUrl: info.login_url,
        ready: info as unknown as Record<string, unknown>,
        proc,
        stderr: () => stderr,
        async stop() {
          if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode;
          proc.kill('SIGTERM');
          const t = setTimeout(() => proc.kill('SIGKILL'), 8_000);
          const code = await exited;
          clearTimeout(t);
          return code;
        },
        async kill() {
          if (proc.exitCode !== null || proc.signalCode !== null) return;
          proc.kill('SIGKILL');
          await exited;
        },
      };
      resolve(served);
    };
    proc.stdout!.setEncoding('utf8').on('data', onData);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`perch serve exited (${code}) before it was ready; stderr: ${stderr}`));
    });
  });
}

// ---- one hub shared by a file's tests ------------------------------------------------------------

/** The `perch serve` a file's (or a describe's) tests share, with the agents they connect to it. */
export interface SharedServe extends Served {
  /** A new agent (a unique name from base) connected with the era's official client; closed after the suite. */
  agent(base: string, era?: Era): Promise<AgentClient>;
  /** Closes these clients (made some other way) after the suite. */
  closeAfter(...clients: AgentClient[]): void;
}

/**
 * Starts one `perch serve` on a fresh data dir in before() and stops it (and closes the agents' clients)
 * in after(), registered where it is called: at the top of a test file, or inside a describe. The hub's
 * fields are read through the returned object once before() has run (inside tests). What the tests need
 * made first goes in `setup`, run in the same before() once the hub is up (Node 20 does not wait for one
 * top-level before() to finish before it starts the next).
 */
export function useSharedServe(opts: ServeOptions = {}, setup?: (served: SharedServe) => Promise<void>): SharedServe {
  let served: Served | undefined;
  const clients: AgentClient[] = [];
  const now = (): Served => {
    if (!served) throw new Error('The shared perch serve is not running: read it inside tests or hooks (it starts in before()).');
    return served;
  };
  before(async () => {
    served = await startServe(tempDataDir(), opts);
    await setup?.(shared);
  });
  after(async () => {
    for (const c of clients.splice(0)) await c.close().catch(() => {});
    await served?.stop();
  });
  const shared: SharedServe = {
    get dataDir() {
      return now().dataDir;
    },
    get mcpUrl() {
      return now().mcpUrl;
    },
    get port() {
      return now().port;
    },
    get loginUrl() {
      return now().loginUrl;
    },
    get proc() {
      return now().proc;
    },
    stderr: () => now().stderr(),
    stop: () => now().stop(),
    kill: () => now().kill(),
    async agent(base, era = 'v1') {
      const s = now();
      const c = await connect(era, s.mcpUrl, await addAgent(s.dataDir, uniqueName(base)));
      clients.push(c);
      return c;
    },
    closeAfter: (...more) => void clients.push(...more),
  };
  return shared;
}

// ---- MCP clients -----------------------------------------------------------------------------

export interface ToolResult {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, any>;
  isError?: boolean;
}

export interface ErrorBody {
  code: string;
  message: string;
  next_step: string;
  details?: Record<string, unknown>;
}

export interface AgentClient {
  era: Era;
  agent: AgentKey;
  /** tools/call; the raw result (isError included). */
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  /** tools/call that must succeed; returns structuredContent (checked to equal the text copy). */
  ok(name: string, args?: Record<string, unknown>): Promise<Record<string, any>>;
  /** tools/call that must fail as a tool error (isError); returns the error body. */
  fail(name: string, args?: Record<string, unknown>): Promise<ErrorBody>;
  listTools(): Promise<{ tools: Array<Record<string, any>>; _meta?: Record<string, any> }>;
  instructions(): string | undefined;
  listResources(): Promise<Array<{ uri: string; name: string; mimeType?: string }>>;
  readResource(uri: string): Promise<Array<{ uri: string; mimeType?: string; text?: string }>>;
  close(): Promise<void>;
}

function checkResult(name: string, r: ToolResult): void {
  assert.ok(Array.isArray(r.content) && r.content.length >= 1, `${name}: result has no content`);
  assert.equal(r.content[0]!.type, 'text', `${name}: first content is not text`);
  assert.ok(r.structuredContent && typeof r.structuredContent === 'object', `${name}: result has no structuredContent`);
  assert.deepEqual(JSON.parse(r.content[0]!.text!), r.structuredContent, `${name}: the text copy differs from structuredContent`);
  assert.equal(typeof r.structuredContent.request_id, 'string', `${name}: result has no request_id`);
}

/** Connects an official MCP client of the given era as the agent with this key. */
export async function connect(era: Era, mcpUrl: string, agent: AgentKey, opts: { fetch?: typeof fetch } = {}): Promise<AgentClient> {
  const headers = { Authorization: `Bearer ${agent.key}` };
  const viaFetch = opts.fetch ? { fetch: opts.fetch } : {};
  let callRaw: (name: string, args: Record<string, unknown>) => Promise<ToolResult>;
  let listTools: AgentClient['listTools'];
  let instructions: () => string | undefined;
  let listResources: AgentClient['listResources'];
  let readResource: AgentClient['readResource'];
  let close: () => Promise<void>;
  if (era === 'v1') {
    const client = new ClientV1({ name: 'perch-it-v1', version: '1.0.0' });
    const transport = new TransportV1(new URL(mcpUrl), { requestInit: { headers }, ...viaFetch });
    await client.connect(transport);
    callRaw = async (name, args) => (await client.callTool({ name, arguments: args }, undefined, { timeout: 90_000 })) as ToolResult;
    listTools = async () => (await client.listTools()) as never;
    instructions = () => client.getInstructions();
    listResources = async () => (await client.listResources()).resources as never;
    readResource = async (uri) => (await client.readResource({ uri })).contents as never;
    close = () => client.close();
  } else {
    const client = new ClientV2({ name: 'perch-it-v2', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const transport = new TransportV2(new URL(mcpUrl), { requestInit: { headers }, ...viaFetch });
    await client.connect(transport);
    assert.equal(client.getProtocolEra(), 'modern', 'the v2 client did not negotiate the 2026-07-28 era');
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    callRaw = async (name, args) => (await client.callTool({ name, arguments: args }, { timeout: 90_000 })) as unknown as ToolResult;
    listTools = async () => (await client.listTools({}, { cacheMode: 'refresh' })) as never;
    instructions = () => client.getInstructions();
    listResources = async () => (await client.listResources({}, { cacheMode: 'refresh' })).resources as never;
    readResource = async (uri) => (await client.readResource({ uri }, { cacheMode: 'bypass' })).contents as never;
    close = () => client.close();
  }
  return {
    era,
    agent,
    call: (name, args = {}) => callRaw(name, args),
    async ok(name, args = {}) {
      const r = await callRaw(name, args);
      checkResult(name, r);
      assert.ok(!r.isError, `${name} failed: ${JSON.stringify(r.structuredContent)}`);
      return r.structuredContent!;
    },
    async fail(name, args = {}) {
      const r = await callRaw(name, args);
      checkResult(name, r);
      assert.equal(r.isError, true, `${name} was expected to fail but returned ${JSON.stringify(r.structuredContent)}`);
      const e = r.structuredContent!.error as ErrorBody;
      assert.equal(typeof e?.code, 'string', `${name}: error has no code`);
      assert.ok(e.message.length > 0, `${name}: error has no message`);
      assert.ok(typeof e.next_step === 'string' && e.next_step.length > 0, `${name}: error has no next_step`);
      return e;
    },
    listTools,
    instructions,
    listResources,
    readResource,
    close,
  };
}

// ---- raw JSON-RPC ----------------------------------------------------------------------------

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** POSTs a body (object → JSON, string/Buffer as is) to the MCP endpoint with a bearer key (if given). */
export async function rawPost(
  url: string,
  key: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...(key ? { Authorization: `Bearer ${key}` } : {}),
      ...headers,
    },
    body: typeof body === 'string' || Buffer.isBuffer(body) ? (body as string) : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

let rawId = 0;
/** A 2025-era tools/call over raw fetch (no client): returns the JSON-RPC result. */
export async function rawCall(url: string, key: string, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  rawId += 1;
  const r = await rawPost(
    url,
    key,
    { jsonrpc: '2.0', id: rawId, method: 'tools/call', params: { name, arguments: args } },
    { 'MCP-Protocol-Version': '2025-11-25' },
  );
  if (r.status !== 200 || !r.json?.result) throw new Error(`tools/call ${name}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
  return r.json.result as ToolResult;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls cond every 25 ms until it is true or ms passed. */
export async function eventually(cond: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await cond()) return;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(25);
  }
}

// ---- the owner API -------------------------------------------------------------------------

export type { RuntimeInfo } from '../../src/main/app';
import type { RuntimeInfo } from '../../src/main/app';

/** <data_dir>/runtime.json of a running hub (base_url and the owner's bearer token). */
export function runtimeInfo(served: Pick<Served, 'dataDir'>): RuntimeInfo {
  return JSON.parse(fs.readFileSync(path.join(served.dataDir, 'runtime.json'), 'utf8')) as RuntimeInfo;
}

export interface OwnerResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body: { ok: true, value } or { ok: false, error }. */
  json: any;
  ok: boolean;
  value: any;
  error?: ErrorBody;
}

/**
 * POST /api/owner/<action> on the hub's base URL as the owner (the bearer token of runtime.json).
 * opts.bearer overrides the token ('' sends none); opts.headers are added (e.g. Origin, Cookie).
 */
export async function owner(
  served: Pick<Served, 'dataDir'>,
  action: string,
  input: unknown = {},
  opts: { bearer?: string; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<OwnerResponse> {
  const rt = runtimeInfo(served);
  const bearer = opts.bearer ?? rt.owner_token;
  const res = await fetch(`${rt.base_url}/api/owner/${action}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}), ...opts.headers },
    body: typeof input === 'string' ? input : JSON.stringify(input),
    signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json, ok: json?.ok === true, value: json?.value, error: json?.error };
}

/** An owner action that must succeed (HTTP 200, ok: true); returns its value. */
export async function ownerOk(served: Pick<Served, 'dataDir'>, action: string, input: unknown = {}): Promise<any> {
  const r = await owner(served, action, input);
  assert.equal(r.status, 200, `owner ${action} failed: HTTP ${r.status} ${r.text.slice(0, 500)}`);
  assert.equal(r.ok, true, `owner ${action}: ${r.text.slice(0, 500)}`);
  return r.value;
}

/** Waits (bounded) until the hub shows the agent (its name or id) waiting in a get_updates or get_request call. */
export async function untilWaiting(served: Pick<Served, 'dataDir'>, agent: string, ms = 10_000): Promise<void> {
  await eventually(
    async () => (await ownerOk(served, 'agents.list')).agents.some((x: any) => (x.name === agent || x.id === agent) && x.waiting === true),
    ms,
    `${agent} to be waiting`,
  );
}

/** An owner action that must be refused with this HTTP status; returns the error body. */
export async function ownerFail(served: Pick<Served, 'dataDir'>, action: string, input: unknown, status: number): Promise<ErrorBody> {
  const r = await owner(served, action, input);
  assert.equal(r.status, status, `owner ${action}: expected HTTP ${status}, got ${r.status} ${r.text.slice(0, 500)}`);
  assert.equal(r.ok, false);
  assert.equal(typeof r.error?.code, 'string', `owner ${action}: the refusal has a code`);
  assert.ok(r.error!.message.length > 0, `owner ${action}: the refusal has a message`);
  return r.error!;
}

/** Whether a process (a hub, a wake run) is still alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
