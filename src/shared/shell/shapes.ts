// A prompt's shape: the rule prefix that would cover its command, what suggestions count ("approved npm test 5× this
// week"). Only a command Perch reads whole has one: a single literal simple command, no wrapper, no -c string, no
// assignment or redirection to a file. The shape is its program, its subcommand (a plain lower-case word) and the
// options right after them (`git log --oneline`), when the rest holds no option; else the whole command (an
// interpreter's too: its operands are code). The shape's rule always covers the command it came from.
import type { ShellRun } from './commands';
import { INTERPRETERS, allowCovers, checkPrefix, prefixWords } from './rules';
import { basename } from './wrappers';

/** Shapes longer than this are never suggested. */
export const MAX_SHAPE_CHARS = 200;

export function promptShape(run: ShellRun): string | undefined {
  if (run.unresolved.length || run.commands.length !== 1) return undefined;
  const c = run.commands[0]!;
  const words = c.words.map((w) => w.text);
  let k = 1;
  if (!INTERPRETERS.has(basename(words[0] ?? ''))) {
    if (words[1] !== undefined && /^[a-z][a-z0-9:_-]*$/.test(words[1])) k = 2;
    while (k < words.length && words[k]!.startsWith('-')) k++;
    if (words.slice(k).some((w) => w.length > 1 && w.startsWith('-'))) k = words.length;
  } else k = words.length;
  const shape = words.slice(0, k).join(' ');
  if (!shape || shape.length > MAX_SHAPE_CHARS || checkPrefix(shape, 'allow')) return undefined;
  const ws = prefixWords(shape);
  return ws && allowCovers(ws, false, c) ? shape : undefined;
}
