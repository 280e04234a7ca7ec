// A coding agent's harness session (Claude Code, Codex, GitHub Copilot CLI, Gemini CLI, OpenCode) as its hooks report it to the hub (`perch hook notification |
// stop | session-start | session-end | pre-tool-use`, POST /hook with the agent's key): the agent's live status in the
// Fleet view and a row in the progress feed. Pure: the hub keeps the last status per agent in memory
// (hub/control/harness.ts), the UI shows it (AgentState.tsx, FleetView.tsx).

/** The hook events `perch hook` forwards to the hub (the CLI's subcommand names). */
export const HARNESS_EVENTS = ['pre-tool-use', 'notification', 'stop', 'session-start', 'session-end'] as const;
export type HarnessEvent = (typeof HARNESS_EVENTS)[number];

export const HARNESSES = ['claude-code', 'codex', 'copilot', 'gemini', 'opencode'] as const;
export type HarnessName = (typeof HARNESSES)[number];

/** What the session is doing, from its last hook event. */
export type HarnessState = 'working' | 'waiting' | 'turn_ended' | 'started' | 'ended';

/** The last thing an agent's harness session reported (null fields: the harness did not say). */
export interface HarnessStatus {
  state: HarnessState;
  harness: HarnessName;
  session_id: string | null;
  cwd: string | null;
  /** The harness's own words (a Notification's message), or ''. */
  message: string;
  at: number;
}

/** What POST /hook takes: the event and the few fields of the hook input the hub uses (the CLI picks them). */
export interface HarnessReport {
  event: HarnessEvent;
  harness: HarnessName;
  session_id?: string | null;
  cwd?: string | null;
  /** Notification: message and notification_type; SessionStart: source; SessionEnd: reason. */
  message?: string;
  notification_type?: string;
  source?: string;
  reason?: string;
  /** PreToolUse: the tool's name ("Bash", "mcp__perch__send_message") and what it was called with, in one short line ("npm test"). */
  tool_name?: string;
  tool_detail?: string;
}

/** The most of each report field the hub keeps (characters); `perch hook` sends no more, so a report stays well under the hook door's 16 KB. */
export const REPORT_FIELD_MAX = {
  session_id: 500,
  cwd: 500,
  message: 300,
  notification_type: 100,
  source: 100,
  reason: 100,
  tool_name: 100,
  tool_detail: 200,
} as const;

/** Perch's own tools an agent still needs while paused: get_updates is how it waits for agent.resumed, whoami how it reads why. */
export const PAUSE_EXEMPT_TOOLS = ['get_updates', 'whoami'] as const;

/** The agent's own Perch server as its harnesses name it: perch-NAME (`perch connect`), and this hub's MCP URLs (Cursor names a server by its url). */
export interface OwnServer {
  name: string;
  mcpUrls: readonly string[];
}

/**
 * Whether a tool call is one of the pause-exempt tools of the agent's own Perch server, and of no other server: Claude
 * Code and Codex name an MCP tool mcp__<server>__<tool>, the server as `perch connect` named it (perch-NAME; the
 * harness turns characters other than letters, digits, _ and - into _); GitHub Copilot CLI names it <server>-<tool>
 * (its permission prompt <server>/<tool>); OpenCode names it <server>_<tool>; Cursor's prompts are filed as MCP:<tool>@<server>, the server as Cursor names it (its url; the name too, should Cursor give it). A server called
 * github or evil__exec never is, whatever its tool is called.
 */
export function isPauseExempt(tool: string | null | undefined, own: OwnServer): boolean {
  if (!tool) return false;
  const name = own.name.replace(/[^A-Za-z0-9_-]/g, '_');
  return PAUSE_EXEMPT_TOOLS.some(
    (t) =>
      tool === `mcp__${name}__${t}` ||
      tool === `MCP:${t}@${own.name}` ||
      own.mcpUrls.some((u) => tool === `MCP:${t}@${u}`) ||
      // GitHub Copilot CLI: <server>-<tool> at preToolUse, <server>/<tool> at permissionRequest.
      tool === `${own.name}-${t}` ||
      tool === `${own.name}/${t}` ||
      // OpenCode: <server>_<tool> (its plugin's tool.execute.before).
      tool === `${own.name}_${t}`,
  );
}

/**
 * Whether a Cursor MCP tool call (filed as "MCP:<tool>@<server>", the server as Cursor names it: its url) goes to this
 * hub's own /mcp: the agent's own Perch server, which governs each call itself (as Claude Code's connect-written allow
 * of mcp__perch-NAME). Only the hub's own URLs count, never a server named like it.
 */
export function isOwnCursorTool(tool: string, own: OwnServer): boolean {
  if (!tool.startsWith('MCP:')) return false;
  const at = tool.lastIndexOf('@');
  return at > 4 && own.mcpUrls.includes(tool.slice(at + 1));
}

/** What a tool was called with, as one short line: a command, a path, a pattern or a URL (the harness's tool_input). */
export function toolDetailOf(input: unknown): string {
  if (!input || typeof input !== 'object') return '';
  const o = input as Record<string, unknown>;
  for (const k of ['command', 'file_path', 'path', 'pattern', 'url', 'query', 'description']) {
    const v = o[k];
    if (typeof v === 'string' && v.trim()) return v.replace(/\s+/g, ' ').trim().slice(0, REPORT_FIELD_MAX.tool_detail);
  }
  return '';
}

/** One tool call of the harness as the feed shows it: "Claude Code: Bash — npm test", or "… blocked (paused)". */
export function harnessToolLine(harness: HarnessName, tool: string | null, detail: string | null, blocked: boolean): string {
  const what = `${tool ?? 'a tool call'}${detail ? ` — ${detail}` : ''}`;
  return `${HARNESS_LABEL[harness]}: ${blocked ? `blocked ${what} (the agent is paused)` : what}`;
}

/** What POST /hook answers: for pre-tool-use, whether the agent is paused and the block message for the harness. */
export interface HarnessAnswer {
  ok: true;
  paused: boolean;
  /** When paused: why, and what to do (the harness shows it to the model). */
  message?: string;
}

export const HARNESS_LABEL: Record<HarnessName, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  copilot: 'GitHub Copilot CLI',
  gemini: 'Gemini CLI',
  opencode: 'OpenCode',
};
/** The harnesses whose permission prompts Perch files (a card's "Harness"): those above, and Cursor (its permission hooks only). */
export const PROMPT_HARNESS_LABEL: Record<string, string> = { ...HARNESS_LABEL, cursor: 'Cursor' };

/** "waiting for you", "turn ended", … (the Fleet card's words). */
export const HARNESS_STATE_TEXT: Record<HarnessState, string> = {
  working: 'working',
  waiting: 'waiting for you',
  turn_ended: 'turn ended',
  started: 'session started',
  ended: 'session ended',
};

/** The state an event leaves the session in (a Notification means the session waits for its user). */
export function harnessStateOf(event: HarnessEvent): HarnessState {
  switch (event) {
    case 'pre-tool-use':
      return 'working';
    case 'notification':
      return 'waiting';
    case 'stop':
      return 'turn_ended';
    case 'session-start':
      return 'started';
    case 'session-end':
      return 'ended';
  }
}

/**
 * What a "waiting" notice says (a phone push, the app's OS notification): the harness's words are the agent's, never
 * Perch's or the owner's, so they are quoted and said to be the agent's ("kit says: \"…\""), with no quote of their
 * own to close that early; without words, Perch's own line.
 */
export function waitingNoticeBody(agentName: string, message: string, cwd: string | null): string {
  const words = message.replace(/["\u201c\u201d]/g, "'").trim();
  return `${words ? `${agentName} says: "${words}"` : 'Its session waits for your input.'}${cwd ? ` (${cwd})` : ''}`;
}

/** One line for the progress feed and the Fleet card: "Claude Code: waiting for you — Claude needs your permission". */
export function harnessLine(s: Pick<HarnessStatus, 'state' | 'harness' | 'cwd' | 'message'>): string {
  const head = `${HARNESS_LABEL[s.harness]}: ${HARNESS_STATE_TEXT[s.state]}`;
  const where = s.cwd && (s.state === 'started' || s.state === 'ended') ? ` in ${s.cwd}` : '';
  return `${head}${where}${s.message ? ` — ${s.message}` : ''}`;
}
