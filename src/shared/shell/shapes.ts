// A prompt's shape: the rule prefix that covers its command, what suggestions count ("approved npm test 5× this
// week") and what the card offers for "Always …". Only a command Perch reads whole has one: a single literal simple
// command, no wrapper, no -c string, no assignment or redirection to a file, with plain words. The shape is the
// command as it runs (quoting resolved: `git "status"` is git status), never shortened: shortening `rm -rf build` to
// `rm -rf` would offer a rule far wider than what the owner approved.
import type { ShellRun } from './commands';
import { allowCovers, checkPrefix, prefixWords } from './rules';

/** Shapes longer than this are never suggested. */
export const MAX_SHAPE_CHARS = 200;

export function promptShape(run: ShellRun): string | undefined {
  if (run.unresolved.length || run.commands.length !== 1) return undefined;
  const c = run.commands[0]!;
  const shape = c.words.map((w) => w.text).join(' ');
  if (!shape || shape.length > MAX_SHAPE_CHARS || checkPrefix(shape, 'allow')) return undefined;
  const ws = prefixWords(shape);
  return ws && allowCovers(ws, false, c) ? shape : undefined;
}
