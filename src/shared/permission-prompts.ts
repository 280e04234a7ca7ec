// Agents' own permission prompts (a harness's PermissionRequest hook, `perch hook permission-request`) as Perch
// files them, and the owner's standing rules for them. Pure, and free of heavy imports: the hook's own bundle
// (dist/hook.js) uses it, and so does the hub (hub/features/permission-rules.ts).

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
}

/**
 * Whether a request's context says it is a harness's permission prompt (filed by the hook or the channel): its
 * agent is blocked until it is decided.
 */
export function isPermissionPrompt(context: unknown): context is Record<string, unknown> {
  return !!context && typeof context === 'object' && !Array.isArray(context) && (context as Record<string, unknown>).source === PERMISSION_PROMPT_SOURCE;
}

function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/** The command of a tool input (Bash: `command`, a string; some harnesses send an argv array), if it has one. */
export function commandOf(toolInput: unknown): string | undefined {
  if (!toolInput || typeof toolInput !== 'object' || Array.isArray(toolInput)) return undefined;
  const c = (toolInput as Record<string, unknown>).command;
  if (typeof c === 'string') return c;
  if (Array.isArray(c) && c.every((p) => typeof p === 'string')) return c.join(' ');
  return undefined;
}

/** The request's title: what the agent wants to do, in one line ("Allow Bash: npm test?"). */
export function promptTitle(toolName: string, toolInput: unknown): string {
  const command = commandOf(toolInput);
  const file = toolInput && typeof toolInput === 'object' ? (toolInput as Record<string, unknown>).file_path : undefined;
  const what = command !== undefined ? `${toolName}: ${command.replace(/\s+/g, ' ').trim()}` : typeof file === 'string' ? `${toolName} ${file}` : toolName;
  return clip(`Allow ${what}?`, MAX_TITLE_CHARS);
}

/** Shell syntax that runs more than one command, or another one, after an allowed prefix. */
export const SHELL_CONTROL = /[;&|`$()<>\n\r]/;

/**
 * Whether a rule applies to a prompt of `tool` with `command`. A prefix matches the command itself or the
 * command followed by whitespace (or shell syntax) and more ("npm test" matches "npm test -- --watch", not
 * "npm testify").
 * An allow rule with a prefix never matches a command with shell control syntax (; & | ` $ ( ) < > or a line
 * break): "npm test && rm -rf ~" is not "npm test". A deny rule with a prefix matches anyway.
 */
export function ruleMatches(rule: Pick<PermissionRuleView, 'tool' | 'command_prefix' | 'behavior'>, tool: string, command: string | undefined): boolean {
  if (rule.tool !== tool) return false;
  if (rule.command_prefix === null) return true;
  if (command === undefined) return false;
  const c = command.trim();
  if (!c.startsWith(rule.command_prefix)) return false;
  const rest = c.slice(rule.command_prefix.length);
  if (rest !== '' && !/^[\s;&|`$()<>]/.test(rest)) return false;
  return rule.behavior === 'deny' || !SHELL_CONTROL.test(c);
}

/** The rule that decides a prompt: any matching deny wins, else the first matching allow, else none. */
export function decidingRule<R extends Pick<PermissionRuleView, 'tool' | 'command_prefix' | 'behavior'>>(rules: readonly R[], tool: string, command: string | undefined): R | undefined {
  const matching = rules.filter((r) => ruleMatches(r, tool, command));
  return matching.find((r) => r.behavior === 'deny') ?? matching[0];
}

/** How a rule reads ("always allow Bash `npm test`"). */
export function ruleText(rule: Pick<PermissionRuleView, 'tool' | 'command_prefix' | 'behavior'>): string {
  return `always ${rule.behavior} ${rule.tool}${rule.command_prefix !== null ? ` \`${rule.command_prefix}\`` : ''}`;
}
