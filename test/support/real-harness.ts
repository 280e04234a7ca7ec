// The real Claude Code, Codex CLI, GitHub Copilot CLI, Gemini CLI and OpenCode for tests, pinned, installed once on demand into cache dirs under
// os.tmpdir() (like scripts/conformance.ts does with its suite): each is ~400 MB, so neither is one of the
// project's dependencies. npm here may skip install scripts, so Claude Code's platform package binary
// (@anthropic-ai/claude-code-<platform>-<arch>/claude, an optional dependency) is run directly. When one
// cannot be installed (offline, another platform), the tests that need it skip with the reason;
// PERCH_REAL_HARNESS=0 skips them without trying.
import { spawn, spawnSync } from 'node:child_process';
import { after, before } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  addAgent,
  cliAsync,
  ensureBuilt,
  exitOf,
  removeDataDir,
  startServe,
  tempDataDir,
  uniqueName,
  type AgentKey,
  type CliResult,
} from './serve-harness';
import { startStandIn, type Block, type MessagesRequest, type StandIn } from './model-standin';
import { keyEnvVar } from '../../src/shared/agents/snippets';

export const CLAUDE_CODE_VERSION = '2.1.332';
export const CODEX_VERSION = '0.171.0';
export const COPILOT_VERSION = '1.0.102';
export const GEMINI_VERSION = '0.61.0';
export const OPENCODE_VERSION = '1.18.33';
const INSTALL_TIMEOUT_MS = 300_000;

export type Installed = { bin: string; skip?: undefined } | { bin?: undefined; skip: string };

function npmInstall(dir: string, spec: string): string | undefined {
  const npmCli = process.env.npm_execpath;
  const args = ['install', '--no-audit', '--no-fund', '--no-save', '--no-package-lock', '--loglevel=error', spec];
  const r =
    npmCli && /\.c?js$/.test(npmCli)
      ? spawnSync(process.execPath, [npmCli, ...args], { cwd: dir, encoding: 'utf8', timeout: INSTALL_TIMEOUT_MS })
      : spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, {
          cwd: dir,
          encoding: 'utf8',
          timeout: INSTALL_TIMEOUT_MS,
          shell: process.platform === 'win32',
        });
  if (r.error || r.status !== 0)
    return `npm install ${spec} failed (${r.error?.message ?? `exit ${r.status}`}): ${(r.stderr || r.stdout || '').trim().split('\n').slice(-3).join(' ')}`;
  return undefined;
}

const PLATFORMS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64'];

/**
 * PACKAGE@VERSION installed once into os.tmpdir()/perch-<cacheName>-<version>; `bin` is the path (inside
 * node_modules) that must be there afterwards. Skips (with the reason) when it cannot be installed.
 */
function installed(cacheName: string, spec: string, bin: string): Installed {
  if (process.env.PERCH_REAL_HARNESS === '0') return { skip: 'PERCH_REAL_HARNESS=0' };
  const platform = `${process.platform}-${process.arch}`;
  if (!PLATFORMS.includes(platform)) return { skip: `no ${spec} platform package is used here for ${platform}` };
  const dir = path.join(os.tmpdir(), `perch-${cacheName}`);
  const file = path.join(dir, 'node_modules', bin);
  if (!fs.existsSync(file)) {
    console.log(`# installing ${spec} into ${dir} (once) …`);
    // Install beside the final dir, then rename: a concurrent or interrupted run never sees half an install.
    const staging = fs.mkdtempSync(`${dir}.tmp-`);
    try {
      fs.writeFileSync(path.join(staging, 'package.json'), JSON.stringify({ name: 'perch-harness-cache', private: true }));
      const failed = npmInstall(staging, spec);
      if (failed) return { skip: failed };
      if (!fs.existsSync(path.join(staging, 'node_modules', bin)))
        return { skip: `the install of ${spec} has no node_modules/${bin} (optional dependency not installed)` };
      // Another test process may have finished the same install meanwhile: keep the one in place (it may be running).
      if (!fs.existsSync(file)) {
        fs.rmSync(dir, { recursive: true, force: true });
        fs.renameSync(staging, dir);
      }
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
  }
  return { bin: file };
}

function checked(name: string, got: Installed, version: string, run: (bin: string) => ReturnType<typeof spawnSync>): Installed {
  if (got.bin === undefined) {
    console.log(`# real ${name} tests skipped: ${got.skip}`);
    return got;
  }
  const v = run(got.bin);
  const out = String(v.stdout ?? '');
  if (v.status !== 0 || !out.includes(version)) {
    const skip = `${got.bin} --version gave ${JSON.stringify((out || String(v.stderr ?? '') || v.error?.message || '').trim())}; remove its cache dir to reinstall`;
    console.log(`# real ${name} tests skipped: ${skip}`);
    return { skip };
  }
  return got;
}

let claudeCached: Installed | undefined;
/** The real `claude` binary (the platform package's, run directly: npm may skip install scripts), or why not. */
export function claudeCode(): Installed {
  claudeCached ??= checked(
    'Claude Code',
    installed(
      `claude-code-${CLAUDE_CODE_VERSION}`,
      `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`,
      `@anthropic-ai/claude-code-${process.platform}-${process.arch}/claude`,
    ),
    CLAUDE_CODE_VERSION,
    (bin) => spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000 }),
  );
  return claudeCached;
}

let codexCached: Installed | undefined;
/** The real Codex CLI: its launcher bin/codex.js (run with node), which starts the platform package's binary. */
export function codex(): Installed {
  codexCached ??= checked(
    'Codex',
    installed(`codex-${CODEX_VERSION}`, `@openai/codex@${CODEX_VERSION}`, '@openai/codex/bin/codex.js'),
    CODEX_VERSION,
    (bin) => spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8', timeout: 30_000 }),
  );
  return codexCached;
}

/**
 * Where GitHub Copilot CLI unpacks itself on its first run (~235 MB: $XDG_CACHE_HOME/copilot/pkg): beside its install
 * in the same cache dir, so every later run (and test file) reuses it.
 */
function copilotCacheHome(bin: string): string {
  return path.join(bin.slice(0, bin.lastIndexOf(`${path.sep}node_modules${path.sep}`)), 'xdg-cache');
}

let copilotCached: Installed | undefined;
/** The real GitHub Copilot CLI: its platform package's binary (the launcher only picks it), run directly. */
export function copilotCli(): Installed {
  copilotCached ??= checked(
    'GitHub Copilot CLI',
    installed(
      `copilot-${COPILOT_VERSION}`,
      `@github/copilot@${COPILOT_VERSION}`,
      `@github/copilot-${process.platform}-${process.arch}/copilot`,
    ),
    COPILOT_VERSION,
    (bin) =>
      spawnSync(bin, ['--version'], {
        encoding: 'utf8',
        timeout: 120_000,
        env: {
          PATH: pathWithoutPerch(),
          HOME: path.join(path.dirname(copilotCacheHome(bin)), 'version-home'),
          XDG_CACHE_HOME: copilotCacheHome(bin),
          COPILOT_OFFLINE: 'true',
        },
      }),
  );
  return copilotCached;
}

/**
 * `copilot ARGS` in cwd with only the given environment: offline (COPILOT_OFFLINE, no GitHub login) against the model
 * at env.COPILOT_PROVIDER_BASE_URL (an OpenAI Chat Completions stand-in), its unpacked package from the cache dir,
 * COPILOT_HOOK_ALLOW_LOCALHOST=1 (as the guide tells the user: Copilot calls plain-http hooks only with it), bounded.
 */
export function runCopilot(
  bin: string,
  args: string[],
  opts: { cwd: string; home: string; env: Record<string, string>; timeoutMs?: number },
): Promise<CliResult> {
  const env: Record<string, string> = {
    PATH: pathWithoutPerch(),
    HOME: opts.home,
    XDG_CACHE_HOME: copilotCacheHome(bin),
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_API_KEY: 'dummy',
    COPILOT_MODEL: 'gpt-4.1',
    COPILOT_HOOK_ALLOW_LOCALHOST: '1',
    ...opts.env,
  };
  return exitOf(
    spawn(bin, args, { cwd: opts.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }),
    `copilot ${args.join(' ')}`,
    opts.timeoutMs ?? 240_000,
  );
}

let geminiCached: Installed | undefined;
/** The real Gemini CLI: its bundle (bundle/gemini.js, run with node; its optional native parts are not needed). */
export function geminiCli(): Installed {
  geminiCached ??= checked(
    'Gemini CLI',
    installed(`gemini-${GEMINI_VERSION}`, `@google/gemini-cli@${GEMINI_VERSION}`, '@google/gemini-cli/bundle/gemini.js'),
    GEMINI_VERSION,
    (bin) =>
      spawnSync(process.execPath, [bin, '--version'], {
        encoding: 'utf8',
        timeout: 60_000,
        env: {
          PATH: pathWithoutPerch(),
          HOME: path.join(bin.slice(0, bin.lastIndexOf(`${path.sep}node_modules${path.sep}`)), 'version-home'),
        },
      }),
  );
  return geminiCached;
}

/**
 * `gemini ARGS` in cwd with only the given environment: its model the Gemini API stand-in at
 * env.GOOGLE_GEMINI_BASE_URL with a dummy API key (the settings file connect wrote must choose API-key auth:
 * useGeminiSession), the workspace trusted (GEMINI_CLI_TRUST_WORKSPACE: headless, nobody answers its trust prompt),
 * bounded.
 */
export function runGemini(
  bin: string,
  args: string[],
  opts: { cwd: string; home: string; env: Record<string, string>; timeoutMs?: number },
): Promise<CliResult> {
  const env: Record<string, string> = {
    PATH: pathWithoutPerch(),
    HOME: opts.home,
    GEMINI_API_KEY: 'dummy',
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    ...opts.env,
  };
  return exitOf(
    spawn(process.execPath, [bin, ...args], { cwd: opts.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }),
    `gemini ${args.join(' ')}`,
    opts.timeoutMs ?? 240_000,
  );
}

export type ClaudeRun = CliResult;

/**
 * `claude ARGS` in cwd with only the given environment (plus PATH and the switches that keep it offline and
 * quiet), bounded in time. ANTHROPIC_BASE_URL in env points it at a stand-in model.
 */
export function runClaude(
  bin: string,
  args: string[],
  opts: { cwd: string; home: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<ClaudeRun> {
  const env: Record<string, string> = {
    PATH: pathWithoutPerch(),
    HOME: opts.home,
    ANTHROPIC_API_KEY: 'dummy',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ...opts.env,
  };
  const timeoutMs = opts.timeoutMs ?? 240_000;
  return exitOf(spawn(bin, args, { cwd: opts.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }), `claude ${args.join(' ')}`, timeoutMs);
}

/**
 * This process's PATH without any directory that holds a `perch`: a harness configured by `perch connect` runs its
 * hooks without the perch command (HTTP hooks, curl), so the tests run it where perch cannot be found.
 */
export function pathWithoutPerch(): string {
  return (process.env.PATH ?? '/usr/bin:/bin')
    .split(path.delimiter)
    .filter((d) => d && !fs.existsSync(path.join(d, 'perch')))
    .join(path.delimiter);
}

/** Fails the test unless `command -v perch` fails in a shell with this environment. */
export function assertNoPerch(env: Record<string, string>): void {
  const r = spawnSync('/bin/sh', ['-c', 'command -v perch'], { env, encoding: 'utf8', timeout: 10_000 });
  if (r.status === 0) throw new Error(`perch is on the harness's PATH (${r.stdout.trim()}); the test needs it absent`);
}

/** `perch connect CLIENT NAME --write` for a hub's agent with HOME=home (and perch not on PATH), as a person runs it. */
export async function connectWrite(client: string, agentName: string, dataDir: string, home: string): Promise<CliResult> {
  const r = await cliAsync(['connect', client, agentName, '--write', '--data-dir', dataDir], {
    env: { HOME: home, PATH: pathWithoutPerch() },
  });
  if (r.code !== 0) throw new Error(`perch connect ${client} ${agentName} --write failed (${r.code}): ${r.stderr}`);
  return r;
}

/**
 * A hub of its own with an agent (a unique name from BASE) that CONFIGURE connects while the hub runs; then the hub
 * is stopped and DOWN runs with it gone. The data dir is removed after.
 */
export async function withHubStopped(
  base: string,
  configure: (agent: AgentKey, dataDir: string) => Promise<void>,
  down: (agent: AgentKey) => Promise<void>,
): Promise<void> {
  const dataDir = tempDataDir();
  const hub = await startServe(dataDir);
  try {
    const agent = await addAgent(dataDir, uniqueName(base));
    await configure(agent, dataDir);
    await hub.stop();
    await down(agent);
  } finally {
    await hub.stop();
    removeDataDir(dataDir);
  }
}

export interface ClaudeSessionRun extends ClaudeRun {
  /** The fresh project dir the run had as its cwd. */
  dir: string;
  /** The stand-in's Messages requests made during this run. */
  requests: MessagesRequest[];
}

export interface ClaudeSession {
  /** The real `claude`, or why this file's tests skip. */
  readonly claude: Installed;
  /** The scripted stand-in model (started before the file's tests, closed after). */
  readonly model: StandIn;
  /** The temp dir the HOMEs and projects are made in (removed after the file's tests). */
  readonly home: string;
  /**
   * A fresh HOME whose ~/.claude/settings.json allows ALLOW (by default Perch's own tools, mcp__perch-NAME), then
   * `perch connect claude-code NAME --write` for the agent of hub DATADIR, as a person runs it. Returns the HOME.
   */
  configure(agent: { name: string }, dataDir: string, allow?: string[]): Promise<string>;
  /**
   * `claude ARGS` as the agent in a fresh project dir under AGENTHOME: the stand-in as its model, the agent's key only
   * in its environment, Perch's tools offered up front (no tool search), `perch` not on its PATH (checked first).
   */
  run(
    agent: AgentKey,
    agentHome: string,
    args: string[],
    opts?: { env?: Record<string, string>; timeoutMs?: number },
  ): Promise<ClaudeSessionRun>;
}

/**
 * A test file's Claude Code session setup: the real `claude`, the stand-in model answering with SCRIPT, and a temp dir
 * (named from PREFIX) for the HOMEs perch connect configures; started in `before`, cleaned up in `after` (nothing is
 * started when Claude Code is not there and the tests skip).
 */
export function useClaudeSession(
  prefix: string,
  script: (req: MessagesRequest, index: number) => Block[] | Promise<Block[]>,
): ClaudeSession {
  const claude = claudeCode();
  let model: StandIn | undefined;
  let home: string | undefined;
  before(async () => {
    if (claude.skip) return;
    ensureBuilt();
    model = await startStandIn(script);
    home = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  after(async () => {
    await model?.close();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });
  const session: ClaudeSession = {
    claude,
    get model() {
      if (!model) throw new Error('the stand-in model starts in before()');
      return model;
    },
    get home() {
      if (!home) throw new Error("the session's temp dir is made in before()");
      return home;
    },
    async configure(agent, dataDir, allow = [`mcp__perch-${agent.name}`]) {
      const agentHome = fs.mkdtempSync(path.join(session.home, 'home-'));
      fs.mkdirSync(path.join(agentHome, '.claude'));
      fs.writeFileSync(path.join(agentHome, '.claude', 'settings.json'), JSON.stringify({ permissions: { allow } }));
      await connectWrite('claude-code', agent.name, dataDir, agentHome);
      return agentHome;
    },
    async run(agent, agentHome, args, opts = {}) {
      const dir = fs.mkdtempSync(path.join(agentHome, 'project-'));
      const first = session.model.requests.length;
      const env = {
        PATH: pathWithoutPerch(),
        ANTHROPIC_BASE_URL: session.model.url,
        [keyEnvVar(agent.name)]: agent.key,
        ENABLE_TOOL_SEARCH: 'false',
        ...opts.env,
      };
      assertNoPerch({ ...env, HOME: agentHome });
      const r = await runClaude(claude.bin!, args, { cwd: dir, home: agentHome, env, timeoutMs: opts.timeoutMs });
      return { ...r, dir, requests: session.model.requests.slice(first) };
    },
  };
  return session;
}

let openCodeCached: Installed | undefined;
/** The real OpenCode: its platform package's binary (the launcher opencode-ai only picks it), run directly. */
export function openCode(): Installed {
  openCodeCached ??= checked(
    'OpenCode',
    installed(
      `opencode-${OPENCODE_VERSION}`,
      `opencode-ai@${OPENCODE_VERSION}`,
      `opencode-${process.platform}-${process.arch}/bin/opencode`,
    ),
    OPENCODE_VERSION,
    (bin) =>
      spawnSync(bin, ['--version'], {
        encoding: 'utf8',
        timeout: 60_000,
        env: { PATH: pathWithoutPerch(), HOME: path.join(path.dirname(path.dirname(path.dirname(path.dirname(bin)))), 'version-home') },
      }),
  );
  return openCodeCached;
}

/**
 * `opencode ARGS` in cwd with only the given environment: HOME (its config in HOME/.config/opencode, written by the
 * test and by perch connect), no model list fetched, no update, no default plugins; bounded.
 */
export function runOpenCode(
  bin: string,
  args: string[],
  opts: { cwd: string; home: string; env: Record<string, string>; timeoutMs?: number },
): Promise<CliResult> {
  const env: Record<string, string> = {
    PATH: pathWithoutPerch(),
    HOME: opts.home,
    OPENCODE_DISABLE_MODELS_FETCH: 'true',
    OPENCODE_DISABLE_AUTOUPDATE: 'true',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: 'true',
    ...opts.env,
  };
  return exitOf(
    spawn(bin, args, { cwd: opts.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }),
    `opencode ${args.join(' ')}`,
    opts.timeoutMs ?? 240_000,
  );
}
