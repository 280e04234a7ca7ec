// Wake runs: the owner gives an agent a wake action (a command to start, or a loopback webhook to POST);
// when an event wakes the agent and nothing of it is listening, the hub starts one run of it.
// Pure types and texts shared by the hub, the owner API, the CLI and the UI.

export const WAKE_DEFAULTS = {
  /** A run that lasts longer is stopped (SIGTERM, then SIGKILL of its process group 10 s later). */
  timeoutSecs: 15 * 60,
  /** Runs started per agent per hour, at most. */
  maxRunsPerHour: 6,
  /** Re-run backoff: starts here, doubles up to backoffMaxMs. */
  backoffMs: 5_000,
  backoffMaxMs: 5 * 60_000,
  /** Time between SIGTERM and SIGKILL of the whole process group. */
  killGraceMs: 10_000,
  /** Failed runs in a row (non-zero exit before confirming anything) that switch the wake action off. */
  maxFailures: 5,
  /** A run key keeps working this long after the run's timeout at most (it is revoked when the run ends). */
  keyGraceMs: 30_000,
  /** Each run's captured output is cut at this size. */
  logMaxBytes: 1024 * 1024,
  /** Webhook POST attempts (the first one and the retries, with doubling backoff from webhookRetryMs). */
  webhookAttempts: 4,
  webhookRetryMs: 1_000,
  /** A run's process tree (resident memory, CPU) is sampled this often while it lives. */
  sampleMs: 2_000,
  /** A run above its memory ceiling this long is stopped (SIGTERM, then SIGKILL of its group). */
  ceilingGraceMs: 5_000,
  /** While runs wait for the machine's available memory to rise over the floor, it is read again this often. */
  floorRecheckMs: 2_000,
  /** A run whose root process exited ends this long after even if something it left still holds its output open. */
  exitGraceMs: 2_000,
} as const;

/** What the owner may set as limits (wake.limits.set, wake.set memory_ceiling_mb): out of range is refused. */
export const WAKE_LIMIT_RANGE = {
  atOnce: { min: 1, max: 64 },
  /** A harness (Node, Claude Code) does not start in less. */
  ceilingMb: { min: 64, max: 1024 * 1024 },
  floorMb: { min: 0, max: 1024 * 1024 },
} as const;

/** The default number of runs alive at once from the machine: one per core, 1.5 GiB of available memory each, at least 1. */
export function defaultAtOnce(cores: number, availableBytes: number): number {
  return Math.max(1, Math.min(cores, Math.floor(availableBytes / (1.5 * 1024 ** 3)), WAKE_LIMIT_RANGE.atOnce.max));
}

export type WakeKind = 'command' | 'webhook';

/** What the owner configured for one agent (agents never see or change it). */
export interface WakeAction {
  kind: WakeKind;
  /** command: the program and its arguments, started without a shell. */
  argv?: string[];
  /** command: a shell string, only when the owner asked for a shell (then argv is absent). */
  shell?: string;
  cwd?: string;
  env?: Record<string, string>;
  timeout_secs: number;
  max_runs_per_hour: number;
  /** webhook: a loopback URL receiving a signed POST. */
  url?: string;
  /** command: a run whose process tree holds more resident memory than this (MB) for a few seconds is stopped. */
  memory_ceiling_mb?: number;
}

export type WakeRunStatus = 'running' | 'succeeded' | 'failed' | 'timed_out' | 'over_memory' | 'stopped' | 'interrupted';

/** A run's process tree as last sampled (resident memory of all its processes, CPU time used). */
export interface WakeResources {
  rss_bytes: number;
  peak_rss_bytes: number;
  cpu_secs: number;
  /** CPU use since the sample before (100 = one core busy). */
  cpu_pct: number;
  at: number;
}

/** One reason a run was started: a waking event the agent had not confirmed. */
export interface WakeReason {
  type: string;
  conv_id: string;
  seq: number;
  gid: number;
  /** Who caused it (a name), if anyone. */
  by: string | null;
}

export interface WakeSummary {
  /** Waking events not yet confirmed when the run started (the newest few are listed, newest first). */
  count: number;
  reasons: WakeReason[];
}

export interface WakeRunView {
  id: string;
  agent_id: string;
  agent_name: string;
  kind: WakeKind;
  status: WakeRunStatus;
  /** When the waking event that led to this run was committed (ms, fractional). */
  woken_at: number;
  started_at: number;
  /** When the process was running (spawned) or the webhook POST was sent. */
  running_at: number | null;
  /** The run's first tool call with its run key. */
  first_call_at: number | null;
  ended_at: number | null;
  duration_ms: number | null;
  exit_code: number | null;
  signal: string | null;
  /** Why it ended badly (timeout, stopped by the owner, error starting, webhook answer …). */
  error: string | null;
  why: WakeSummary;
  /** Claude Code's JSON result (total_cost_usd, usage), when the command printed one. */
  usage: { total_cost_usd?: number; usage?: Record<string, unknown> } | null;
  pid: number | null;
  /** Peak resident memory of its process tree and the CPU seconds it used (sampled; null when never sampled). */
  peak_rss_bytes: number | null;
  cpu_secs: number | null;
  /** While it runs: the last sample. */
  live?: WakeResources | null;
}

/** A run waiting for a free slot (the hub-wide limit of runs at once, or the machine's memory floor). */
export interface WakeQueued {
  agent: { id: string; name: string };
  /** When it was queued (ms). */
  since: number;
  /** 1 = next to start. */
  position: number;
  /** Woken by the owner's own message or decision: these go first. */
  by_owner: boolean;
}

/** The hub-wide limits and what runs and waits now (wake.limits.get; also in each fleet item as wake). */
export interface WakeLimits {
  at_once: number;
  /** Whether at_once is the machine's default (not set by the owner). */
  at_once_default: boolean;
  /** No new run starts while the machine's available memory is below this (MB; 0: no floor). */
  min_free_mb: number;
  machine: { cores: number; total_mb: number; available_mb: number } | null;
  running: Array<{ agent: { id: string; name: string }; run_id: string; since: number; live: WakeResources | null }>;
  queued: WakeQueued[];
  /** Why queued runs are not starting now, when it is not just the limit (the memory floor). */
  blocked: string | null;
  /** How runs are held on this machine (null where the hub runs none, and in brief). */
  containment: WakeContainment | null;
}

/**
 * How a command run is held on this machine. cgroup: in a cgroup of its own (Linux), so every process it starts is
 * counted and stopped however it leaves its process group; process_group: its process group (and, on Windows, its
 * process tree), so a process that leaves the group (setsid, a double fork) is neither counted nor stopped.
 */
export interface WakeContainment {
  kind: 'cgroup' | 'process_group';
  /** kernel: the cgroup holds each run to its memory ceiling; sampled: Perch stops a run over it after a few seconds. */
  memory: 'kernel' | 'sampled' | 'none';
  /** One line for the owner, saying what holds and why. */
  line: string;
}

/** The owner's view of an agent's wake setup. */
export interface WakeState {
  agent: { id: string; name: string };
  action: WakeAction | null;
  enabled: boolean;
  /** Why Perch switched the action off (after repeated failures), when it did. */
  off_reason: string | null;
  consecutive_failures: number;
  /** webhook: the HMAC-SHA256 secret signing each POST (X-Perch-Signature: sha256=<hex of the body's HMAC>). */
  webhook_secret: string | null;
  running: WakeRunView | null;
  runs_last_hour: number;
  /** Its run waits for a free slot. */
  queued: WakeQueued | null;
}

/** What PERCH_WAKE holds (JSON) and the first line of every recipe's prompt. */
export const WAKE_PROMPT =
  'You were woken in Perch: read get_updates and act. Confirm what you read (call get_updates again with its ack) before you exit.';

export interface WakeRecipe {
  id: string;
  title: string;
  /** How to configure it with the CLI. */
  cli: string;
  note: string;
  /** The same action as the Wake form takes it (the UI fills the form with it). */
  form: { shell?: string; argv?: string[]; cwd: string };
}

/** Ready-made wake actions (shown in the Agents page and docs/guide/wake-runs.md). NAME is the agent's name. */
export function wakeRecipes(name: string): WakeRecipe[] {
  const prompt = WAKE_PROMPT.replace(/'/g, '');
  const claude = `claude -p "${prompt}" --mcp-config "$PERCH_MCP_CONFIG" --settings "$PERCH_CLAUDE_SETTINGS" --allowedTools "mcp__perch" --output-format json`;
  // Codex's [otel] exporter names the endpoint only (no secret): the run's token comes from OTEL_EXPORTER_OTLP_HEADERS.
  const codexOtel = `-c "otel.exporter={otlp-http={endpoint=\\"$PERCH_OTLP_LOGS_URL\\",protocol=\\"json\\"}}"`;
  const codex = `codex exec -c "mcp_servers.perch.url=\\"$PERCH_URL\\"" -c "mcp_servers.perch.bearer_token_env_var=\\"PERCH_KEY\\"" ${codexOtel} "${prompt}"`;
  const gemini = `gemini -p "${prompt}" --yolo`;
  // OpenCode takes Perch's MCP entry (the run key as {env:PERCH_KEY}) from OPENCODE_CONFIG_CONTENT, over its own files.
  const opencode = `OPENCODE_CONFIG_CONTENT="$PERCH_OPENCODE_CONFIG" opencode run "${prompt}"`;
  return [
    {
      id: 'claude-code',
      title: 'Claude Code (headless)',
      cli: `perch agent wake ${name} --cwd path/to/project --shell '${claude}'`,
      form: { shell: claude, cwd: 'path/to/project' },
      note: "PERCH_MCP_CONFIG is a config naming this hub with the run's own key; PERCH_CLAUDE_SETTINGS adds the PermissionRequest hook, so the run's permission prompts come to your Approvals inbox instead of failing it; --output-format json lets Perch count the run's cost; PERCH_CLAUDE_SETTINGS also sends its tool calls and cost to the Ledger under this agent.",
    },
    {
      id: 'codex',
      title: 'Codex CLI',
      cli: `perch agent wake ${name} --cwd path/to/project --shell '${codex}'`,
      form: { shell: codex, cwd: 'path/to/project' },
      note: "Codex reads the run key from PERCH_KEY; its OpenTelemetry goes to this hub's ledger (the -c names where; the run's telemetry token comes from the environment); nothing secret is on its command line.",
    },
    {
      id: 'gemini',
      title: 'Gemini CLI',
      cli: `perch agent wake ${name} --cwd path/to/project --shell '${gemini}'`,
      form: { shell: gemini, cwd: 'path/to/project' },
      note: 'Once, in path/to/project/.gemini/settings.json: {"mcpServers": {"perch": {"httpUrl": "$PERCH_URL", "headers": {"Authorization": "Bearer $PERCH_KEY"}}}} — Gemini CLI fills in $VARS from the environment, so no key is stored in the file.',
    },
    {
      id: 'opencode',
      title: 'OpenCode',
      cli: `perch agent wake ${name} --cwd path/to/project --shell '${opencode}'`,
      form: { shell: opencode, cwd: 'path/to/project' },
      note: `Once: perch connect opencode ${name} --write (or --project path/to/project); its plugin holds the run to your pause and standing rules with the run's key and sends each model call's tokens to the Ledger under this agent. PERCH_OPENCODE_CONFIG names this hub as the MCP server perch-${name} with the key as {env:PERCH_KEY}, which OpenCode fills in from the run's environment: no key in a file or on the command line. opencode run answers OpenCode's own permission prompts itself (it rejects them), so they do not reach your inbox: allow what the run may do in OpenCode's permission settings.`,
    },
    {
      id: 'script',
      title: 'A plain script with perch call',
      cli: `perch agent wake ${name} --cwd path/to/project -- sh ./wake-${name}.sh`,
      form: { argv: ['sh', `./wake-${name}.sh`], cwd: 'path/to/project' },
      note: `wake-${name}.sh: perch call get_updates > updates.json; (act on updates.json); perch call get_updates "{\\"ack\\": \\"$(jq -r .ack updates.json)\\", \\"limit\\": 1}" — perch call reads PERCH_URL and PERCH_KEY from the environment; the second call confirms what was read.`,
    },
  ];
}
