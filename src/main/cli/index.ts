// The `perch` command: serve the hub, manage agents, call tools, act as the owner.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_PORT, RUNTIME_FILE, defaultDataDir } from '../paths';
import { DB_FILE_NAME, openDatabase, NewerDatabaseError } from '../store/db';
import { parseDurability, type Durability } from '../store/durability';
import { Hub } from '../hub/core/hub';
import { addAgentKey, listAgentKeys, revokeScopedKey } from '../hub/identity/agent-keys';
import { findAgent } from '../hub/identity/identities';
import { addAgent, listAgents, revokeAgent, rotateKey, updateConfig, agentSummary } from '../hub/control/agents';
import { setReview } from '../hub/features/review';
import { isHubError } from '../../shared/errors';
import { pauseAgent, pauseAll, resumeAgent, resumeAll, setCaps } from '../hub/control/control';
import { OWNER_ACTIONS } from '../../shared/owner-api';
import { PERCH_VERSION } from '../../shared/version';
import { BRAKES, type AgentBrakes, type BudgetSetting } from '../../shared/brakes';
import { agentBrakes, setAgentBudget } from '../hub/control/brakes';
import { connectionSnippets } from '../owner/snippets';
import Database from 'better-sqlite3';
import { listDevices, normalizePublicUrl, publicUrl, revokeDevice, setPhoneSettings } from '../hub/phone/devices';
import type { DeviceView, PairingStart, PairingView } from '../../shared/devices';
import { BACKUPS_DIR, DEFAULT_DAILY_BACKUPS, NotRestorableError, backupFile, checkPerchDatabase, defaultBackupFile } from '../store/backup';
import { LATEST_VERSION } from '../store/migrations';
import { setWakeAction, wakeState } from '../hub/waking/wake-runs';
import type { WakeState } from '../../shared/wake';
import { SEARCH_FILE_NAME } from '../store/search-index';
import { LIMITS } from '../../shared/limits';
import { HOOK_HELP, cmdHook } from './hook';

const HELP = `perch ${PERCH_VERSION} — a local hub for your own fleet of AI agents

Usage:
  perch serve [--data-dir DIR] [--port N] [--json] [--open] [--rate N] [--durability normal|full] [--backups N]
      Run the hub headless. MCP at http://127.0.0.1:${DEFAULT_PORT}/mcp by default (--port 0 picks a free port).
      Prints a one-time login link for the browser UI. --json prints one JSON line when ready.
      --durability (env PERCH_DURABILITY): normal (default) keeps every answered write through a crash
      of the hub; full also through a power cut, at one fsync per commit.
  perch agent add NAME [--description T] [--instructions T] [--json]
  perch agent list [--json]
  perch agent show NAME [--json]
  perch agent rotate-key NAME [--json]
  perch agent revoke NAME [--json]
  perch agent review NAME on|off [--json]
  perch agent wake NAME [--cwd DIR] [--timeout SECS] [--env K=V]... -- CMD ARG...   (or --shell 'S', --webhook URL, --off, --show)
  perch agent pause NAME|--all [--reason T]   perch agent resume NAME|--all
  perch agent caps NAME [--cost-usd N] [--messages N] [--tool-calls N] | --off
  perch agent brakes NAME [--budget N|off|default] [--json]
  perch agent key add|list|revoke ...
      Manage agents (works whether or not the hub runs). Keys are shown once.
  perch serve --public-url https://MACHINE.TAILNET.ts.net     (approve from your phone, see README)
  perch device list|revoke ID|pair [--name NAME] [--scope approvals|full]
      Paired phones: list them, revoke one, or pair a new one (QR code in the terminal; the hub must run).
  perch call TOOL ['{json args}' | @FILE | -] [--url URL] [--key KEY]
      Call one MCP tool (env PERCH_URL, PERCH_KEY). Prints the result as JSON; exit 1 on a tool error.
      @FILE reads the JSON arguments from FILE, - from stdin (for long ones, such as send_file's data).
  perch hook permission-request [--agent NAME] [--timeout SECS]
      Claude Code's or Codex's PermissionRequest hook: their prompts go to your Approvals inbox (see README).
  perch owner ACTION ['{json}' | @FILE | -]
  perch owner login-link
  perch owner --help
      Act as the owner on the running hub (found through ${RUNTIME_FILE} in the data dir).
  perch backup [--to FILE] [--force]
      Copy the database now (safe while the hub runs) to <data dir>/backups/perch-<time>.sqlite.
  perch restore FILE
      Replace the database with a backup (only while no hub serves the data dir).
  perch help COMMAND [SUBCOMMAND]      (or: perch COMMAND --help)
      Usage of one command.

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
    options: { 'data-dir': { type: 'string' }, port: { type: 'string' }, json: { type: 'boolean' }, open: { type: 'boolean' }, rate: { type: 'string' }, durability: { type: 'string' },
      backups: { type: 'string' }, 'public-url': { type: 'string' } },
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
  const dailyBackups = dailyBackupsOption(values.backups);
  let wantPublicUrl: string | undefined;
  if (values['public-url'] !== undefined) {
    try {
      wantPublicUrl = normalizePublicUrl(values['public-url']);
    } catch (e) {
      throw new UsageError(`--public-url: ${(e as Error).message}`);
    }
  }
  const { startHub } = await import('../app');
  let running;
  try {
    running = await startHub({ dataDir, port, ratePerSecond: rate, durability, dailyBackups });
  } catch (err: any) {
    if (err?.code === 'EADDRINUSE') await failPortTaken(port);
    if (err?.code === 'PERCH_ALREADY_SERVING') fail(err.message);
    throw err;
  }
  // The front's URL (tailscale serve): the flag overrides the setting and saves it (it survives restarts).
  if (wantPublicUrl !== undefined) setPhoneSettings(running.hub, { public_url: wantPublicUrl });
  const phoneUrl = publicUrl(running.hub);
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
    process.stdout.write(`${JSON.stringify({ mcp_url: running.mcpUrl, port: running.port, data_dir: dataDir, login_url: login, durability, public_url: phoneUrl })}\n`);
  } else {
    const phone = phoneUrl
      ? `  Phone:        ${phoneUrl} (through your HTTPS front; pair a phone: Settings → Phone, or \`perch device pair\`)\n${phoneUrl.startsWith('http:') ? '                note: phones need https for the app and notifications (tailscale serve gives you https)\n' : ''}`
      : '';
    process.stdout.write(
      `Perch ${PERCH_VERSION} is running.\n  MCP endpoint: ${running.mcpUrl}\n  Data:         ${dataDir} (durability: ${durability})\n${phone}  Open the app: ${login}\n  (the link works once; run \`perch owner login-link\` for another)\nPress Ctrl+C to stop.\n`,
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

async function cmdAgent(argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub === 'wake') return cmdAgentWake(rest); // wake runs: its own options, and a command after --
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      'data-dir': { type: 'string' }, json: { type: 'boolean' }, description: { type: 'string' }, instructions: { type: 'string' },
      // owner control: pause / resume / caps (hub/control/control.ts)
      all: { type: 'boolean' }, reason: { type: 'string' }, 'cost-usd': { type: 'string' }, messages: { type: 'string' }, 'tool-calls': { type: 'string' }, off: { type: 'boolean' },
      name: { type: 'string' }, scopes: { type: 'string' }, expires: { type: 'string' }, // perch agent key add
    },
    allowPositionals: true,
    strict: true,
  });
  // Checked before the database is opened: a typo creates nothing.
  if (!sub || !Object.hasOwn(AGENT_SUBCOMMANDS, sub)) throw new UsageError(`unknown agent command ${JSON.stringify(sub ?? '')}: use ${Object.keys(AGENT_SUBCOMMANDS).join(', ')}`);
  const dataDir = path.resolve(values['data-dir'] ?? defaultDataDir());
  const json = !!values.json;
  const name = positionals[0];
  const needName = () => {
    if (!name) throw new UsageError(`perch agent ${sub} needs NAME`);
    return name;
  };
  // review mode (hub/features/review.ts): checked before the database is opened
  if (sub === 'review' && (!name || !['on', 'off'].includes(positionals[1] ?? ''))) throw new UsageError('perch agent review needs NAME and on or off');
  // The config patch (inline, @FILE or -) is read and checked before the database is opened, as with perch call.
  const configPatch = sub === 'config' ? await readJsonArg(positionals[1], 'the config patch') : undefined;
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
      case 'key': // scoped keys (hub/identity/agent-keys.ts)
        return cmdAgentKey(hub, dataDir, json, positionals, values);
      case 'config': {
        const a = updateConfig(hub, needName(), configPatch as Parameters<typeof updateConfig>[2]);
        print(json, { agent: a }, () => `Config of ${a.name} is now version ${a.config_version}.`);
        return;
      }
      case 'review': { // review mode (hub/features/review.ts)
        const { agent: a, changed } = setReview(hub, needName(), positionals[1] === 'on');
        print(json, { agent: a, changed }, () => `Review mode for ${a.name} is ${a.review ? 'on: its sends wait for you in the Approvals inbox' : 'off'}${changed ? '' : ' (unchanged)'}.`);
        return;
      }
      // owner control (hub/control/control.ts): written to the database directly; a running hub sees it at once
      case 'pause':
      case 'resume': {
        if (values.all && name) throw new UsageError(`perch agent ${sub} takes NAME or --all, not both`);
        if (!values.all && !name) throw new UsageError(`perch agent ${sub} needs NAME or --all`);
        if (sub === 'resume' && values.reason !== undefined) throw new UsageError('perch agent resume takes no --reason');
        const results = values.all
          ? (sub === 'pause' ? pauseAll(hub, values.reason) : resumeAll(hub)).agents
          : [sub === 'pause' ? pauseAgent(hub, name!, { reason: values.reason }) : resumeAgent(hub, name!)];
        print(json, { agents: results }, () =>
          results.length === 0 ? `No agent to ${sub}.` : results.map((r) => `${r.agent.name}: ${r.paused ? `paused${r.paused.reason ? ` (${r.paused.reason})` : ''}` : 'running'}${r.changed ? '' : ' (unchanged)'}`).join('\n'));
        return;
      }
      case 'caps': {
        const num = (flag: 'cost-usd' | 'messages' | 'tool-calls'): number | null | undefined => {
          const v = values[flag];
          if (v === undefined) return undefined;
          if (v === 'off' || v === 'none') return null;
          const n = Number(v);
          if (v.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${flag} must be a number (or off), not ${JSON.stringify(v)}`);
          return n;
        };
        const patch = { cost_usd: num('cost-usd'), messages: num('messages'), tool_calls: num('tool-calls') };
        const given = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
        if (values.off && Object.keys(given).length) throw new UsageError('perch agent caps takes --off or caps, not both');
        const r = setCaps(hub, needName(), given, values.off === true);
        const cap = (v: number | null, unit = '') => (v == null ? 'no cap' : `${unit}${v}`);
        print(json, r, () =>
          `Daily caps of ${r.agent.name}: cost ${cap(r.caps.cost_usd, '$')}, messages ${cap(r.caps.messages)}, tool calls ${cap(r.caps.tool_calls)}.\n` +
          `Today (${r.today.day}): $${r.today.cost_usd}, ${r.today.messages} messages, ${r.today.tool_calls} tool calls.${r.paused ? `\nPaused (${r.paused.reason ?? r.paused.by}).` : ''}`);
        return;
      }
      default:
        throw new UsageError(`unknown agent command ${JSON.stringify(sub ?? '')}: use add, list, show, rotate-key, revoke`);
    }
  });
}

/** perch agent wake NAME … — the owner sets what starts the agent when it is woken (hub/waking/wake-runs.ts). */
function cmdAgentWake(argv: string[]): void {
  const dash = argv.indexOf('--');
  const own = dash >= 0 ? argv.slice(0, dash) : argv;
  const command = dash >= 0 ? argv.slice(dash + 1) : undefined;
  const { values, positionals } = parseArgs({
    args: own,
    options: {
      'data-dir': { type: 'string' }, json: { type: 'boolean' }, cwd: { type: 'string' }, timeout: { type: 'string' }, 'max-runs': { type: 'string' },
      env: { type: 'string', multiple: true }, shell: { type: 'string' }, webhook: { type: 'string' }, off: { type: 'boolean' }, show: { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  });
  const name = positionals[0];
  if (!name || positionals.length > 1) throw new UsageError(`perch agent wake needs NAME (and the command after --): ${AGENT_SUBCOMMANDS.wake!.split('\n')[0]}`);
  const num = (v: string | undefined, flag: string) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n)) throw new UsageError(`${flag} must be a whole number, not ${JSON.stringify(v)}`);
    return n;
  };
  const env: Record<string, string> = {};
  for (const kv of values.env ?? []) {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new UsageError(`--env takes K=V, not ${JSON.stringify(kv)}`);
    env[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  const dataDir = path.resolve(values['data-dir'] ?? defaultDataDir());
  const json = !!values.json;
  const setting = command !== undefined || values.shell !== undefined || values.webhook !== undefined || values.off;
  if (values.show && setting) throw new UsageError('--show only shows: give no command, --shell, --webhook or --off with it');
  if (!values.show && !setting) throw new UsageError('perch agent wake NAME needs a command after --, --shell, --webhook, --off or --show');
  withHub(dataDir, (hub) => {
    const state = values.show
      ? wakeState(hub, name)
      : setWakeAction(hub, {
        agent: name,
        off: values.off || undefined,
        argv: command,
        shell: values.shell,
        webhook: values.webhook,
        cwd: values.cwd !== undefined ? path.resolve(values.cwd) : undefined,
        env: Object.keys(env).length ? env : undefined,
        timeout_secs: num(values.timeout, '--timeout'),
        max_runs_per_hour: num(values['max-runs'], '--max-runs'),
      });
    print(json, { wake: state }, () => describeWake(state));
  });
}

function describeWake(w: WakeState): string {
  if (!w.action) return `${w.agent.name} has no wake action: Perch does not start it.`;
  const a = w.action;
  const what = a.kind === 'webhook' ? `POST ${a.url} (signed: X-Perch-Signature sha256=HMAC of the body with the secret ${w.webhook_secret})`
    : a.argv ? `run ${a.argv.map((x) => (/^[\w@%+=:,./-]+$/.test(x) ? x : JSON.stringify(x))).join(' ')}` : `run in a shell: ${a.shell}`;
  return [
    `${w.agent.name} wakes: ${what}`,
    ...(a.cwd ? [`  in ${a.cwd}`] : []),
    ...(a.env ? [`  with ${Object.keys(a.env).join(', ')}`] : []),
    `  timeout ${a.timeout_secs} s, at most ${a.max_runs_per_hour} runs an hour (${w.runs_last_hour} in the last hour)`,
    w.enabled ? '  on' : `  OFF: ${w.off_reason ?? 'switched off'}`,
  ].join('\n');
}

/** `perch agent brakes NAME [--budget N|off|default]`: through the running hub's owner API, or the file when no hub runs. */
async function cmdAgentBrakes(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, options: { 'data-dir': { type: 'string' }, json: { type: 'boolean' }, budget: { type: 'string' } }, allowPositionals: true, strict: true });
  const name = positionals[0];
  if (!name) throw new UsageError('perch agent brakes needs NAME');
  let budget: BudgetSetting | undefined;
  if (values.budget !== undefined) {
    const b = values.budget;
    budget = b === 'off' || b === 'default' ? b : /^\d+$/.test(b) ? Number(b) : NaN;
    if (typeof budget === 'number' && !(Number.isInteger(budget) && budget >= 1 && budget <= BRAKES.budgetMax)) {
      throw new UsageError(`--budget ${JSON.stringify(b)}: give a number from 1 to ${BRAKES.budgetMax}, off, or default`);
    }
  }
  const dataDir = path.resolve(values['data-dir'] ?? defaultDataDir());
  const json = !!values.json;
  const show = (r: { agent: string; brakes: AgentBrakes }) =>
    print(json, r, () => `${r.agent}: budget ${r.brakes.budget_per_hour === null ? 'off' : `${r.brakes.budget_per_hour} messages per conversation per hour`}${r.brakes.budget_is_default ? ' (default)' : ''}; loop after ${r.brakes.loop.turns} turns in ${r.brakes.loop.within_secs / 3600} h with no person; the same text at most ${r.brakes.duplicate_max} times.`);
  const { liveHubOf } = await import('../app');
  const live = budget !== undefined ? await liveHubOf(dataDir) : undefined;
  if (live && budget !== undefined) {
    const r = await postJson(`${live.base_url}/api/owner/agents.set_brakes`, { agent: name, budget }, { Authorization: `Bearer ${live.owner_token}` });
    if (!r.json?.ok) fail(`${r.json?.error?.message ?? `HTTP ${r.status}`} ${r.json?.error?.next_step ?? ''}`.trim(), 1);
    return show(r.json.value);
  }
  withHub(dataDir, (hub) => show(budget !== undefined ? setAgentBudget(hub, name, budget) : { agent: findAgent(hub, name).name, brakes: agentBrakes(hub, findAgent(hub, name).id) }));
}

/** `perch agent key add|list|revoke`: an agent's extra keys with scopes and an optional expiry. */
function cmdAgentKey(hub: Hub, dataDir: string, json: boolean, positionals: string[], values: { name?: string; scopes?: string; expires?: string }): void {
  const [action, target] = positionals;
  if (!target || !['add', 'list', 'revoke'].includes(action ?? '')) {
    throw new UsageError('use: perch agent key add AGENT --name N [--scopes read,write,...] [--expires 30m|12h|7d] | key list AGENT | key revoke KEY_ID');
  }
  if (action === 'add') {
    if (!values.name) throw new UsageError('perch agent key add needs --name NAME');
    const scopes = values.scopes?.split(',').map((x) => x.trim()).filter(Boolean);
    let expiresAt: number | undefined;
    if (values.expires !== undefined) {
      const m = /^(\d+)([smhd]?)$/.exec(values.expires.trim());
      if (!m) throw new UsageError(`--expires ${JSON.stringify(values.expires)}: use a number of seconds, or 30m, 12h, 7d`);
      expiresAt = hub.now() + Number(m[1]) * ({ '': 1, s: 1, m: 60, h: 3600, d: 86400 } as Record<string, number>)[m[2]!]! * 1000;
    }
    const { key, secret } = addAgentKey(hub, { agent: target, name: values.name, scopes, expires_at: expiresAt });
    print(json, { key, secret, mcp_url: mcpUrlFor(dataDir) }, () =>
      `Added key ${key.name} (${key.id}) for ${key.agent}, scopes ${key.scopes.join(', ')}${key.expires_at ? `, expires ${new Date(key.expires_at).toISOString()}` : ''}.\nKey (shown once, keep it secret):\n  ${secret}`);
    return;
  }
  if (action === 'list') {
    const keys = listAgentKeys(hub, target);
    print(json, { keys }, () => keys.length
      ? keys.map((k) => `${k.id.padEnd(22)} ${k.name.padEnd(20)} ${k.scopes.join(',').padEnd(26)} ${k.revoked ? 'revoked' : k.expired ? 'expired' : k.expires_at ? `until ${new Date(k.expires_at).toISOString()}` : 'no expiry'}  key ${k.key_hint}`).join('\n')
      : `No extra keys for ${target}. Add one with \`perch agent key add ${target} --name NAME --scopes read\`.`);
    return;
  }
  const k = revokeScopedKey(hub, target);
  print(json, { key: k }, () => `Revoked key ${k.name} (${k.id}) of ${k.agent}; it no longer works.`);
}

async function postJson(url: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; json: any; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  let json: any;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, json, text };
}

/** The largest JSON argument read from a file or stdin: the largest body any door of the hub takes (send_file, files.send). */
const MAX_JSON_ARG_BYTES = LIMITS.maxFileBodyBytes;

/** Reads all of stdin (at most max bytes; more is a UsageError). */
async function readStdin(max: number, what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new UsageError(`${what} on stdin is over ${max} bytes, more than the hub takes in one call`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A JSON object argument: given inline ('{"a":1}'), as `-` (read from stdin to its end) or as `@FILE` (read from
 * FILE), so an input too long for a command line (a file's base64) can be passed. Anything that is not one JSON
 * object is a UsageError, before anything is sent.
 */
async function readJsonArg(arg: string | undefined, what: string): Promise<Record<string, unknown>> {
  if (arg === undefined) return {};
  const is = what.endsWith('s') ? 'are' : 'is';
  let text: string;
  let source = '';
  if (arg === '-') {
    if (process.stdin.isTTY) throw new UsageError(`${what} ${is} - (read from stdin), but stdin is a terminal: pipe the JSON in, or give @FILE`);
    source = ' (from stdin)';
    text = await readStdin(MAX_JSON_ARG_BYTES, what);
  } else if (arg.startsWith('@')) {
    const file = arg.slice(1);
    if (!file) throw new UsageError(`${what} ${is} @ without a file name: give @FILE`);
    source = ` (from ${file})`;
    let size: number;
    try {
      const st = await fs.promises.stat(file);
      if (!st.isFile()) throw new UsageError(`${file} (${what}) is not a file`);
      size = st.size;
    } catch (e) {
      if (e instanceof UsageError) throw e;
      const code = (e as NodeJS.ErrnoException).code;
      throw new UsageError(`cannot read ${what} from ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (e as Error).message}`);
    }
    if (size > MAX_JSON_ARG_BYTES) throw new UsageError(`${file} (${what}) is ${size} bytes, more than the hub takes in one call (${MAX_JSON_ARG_BYTES})`);
    try {
      text = await fs.promises.readFile(file, 'utf8');
    } catch (e) {
      throw new UsageError(`cannot read ${what} from ${file}: ${(e as Error).message}`);
    }
  } else {
    text = arg;
  }
  if (!text.trim()) throw new UsageError(`${what}${source} ${is} empty: give a JSON object such as {}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${what}${source} ${is} not valid JSON: ${(e as Error).message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(`${what}${source} must be a JSON object ({...}), not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`);
  }
  return value as Record<string, unknown>;
}

async function cmdCall(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, options: { url: { type: 'string' }, key: { type: 'string' }, 'data-dir': { type: 'string' } }, allowPositionals: true, strict: true });
  const [tool, argsText] = positionals;
  if (!tool) throw new UsageError('perch call needs TOOL, e.g. perch call whoami');
  const args = await readJsonArg(argsText, 'the arguments');
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
    process.stdout.write(`${ownerHelp()}\n`);
    return;
  }
  const dataDir = path.resolve(values['data-dir'] ?? defaultDataDir());
  const rt = runtimeOf(dataDir);
  const input = await readJsonArg(inputText, 'the input');
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

// ---- paired devices (hub/phone/devices.ts, hub/phone/pairing.ts) -------------------------------------------

function deviceLine(d: DeviceView): string {
  const used = d.last_used_at ? new Date(d.last_used_at).toISOString().replace('T', ' ').slice(0, 16) : 'never';
  return `${d.id}  ${d.name.padEnd(24)} ${d.scope.padEnd(9)} ${d.revoked ? 'revoked  ' : 'active   '} push ${d.push ? 'on ' : 'off'}  last used ${used}  credential ${d.token_hint}`;
}

async function cmdDevice(argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    options: { 'data-dir': { type: 'string' }, json: { type: 'boolean' }, name: { type: 'string' }, scope: { type: 'string' }, yes: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  if (sub !== 'list' && sub !== 'revoke' && sub !== 'pair') throw new UsageError(`unknown device command ${JSON.stringify(sub ?? '')}: use list, revoke or pair`);
  if (values.scope !== undefined && values.scope !== 'approvals' && values.scope !== 'full') throw new UsageError('--scope must be approvals or full');
  const dataDir = path.resolve(values['data-dir'] ?? defaultDataDir());
  const json = !!values.json;
  if (sub === 'list') {
    return withHub(dataDir, (hub) => {
      const devices = listDevices(hub);
      print(json, { devices }, () => (devices.length ? devices.map(deviceLine).join('\n') : 'No paired devices. Pair a phone with `perch device pair` (or Settings → Phone).'));
    });
  }
  if (sub === 'revoke') {
    const id = positionals[0];
    if (!id) throw new UsageError('perch device revoke needs ID (see perch device list)');
    return withHub(dataDir, (hub) => {
      const d = revokeDevice(hub, id);
      print(json, { device: d }, () => `Revoked ${d.name} (${d.id}): its credential and its push subscription no longer work.`);
    });
  }
  // pair: through the running hub (the phone reaches that hub; its waits are woken there)
  const rt = runtimeOf(dataDir);
  const call = async (action: string, input: unknown): Promise<any> => {
    let r;
    try {
      r = await postJson(`${rt.base_url}/api/owner/${action}`, input, { Authorization: `Bearer ${rt.owner_token}` });
    } catch (e) {
      fail(`cannot reach the hub at ${rt.base_url}: ${(e as Error).message}. Is \`perch serve\` still running?`);
    }
    if (!r.json?.ok) fail(r.json?.error ? `${r.json.error.message} ${r.json.error.next_step ?? ''}`.trim() : `${r.status} unexpected answer: ${r.text.slice(0, 300)}`, 1);
    return r.json.value;
  };
  const start = (await call('devices.pair_start', { name: values.name, scope: values.scope })) as PairingStart;
  const QRCode = (await import('qrcode')).default;
  const qr = await QRCode.toString(start.url, { type: 'terminal', small: true });
  const say = (text: string) => { if (!json) process.stdout.write(text); };
  // --json: one line as soon as the link exists (a script needs the link to hand it to the phone), one when paired.
  if (json) print(true, { url: start.url, pairing: start.pairing }, () => '');
  say(`Open this on the phone (scan the QR code; it works once, for 5 minutes):\n\n${qr}\n  ${start.url}\n\nWaiting for the phone…\n`);
  let p: PairingView = start.pairing;
  // state: a phone that claims between two calls ends the next wait at once (not 30 s later).
  while (p.state === 'waiting') p = ((await call('devices.pair_status', { pairing_id: p.pairing_id, wait_secs: 30, state: p.state })) as { pairing: PairingView }).pairing;
  if (p.state !== 'claimed') fail(`the pairing is ${p.state}. Start again with \`perch device pair\`.`, 1);
  say(`\nThe phone (${p.device_name}) shows:   ${p.phrase}\n`);
  const yes = values.yes || (await askYesNo('Does the phone show the same words? [y/N] '));
  if (!yes) {
    await call('devices.pair_cancel', { pairing_id: p.pairing_id });
    fail('pairing cancelled; the code no longer works.', 1);
  }
  const done = (await call('devices.pair_confirm', { pairing_id: p.pairing_id, phrase: p.phrase ?? undefined })) as { pairing: PairingView; device: DeviceView };
  print(json, { pairing: done.pairing, device: done.device }, () => `Paired ${done.device.name} (${done.device.id}, scope ${done.device.scope}). Revoke it any time: perch device revoke ${done.device.id}`);
}

/** A y/N question on the terminal; anything but y/yes (or no terminal answer) is no. */
async function askYesNo(question: string): Promise<boolean> {
  const readline = await import('node:readline/promises');
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await Promise.race([rl.question(question), new Promise<string>((r) => rl.once('close', () => r('')))]);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

// ---- per-command help ------------------------------------------------------------------------

const DATA_DIR_LINE = `  --data-dir DIR   where the SQLite file lives (default: PERCH_DATA_DIR or ${defaultDataDir()})`;

const AGENT_SUBCOMMANDS: Record<string, string> = {
  add: `perch agent add NAME [--description TEXT] [--instructions TEXT] [--data-dir DIR] [--json]
  Adds an agent and prints its key (shown once) and how to connect a client.`,
  list: `perch agent list [--data-dir DIR] [--json]
  Lists the agents (never their keys).`,
  show: `perch agent show NAME [--data-dir DIR] [--json]
  Shows one agent.`,
  'rotate-key': `perch agent rotate-key NAME [--data-dir DIR] [--json]
  Gives the agent a new key (shown once); the old key stops working at once.`,
  revoke: `perch agent revoke NAME [--data-dir DIR] [--json]
  Revokes the agent; its key stops working at once.`,
  config: `perch agent config NAME ['{json patch}' | @FILE | -] [--data-dir DIR] [--json]
  Changes the agent's config (role, instructions, ...); its config version rises. The patch is one JSON
  object, inline or read from FILE (@FILE) or stdin (-); anything else exits 2 and changes nothing.`,
  review: `perch agent review NAME on|off [--data-dir DIR] [--json]
  Review mode: while on, the agent's send_message, send_card and send_file are held until you send
  (or edit and send) or discard each in the Approvals inbox. Items already held stay held when turned off.`,
  wake: `perch agent wake NAME [--cwd DIR] [--timeout SECS] [--max-runs N] [--env K=V]... -- CMD ARG...
perch agent wake NAME [--cwd DIR] [--timeout SECS] [--max-runs N] [--env K=V]... --shell 'STRING'
perch agent wake NAME --webhook URL [--timeout SECS] [--max-runs N]
perch agent wake NAME --off | --show   [--data-dir DIR] [--json]
  What Perch starts when an event wakes NAME and no get_updates of it is waiting: CMD with its
  arguments (no shell), or a shell string, or a signed POST to a loopback URL. One run at a time;
  timeout (default 900 s) then SIGTERM and SIGKILL; at most N runs an hour (default 6). Each run
  gets its own short-lived key in PERCH_KEY (also PERCH_URL, PERCH_AGENT, PERCH_RUN_ID, PERCH_WAKE,
  PERCH_MCP_CONFIG). Five failed runs in a row switch it off. --show prints it; --off removes it.`,
  pause: `perch agent pause NAME|--all [--reason TEXT] [--data-dir DIR] [--json]
  Pauses one agent (or every agent): its writing tools are refused with \`paused\` until it is resumed
  (reads still work); its waiting get_updates returns agent.paused at once, also while the hub runs.`,
  resume: `perch agent resume NAME|--all [--data-dir DIR] [--json]
  Resumes a paused agent (or every paused agent); it gets agent.resumed and is woken.`,
  caps: `perch agent caps NAME [--cost-usd N] [--messages N] [--tool-calls N] | --off [--data-dir DIR] [--json]
  Sets the agent's daily caps (the owner's local day; a cap given as "off" is lifted, --off lifts all) and
  prints today's usage. Reaching a cap pauses the agent (reason budget). Cost is what the agent reports
  in progress data.usage.cost_usd.`,
  brakes: `perch agent brakes NAME [--budget N|off|default] [--data-dir DIR] [--json]
  Shows the agent's brakes; --budget sets how many messages it may send per conversation per hour
  (1-${BRAKES.budgetMax}, off, or default: ${BRAKES.budgetPerHour}). Works whether or not the hub runs (a running hub is told at once).`,
  key: `perch agent key add AGENT --name NAME [--scopes read,write,files,state,ask] [--expires 30m|12h|7d|SECONDS] [--json]
perch agent key list AGENT [--json]
perch agent key revoke KEY_ID [--json]
  Extra keys of an agent, each with scopes (default all) and an optional expiry; the key is shown once.
  A call outside a key's scopes is refused with forbidden naming the scope; an expired key gets 401.`,
};

const COMMAND_HELP: Record<string, () => string> = {
  serve: () => `perch serve [--data-dir DIR] [--port N] [--json] [--open] [--rate N] [--backups N] [--public-url URL]

Runs the hub headless: MCP at http://127.0.0.1:${DEFAULT_PORT}/mcp, the UI in your browser.
  --port N      port on 127.0.0.1 (default ${DEFAULT_PORT}, or PERCH_PORT; 0 picks a free one)
  --json        print one JSON line {mcp_url, port, data_dir, login_url} when ready
  --open        open the one-time login link in the browser
  --rate N      calls per second per agent (0 = no limit)
  --backups N   daily backups to keep in <data dir>/${BACKUPS_DIR} (default ${DEFAULT_DAILY_BACKUPS}, or PERCH_BACKUPS; 0 = none)
  --public-url URL  the HTTPS front that forwards to this hub (e.g. https://laptop.tail1234.ts.net after
                \`tailscale serve --bg --https=443 http://127.0.0.1:PORT\`); saved, so later runs keep it. The hub
                still listens on 127.0.0.1 only; requests through the front need a paired device (perch device pair).
${DATA_DIR_LINE}
If the port is taken, serve stops and says so (whatever holds the port receives agents' keys).`,
  agent: () => `perch agent COMMAND ... — manage agents (works whether or not the hub runs)

${Object.values(AGENT_SUBCOMMANDS).join('\n\n')}

Common options:
${DATA_DIR_LINE}
  --json           print JSON`,
  call: () => `perch call TOOL ['{json args}' | @FILE | -] [--url URL] [--key KEY] [--data-dir DIR]

Calls one MCP tool as an agent and prints its result as JSON (exit 1 on a tool error).
The arguments are one JSON object: inline, or read from FILE (@FILE) or from stdin (-), for arguments
too long for a command line, e.g. a 1 MB image for send_file:
  jq -n --arg d "$(base64 -w0 photo.jpg)" --arg c "$CONV" '{conv_id:$c, name:"photo.jpg", data:$d}' | perch call send_file -
Input that is not one JSON object (a missing file, invalid JSON) exits 2 and sends nothing.
  --url URL   the MCP endpoint (default: PERCH_URL, or the running hub of the data dir)
  --key KEY   the agent's key (default: PERCH_KEY)`,
  owner: () => ownerHelp(),
  backup: () => `perch backup [--to FILE] [--force] [--data-dir DIR] [--json]

Copies the database (one consistent copy, taken with SQLite's online backup API; safe while the
hub runs and agents write) and prints where it went and its size.
  --to FILE   where to write it (default: <data dir>/${BACKUPS_DIR}/perch-<time>.sqlite)
  --force     overwrite FILE if it exists (refused otherwise)
${DATA_DIR_LINE}
The search index (perch-search.sqlite) is rebuilt from the database and is not copied.
While it runs, the hub keeps its own daily backups (see perch serve --backups).`,
  restore: () => `perch restore FILE [--data-dir DIR] [--json]

Replaces the data dir's database with the backup FILE. Refused while a hub serves the data dir
(stop it first). FILE is checked first (PRAGMA integrity_check, a Perch schema version and
Perch's tables); a bad file is refused and nothing changes. The current database is first saved as
<data dir>/${BACKUPS_DIR}/perch-pre-restore-<time>.sqlite.
${DATA_DIR_LINE}`,
  device: () => `perch device list [--json]
perch device revoke ID [--json]
perch device pair [--name NAME] [--scope approvals|full] [--yes] [--json]
  Paired phones (approve from your phone through your HTTPS front; see README "Approve from your phone").
  list    the devices with scope, last use, whether they get pushes (revoked ones too)
  revoke  ends a device's credential and its push subscription at once
  pair    needs the running hub and its public URL (perch serve --public-url URL): prints the link and its
          QR code, waits (5 minutes) for the phone to open it, shows the phrase both screens show, and asks
          y/N before the phone gets its credential (--yes: confirm without asking; --json: a line {url, pairing}
          when the link is ready, then a line {pairing, device} once paired). Scope approvals (default):
          the approvals inbox only; full: every owner action except pairing, devices and phone settings.
${DATA_DIR_LINE}`,
  hook: () => HOOK_HELP,
  version: () => `perch version — prints the version (also --version, -v)`,
  help: () => `perch help [COMMAND [SUBCOMMAND]] — usage of perch or of one command (also: perch COMMAND --help)`,
};
COMMAND_HELP.agents = COMMAND_HELP.agent!;
COMMAND_HELP.devices = COMMAND_HELP.device!;

function ownerHelp(): string {
  const lines = Object.entries(OWNER_ACTIONS).map(([name, spec]) => `  ${name.padEnd(28)} ${spec.description}`);
  return `perch owner ACTION ['{json}' | @FILE | -] [--data-dir DIR]\n\nThe input is one JSON object: inline, or read from FILE (@FILE) or from stdin (-).\n\nActions (docs/owner-api.md has their inputs):\n  ${'login-link'.padEnd(28)} A one-time link that opens the UI in a browser.\n${lines.join('\n')}`;
}

/** The usage of `perch CMD [SUB]`, or a UsageError for a command that does not exist. */
function helpText(cmd: string | undefined, sub?: string): string {
  if (cmd === undefined) return HELP.trimEnd();
  const h = COMMAND_HELP[cmd];
  if (!h) throw new UsageError(`unknown command ${JSON.stringify(cmd)}. Run \`perch --help\` for the commands.`);
  if ((cmd === 'agent' || cmd === 'agents') && sub !== undefined) {
    const s = AGENT_SUBCOMMANDS[sub];
    if (!s) throw new UsageError(`unknown agent command ${JSON.stringify(sub)}: use ${Object.keys(AGENT_SUBCOMMANDS).join(', ')}. Run \`perch agent --help\`.`);
    return `${s}\n\nOptions:\n${DATA_DIR_LINE}\n  --json           print JSON`;
  }
  return h();
}

/** --help or -h among the options (not after `--`, not as a value such as a JSON argument). */
function asksForHelp(argv: string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}

/** The `perch help X` pointer for a usage error in `perch CMD [SUB]`. */
function helpPointer(cmd: string | undefined, argv: string[]): string {
  if (!cmd || !COMMAND_HELP[cmd]) return 'Run `perch --help`.';
  const sub = (cmd === 'agent' || cmd === 'agents') && argv[0] && AGENT_SUBCOMMANDS[argv[0]] ? ` ${argv[0]}` : '';
  return `Run \`perch ${cmd}${sub} --help\`.`;
}

/** parseArgs' message, shortened for an unknown option. */
function argsErrorText(err: Error): string {
  const unknown = /^Unknown option '([^']+)'/.exec(err.message);
  if (unknown) return `unknown option ${unknown[1]} (a value that starts with - goes after --).`;
  return /[.]$/.test(err.message) ? err.message : `${err.message}.`;
}

// ---- serve: daily backups and a taken port ---------------------------------------------------

function dailyBackupsOption(flag: string | undefined): number {
  const text = flag ?? process.env.PERCH_BACKUPS;
  if (text === undefined || text === '') return DEFAULT_DAILY_BACKUPS;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 1000) throw new UsageError(`--backups must be a whole number 0..1000 (0 turns daily backups off), not ${JSON.stringify(text)}`);
  return n;
}

async function failPortTaken(port: number): Promise<never> {
  const { describePortHolder, portTakenMessage } = await import('../port-check');
  fail(portTakenMessage(port, await describePortHolder(port)), 1);
}

// ---- backup and restore ----------------------------------------------------------------------

function humanSize(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

async function cmdBackup(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { 'data-dir': { type: 'string' }, to: { type: 'string' }, force: { type: 'boolean' }, json: { type: 'boolean' } }, strict: true });
  const dataDir = path.resolve(values['data-dir'] ?? defaultDataDir());
  const dbFile = path.join(dataDir, DB_FILE_NAME);
  if (!fs.existsSync(dbFile)) fail(`there is no database to back up at ${dbFile}. Check --data-dir (or PERCH_DATA_DIR).`, 1);
  const dest = values.to !== undefined ? path.resolve(values.to) : defaultBackupFile(dataDir);
  if (path.resolve(dest) === path.resolve(dbFile)) throw new UsageError('--to names the database itself; pick another file.');
  if (fs.existsSync(dest)) {
    if (!values.force) fail(`${dest} exists; nothing was written. Pick another --to FILE, or add --force to overwrite it.`, 1);
    if (!fs.statSync(dest).isFile()) fail(`${dest} is not a file; nothing was written. Pick another --to FILE.`, 1);
  }
  const r = await backupFile(dbFile, `${dest}.new`);
  // Replace only once the new copy is whole and checked; then no stale -wal/-journal may stay beside it.
  for (const f of [`${dest}-wal`, `${dest}-shm`, `${dest}-journal`]) fs.rmSync(f, { force: true });
  fs.renameSync(r.file, dest);
  print(!!values.json, { file: dest, bytes: r.bytes }, () => `Backed up ${dbFile}\n  to ${dest} (${humanSize(r.bytes)}).\nRestore it with: perch restore ${JSON.stringify(dest)}${values['data-dir'] ? ` --data-dir ${JSON.stringify(dataDir)}` : ''}`);
}

async function cmdRestore(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, options: { 'data-dir': { type: 'string' }, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
  const [fileArg, extra] = positionals;
  if (!fileArg) throw new UsageError('perch restore needs FILE, e.g. perch restore backups/perch-2025-01-31T12-00-00-000Z.sqlite');
  if (extra !== undefined) throw new UsageError(`perch restore takes one FILE, not also ${JSON.stringify(extra)}`);
  const dataDir = path.resolve(values['data-dir'] ?? defaultDataDir());
  const dbFile = path.join(dataDir, DB_FILE_NAME);
  const source = path.resolve(fileArg);
  if (!fs.existsSync(source) || !fs.statSync(source).isFile()) fail(`${source} is not a file; nothing was changed.`, 1);
  if (source === dbFile) throw new UsageError('FILE is the database itself; pick a backup.');
  const { liveHubOf } = await import('../app');
  const live = await liveHubOf(dataDir);
  if (live) fail(`a Perch hub (pid ${live.pid}) is serving ${dataDir} at ${live.base_url}; nothing was changed. Stop it first (Ctrl+C, or quit the app), then run perch restore again.`, 1);

  // Check a private copy (with the -wal beside FILE, if any), so FILE itself is never modified
  // and a bad file never touches the data dir's database.
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const staging = path.join(dataDir, `.restore-${process.pid}-${Date.now()}.sqlite`);
  const dropStaging = () => { for (const f of [staging, `${staging}-wal`, `${staging}-shm`, `${staging}-journal`]) fs.rmSync(f, { force: true }); };
  let version: number;
  try {
    fs.copyFileSync(source, staging);
    if (fs.existsSync(`${source}-wal`)) fs.copyFileSync(`${source}-wal`, `${staging}-wal`);
    version = checkPerchDatabase(staging).version;
    sealRestoredCopy(staging);
    fs.chmodSync(staging, 0o600);
  } catch (err) {
    dropStaging();
    if (err instanceof NotRestorableError) fail(`${err.message.replace(staging, source)} ${err.nextStep}`, 1);
    throw err;
  }

  // Keep the current database: a consistent copy through SQLite, or its raw files if it cannot be read.
  let kept: string | undefined;
  if (fs.existsSync(dbFile)) {
    kept = defaultBackupFile(dataDir, 'pre-restore');
    try {
      await backupFile(dbFile, kept);
    } catch {
      fs.mkdirSync(path.dirname(kept), { recursive: true, mode: 0o700 });
      fs.copyFileSync(dbFile, kept);
      if (fs.existsSync(`${dbFile}-wal`)) fs.copyFileSync(`${dbFile}-wal`, `${kept}-wal`);
    }
  }
  // The old -wal/-shm must go before the new file takes the name: SQLite would replay them onto it.
  for (const f of [`${dbFile}-wal`, `${dbFile}-shm`, `${dbFile}-journal`]) fs.rmSync(f, { force: true });
  fs.renameSync(staging, dbFile);
  dropStaging();
  // The search index is derived from the database: drop it, the hub rebuilds it.
  for (const f of [SEARCH_FILE_NAME, `${SEARCH_FILE_NAME}-wal`, `${SEARCH_FILE_NAME}-shm`]) fs.rmSync(path.join(dataDir, f), { force: true });
  print(!!values.json, { restored: source, data_dir: dataDir, schema_version: version, previous: kept ?? null }, () =>
    `Restored ${source}\n  into ${dbFile} (schema version ${version}${version < LATEST_VERSION ? `; upgraded to ${LATEST_VERSION} when the hub starts` : ''}).\n` +
    (kept ? `The previous database is kept as ${kept}.\n` : '') + 'Start the hub with `perch serve` (or open the app).');
}

/** A checked copy becomes one self-contained file (its -wal merged in). */
function sealRestoredCopy(file: string): void {
  const c = new Database(file);
  try {
    c.pragma('journal_mode = DELETE');
  } finally {
    c.close();
  }
}

export async function main(argv: string[]): Promise<void> {
  const [cmd, ...rest] = argv;
  try {
    if (cmd !== undefined && COMMAND_HELP[cmd] && cmd !== 'help' && asksForHelp(rest)) {
      const sub = (cmd === 'agent' || cmd === 'agents') && rest[0] && !rest[0].startsWith('-') ? rest[0] : undefined;
      process.stdout.write(`${helpText(cmd, sub)}\n`);
      return;
    }
    switch (cmd) {
      case 'serve':
        return await cmdServe(rest);
      case 'agent':
      case 'agents':
        if (rest[0] === 'brakes') return await cmdAgentBrakes(rest.slice(1)); // brakes (hub/control/brakes.ts)
        return await cmdAgent(rest);
      case 'call':
        return await cmdCall(rest);
      case 'hook':
        return await cmdHook(rest);
      case 'owner':
        return await cmdOwner(rest);
      case 'device':
      case 'devices':
        return await cmdDevice(rest);
      case 'backup':
        return await cmdBackup(rest);
      case 'restore':
        return await cmdRestore(rest);
      case 'version':
      case '--version':
      case '-v':
        process.stdout.write(`${PERCH_VERSION}\n`);
        return;
      case 'help':
        process.stdout.write(`${helpText(rest[0], rest[1])}\n`);
        return;
      case undefined:
      case '--help':
      case '-h':
        process.stdout.write(HELP);
        return;
      default:
        throw new UsageError(`unknown command ${JSON.stringify(cmd)}. Run \`perch --help\` for the commands.`);
    }
  } catch (err) {
    if (err instanceof UsageError) fail(err.message.includes('--help') ? err.message : `${err.message.replace(/[.]$/, '')}. ${helpPointer(cmd, rest)}`);
    if (err instanceof NewerDatabaseError) fail(err.message);
    if (isHubError(err)) fail(`${err.message} ${err.nextStep}`, 1);
    if ((err as { code?: string })?.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || (err as { code?: string })?.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' || (err as { code?: string })?.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') fail(`${argsErrorText(err as Error)} ${helpPointer(cmd, rest)}`);
    throw err;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`perch: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
