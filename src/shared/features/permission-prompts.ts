// Agents' own permission prompts (a harness's PermissionRequest hook, `perch hook permission-request`) as Perch
// files them, and the owner's standing rules for them. Pure, and free of heavy imports: the hook's own bundle
// (dist/hook.js) uses it, and so does the hub (hub/features/requests/permission-rules.ts).

/** The request's title limit (LIMITS.maxTitleChars, not imported to keep the hook's bundle small). */
const MAX_TITLE_CHARS = 200;

/** What `context.source` says for a request filed by the hook. */
export const PERMISSION_PROMPT_SOURCE = 'permission_prompt';

export interface PermissionRuleView {
  rule_id: string;
  agent: { id: string; name: string };
  tool: string;
  /** Only commands that start with this (a word boundary after it); null: every prompt of the tool. */
  command_prefix: string | null;
  behavior: 'allow' | 'deny';
  created_at: number;
  /** Who added it: the laptop, or a paired device (deny rules only); null: added before Perch recorded it. */
  added_by: { via: 'laptop' } | { via: 'device'; device_id: string; name: string } | null;
  /** An allow prefix also covers options it does not name (the owner widened it; shown with a warning). */
  any_options: boolean;
  /** An allow covers only the command it names, no argument after it (an accepted suggestion). */
  exact: boolean;
  /** The prompt it was added from, if it was. */
  from_request_id: string | null;
  /** How many prompts it decided, and when it last did (null: never). */
  decided_count: number;
  last_used_at: number | null;
  /** Whose prompts it decides: this agent's, every agent's working in `folder` (the hook's cwd), or every agent's. */
  scope: RuleScope;
  folder: string | null;
  /** How long it lives: this harness session, today (until expires_at), or always. */
  lifetime: RuleLifetime;
  expires_at: number | null;
}

/** A standing rule Perch suggests from the owner's own approvals (rules.suggestions). */
export interface RuleSuggestionView {
  agent: { id: string; name: string };
  tool: string;
  /** The command prefix the rule would have. */
  shape: string;
  /** Approvals of that shape in the last 14 days (never a rejection). */
  approved: number;
  last_at: number;
}

/** One rule as `perch rules export` writes it and `perch rules import` (rules.import) reads it. */
export interface RuleExportEntry {
  agent: string;
  tool: string;
  command_prefix: string | null;
  behavior: 'allow' | 'deny';
  any_options: boolean;
  exact?: boolean;
  scope: RuleScope;
  folder: string | null;
  lifetime: 'today' | 'always';
}

/** The export file: `{"perch_rules": 1, "rules": [...]}`. */
export const RULES_EXPORT_VERSION = 1;

export const RULE_SCOPES = ['agent', 'folder', 'every'] as const;
export type RuleScope = (typeof RULE_SCOPES)[number];
export const RULE_LIFETIMES = ['session', 'today', 'always'] as const;
export type RuleLifetime = (typeof RULE_LIFETIMES)[number];

/**
 * Whether a request's context says it is a harness's permission prompt (filed by the hook or the channel): its
 * agent is blocked until it is decided.
 */
export function isPermissionPrompt(context: unknown): context is Record<string, unknown> {
  return (
    !!context &&
    typeof context === 'object' &&
    !Array.isArray(context) &&
    (context as Record<string, unknown>).source === PERMISSION_PROMPT_SOURCE
  );
}

function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/** One argv element as the shell would need it written ('…' when it is not plain). */
function shellQuoted(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command of a tool input (Bash: `command`, a string; some harnesses send an argv array, written here as the
 * shell line that runs exactly that argv: ["bash", "-lc", "git push"] is bash -lc 'git push'), if it has one.
 */
export function commandOf(toolInput: unknown): string | undefined {
  if (!toolInput || typeof toolInput !== 'object' || Array.isArray(toolInput)) return undefined;
  const c = (toolInput as Record<string, unknown>).command;
  if (typeof c === 'string') return c;
  if (Array.isArray(c) && c.every((p) => typeof p === 'string')) return c.map(shellQuoted).join(' ');
  return undefined;
}

/** The request's title: what the agent wants to do, in one line ("Allow Bash: npm test?"). */
export function promptTitle(toolName: string, toolInput: unknown): string {
  const command = commandOf(toolInput);
  const file = toolInput && typeof toolInput === 'object' ? (toolInput as Record<string, unknown>).file_path : undefined;
  const what =
    command !== undefined
      ? `${toolName}: ${command.replace(/\s+/g, ' ').trim()}`
      : typeof file === 'string'
        ? `${toolName} ${file}`
        : toolName;
  return clip(`Allow ${what}?`, MAX_TITLE_CHARS);
}

/** How a rule reads ("always allow Bash `npm test` and arguments after it that are not options"). */
export function ruleText(
  rule: Pick<PermissionRuleView, 'tool' | 'command_prefix' | 'behavior'> & { any_options?: boolean; exact?: boolean },
): string {
  if (rule.command_prefix === null) return `always ${rule.behavior} ${rule.tool}`;
  const after = rule.exact
    ? ' exactly'
    : rule.any_options
      ? ' and any arguments and options after it'
      : ' and arguments after it that are not options';
  return `always ${rule.behavior} ${rule.tool} \`${rule.command_prefix}\`${rule.behavior === 'allow' ? after : ' wherever it runs'}`;
}
