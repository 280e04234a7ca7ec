// What a command line runs, read from its Bash syntax tree: every simple command that would run — in chains,
// pipelines, subshells, { }, if/while/for/case bodies, after !, in command and process substitutions, and in the
// strings of sh|bash|zsh -c, eval and trap parsed again — normalized: leading VAR=val dropped, wrappers unwrapped
// (shell/wrappers.ts), quoting resolved (shell/words.ts). What cannot be told statically (a program or a wrapped
// command that is not literal, a function or alias defined in the line, a shell reading a file or its input, a
// syntax error) is listed in `unresolved`. Pure; never throws (shell/rules.ts decides with the result).
import { kids, namedKids, type ShellParse, type SyntaxNode } from './syntax';
import { findSubstitutions, noteArithmetic, readWord, type Word, type WordFinds } from './words';
import { WRAPPERS, basename, unwrapOnce } from './wrappers';

export interface RunCommand {
  /** The command's words as its program receives them, the program first (after unwrapping). */
  words: Word[];
  /** Each layer's words, outermost first: the wrappers as written (`sudo -u x git push`, …), then `words`. */
  layers: Word[][];
  /** The wrappers unwrapped to reach `words` (their basenames). */
  wrappers: string[];
  /** It had leading VAR=val words (dropped from `words`), or is only assignments or a declaration. */
  assigns: boolean;
  /** It runs from a string parsed again (sh -c, eval, trap). */
  viaString: boolean;
  /** Its output or input is redirected to or from a file (not a descriptor, not /dev/null), or fed from a here-document with expansions. */
  redirected: boolean;
  /** It receives more arguments at run time (xargs, find -exec). */
  moreArgs: boolean;
  /** What it is: a command, only assignments (`a=1`), a declaration (export, local, unset), or a test ([[ … ]]). */
  kind: 'command' | 'assignment' | 'declaration' | 'test';
}

export interface ShellRun {
  commands: RunCommand[];
  /** Why what the line runs cannot be told statically, one reason a line; empty when it can. */
  unresolved: string[];
}

/** A command line longer than this is never read (a prompt that long is cut and never decided by a rule anyway). */
export const MAX_READ_CHARS = 8_000;
/** Strings parsed again (sh -c 'sh -c "…"') at most this deep. */
const MAX_STRING_DEPTH = 4;
const MAX_NODE_DEPTH = 150;

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'rbash', 'yash', 'posh', 'csh', 'tcsh']);
/** Interpreters and the options that hand them code inline (python -c, node -e, perl -e): code no rule can read. */
const INLINE_CODE: Record<string, { short: string; long?: string[] }> = {
  python: { short: 'c' },
  python2: { short: 'c' },
  python3: { short: 'c' },
  node: { short: 'ep', long: ['--eval', '--print'] },
  nodejs: { short: 'ep', long: ['--eval', '--print'] },
  bun: { short: 'e', long: ['--eval', '--print'] },
  perl: { short: 'eE' },
  ruby: { short: 'e' },
  php: { short: 'r' },
  lua: { short: 'e' },
  osascript: { short: 'e' },
};
/** Builtins that take variable names, where an array subscript (`a[$(cmd)]`) is evaluated and may run a command. */
const NAME_TAKERS = new Set([
  'printf',
  'read',
  'declare',
  'typeset',
  'local',
  'export',
  'readonly',
  'unset',
  'let',
  'mapfile',
  'readarray',
  'test',
  '[',
  '[[',
  'wait',
  'getopts',
]);
/** Builtins whose -C option runs a command string (mapfile's callback, compgen's and complete's completion command). */
const CALLBACK_TAKERS = new Set(['mapfile', 'readarray', 'compgen', 'complete']);
/** Git's global options that take the next word as their value. */
const GIT_VALUED = new Set(['-C', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--list-cmds']);
/** Variables that set git's config for the command (its aliases among it). */
const GIT_CONFIG_VARIABLES =
  /^GIT_(CONFIG(_PARAMETERS|_COUNT|_KEY_\d+|_VALUE_\d+|_GLOBAL|_SYSTEM)?|PAGER|EDITOR|SEQUENCE_EDITOR|SSH|SSH_COMMAND|ASKPASS|EXTERNAL_DIFF|EXEC_PATH|PROXY_COMMAND)$/;
/** Variables that make a shell run code of their own (at start, at each prompt or trace line) or change what a name runs. */
const CODE_VARIABLES = /^(BASH_ENV|ENV|BASH_FUNC_.*|BASH_ALIASES|BASH_CMDS|PROMPT_COMMAND|PS[0124]|SHELLOPTS|BASHOPTS|BASH_XTRACEFD|IFS)$/;
/** Bash's reserved words (besides time and coproc, read as wrappers). */
const RESERVED = new Set([
  '!',
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'case',
  'esac',
  'for',
  'select',
  'while',
  'until',
  'do',
  'done',
  'in',
  'function',
  '{',
  '}',
  '[[',
  ']]',
]);
/** Bash's own statements whose children are statements. */
const STATEMENT_GROUPS = new Set([
  'program',
  'list',
  'pipeline',
  'subshell',
  'compound_statement',
  'do_group',
  'negated_command',
  'if_statement',
  'elif_clause',
  'else_clause',
  'while_statement',
  'command_substitution',
  'process_substitution',
]);

interface Walk {
  parse: ShellParse;
  out: RunCommand[];
  unresolved: string[];
  depth: number;
  viaString: boolean;
  redirected: boolean;
}

/** What a command line runs (see the top of this file). Never throws. */
export function readCommands(command: string, parse: ShellParse): ShellRun {
  const run: ShellRun = { commands: [], unresolved: [] };
  if (command.length > MAX_READ_CHARS) {
    run.unresolved.push(`it is longer than ${MAX_READ_CHARS} characters`);
    return run;
  }
  try {
    readString(command, { parse, out: run.commands, unresolved: run.unresolved, depth: 0, viaString: false, redirected: false });
  } catch {
    run.unresolved.push('Perch could not read it');
  }
  run.unresolved = [...new Set(run.unresolved)];
  return run;
}

/** Characters Bash reads as part of a word that tree-sitter-bash reads as blanks (`ls\r/tmp/x` is one word to Bash), and NUL. */
const WORD_CONTROLS = /[\0\v\f\r]/;
/** A line continuation inside a word: Bash removes it and joins the word (`g\<newline>it` is git); tree-sitter-bash splits it. */
const JOINING_CONTINUATION = /[^\s]\\\n(?=[^\s])/;

function readString(command: string, w: Walk): void {
  if (WORD_CONTROLS.test(command)) w.unresolved.push('it has a control character (CR, NUL, VT or FF) that Bash reads as part of a word');
  if (JOINING_CONTINUATION.test(command)) w.unresolved.push('a line continuation inside a word (Bash joins the word around it)');
  w.parse(command, (root) => {
    if (!root) w.unresolved.push('the shell parser is not available');
    else {
      if (root.hasError) w.unresolved.push('it is not valid Bash as Perch reads it');
      statement(root, w, 0);
    }
  });
}

function statement(n: SyntaxNode, w: Walk, depth: number): void {
  if (depth > MAX_NODE_DEPTH) {
    w.unresolved.push('it is nested too deeply to read');
    return;
  }
  if (n.isMissing || n.type === 'ERROR') {
    w.unresolved.push('it is not valid Bash as Perch reads it');
    return;
  }
  const d = depth + 1;
  if (STATEMENT_GROUPS.has(n.type)) {
    // `(( x ))` is arithmetic, not a group of commands.
    if (n.type === 'compound_statement' && n.text.startsWith('((')) return arithmetic(n, w, d);
    for (const c of namedKids(n)) statement(c, w, d);
    return;
  }
  switch (n.type) {
    case 'comment':
      return;
    case 'command':
      return command(n, w, d);
    case 'redirected_statement': {
      const inner = { ...w, redirected: w.redirected };
      for (const c of namedKids(n)) if (isRedirect(c)) inner.redirected = redirect(c, w, d) || inner.redirected;
      for (const c of namedKids(n)) if (!isRedirect(c)) statement(c, inner, d);
      return;
    }
    case 'for_statement':
    case 'case_statement':
    case 'case_item':
      for (const c of namedKids(n)) {
        if (c.type === 'variable_name') continue;
        if (isWordNode(c)) words([c], w, d);
        else statement(c, w, d);
      }
      return;
    case 'c_style_for_statement':
      for (const c of namedKids(n)) {
        if (c.type === 'do_group' || c.type === 'compound_statement') statement(c, w, d);
        else arithmetic(c, w, d);
      }
      return;
    case 'variable_assignment':
    case 'variable_assignments':
      assignment(n, w, d);
      record(w, [], { kind: 'assignment', assigns: true });
      return;
    case 'declaration_command':
    case 'unset_command': {
      const parts = namedKids(n);
      const ws: Word[] = [{ text: n.text.split(/\s/)[0]!, literal: true }];
      for (const c of parts) {
        if (c.type === 'variable_assignment') assignment(c, w, d);
        else ws.push(...words([c], w, d));
      }
      subscripts(ws, w);
      // An integer (-i) or name-reference (-n) variable evaluates what is later assigned or read through it as arithmetic.
      if (/^(declare|typeset|local)$/.test(ws[0]!.text) && ws.slice(1).some((x) => !x.literal || /^-[A-Za-z]*[in]/.test(x.text)))
        w.unresolved.push(`${ws[0]!.text} -i or -n: Bash evaluates the variable's values as arithmetic, which may run a command`);
      record(w, ws, { kind: 'declaration', assigns: true });
      return;
    }
    case 'test_command': {
      const finds: WordFinds = { substitutions: [], unresolved: [] };
      findSubstitutions(n, finds);
      // [[ … -eq … ]] and -v evaluate a variable's value as arithmetic, which may run a subscript's command.
      if (/\$|`/.test(n.text) && (/\s-(eq|ne|lt|le|gt|ge|v)\s/.test(n.text) || n.text.replace(/^\[\[?|\]\]?$/g, '').includes('[')))
        w.unresolved.push('a test on a value that is not literal (Bash may evaluate it as arithmetic)');
      drain(finds, w, d);
      record(w, [{ text: n.text.startsWith('[[') ? '[[' : '[', literal: true }], { kind: 'test' });
      return;
    }
    case 'function_definition':
      w.unresolved.push('it defines a function (which may stand in for any command name)');
      return;
    default:
      w.unresolved.push(`it has syntax Perch does not read (${n.type})`);
  }
}

function isRedirect(n: SyntaxNode): boolean {
  return n.type === 'file_redirect' || n.type === 'heredoc_redirect' || n.type === 'herestring_redirect';
}

function isWordNode(n: SyntaxNode): boolean {
  return [
    'word',
    'number',
    'string',
    'raw_string',
    'ansi_c_string',
    'concatenation',
    'simple_expansion',
    'expansion',
    'command_substitution',
    'process_substitution',
    'arithmetic_expansion',
    'brace_expression',
    'translated_string',
  ].includes(n.type);
}

/** Reads words, running what their substitutions run. */
function words(nodes: SyntaxNode[], w: Walk, depth: number): Word[] {
  const finds: WordFinds = { substitutions: [], unresolved: [] };
  const out = nodes.map((n) => readWord(n, finds));
  drain(finds, w, depth);
  return out;
}

/** The commands of the substitutions found, and the doubts. */
function drain(finds: WordFinds, w: Walk, depth: number): void {
  w.unresolved.push(...finds.unresolved);
  for (const s of finds.substitutions) statement(s, { ...w, redirected: false }, depth + 1);
}

function arithmetic(n: SyntaxNode, w: Walk, depth: number): void {
  const finds: WordFinds = { substitutions: [], unresolved: [] };
  noteArithmetic(n, finds);
  drain(finds, w, depth);
}

function assignment(n: SyntaxNode, w: Walk, depth: number): void {
  const finds: WordFinds = { substitutions: [], unresolved: [] };
  findSubstitutions(n, finds);
  drain(finds, w, depth);
  for (const a of n.type === 'variable_assignments' ? namedKids(n) : [n]) {
    const name = a.text.split(/[=[+]/)[0]!;
    noteVariable(name, w);
    if (/^[^=]*\[/.test(a.text)) w.unresolved.push('an array subscript (Bash evaluates it, which may run a command)');
  }
}

/** A variable set for a command or the shell that changes what runs. */
function noteVariable(name: string, w: Walk): void {
  if (CODE_VARIABLES.test(name)) w.unresolved.push(`it sets ${name} (which makes a shell run code of its own)`);
  if (GIT_CONFIG_VARIABLES.test(name)) w.unresolved.push(`it sets ${name} (git config or a command git runs: it may run any command)`);
}

/**
 * `git -c alias.x=push x`: config set on git's command line (before its subcommand) may define an alias for any git
 * command, or a pager, editor or hook that runs any command.
 */
function gitConfig(args: Word[], w: Walk): void {
  for (let i = 0; i < args.length && args[i]!.text.startsWith('-'); i++) {
    const t = args[i]!.text;
    if (t === '-c' || t === '--config-env' || t.startsWith('--config-env=') || !args[i]!.literal)
      return void w.unresolved.push(`git ${t} sets config for the command (an alias, pager or hook may run any command)`);
    if (GIT_VALUED.has(t)) i++;
  }
}

/** Whether a redirect sends or reads a file (true), or only a descriptor, /dev/null or a literal here-document (false). */
function redirect(n: SyntaxNode, w: Walk, depth: number): boolean {
  const parts = namedKids(n);
  if (n.type === 'heredoc_redirect') {
    let dynamic = false;
    for (const c of parts) {
      if (c.type === 'heredoc_body') {
        const finds: WordFinds = { substitutions: [], unresolved: [] };
        findSubstitutions(c, finds);
        dynamic = namedKids(c).some((k) => k.type !== 'heredoc_content');
        drain(finds, w, depth);
      } else if (c.type !== 'heredoc_start' && c.type !== 'heredoc_end' && c.type !== 'heredoc_content')
        statement(c, { ...w, redirected: false }, depth);
    }
    return dynamic;
  }
  const targets = parts.filter((c) => c.type !== 'file_descriptor');
  const ws = words(targets, w, depth);
  if (n.type === 'herestring_redirect') return ws.some((x) => !x.literal);
  const op = kids(n).find((c) => !c.isNamed)?.text ?? '';
  if (ws.length === 0) return false; // `<&-`
  const t = ws[0]!;
  if (!t.literal) return true;
  if (t.text === '/dev/null') return false;
  if ((op === '>&' || op === '<&') && /^(\d+|-)$/.test(t.text)) return false;
  return true;
}

function command(n: SyntaxNode, w: Walk, depth: number): void {
  let assigns = false;
  let redirected = w.redirected;
  const parts: SyntaxNode[] = [];
  for (const c of namedKids(n)) {
    if (c.type === 'variable_assignment') {
      assigns = true;
      assignment(c, w, depth);
    } else if (isRedirect(c)) redirected = redirect(c, w, depth) || redirected;
    else if (c.type === 'command_name') parts.push(...namedKids(c));
    else parts.push(c);
  }
  // tree-sitter-bash reads a compound after `!` (`! if …; fi`, `! { …; }`) as commands named if, then, {…: a
  // reserved word as a command name means the tree is not what Bash runs.
  if (parts[0]?.type === 'word' && RESERVED.has(parts[0].text))
    w.unresolved.push(`it has the shell keyword ${parts[0].text} where Perch reads a command`);
  const ws = words(parts, w, depth);
  if (ws.length === 0) return record(w, [], { kind: 'assignment', assigns: true, redirected });
  runs(ws, w, depth, { assigns, redirected, wrappers: [], layers: [], moreArgs: false });
}

interface Layering {
  assigns: boolean;
  redirected: boolean;
  wrappers: string[];
  layers: Word[][];
  moreArgs: boolean;
}

/** Records a simple command, unwrapping wrappers and reading the strings that shells, eval and trap run. */
function runs(ws: Word[], w: Walk, depth: number, l: Layering): void {
  const layers = [...l.layers, ws];
  const program = ws[0]!;
  if (!program.literal) {
    w.unresolved.push(`its program is not literal (${program.text})`);
    return record(w, ws, { ...l, layers });
  }
  const name = basename(program.text);
  if (WRAPPERS[name]) {
    record(w, ws, { ...l, layers: [ws] }); // the wrapper itself runs too (a deny of `sudo` matches)
    const u = unwrapOnce(ws);
    if (u.runs === 'unknown') w.unresolved.push(`it runs a command through ${u.why}`);
    if (u.runs !== 'command') return;
    for (const a of u.assigned) noteVariable(a, w);
    return runs(u.words, w, depth, {
      ...l,
      assigns: l.assigns || u.assigned.length > 0,
      wrappers: [...l.wrappers, name],
      layers,
      moreArgs: l.moreArgs || u.moreArgs,
    });
  }
  record(w, ws, { ...l, layers });
  const args = ws.slice(1);
  if (NAME_TAKERS.has(name) && args.some((a) => a.text.includes('[')))
    w.unresolved.push('an array subscript (Bash evaluates it, which may run a command)');
  if (name === 'eval') return again(args, "eval's arguments", w, depth);
  if (name === 'watch') return again(afterOptions(args, ['-n', '--interval', '-q', '--equexit']), "watch's command", w, depth);
  if (name === 'trap') {
    // trap -l / -p print; `trap -- 'code' SIG` and `trap 'code' SIG` set code (`trap - SIG` resets).
    const code = args[0]?.text === '--' ? args[1] : args[0];
    if (code && (code !== args[0] || !code.text.startsWith('-') || !code.literal) && code.text !== '-')
      again([code], "trap's command", w, depth);
    return;
  }
  if (CALLBACK_TAKERS.has(name) && args.some((a) => !a.literal || /^-[A-Za-z]*C/.test(a.text)))
    return void w.unresolved.push(`${name} -C runs a command Perch does not read`);
  if (
    (name === 'hash' && args.some((a) => !a.literal || /^-[A-Za-z]*p/.test(a.text))) ||
    (name === 'enable' && args.some((a) => !a.literal || /^-[A-Za-z]*f/.test(a.text)))
  )
    return void w.unresolved.push(`${name} binds a command name to a file (which may stand in for any command name)`);
  if (name === 'git') gitConfig(args, w);
  if (name === 'source' || name === '.') return void w.unresolved.push(`it runs the file ${args[0]?.text ?? ''} as shell code`.trim());
  if (name === 'alias') return void w.unresolved.push('it defines an alias (which may stand in for any command name)');
  if (SHELLS.has(name)) return shell(name, args, w, depth);
  const inline = INLINE_CODE[name];
  if (
    inline &&
    args.some(
      (a) =>
        inline.long?.includes(a.text.split('=')[0]!) || (/^-[A-Za-z]+$/.test(a.text) && [...inline.short].some((c) => a.text.includes(c))),
    )
  )
    w.unresolved.push(`it hands ${name} code inline`);
  if (name === 'find') findExec(args, w, depth, l);
}

function record(w: Walk, ws: Word[], l: Partial<Layering> & { kind?: RunCommand['kind'] }): void {
  w.out.push({
    words: ws,
    layers: l.layers ?? [ws],
    wrappers: l.wrappers ?? [],
    assigns: l.assigns ?? false,
    viaString: w.viaString,
    redirected: l.redirected ?? w.redirected,
    moreArgs: l.moreArgs ?? false,
    kind: l.kind ?? 'command',
  });
}

/** Parses a string again as the shell will (eval, sh -c, trap): only when it is literal. */
function again(parts: Word[], what: string, w: Walk, depth: number): void {
  if (parts.length === 0) return;
  if (parts.some((p) => !p.literal)) return void w.unresolved.push(`${what} are not literal`);
  if (w.depth >= MAX_STRING_DEPTH) return void w.unresolved.push(`it nests shell strings more than ${MAX_STRING_DEPTH} deep`);
  readString(parts.map((p) => p.text).join(' '), { ...w, depth: w.depth + 1, viaString: true, redirected: false });
  void depth;
}

/** sh -c 'string' is read again; a shell given a file or reading its input runs code Perch cannot see. */
function shell(name: string, args: Word[], w: Walk, depth: number): void {
  let i = 0;
  let hasC = false;
  for (; i < args.length; i++) {
    const t = args[i]!;
    if (!t.literal) return void w.unresolved.push(`${name} has an argument that is not literal`);
    const s = t.text;
    if (s === '--' || s === '-') {
      i++;
      break;
    }
    if (s === '--rcfile' || s === '--init-file') {
      i++;
      continue;
    }
    if (s.startsWith('--')) continue;
    if (/^[-+][A-Za-z]+$/.test(s)) {
      if (s[0] === '-' && s.includes('c')) hasC = true;
      if (/[oO]/.test(s)) i++; // -o pipefail, -O extglob
      continue;
    }
    break;
  }
  if (hasC) {
    const code = args[i];
    if (!code) return;
    return again([code], `${name} -c's command`, w, depth);
  }
  if (i < args.length) w.unresolved.push(`${name} runs the script ${args[i]!.text}, which Perch cannot see`);
  else w.unresolved.push(`${name} runs commands from its input, which Perch cannot see`);
}

/** find -exec / -execdir / -ok / -okdir run a command (up to `;` or `+`) for each file found. */
function findExec(args: Word[], w: Walk, depth: number, l: Layering): void {
  for (let i = 0; i < args.length; i++) {
    if (!/^-(exec|execdir|ok|okdir)$/.test(args[i]!.text)) continue;
    let j = i + 1;
    while (j < args.length && args[j]!.text !== ';' && args[j]!.text !== '+') j++;
    const inner = args.slice(i + 1, j);
    if (inner.length)
      runs(inner, w, depth, {
        ...l,
        wrappers: [...l.wrappers, 'find'],
        layers: [...l.layers, [{ text: 'find', literal: true }, ...args]],
        moreArgs: true,
      });
    i = j;
  }
}

/** The words after the leading options (those in `valued` take the next word). */
function afterOptions(args: Word[], valued: string[]): Word[] {
  let i = 0;
  while (i < args.length && args[i]!.text.startsWith('-') && args[i]!.literal) i += valued.includes(args[i]!.text) ? 2 : 1;
  return args.slice(i);
}

/** Whether a builtin that takes variable names was handed a subscript. */
function subscripts(ws: Word[], w: Walk): void {
  if (ws.slice(1).some((x) => x.text.includes('['))) w.unresolved.push('an array subscript (Bash evaluates it, which may run a command)');
}
