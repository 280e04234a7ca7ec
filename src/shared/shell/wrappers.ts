// Programs that run another command given in their arguments (`sudo git push`, `timeout 5 git push`, `xargs git`):
// each is unwrapped to the command it runs, reading its own options as its manual gives them. An option not listed
// here, or a word that is not literal where an option or the command could be, leaves the command unresolved: a
// deny rule must never miss what a wrapper runs, and an allow rule never covers a wrapped command at all.
import type { Word } from './words';

interface WrapperSpec {
  /** One-letter options without a value. */
  flags?: string;
  /** One-letter options that take a value (the rest of the cluster, or the next word). */
  valued?: string;
  /** One-letter options after which the wrapper runs no command (`command -v git`). */
  noCommand?: string;
  /** One-letter options that hand the command to a shell or a string splitter (`sudo -s`, `env -S`): not read. */
  opaque?: string;
  /** Long options: true takes a value (`--signal=KILL` or `--signal KILL`), false does not, 'opaque' as above, 'none' as noCommand. */
  long?: Record<string, boolean | 'opaque' | 'none'>;
  /** NAME=value words may come before the command (env, sudo). */
  assigns?: boolean;
  /** Words before the command that are not options (timeout's duration, chroot's folder, flock's file). */
  positional?: number;
  /** `-5` is an option (nice's old form). */
  numericOption?: boolean;
  /** The command gets more arguments at run time (xargs from its input). */
  moreArgs?: boolean;
}

export const WRAPPERS: Record<string, WrapperSpec> = {
  command: { flags: 'p', noCommand: 'vV' },
  builtin: {},
  exec: { flags: 'cl', valued: 'a' },
  coproc: {},
  nohup: {},
  env: {
    flags: 'i0v',
    valued: 'uC',
    opaque: 'S',
    assigns: true,
    long: {
      'ignore-environment': false,
      null: false,
      unset: true,
      chdir: true,
      'split-string': 'opaque',
      debug: false,
      'default-signal': false,
      'ignore-signal': false,
      'block-signal': false,
      'list-signal-handling': false,
    },
  },
  sudo: {
    flags: 'AbEHknPSB',
    valued: 'CDghpRrTtUu',
    opaque: 'si',
    noCommand: 'eKlVv',
    assigns: true,
    long: {
      askpass: false,
      background: false,
      bell: false,
      'preserve-env': false,
      'set-home': false,
      'non-interactive': false,
      'preserve-groups': false,
      'reset-timestamp': false,
      stdin: false,
      'close-from': true,
      chdir: true,
      group: true,
      host: true,
      prompt: true,
      chroot: true,
      role: true,
      type: true,
      'command-timeout': true,
      'other-user': true,
      user: true,
      shell: 'opaque',
      login: 'opaque',
      edit: 'none',
      list: 'none',
      validate: 'none',
      version: 'none',
      'remove-timestamp': 'none',
    },
  },
  doas: { flags: 'nL', valued: 'uC', opaque: 's' },
  time: {
    flags: 'pvaq',
    valued: 'fo',
    long: { format: true, output: true, append: false, verbose: false, portability: false, quiet: false },
  },
  nice: { valued: 'n', numericOption: true, long: { adjustment: true } },
  ionice: { flags: 't', valued: 'cn', noCommand: 'pPu', long: { class: true, classdata: true, ignore: false } },
  timeout: {
    flags: 'v',
    valued: 'sk',
    positional: 1,
    long: { signal: true, 'kill-after': true, 'preserve-status': false, foreground: false, verbose: false },
  },
  stdbuf: { valued: 'ioe', long: { input: true, output: true, error: true } },
  xargs: {
    flags: '0prtx',
    valued: 'adEILnPs',
    moreArgs: true,
    long: {
      null: false,
      'arg-file': true,
      delimiter: true,
      'max-lines': false,
      'max-args': true,
      'max-procs': true,
      'max-chars': true,
      interactive: false,
      'no-run-if-empty': false,
      'open-tty': false,
      verbose: false,
      exit: false,
      replace: false,
      eof: false,
      'process-slot-var': true,
      'show-limits': false,
    },
  },
  setsid: { flags: 'cfw' },
  chroot: { positional: 1, long: { userspec: true, groups: true, 'skip-chdir': false } },
  flock: {
    flags: 'sexunoFE',
    valued: 'wE',
    opaque: 'c',
    positional: 1,
    long: {
      shared: false,
      exclusive: false,
      unlock: false,
      nonblock: false,
      close: false,
      'no-fork': false,
      timeout: true,
      command: 'opaque',
    },
  },
  taskset: { flags: 'a', noCommand: 'p', positional: 1, long: { 'all-tasks': false, pid: 'none', 'cpu-list': false } },
  unbuffer: {},
  caffeinate: { flags: 'dimsu', valued: 'tw' },
  busybox: {},
};

/** A program word's basename (`/usr/bin/git` is git): what rules compare. */
export function basename(program: string): string {
  const i = program.lastIndexOf('/');
  return i < 0 ? program : program.slice(i + 1);
}

export type Unwrapped =
  { runs: 'command'; words: Word[]; moreArgs: boolean; assigned: string[] } | { runs: 'nothing' } | { runs: 'unknown'; why: string };

/** The command a wrapper (words[0], a key of WRAPPERS by basename) runs, read from its arguments. */
export function unwrapOnce(words: readonly Word[]): Unwrapped {
  const name = basename(words[0]!.text);
  const spec = WRAPPERS[name]!;
  const assigned: string[] = [];
  let positional = spec.positional ?? 0;
  let i = 1;
  const unknown = (what: string): Unwrapped => ({ runs: 'unknown', why: `${name} ${what}` });
  while (i < words.length) {
    const w = words[i]!;
    if (!w.literal) return unknown('has a word that is not literal where its options or its command are');
    const t = w.text;
    if (t === '--') {
      i++;
      break;
    }
    if (t.startsWith('--') && spec.long) {
      const [opt, value] = [t.slice(2).split('=')[0]!, t.includes('=')];
      const kind = spec.long[opt];
      if (kind === undefined) return unknown(`has an option Perch does not know (${t})`);
      if (kind === 'opaque') return unknown(`hands its command to a shell or splits a string (${t})`);
      if (kind === 'none') return { runs: 'nothing' };
      i += kind && !value ? 2 : 1;
      continue;
    }
    if (t.startsWith('-') && t.length > 1) {
      if (spec.numericOption && /^-\d+$/.test(t)) {
        i++;
        continue;
      }
      let skipNext = false;
      for (let k = 1; k < t.length; k++) {
        const c = t[k]!;
        if (spec.opaque?.includes(c)) return unknown(`hands its command to a shell or splits a string (-${c})`);
        if (spec.noCommand?.includes(c)) return { runs: 'nothing' };
        if (spec.valued?.includes(c)) {
          skipNext = k === t.length - 1;
          break;
        }
        if (!spec.flags?.includes(c)) return unknown(`has an option Perch does not know (-${c})`);
      }
      i += skipNext ? 2 : 1;
      continue;
    }
    if (spec.assigns && /^[A-Za-z_][A-Za-z0-9_]*=/.test(t)) {
      assigned.push(t.slice(0, t.indexOf('=')));
      i++;
      continue;
    }
    if (positional > 0) {
      positional--;
      i++;
      continue;
    }
    break;
  }
  while (positional > 0 && i < words.length) {
    positional--;
    i++;
  }
  if (i >= words.length)
    return name === 'xargs' ? { runs: 'command', words: [{ text: 'echo', literal: true }], moreArgs: true, assigned } : { runs: 'nothing' };
  const rest = words.slice(i);
  if (!rest[0]!.literal) return unknown('runs a command that is not literal');
  return { runs: 'command', words: rest, moreArgs: spec.moreArgs ?? false, assigned };
}
