// The matcher against the real shell: generated commands (chains, wrappers, quoting, substitutions, -c strings, eval)
// run under `bash` with stub programs first on PATH that record the argv they were run with. Whenever a stub recorded
// a denied command (`git push`), the matcher must have said deny or owner, never allow; and whenever it said allow
// for the prefix rules, every recorded command must be one an allow rule covers.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { loadShellParser, parseShell } from '../../src/main/hub/features/rules/shell-parser';
import { allowCovers, decideByRules, denyMatches, prefixWords } from '../../src/shared/shell/rules';
import type { RunCommand } from '../../src/shared/shell/commands';
import { RULE_SETS } from './shell-rules-table';
import { Rng } from '../support/rng';

before(loadShellParser);

const STUBS = ['git', 'npm', 'cat', 'rm', 'curl'];
const COMMANDS = 1200;
const DEADLINE_MS = 240_000;

function pick<T>(r: Rng, xs: readonly T[]): T {
  return xs[r.int(xs.length)]!;
}

/** A command line built from random spellings, wrappers and containers (stub is the stubs' folder). */
function generate(r: Rng, stub: string): string {
  const program = pick(r, ['git', 'git', 'git', '"git"', "'git'", 'g\\it', 'g\\\nit', "$'git'", `${stub}/git`, '$G', '$(echo git)', 'npm']);
  const sub = pick(r, [
    'push',
    'push',
    'push',
    '"push"',
    "pu''sh",
    "$'push'",
    '$"push"',
    'p\\ush',
    "$'\\x70ush'",
    'pu${E}sh',
    '$(echo push)',
    '`echo push`',
    'status',
    'pull',
    'pus?',
    '-C . push',
    'test',
  ]);
  const wrap = pick(r, [
    '',
    '',
    '',
    'command ',
    'env ',
    'env -u HOME ',
    'nice ',
    'nice -n 5 ',
    'timeout 5 ',
    'nohup ',
    'time ',
    'stdbuf -oL ',
    'FOO=1 ',
    'builtin command ',
    'exec ',
    'env FOO=1 nice ',
    'xargs ',
  ]);
  let cmd = `${wrap}${program} ${sub}`;
  const containers = [
    (x: string) => x,
    (x: string) => `{ ${x}; }`,
    (x: string) => `(${x})`,
    (x: string) => `! ${x}`,
    (x: string) => `if true; then ${x}; fi`,
    (x: string) => `true && ${x}`,
    (x: string) => `false || ${x}`,
    (x: string) => `${x} | cat`,
    (x: string) => `echo | ${x}`,
    (x: string) => `for i in 1; do ${x}; done`,
    (x: string) => `case a in a) ${x};; esac`,
    (x: string) => `while true; do ${x}; break; done`,
    (x: string) => `echo $(${x})`,
    (x: string) => `echo "$(${x})"`,
    (x: string) => `cat <(${x})`,
    (x: string) => `x=$(${x})`,
    (x: string) => `true; ${x}`,
    (x: string) => (x.includes("'") ? x : `bash -c '${x}'`),
    (x: string) => (x.includes("'") ? x : `sh -c '${x}'`),
    (x: string) => (x.includes("'") ? x : `eval '${x}'`),
    (x: string) => `f() { ${x}; }; f`,
    (x: string) => `git status; ${x}`,
    (x: string) => (x.includes("'") ? x : `trap -- '${x}' EXIT`),
  ];
  const depth = 1 + r.int(2);
  for (let i = 0; i < depth; i++) cmd = pick(r, containers)(cmd);
  if (cmd.includes('$G')) cmd = `G=git; ${cmd}`;
  if (wrap === 'xargs ') cmd = `echo | ${cmd}`;
  return cmd;
}

function literal(words: string[]): RunCommand {
  return {
    words: words.map((text) => ({ text, literal: true })),
    layers: [words.map((text) => ({ text, literal: true }))],
    wrappers: [],
    assigns: false,
    viaString: false,
    redirected: false,
    moreArgs: false,
    kind: 'command',
  };
}

test('whenever bash ran a denied command, the matcher said deny or owner; whenever it allowed, bash ran only covered commands', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-shell-diff-'));
  try {
    const stub = path.join(dir, 'bin');
    fs.mkdirSync(stub);
    for (const name of STUBS) {
      fs.writeFileSync(
        path.join(stub, name),
        `#!/bin/sh\n{ printf '%s' "$(basename "$0")"; for a in "$@"; do printf '\\037%s' "$a"; done; printf '\\036'; } >> "$PERCH_STUB_LOG"\n`,
        { mode: 0o755 },
      );
    }
    const env = { PATH: `${stub}:/usr/bin:/bin`, HOME: dir, E: '' };
    const r = new Rng(3737);
    const started = Date.now();
    const counts = { ran: 0, ranDenied: 0, deny: 0, owner: 0, allow: 0, allowPrefix: 0 };
    const bad: string[] = [];
    const pushDeny = prefixWords('git push')!;
    const allows = RULE_SETS.prefix!.filter((x) => x.behavior === 'allow' && x.command_prefix).map((x) => prefixWords(x.command_prefix!)!);
    // Each command records into its own file, read after every command has run: a process substitution's command may
    // still be running when bash exits.
    const runs: { command: string; log: string; all: string; prefix: string }[] = [];
    while (runs.length < COMMANDS && Date.now() - started < DEADLINE_MS) {
      const command = generate(r, stub);
      const log = path.join(dir, `argv-${runs.length}.log`);
      fs.writeFileSync(log, '');
      spawnSync('bash', ['-c', command], { cwd: dir, env: { ...env, PERCH_STUB_LOG: log }, timeout: 5000, stdio: 'ignore' });
      const all = decideByRules(RULE_SETS.all!, 'Bash', command, parseShell).decision;
      const prefix = decideByRules(RULE_SETS.prefix!, 'Bash', command, parseShell).decision;
      runs.push({ command, log, all, prefix });
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
    for (const { command, log, all, prefix } of runs) {
      counts.ran++;
      const ran = fs
        .readFileSync(log, 'utf8')
        .split('\x1e')
        .filter(Boolean)
        .map((rec) => rec.split('\x1f'));
      counts[all as 'allow' | 'deny' | 'owner']++;
      if (ran.some((argv) => denyMatches(pushDeny, literal(argv)) === 'yes')) {
        counts.ranDenied++;
        if (all === 'allow') bad.push(`allow (every command, deny git push) but bash ran git push: ${command}`);
      }
      if (prefix === 'allow') {
        counts.allowPrefix++;
        for (const argv of ran) {
          if (!allows.some((w) => allowCovers(w, false, literal(argv))))
            bad.push(`allow (prefix rules) but bash ran ${argv.join(' ')}: ${command}`);
        }
      }
    }
    console.log(`differential: ${JSON.stringify(counts)}`);
    assert.deepEqual(bad, []);
    assert.ok(counts.ran >= 200, `ran only ${counts.ran} commands in the time given`);
    assert.ok(counts.ranDenied > 50, 'the generator must produce commands that run git push');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
