// Standing rules decided on what a command runs (shell/commands.ts), never on its text. docs/design.md "Standing
// rules" says the same in prose:
// - Allow covers a command only if every simple command in it is covered by an allow rule: all its words literal,
//   no leading VAR=val, no wrapper, no -c / eval string, no redirection to a file, nothing Perch cannot read in the
//   line. An allow prefix covers the arguments after it that are not options; options only where the rule names them
//   or the owner widened it to any options. An interpreter (sed, awk, python, sh…) runs its operands as code: a rule
//   for one covers exactly the command it names.
// - Deny matches any simple command anywhere in the tree (through wrappers, -c strings and substitutions), by the
//   program's basename and the rule's other words in order. A command where a denied command could hide (a program,
//   or a word of the denied program, that is not literal) or that Perch cannot read is never decided by an allow of
//   the tool while a deny rule exists for it: it goes to the owner ("Perch cannot tell what this runs").
// Pure; never throws.
import { readCommands, type RunCommand, type ShellRun } from './commands';
import type { ShellParse } from './syntax';
import { WRAPPERS, basename } from './wrappers';

export interface ShellRule {
  tool: string;
  /** The command's first words; null: every prompt of the tool. */
  command_prefix: string | null;
  behavior: 'allow' | 'deny';
  /** An allow prefix also covers options after it that it does not name (the owner widened it, with a warning). */
  any_options?: boolean;
  /** An allow covers only the command it names, no argument after it. */
  exact?: boolean;
}

export type RuleDecision<R> =
  | { decision: 'allow' | 'deny'; rule: R }
  /** No rule decides: the owner does. `unresolved`: why Perch cannot tell what the command runs, when it cannot. */
  | { decision: 'owner'; unresolved?: string };

/** Programs whose operands are code (a sed script, a Python file, a shell string): an allow names their whole command. */
export const INTERPRETERS = new Set([
  'sed',
  'awk',
  'gawk',
  'mawk',
  'nawk',
  'perl',
  'python',
  'python2',
  'python3',
  'node',
  'nodejs',
  'deno',
  'bun',
  'ruby',
  'php',
  'lua',
  'm4',
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'mksh',
  'ash',
  'fish',
  'eval',
  'source',
  '.',
  'trap',
  'watch',
  'osascript',
]);

/** A word a rule may name as it is: no quotes, no shell syntax, nothing to expand. */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** A rule's prefix as words, when it is plain words (rules are added so; see checkPrefix). */
export function prefixWords(prefix: string): string[] | undefined {
  const ws = prefix.trim().split(/[ \t]+/);
  return ws.length > 0 && ws.every((w) => PLAIN_WORD.test(w)) ? ws : undefined;
}

/** Why a prefix cannot be a rule of this behavior ("…"), or undefined when it can. The UI, the CLI and rules.add all check it. */
export function checkPrefix(prefix: string, behavior: 'allow' | 'deny'): string | undefined {
  const ws = prefixWords(prefix);
  if (!ws) return 'a prefix is plain words: letters, digits and _ @ % + = : , . / - (no quotes, spaces inside words, or shell syntax)';
  const program = basename(ws[0]!);
  if (behavior === 'allow' && ws[0]!.startsWith('-')) return 'an allow prefix starts with the program, not an option';
  if (
    behavior === 'allow' &&
    (WRAPPERS[program] || program === 'xargs' || (program === 'find' && ws.some((w) => /^-(exec|execdir|ok|okdir)$/.test(w))))
  )
    return `${program} runs another command, so an allow of it would cover whatever that command is: allow the command itself`;
  return undefined;
}

function isOption(word: string): boolean {
  return word.length > 1 && word.startsWith('-');
}

/** Whether an allow rule's words cover one simple command (see the top of this file). */
export function allowCovers(words: readonly string[], anyOptions: boolean, c: RunCommand, exact = false): boolean {
  if (c.kind !== 'command' || c.wrappers.length || c.layers.length > 1 || c.viaString || c.assigns || c.redirected || c.moreArgs)
    return false;
  if (!c.words.every((w) => w.literal) || c.words.length < words.length) return false;
  if (!words.every((w, i) => c.words[i]!.text === w)) return false;
  const rest = c.words.slice(words.length).map((w) => w.text);
  const program = basename(words[0]!);
  if (exact || INTERPRETERS.has(program)) return rest.length === 0;
  // tar's first argument is its options even without a dash (`tar xIf sh a.tar` runs sh).
  const options = program === 'tar' && words.length === 1 && rest.length > 0 ? [`-${rest[0]}`, ...rest.slice(1)] : rest;
  return anyOptions || !options.some(isOption);
}

function inOrder(want: readonly string[], words: readonly string[]): boolean {
  let i = 0;
  for (const w of words) if (i < want.length && w === want[i]) i++;
  return i === want.length;
}

/**
 * Whether the denied words stand in order among a command's arguments, or inside one (`strace git push`, `ssh host
 * 'git push'`, `su -c 'git push'`): a program Perch does not unwrap, or a string some program runs, may run them.
 */
function inArguments(words: readonly string[], c: RunCommand): boolean {
  const tokens = c.words
    .slice(1)
    .filter((w) => w.literal)
    .flatMap((w) => w.text.split(/[^A-Za-z0-9_@%+:,./-]+/));
  const at = tokens.findIndex((t) => basename(t) === basename(words[0]!));
  return at >= 0 && inOrder(words.slice(1), tokens.slice(at + 1));
}

/**
 * Whether a deny rule's words match one simple command: yes, no, or maybe (a word that could be it is not literal,
 * or its words stand among the arguments of another program).
 */
export function denyMatches(words: readonly string[], c: RunCommand): 'yes' | 'no' | 'maybe' {
  if (c.words.length === 0) return 'no';
  const program = c.words[0]!;
  if (!program.literal) return 'maybe';
  const name = basename(program.text);
  // A program named for the deny's first two words joined by a dash is them: git's own forms of its commands
  // (/usr/lib/git-core/git-push is git push; `git lfs` runs git-lfs), and docker-compose is docker compose.
  const dashed = words.length > 1 && name === `${basename(words[0]!)}-${words[1]}`;
  if (!dashed && name !== basename(words[0]!)) return inArguments(words, c) ? 'maybe' : 'no';
  const args = c.words.slice(1);
  if (
    inOrder(
      words.slice(dashed ? 2 : 1),
      args.filter((w) => w.literal).map((w) => w.text),
    )
  )
    return 'yes';
  return args.some((w) => !w.literal) || c.moreArgs ? 'maybe' : 'no';
}

function shown(c: RunCommand): string {
  return c.words.map((w) => w.text).join(' ');
}

/**
 * The rule that decides a prompt of `tool` (with `command` for a tool that runs one), or the owner. `run` is the
 * command as read (readCommands), when the caller has it already.
 */
export function decideByRules<R extends ShellRule>(
  rules: readonly R[],
  tool: string,
  command: string | undefined,
  parse: ShellParse,
  run?: ShellRun,
): RuleDecision<R> {
  const mine = rules.filter((r) => r.tool === tool);
  const toolDeny = mine.find((r) => r.behavior === 'deny' && r.command_prefix === null);
  if (toolDeny) return { decision: 'deny', rule: toolDeny };
  const toolAllow = mine.find((r) => r.behavior === 'allow' && r.command_prefix === null);
  if (command === undefined) return toolAllow ? { decision: 'allow', rule: toolAllow } : { decision: 'owner' };
  const read = run ?? readCommands(command, parse);
  const denies = mine.filter((r) => r.behavior === 'deny' && r.command_prefix !== null);
  let doubt = read.unresolved[0];
  for (const c of read.commands) {
    for (const d of denies) {
      const ws = prefixWords(d.command_prefix!);
      // A deny prefix that is not plain words (written before prefixes were checked) makes every command a doubt.
      const m = ws ? denyMatches(ws, c) : 'maybe';
      if (m === 'yes') return { decision: 'deny', rule: d };
      if (m === 'maybe')
        doubt ??= `\`${shown(c)}\` could run \`${d.command_prefix}\` (denied): a word of it is not literal, or it hands the denied words to a program`;
    }
  }
  if (read.unresolved.length === 0 && read.commands.length > 0) {
    const allows = mine.filter((r) => r.behavior === 'allow' && r.command_prefix !== null);
    const covering = read.commands.map((c) =>
      allows.find((r) => {
        const ws = prefixWords(r.command_prefix!);
        return !!ws && allowCovers(ws, r.any_options === true, c, r.exact === true);
      }),
    );
    if (covering.every((r) => r !== undefined)) return { decision: 'allow', rule: covering[0]! };
  }
  if (toolAllow && (denies.length === 0 || doubt === undefined)) return { decision: 'allow', rule: toolAllow };
  return read.unresolved.length || (toolAllow && doubt) ? { decision: 'owner', unresolved: doubt } : { decision: 'owner' };
}
