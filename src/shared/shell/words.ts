// One word of a command as the program will receive it: every kind of quoting resolved ('…', "…", \, $'…', $"…"),
// and whether it is literal — the same whatever the environment, the files on disk or other commands do. A word with
// an expansion, a substitution, a glob, a brace or a leading ~ is not literal: its text is only what was written.
import { kids, type SyntaxNode } from './syntax';

export interface Word {
  /** The word after quote removal (for a word that is not literal: as far as it can be read). */
  text: string;
  literal: boolean;
}

/** What reading words found besides the words: substitutions that run commands, and what cannot be told statically. */
export interface WordFinds {
  /** Command and process substitutions met (each runs its commands). */
  substitutions: SyntaxNode[];
  /** Why what runs cannot be told statically (one line each). */
  unresolved: string[];
}

/** Node types that run commands where they stand. */
const SUBSTITUTIONS = new Set(['command_substitution', 'process_substitution']);

/** Node types of arithmetic, where Bash evaluates a variable's value as an expression (which may run a subscript's `$(…)`). */
const ARITHMETIC = new Set(['arithmetic_expansion', 'binary_expression', 'unary_expression', 'postfix_expression', 'ternary_expression']);

/** Every substitution under n (not inside another one: that one's own commands are read when it is). */
export function findSubstitutions(n: SyntaxNode, finds: WordFinds, depth = 0): void {
  if (depth > 200) {
    finds.unresolved.push('it is nested too deeply to read');
    return;
  }
  for (const c of kids(n)) {
    if (SUBSTITUTIONS.has(c.type)) finds.substitutions.push(c);
    else findSubstitutions(c, finds, depth + 1);
  }
}

/** Whether an arithmetic part reads a variable (whose value Bash would evaluate as code). */
function readsVariable(n: SyntaxNode, depth = 0): boolean {
  if (depth > 200) return true;
  if (n.type === 'variable_name' || n.type === 'simple_expansion' || n.type === 'expansion' || n.type === 'subscript') return true;
  // In arithmetic a bare name is a variable: tree-sitter reads it as a word.
  if (n.type === 'word' && /^[A-Za-z_]/.test(n.text)) return true;
  return kids(n).some((c) => readsVariable(c, depth + 1));
}

/** Arithmetic (`(( … ))`, a C-style for): its substitutions run, and a variable read in it may run a command. */
export function noteArithmetic(n: SyntaxNode, finds: WordFinds): void {
  findSubstitutions(n, finds);
  if (readsVariable(n)) finds.unresolved.push('arithmetic on a variable (Bash evaluates its value, which may run a command)');
}

/** Unquoted text: a backslash quotes the next character (and a backslash-newline vanishes); globs, braces and a leading ~ expand. */
function unquoted(raw: string): Word {
  let text = '';
  let literal = true;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === '\\') {
      if (i + 1 < raw.length) {
        if (raw[i + 1] !== '\n') text += raw[i + 1];
        i++;
      } else text += ch;
      continue;
    }
    if (ch === '*' || ch === '?' || ch === '[' || ch === '{' || ch === '}' || (ch === '~' && i === 0)) literal = false;
    text += ch;
  }
  return { text, literal };
}

/** The inside of "…": a backslash quotes only $ ` " \ and a newline. */
function doubleQuoted(raw: string): string {
  let text = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === '\\' && i + 1 < raw.length && '$`"\\\n'.includes(raw[i + 1]!)) {
      if (raw[i + 1] !== '\n') text += raw[i + 1];
      i++;
      continue;
    }
    text += ch;
  }
  return text;
}

const C_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** The inside of $'…' as Bash decodes it (\n, \x41, \101, \u0041, \cA, …); undefined when it holds a NUL (Bash cuts the word there). */
export function ansiC(raw: string): string | undefined {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch !== '\\' || i + 1 >= raw.length) {
      out += ch;
      continue;
    }
    const e = raw[++i]!;
    if (C_ESCAPES[e] !== undefined) out += C_ESCAPES[e];
    else if (e >= '0' && e <= '7') {
      const m = /^[0-7]{1,3}/.exec(raw.slice(i))![0];
      out += String.fromCharCode(parseInt(m, 8) & 0xff);
      i += m.length - 1;
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const max = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const m = new RegExp(`^[0-9a-fA-F]{1,${max}}`).exec(raw.slice(i + 1));
      if (!m) out += `\\${e}`;
      else {
        const cp = parseInt(m[0], 16);
        out += cp <= 0x10ffff ? String.fromCodePoint(cp) : '\ufffd';
        i += m[0].length;
      }
    } else if (e === 'c' && i + 1 < raw.length) {
      out += String.fromCharCode(raw[++i]!.toUpperCase().charCodeAt(0) ^ 0x40);
    } else out += `\\${e}`;
  }
  return out.includes('\0') ? undefined : out;
}

/** A word node as the program receives it (see the top of this file); substitutions and doubts go to finds. */
export function readWord(n: SyntaxNode, finds: WordFinds): Word {
  switch (n.type) {
    case 'word':
      return unquoted(n.text);
    case 'number':
      return { text: n.text, literal: true };
    case 'raw_string':
      return { text: n.text.slice(1, -1), literal: true };
    case 'ansi_c_string': {
      const text = ansiC(n.text.slice(2, -1));
      return text === undefined ? { text: n.text, literal: false } : { text, literal: true };
    }
    case 'string': {
      let text = '';
      let literal = true;
      for (const c of kids(n)) {
        if (!c.isNamed) continue; // the quotes, and the $ of $"…"
        if (c.type === 'string_content') text += doubleQuoted(c.text);
        else {
          literal = false;
          text += c.text;
          noteDynamic(c, finds);
        }
      }
      return { text, literal };
    }
    case 'concatenation': {
      let text = '';
      let literal = true;
      for (const c of kids(n)) {
        const w = readWord(c, finds);
        text += w.text;
        literal &&= w.literal;
      }
      return { text, literal };
    }
    default:
      noteDynamic(n, finds);
      return { text: n.text, literal: false };
  }
}

/** An expansion, substitution or other non-literal part: its substitutions run; arithmetic on a variable may too. */
function noteDynamic(n: SyntaxNode, finds: WordFinds): void {
  if (SUBSTITUTIONS.has(n.type)) finds.substitutions.push(n);
  else findSubstitutions(n, finds);
  if (ARITHMETIC.has(n.type) && readsVariable(n))
    finds.unresolved.push('arithmetic on a variable (Bash evaluates its value, which may run a command)');
  if (n.type !== 'expansion') return;
  if (/\[/.test(n.text)) finds.unresolved.push('an array subscript (Bash evaluates it, which may run a command)');
  const parts = kids(n);
  // ${!x}: x may name `a[$(cmd)]`, whose subscript runs (not ${!x*}, ${!x@}: the names that start with x).
  if (parts[1]?.type === '!' && !/[*@]\}$/.test(n.text))
    finds.unresolved.push('an indirect expansion (${!…}: Bash evaluates the name it holds)');
  // ${x@P} expands x as a prompt, running the command substitutions in its value.
  if (/@P\}$/.test(n.text)) finds.unresolved.push('a prompt expansion (${…@P} runs the substitutions in the value)');
  // ${a:offset:length} evaluates offset and length as arithmetic.
  const colon = parts.findIndex((c) => c.type === ':');
  if (colon >= 0 && parts.slice(colon + 1).some((c) => readsVariable(c)))
    finds.unresolved.push('arithmetic on a variable (Bash evaluates its value, which may run a command)');
}
