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
} as const;

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
}

export type WakeRunStatus = 'running' | 'succeeded' | 'failed' | 'timed_out' | 'stopped' | 'interrupted';

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
  /** Waking events not yet confirmed when the run started (at most the first few are listed). */
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
}

/** What PERCH_WAKE holds (JSON) and the first line of every recipe's prompt. */
export const WAKE_PROMPT = 'You were woken in Perch: read get_updates and act. Confirm what you read (call get_updates again with its ack) before you exit.';

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
  const codex = `codex exec -c "mcp_servers.perch.url=\\"$PERCH_URL\\"" -c "mcp_servers.perch.bearer_token_env_var=\\"PERCH_KEY\\"" "${prompt}"`;
  const gemini = `gemini -p "${prompt}" --yolo`;
  return [
    {
      id: 'claude-code',
      title: 'Claude Code (headless)',
      cli: `perch agent wake ${name} --cwd path/to/project --shell '${claude}'`,
      form: { shell: claude, cwd: 'path/to/project' },
      note: 'PERCH_MCP_CONFIG is a config naming this hub with the run\'s own key; PERCH_CLAUDE_SETTINGS adds the PermissionRequest hook, so the run\'s permission prompts come to your Approvals inbox instead of failing it; --output-format json lets Perch count the run\'s cost.',
    },
    {
      id: 'codex',
      title: 'Codex CLI',
      cli: `perch agent wake ${name} --cwd path/to/project --shell '${codex}'`,
      form: { shell: codex, cwd: 'path/to/project' },
      note: 'Codex reads the run key from PERCH_KEY; nothing secret is on its command line.',
    },
    {
      id: 'gemini',
      title: 'Gemini CLI',
      cli: `perch agent wake ${name} --cwd path/to/project --shell '${gemini}'`,
      form: { shell: gemini, cwd: 'path/to/project' },
      note: 'Once, in path/to/project/.gemini/settings.json: {"mcpServers": {"perch": {"httpUrl": "$PERCH_URL", "headers": {"Authorization": "Bearer $PERCH_KEY"}}}} — Gemini CLI fills in $VARS from the environment, so no key is stored in the file.',
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
