// What `perch hook EVENT` (and `perch channel`) use: stepping aside (one stderr line, nothing on stdout, exit 0), the
// agent's key and the hub's URL from the environment, reading the hook input the harness writes on stdin, and the one
// POST to the hub's harness hook door. Node built-ins only: it is part of dist/hook.js, which a harness starts at every
// hook event.
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_PORT, RUNTIME_FILE, defaultDataDir } from '../../paths';
import { StepAside } from '../../../shared/agents/hook-wire';

// The wire formats are shared with the hub's harness hook door (shared/agents/hook-wire.ts).
export { StepAside } from '../../../shared/agents/hook-wire';

/** The hook input is one JSON object; a larger stdin is not a harness's. */
const MAX_STDIN_BYTES = 4 * 1024 * 1024;
/** How long the harness may take to write stdin and close it. */
const STDIN_TIMEOUT_MS = 10_000;

/** The agent's key from the environment (never argv: other users of the machine can read process lists). */
export function keyEnvName(agent: string | undefined): string {
  return agent === undefined ? 'PERCH_KEY' : `PERCH_KEY_${agent.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** The hub's MCP URL: --url, else PERCH_URL, else the running hub of the data dir, else the default port. */
export function mcpUrl(flag: string | undefined): string {
  if (flag) return flag;
  if (process.env.PERCH_URL) return process.env.PERCH_URL;
  try {
    const rt = JSON.parse(fs.readFileSync(path.join(defaultDataDir(), RUNTIME_FILE), 'utf8')) as { mcp_url?: unknown };
    if (typeof rt.mcp_url === 'string') return rt.mcp_url;
  } catch {
    // no running hub recorded: the default port
  }
  return `http://127.0.0.1:${DEFAULT_PORT}/mcp`;
}

/** The hook input on stdin, whole (bounded in size and time). */
export async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new StepAside('reads the hook input on stdin; the harness runs it (see docs/guide/harnesses.md)');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => {
      process.stdin.destroy();
      reject(new StepAside(`stdin was not closed within ${STDIN_TIMEOUT_MS / 1000} s`));
    }, STDIN_TIMEOUT_MS);
    process.stdin.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_STDIN_BYTES) {
        clearTimeout(timer);
        process.stdin.destroy();
        reject(new StepAside(`stdin is over ${MAX_STDIN_BYTES} bytes, not a hook input`));
        return;
      }
      chunks.push(c);
    });
    process.stdin.on('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    process.stdin.on('error', (e) => {
      clearTimeout(timer);
      reject(new StepAside(`cannot read stdin: ${e.message}`));
    });
  });
}

/** The harness hook door for this MCP URL: the URL without its final /mcp, then /hook/<harness>/<event>. */
export function harnessDoorUrl(mcp: string, harness: string, event: string, query: Record<string, string | undefined>): URL {
  const u = new URL(mcp);
  u.pathname = `${u.pathname.replace(/\/mcp\/?$/, '').replace(/\/$/, '')}/hook/${harness}/${event}`;
  u.search = '';
  for (const [k, v] of Object.entries(query)) if (v !== undefined) u.searchParams.set(k, v);
  return u;
}

/** A failed POST: `why` is what the step-aside line says (the connection error's code), or it timed out. */
export class PostFailed extends Error {
  constructor(
    readonly why: string,
    readonly timedOut = false,
  ) {
    super(why);
  }
}

/** The door's answer: its status, its body, and the perch-hook-note header (decoded) when it decided nothing. */
export interface DoorAnswer {
  status: number;
  text: string;
  note?: string;
}

/**
 * One POST of the hook input with node:http (node:https for an https URL: the HTTPS front), the connection bounded by
 * connectMs and the whole request by totalMs. Not fetch: a fresh node process pays 100 ms or more for fetch's first
 * call (it loads and compiles undici then), several times node:http's first request, and the hook is a fresh process
 * at every hook event. Aborting `signal` closes the connection (the door then withdraws a waiting prompt).
 */
export async function postHook(
  url: URL,
  key: string | undefined,
  body: string,
  bounds: { connectMs: number; totalMs: number },
  signal?: AbortSignal,
): Promise<DoorAnswer> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new PostFailed(`${url.protocol} is not http: or https:`);
  const mod = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) };
    if (key) headers.Authorization = `Bearer ${key}`;
    const req = mod.request(url, { method: 'POST', headers, timeout: bounds.connectMs, signal }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        clearTimeout(timer);
        const raw = res.headers['perch-hook-note'];
        let note: string | undefined;
        try {
          note = typeof raw === 'string' && raw ? decodeURIComponent(raw) : undefined;
        } catch {
          note = raw as string;
        }
        resolve({ status: res.statusCode ?? 0, text, note });
      });
      res.on('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(new PostFailed(e.code ?? e.message));
      });
    });
    const timer = setTimeout(() => req.destroy(new PostFailed('', true)), bounds.totalMs);
    // Only the connect is bounded by the socket timeout: once connected, the whole request has totalMs.
    req.on('socket', (s) => s.once('connect', () => s.setTimeout(0)));
    req.on('timeout', () => req.destroy(new PostFailed(`no connection within ${bounds.connectMs} ms`)));
    req.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(e instanceof PostFailed ? e : new PostFailed(e.code ?? e.message));
    });
    req.end(body);
  });
}
