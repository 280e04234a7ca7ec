// One launch helper for the end-to-end tests: a real `perch serve` on a temp data dir, real agents over MCP
// (the official client), and Debian's Chromium signed in as the owner. Every wait is bounded in time.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export const ROOT = path.resolve(__dirname, '..');
const PERCH = path.join(ROOT, 'bin', 'perch.js');
export const ARTIFACTS = path.join(ROOT, 'e2e', 'artifacts');
const CHROMIUM = process.env.PERCH_E2E_CHROMIUM ?? '/usr/bin/chromium';
const run = promisify(execFile);

/** Rejects after ms with a message naming what took too long. */
export function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
    }),
  ]);
}

export interface EventLike {
  conv_id: string;
  seq: number;
  type: string;
  actor: { id: string; name: string; kind: string } | null;
  message?: { msg_id: string; text: string | null; kind: string; payload?: Record<string, unknown> };
  data?: Record<string, unknown>;
}

/** An agent connected over MCP with its own key. */
export interface Agent {
  name: string;
  id: string;
  key: string;
  client: Client;
  /** Calls a tool; resolves with structuredContent, rejects with the tool's error text. */
  call<T = any>(tool: string, args?: Record<string, unknown>): Promise<T>;
  /** Reads get_updates (waiting up to 5 s per call) until an event matches, for at most timeoutMs. */
  waitFor(match: (e: EventLike) => boolean, timeoutMs?: number): Promise<EventLike>;
}

export interface Harness {
  dataDir: string;
  mcpUrl: string;
  baseUrl: string;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  agents: Record<string, Agent>;
  /** JavaScript dialogs (alert/confirm/prompt) the page opened. */
  dialogs: string[];
  /** Uncaught page errors. */
  pageErrors: string[];
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function connectAgent(name: string, id: string, key: string, mcpUrl: string): Promise<Agent> {
  const client = new Client({ name: `perch-e2e-${name}`, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${key}` } } });
  await within(15_000, `MCP connect of ${name}`, client.connect(transport));
  const call = async (tool: string, args: Record<string, unknown> = {}) => {
    const r = (await within(
      75_000,
      `${name} ${tool}`,
      client.callTool({ name: tool, arguments: args }, undefined, { timeout: 70_000 }),
    )) as {
      isError?: boolean;
      structuredContent?: unknown;
      content?: Array<{ type: string; text?: string }>;
    };
    if (r.isError) throw new Error(`${tool} failed: ${r.content?.map((c) => c.text).join(' ') ?? 'error'}`);
    return r.structuredContent as any;
  };
  const seen: EventLike[] = [];
  return {
    name,
    id,
    key,
    client,
    call,
    async waitFor(match, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      const old = seen.find(match);
      if (old) {
        seen.splice(seen.indexOf(old), 1);
        return old;
      }
      while (Date.now() < deadline) {
        const wait = Math.max(0, Math.min(5, Math.floor((deadline - Date.now()) / 1000)));
        const r = await call('get_updates', { wait_secs: wait });
        const events = (r.events ?? []) as EventLike[];
        const hit = events.find(match);
        seen.push(...events.filter((e) => e !== hit));
        if (hit) return hit;
      }
      throw new Error(`${name} did not receive the expected event within ${timeoutMs} ms`);
    },
  };
}

export interface LaunchOptions {
  agents: string[];
  /** More arguments of `perch serve` (e.g. --public-url). */
  serveArgs?: string[];
  /** More environment of `perch serve` (e.g. NODE_EXTRA_CA_CERTS for a test push service). */
  serveEnv?: Record<string, string>;
  /** More Chromium flags (e.g. the front's host mapping). */
  browserArgs?: string[];
  /** Told the hub's port once perch serve printed it (e.g. the front forwards to it). */
  onPort?: (port: number) => void;
}

export async function launch(opts: LaunchOptions): Promise<Harness> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `No Chromium at ${CHROMIUM}: install Debian's chromium (apt-get install chromium) or set PERCH_E2E_CHROMIUM. Never run \`playwright install\`.`,
    );
  }
  if (!fs.existsSync(path.join(ROOT, 'dist', 'renderer', 'index.html')) || !fs.existsSync(path.join(ROOT, 'dist', 'cli.js'))) {
    throw new Error('Build first: npm run build:main && npx vite build --config vite.config.mts');
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-e2e-'));
  const cleanups: Array<() => Promise<void> | void> = [() => fs.rmSync(dataDir, { recursive: true, force: true })];
  const close = async () => {
    for (const fn of cleanups.reverse()) {
      try {
        await within(10_000, 'cleanup', Promise.resolve(fn()));
      } catch {
        /* keep closing */
      }
    }
  };
  try {
    const keys: Record<string, { id: string; key: string }> = {};
    for (const name of opts.agents) {
      const { stdout } = await run(process.execPath, [PERCH, 'agent', 'add', name, '--data-dir', dataDir, '--json'], {
        cwd: ROOT,
        timeout: 20_000,
      });
      const j = JSON.parse(stdout.trim().split('\n').pop()!);
      keys[name] = { id: j.id, key: j.key };
    }

    const serve: ChildProcess = spawn(
      process.execPath,
      [PERCH, 'serve', '--data-dir', dataDir, '--port', '0', '--json', ...(opts.serveArgs ?? [])],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, ...opts.serveEnv },
      },
    );
    let stderr = '';
    serve.stderr!.on('data', (d) => (stderr += d));
    cleanups.push(async () => {
      if (serve.exitCode !== null) return;
      serve.kill('SIGTERM');
      await within(5_000, 'perch serve exit', new Promise((r) => serve.once('exit', r))).catch(() => serve.kill('SIGKILL'));
    });
    const ready = await within(
      20_000,
      'perch serve to print its JSON line',
      new Promise<{ mcp_url: string; port: number; data_dir: string; login_url: string }>((resolve, reject) => {
        let out = '';
        serve.stdout!.on('data', (d) => {
          out += d;
          const nl = out.indexOf('\n');
          if (nl >= 0) {
            try {
              resolve(JSON.parse(out.slice(0, nl)));
            } catch (e) {
              reject(new Error(`perch serve printed ${out.slice(0, nl)}: ${(e as Error).message}`));
            }
          }
        });
        serve.once('exit', (code) => reject(new Error(`perch serve exited with ${code}: ${stderr}`)));
      }),
    );
    const baseUrl = new URL(ready.mcp_url).origin;
    opts.onPort?.(ready.port);

    const agents: Record<string, Agent> = {};
    for (const name of opts.agents) {
      agents[name] = await connectAgent(name, keys[name]!.id, keys[name]!.key, ready.mcp_url);
      const a = agents[name]!;
      cleanups.push(() => a.client.close());
    }

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        ...(opts.browserArgs ?? []),
      ],
      timeout: 30_000,
    });
    cleanups.push(() => browser.close());
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: 'light' });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const dialogs: string[] = [];
    const pageErrors: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(`${d.type()}: ${d.message()}`);
      void d.dismiss().catch(() => {});
    });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(ready.login_url, { timeout: 20_000 });
    await page.getByRole('navigation', { name: 'Perch' }).waitFor({ timeout: 20_000 });

    fs.mkdirSync(ARTIFACTS, { recursive: true });
    return {
      dataDir,
      mcpUrl: ready.mcp_url,
      baseUrl,
      browser,
      context,
      page,
      agents,
      dialogs,
      pageErrors,
      async screenshot(name: string) {
        await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), timeout: 10_000 });
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * One launched harness for a suite (call it in the describe body): launches before the suite's tests, closes after
 * them, and returns a getter for the harness (it throws if the launch did not happen or failed). opts may be a function,
 * read when the launch starts (e.g. options that need a server a `before` registered earlier started). Hooks run in the
 * order they are registered: the suite's own setup goes in a `before` registered after this call, teardown that must
 * come before the close in an `after` registered before it.
 */
export function useHarness(opts: LaunchOptions | (() => LaunchOptions), hooks: { launchTimeoutMs?: number } = {}): () => Harness {
  let h: Harness | undefined;
  before(
    async () => {
      h = await launch(typeof opts === 'function' ? opts() : opts);
    },
    { timeout: hooks.launchTimeoutMs ?? 90_000 },
  );
  after(
    async () => {
      await h?.close();
    },
    { timeout: 60_000 },
  );
  return () => {
    if (!h) throw new Error('the harness is not launched: useHarness() runs in a describe body, and its launch must have succeeded');
    return h;
  };
}

/** Calls an owner action with the laptop page's owner session (as its UI does); throws with the refusal's message. */
export async function ownerCall<T = any>(h: Harness, action: string, input: unknown): Promise<T> {
  const session = await h.page.evaluate(() => localStorage.getItem('perch.owner.session'));
  const res = await fetch(`${h.baseUrl}/api/owner/${action}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${session}` },
    body: JSON.stringify(input),
    signal: AbortSignal.timeout(10_000),
  });
  const j = (await res.json()) as { ok: boolean; value?: T; error?: { message: string } };
  if (!j.ok) throw new Error(`${action}: ${j.error?.message}`);
  return j.value as T;
}

// ---- UI helpers: the page objects live in e2e/pages/; these names stay importable from here ----------

export { openConversation, openPage } from './pages/app';
export { timeline } from './pages/conversation';
export { openAgent } from './pages/agents';
