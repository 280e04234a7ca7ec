// Agents' own permission prompts (a harness's PermissionRequest hook, `perch hook permission-request`) as Perch
// files them, and the owner's standing rules for them. Pure, and free of heavy imports: the hook's own bundle
// (dist/hook.js) uses it, and so does the hub (hub/features/requests/permission-rules.ts).
import { codeRunningOption, shellWords } from '../text/shell-words';

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
}

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
  const what =
    command !== undefined
      ? `${toolName}: ${command.replace(/\s+/g, ' ').trim()}`
      : typeof file === 'string'
        ? `${toolName} ${file}`
        : toolName;
  return clip(`Allow ${what}?`, MAX_TITLE_CHARS);
}

/** Shell syntax that runs more than one command, or another one, after an allowed prefix. */
export const SHELL_CONTROL = /[;&|`$()<>\n\r]/;

/**
 * Why no allow rule with a prefix can ever match this command ("a ;", "quotes or backslashes"), if none can: it is not written as its plain words
 * (quotes, backslashes), or it expands, chains or redirects (shared/text/shell-words.ts), so what runs is not what a
 * prefix reads. Such a prompt always goes to the owner.
 */
export function neverAllowed(command: string): string | undefined {
  const w = shellWords(command);
  if (w.unsafe) return w.unsafe;
  if (w.quoted) return 'quotes or backslashes';
  return undefined;
}

function inOrder(want: readonly string[], words: readonly string[]): boolean {
  let i = 0;
  for (const w of words) if (i < want.length && w === want[i]) i++;
  return i === want.length;
}

/**
 * Whether a rule applies to a prompt of `tool` with `command`. Rules read the command's words as the shell splits
 * them, quotes removed (shared/text/shell-words.ts): `git "push"`, `git pu''sh` and `git  push` are all git push.
 * - An allow rule's prefix covers the commands whose first words are its words, with ANY arguments after them
 *   ("npm test" matches "npm test -- --watch", not "npm testify") — except a command with quotes, backslashes,
 *   expansion, globs, chaining or redirection (; & | ` $ ( ) < > * ? [ { ~ or a line break), or with an option
 *   after the prefix that runs other code (npm --script-shell, git -c / -C, --upload-pack, --exec…): those are
 *   never allowed by a prefix.
 * - A deny rule's prefix matches a command (or any simple command of it: `cd x && git push`) whose first word is its
 *   first word and that has its other words in the same order anywhere after it, so options between them do not
 *   hide what is denied (`git -C . push` is git push).
 */
export function ruleMatches(
  rule: Pick<PermissionRuleView, 'tool' | 'command_prefix' | 'behavior'>,
  tool: string,
  command: string | undefined,
): boolean {
  if (rule.tool !== tool) return false;
  if (rule.command_prefix === null) return true;
  if (command === undefined) return false;
  const want = shellWords(rule.command_prefix).words;
  if (!want.length) return false;
  const split = shellWords(command);
  if (rule.behavior === 'deny') return split.commands.some((c) => c[0] === want[0] && inOrder(want.slice(1), c.slice(1)));
  const got = split.words;
  if (neverAllowed(command) !== undefined) return false;
  if (!want.every((w, i) => got[i] === w)) return false;
  return codeRunningOption(got.slice(want.length)) === undefined;
}

/** The rule that decides a prompt: any matching deny wins, else the first matching allow, else none. */
export function decidingRule<R extends Pick<PermissionRuleView, 'tool' | 'command_prefix' | 'behavior'>>(
  rules: readonly R[],
  tool: string,
  command: string | undefined,
): R | undefined {
  const matching = rules.filter((r) => ruleMatches(r, tool, command));
  return matching.find((r) => r.behavior === 'deny') ?? matching[0];
}

/** How a rule reads ("always allow Bash `npm test` and any arguments after it"): an allow prefix says what it covers. */
export function ruleText(rule: Pick<PermissionRuleView, 'tool' | 'command_prefix' | 'behavior'>): string {
  if (rule.command_prefix === null) return `always ${rule.behavior} ${rule.tool}`;
  return `always ${rule.behavior} ${rule.tool} \`${rule.command_prefix}\`${rule.behavior === 'allow' ? ' and any arguments after it' : ''}`;
}
