// A command line as a POSIX shell would split it into words, for standing rules (shared/features/permission-prompts.ts):
// rules match the unquoted words, so `git "push"`, `git pu''sh` and `git  push` are all the words git, push.
// Pure and free of imports: the hook's own bundle (dist/hook.js) and the renderer use it too.
//
// Only what decides matching is modelled: blanks (space, tab) split words; '…' quotes everything; "…" and a
// backslash quote the next character (inside "…" a backslash quotes only $ ` " \ and a newline). Anything the
// shell would expand or run ($, `, globs, ~, redirections, ; & | ( ) and line breaks) is not interpreted: it only
// marks the command as one a rule may never allow.

export interface ShellWords {
  /** The words as the command would receive them, quotes removed (all simple commands together). */
  words: string[];
  /** The words of each simple command, split where an unquoted ; & | ( ) < > or line break ends one. */
  commands: string[][];
  /** Quotes or backslashes were used (so the command is not written as its plain words). */
  quoted: boolean;
  /** Syntax a rule can never allow: expansion, globs, chaining, redirection, control or non-ASCII characters, or an unclosed quote. */
  unsafe: string | undefined;
}

/** Characters that chain, redirect, substitute or expand outside quotes (and what each is called). */
const UNQUOTED_SPECIAL: Record<string, string> = {
  ';': 'a ;',
  '&': 'an &',
  '|': 'a |',
  '`': 'a backtick',
  $: 'a $',
  '(': 'a (',
  ')': 'a )',
  '<': 'a <',
  '>': 'a >',
  '*': 'a glob *',
  '?': 'a glob ?',
  '[': 'a glob [',
  '{': 'a brace {',
  '~': 'a ~',
  '\n': 'a line break',
  '\r': 'a line break',
};

/** Characters that end a simple command (and a word). */
const OPERATORS = ';&|()<>\n\r';

/** Splits a command into its words (see the top of this file). Never throws. */
export function shellWords(command: string): ShellWords {
  const words: string[] = [];
  const commands: string[][] = [[]];
  const push = (w: string) => {
    words.push(w);
    commands[commands.length - 1]!.push(w);
  };
  let quoted = false;
  let unsafe: string | undefined;
  const mark = (why: string) => {
    unsafe ??= why;
  };
  let cur: string | null = null;
  let i = 0;
  const n = command.length;
  while (i < n) {
    const ch = command[i]!;
    const code = ch.charCodeAt(0);
    if (code > 0x7e || (code < 0x20 && ch !== '\t' && ch !== '\n' && ch !== '\r')) mark('a control or non-ASCII character');
    if (ch === ' ' || ch === '\t' || OPERATORS.includes(ch)) {
      if (cur !== null) push(cur);
      cur = null;
      if (ch !== ' ' && ch !== '\t') {
        mark(UNQUOTED_SPECIAL[ch]!);
        if (commands[commands.length - 1]!.length) commands.push([]);
      }
      i++;
      continue;
    }
    if (ch === "'") {
      quoted = true;
      const end = command.indexOf("'", i + 1);
      if (end < 0) {
        mark('an unclosed quote');
        cur = (cur ?? '') + command.slice(i + 1);
        break;
      }
      cur = (cur ?? '') + command.slice(i + 1, end);
      i = end + 1;
      continue;
    }
    if (ch === '"') {
      quoted = true;
      let j = i + 1;
      let s = '';
      for (; j < n && command[j] !== '"'; j++) {
        const c = command[j]!;
        if (c === '$' || c === '`') mark(`${UNQUOTED_SPECIAL[c]} inside double quotes`);
        if (c === '\\' && j + 1 < n && '$`"\\\n'.includes(command[j + 1]!)) {
          s += command[++j];
          continue;
        }
        s += c;
      }
      if (j >= n) mark('an unclosed quote');
      cur = (cur ?? '') + s;
      i = j + 1;
      continue;
    }
    if (ch === '\\') {
      quoted = true;
      if (i + 1 >= n) {
        mark('a trailing backslash');
        i++;
        continue;
      }
      const next = command[i + 1]!;
      if (next === '\n') mark('a line break');
      else cur = (cur ?? '') + next;
      i += 2;
      continue;
    }
    const special = UNQUOTED_SPECIAL[ch];
    // `#` starts a comment only at the start of a word; elsewhere it is an ordinary character.
    if (special || (ch === '#' && cur === null)) mark(special ?? 'a comment');
    cur = (cur ?? '') + ch;
    i++;
  }
  if (cur !== null) push(cur);
  return { words, commands: commands.filter((c) => c.length > 0), quoted, unsafe };
}

/**
 * Options that make a command run other code (a shell, a script, a hook, a helper program), so an allowed prefix
 * followed by one of them is not the command the owner allowed: npm --script-shell, git -c / -C / --exec-path /
 * --upload-pack, find -exec, node -e / --require, rebase -x / --exec…. Checked by option name (`--opt=value` too).
 */
const CODE_RUNNING_OPTIONS = new Set([
  '--script-shell',
  '--shell',
  '--exec',
  '--exec-path',
  '--execdir',
  '--upload-pack',
  '--receive-pack',
  '--config',
  '--config-env',
  '--eval',
  '--print',
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
  '--node-options',
  '--userconfig',
  '--globalconfig',
  '--rcfile',
  '--init-file',
  '--init-command',
  '--hook',
  '--ext-diff',
  '--textconv',
  '--pager',
  '--editor',
  '--template',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--interpreter',
  '--command',
  '--cmd',
  '--run',
  '--preload',
  '--plugin',
  '--unsafe-perm',
  '-c',
  '-C',
  '-e',
  '-x',
  '-exec',
  '-execdir',
  '-ok',
  '-okdir',
]);

/** The first of the words that is an option running other code (see CODE_RUNNING_OPTIONS), if any. */
export function codeRunningOption(words: readonly string[]): string | undefined {
  return words.find((w) => w.startsWith('-') && CODE_RUNNING_OPTIONS.has(w.split('=')[0]!));
}
