// The `perch` command: serve the hub, manage agents, call tools, act as the owner.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_PORT, RUNTIME_FILE, defaultDataDir } from '../paths';
import { DB_FILE_NAME, openDatabase, NewerDatabaseError } from '../store/db';
import { parseDurability, type Durability } from '../store/durability';
import { Hub } from '../hub/hub';
import { addAgent, listAgents, revokeAgent, rotateKey, updateConfig, findAgent, agentSummary } from '../hub/identities';
import { isHubError } from '../../shared/errors';
import { OWNER_ACTIONS } from '../../shared/owner-api';
import { PERCH_VERSION } from '../../shared/version';
import { connectionSnippets } from '../owner/snippets';

const HELP = `perch ${PERCH_VERSION} — a local hub for your own fleet of AI agents

Usage:
  perch serve [--data-dir DIR] [--port N] [--json] [--open] [--rate N] [--durability normal|full]
      Run the hub headless. MCP at http://127.0.0.1:${DEFAULT_PORT}/mcp by default (--port 0 picks a free port).
      Prints a one-time login link for the browser UI. --json prints one JSON line when ready.
      --durability (env PERCH_DURABILITY): normal (default) keeps every answered write through a crash
      of the hub; full also through a power cut, at one fsync per commit.
  perch agent add NAME [--description T] [--instructions T] [--json]
  perch agent list [--json]
  perch agent show NAME [--json]
  perch agent rotate-key NAME [--json]
  perch agent revoke NAME [--json]
      Manage agents (works whether or not the hub runs). Keys are shown once.
  perch call TOOL ['{json args}'] [--url URL] [--key KEY]
      Call one MCP tool (env PERCH_URL, PERCH_KEY). Prints the result as JSON; exit 1 on a tool error.
  perch owner ACTION ['{json}']
  perch owner login-link
  perch owner --help
      Act as the owner on the running hub (found through ${RUNTIME_FILE} in the data dir).

Common options:
  --data-dir DIR   where the SQLite file lives (default: PERCH_DATA_DIR or ${defaultDataDir()})
`;

class UsageError extends Error {}

function fail(message: string, code = 2): never {
  process.stderr.write(`perch: ${message}\n`);
  process.exit(code);
}

function print(json: boolean, value: unknown, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
}

function withHub<T>(dataDir: string, fn: (hub: Hub) => T): T {
  const db = openDatabase(path.join(dataDir, DB_FILE_NAME));
  try {
    return fn(new Hub({ db }));
  } finally {
    db.close();
  }
}

function mcpUrlFor(dataDir: string): string {
  try {
    const rt = JSON.parse(fs.readFileSync(path.join(dataDir, RUNTIME_FILE), 'utf8'));
    return rt.mcp_url;
  } catch {
    return `http://127.0.0.1:${DEFAULT_PORT}/mcp`;
  }
}

async function cmdServe(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { 'data-dir': { type: 'string' }, port: { type: 'string' }, json: { type: 'boolean' }, open: { type: 'boolean' }, rate: { type: 'string' }, durability: { type: 'string' } },
    strict: true,
  });
  const dataDir = path.resolve(values['data-dir'] ?? defaultDataDir());
  const port = values.port !== undefined ? Number(values.port) : Number(process.env.PERCH_PORT ?? DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0..65535, not ${values.port}`);
  const rate = values.rate !== undefined ? Number(values.rate) : undefined;
  if (rate !== undefined && (!Number.isFinite(rate) || rate < 0)) throw new UsageError('--rate must be a number ≥ 0 (0 = no limit)');
  let durability: Durability;
  try {
    durability = values.durability !== undefined ? parseDurability(values.durability, '--durability') : parseDurability(process.env.PERCH_DURABILITY, 'PERCH_DURABILITY');
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const { startHub } = await import('../app');
  let running;
  try {
    running = await startHub({ dataDir, port, ratePerSecond: rate, durability });
  } catch (err: any) {
    if (err?.code === 'EADDRINUSE') fail(`port ${port} is in use (another perch?). Use --port N, or --port 0 for a free one.`);
    if (err?.code === 'PERCH_ALREADY_SERVING') fail(err.message);
    throw err;
  }
  // Handlers first: whoever reads the ready line below may signal us at once.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    if (!values.json) process.stdout.write(`\nStopping (${signal})…\n`);
    const force = setTimeout(() => process.exit(1), 5000);
    force.unref();
    running.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  const login = running.owner.loginLink();
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ mcp_url: running.mcpUrl, port: running.port, data_dir: dataDir, login_url: login, durability })}\n`);
  } else {
    process.stdout.write(
      `Perch ${PERCH_VERSION} is running.\n  MCP endpoint: ${running.mcpUrl}\n  Data:         ${dataDir} (durability: ${durability})\n  Open the app: ${login}\n  (the link works once; run \`perch owner login-link\` for another)\nPress Ctrl+C to stop.\n`,
    );
  }
  if (values.open) openInBrowser(login);
}

function openInBrowser(url: string): void {
  const { spawn } = require('node:child_process') as typeof import('node:child_process');
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'cmd' : 'xdg-open';
  const args = process.platform === 'win32' ? ['/c', 'start', '', url] : [url];
  try {
    spawn(cmd, args, { stdio: 'ignore', detached: true }).on('error', () => process.stderr.write(`perch: could not open a browser; open ${url}\n`)).unref();
  } catch {
    process.stderr.write(`perch: could not open a browser; open ${url}\n`);
  }
}

function cmdAgent(argv: string[]): void {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    options: { 'data-dir': { type: 'string' }, json: { type: 'boolean' }, description: { type: 'string' }, instructions: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  const dataDir = path.resolve(values['data-dir'] ?? defaultDataDir());
  const json = !!values.json;
  const name = positionals[0];
  const needName = () => {
    if (!name) throw new UsageError(`perch agent ${sub} needs NAME`);
    return name;
  };
  withHub(dataDir, (hub) => {
    switch (sub) {
      case 'add': {
        const { agent, key } = addAgent(hub, { name: needName(), description: values.description, instructions: values.instructions });
        const url = mcpUrlFor(dataDir);
        print(json, { id: agent.id, name: agent.name, key, mcp_url: url }, () =>
          `Added agent ${agent.name} (${agent.id}).\nKey (shown once, keep it secret):\n  ${key}\n\nConnect Claude Code:\n  ${connectionSnippets(url, agent.name, key).claude_code}`);
        return;
      }
      case 'list': {
        const agents = listAgents(hub);
        print(json, { agents }, () =>
          agents.length ? agents.map((a) => `${a.name.padEnd(24)} ${a.revoked ? 'revoked' : `key ${a.key_hint}`}  config v${a.config_version}  ${a.description}`).join('\n') : 'No agents yet. Add one with `perch agent add NAME`.');
        return;
      }
      case 'show': {
        const a = agentSummary(hub, findAgent(hub, needName()));
        print(json, { agent: a }, () => JSON.stringify(a, null, 2));
        return;
      }
      case 'rotate-key': {
        const { agent, key } = rotateKey(hub, needName());
        print(json, { id: agent.id, name: agent.name, key }, () => `New key for ${agent.name} (the old one no longer works):\n  ${key}`);
        return;
      }
      case 'revoke': {
        const a = revokeAgent(hub, needName());
        print(json, { id: a.id, name: a.name, revoked: a.revoked }, () => `Revoked ${a.name}; its key no longer works.`);
        return;
      }
      case 'config': {
        const patch = positionals[1] ? JSON.parse(positionals[1]) : {};
        const a = updateConfig(hub, needName(), patch);
        print(json, { agent: a }, () => `Config of ${a.name} is now version ${a.config_version}.`);
        return;
      }
      default:
        throw new UsageError(`unknown agent command ${JSON.stringify(sub ?? '')}: use add, list, show, rotate-key, revoke`);
    }
  });
}

async function postJson(url: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; json: any; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  let json: any;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, json, text };
}

function parseJsonArg(text: string | undefined, what: string): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${what} is not valid JSON: ${(e as Error).message}`);
  }
}

async function cmdCall(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, options: { url: { type: 'string' }, key: { type: 'string' }, 'data-dir': { type: 'string' } }, allowPositionals: true, strict: true });
  const [tool, argsText] = positionals;
  if (!tool) throw new UsageError('perch call needs TOOL, e.g. perch call whoami');
  const args = parseJsonArg(argsText, 'the arguments');
  const url = values.url ?? process.env.PERCH_URL ?? mcpUrlFor(path.resolve(values['data-dir'] ?? defaultDataDir()));
  const key = values.key ?? process.env.PERCH_KEY;
  if (!key) throw new UsageError('no agent key: pass --key KEY or set PERCH_KEY');
  let r;
  try {
    r = await postJson(url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } }, { Authorization: `Bearer ${key}`, 'MCP-Protocol-Version': '2025-11-25' });
  } catch (e) {
    fail(`cannot reach ${url}: ${(e as Error).message}. Is \`perch serve\` running?`);
  }
  if (r.json?.error) fail(`${r.status} ${r.json.error.message}`, 2);
  if (!r.json?.result) fail(`${r.status} unexpected answer: ${r.text.slice(0, 500)}`, 2);
  const result = r.json.result;
  process.stdout.write(`${JSON.stringify(result.structuredContent ?? result, null, 2)}\n`);
  if (result.isError) process.exit(1);
}

function runtimeOf(dataDir: string): { base_url: string; owner_token: string } {
  const file = path.join(dataDir, RUNTIME_FILE);
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    fail(`no running hub found (${file} is missing). Start it with \`perch serve\`${dataDir !== defaultDataDir() ? ` --data-dir ${dataDir}` : ''}.`);
  }
}

async function cmdOwner(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, options: { 'data-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  const [action, inputText] = positionals;
  if (values.help || !action) {
    const lines = Object.entries(OWNER_ACTIONS).map(([name, spec]) => `  ${name.padEnd(28)} ${spec.description}`);
    process.stdout.write(`perch owner ACTION ['{json}'] [--data-dir DIR]\n\nActions (docs/owner-api.md has their inputs):\n  ${'login-link'.padEnd(28)} A one-time link that opens the UI in a browser.\n${lines.join('\n')}\n`);
    return;
  }
  const dataDir = path.resolve(values['data-dir'] ?? defaultDataDir());
  const rt = runtimeOf(dataDir);
  const input = parseJsonArg(inputText, 'the input');
  const url = action === 'login-link' ? `${rt.base_url}/api/owner/login-link` : `${rt.base_url}/api/owner/${action}`;
  let r;
  try {
    r = await postJson(url, input, { Authorization: `Bearer ${rt.owner_token}` });
  } catch (e) {
    fail(`cannot reach the hub at ${rt.base_url}: ${(e as Error).message}. Is \`perch serve\` still running?`);
  }
  if (!r.json) fail(`${r.status} unexpected answer: ${r.text.slice(0, 300)}`);
  if (!r.json.ok) {
    process.stdout.write(`${JSON.stringify(r.json, null, 2)}\n`);
    process.exit(1);
  }
  process.stdout.write(`${JSON.stringify(r.json.value, null, 2)}\n`);
}

export async function main(argv: string[]): Promise<void> {
  const [cmd, ...rest] = argv;
  try {
    switch (cmd) {
      case 'serve':
        return await cmdServe(rest);
      case 'agent':
      case 'agents':
        return cmdAgent(rest);
      case 'call':
        return await cmdCall(rest);
      case 'owner':
        return await cmdOwner(rest);
      case 'version':
      case '--version':
      case '-v':
        process.stdout.write(`${PERCH_VERSION}\n`);
        return;
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(HELP);
        return;
      default:
        throw new UsageError(`unknown command ${JSON.stringify(cmd)}. Run \`perch help\`.`);
    }
  } catch (err) {
    if (err instanceof UsageError) fail(err.message);
    if (err instanceof NewerDatabaseError) fail(err.message);
    if (isHubError(err)) fail(`${err.message} ${err.nextStep}`, 1);
    if ((err as { code?: string })?.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || (err as { code?: string })?.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' || (err as { code?: string })?.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') fail((err as Error).message);
    throw err;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`perch: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
