// What `perch connect` and `perch disconnect` share: every file edit is computed before anything is written (a file
// that cannot be edited changes nothing anywhere), shown as a unified diff, and with --write made: a backup of each
// changed file first, then the new text (or the file removed when nothing is left of it). Reads and writes go
// through config-files.ts (a project's files never through a link).
import fs from 'node:fs';
import path from 'node:path';
import { unifiedDiff } from '../../../shared/text/text-diff';
import { visibleText } from '../../../shared/text/text';
import { ConfigFileError } from '../../../shared/agents/config-json';
import { UnsafePath, backupConfig, readConfig, removeConfig, writeConfig, type ConfigScope } from './config-files';
import { UsageError, fail } from '../common';

/** One file edit: the file (relative to the scope's folder), what it gets or loses, and the edit (undefined: no file). */
export interface FileEdit {
  file: string;
  what: string;
  apply: (text: string | undefined, file: string) => string | undefined;
}

/** One file as planned (and, with --write, as done). */
export interface PlannedFile {
  rel: string;
  file: string;
  what: string;
  old: string | undefined;
  next: string | undefined;
  changed: boolean;
  diff: string;
  backup?: string;
  removed?: boolean;
}

/**
 * A message as one line on the terminal: what it quotes of a file or a path (a project's, untrusted) has its control
 * characters shown escaped (a newline as \n, ESC as \u001b), never sent to the terminal, and no bidi or invisible character.
 */
export function oneLine(message: string): string {
  // eslint-disable-next-line no-control-regex
  const escaped = message.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) =>
    c < ' ' ? JSON.stringify(c).slice(1, -1) : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return visibleText(escaped);
}

function stamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-');
}

/**
 * Every edit read and computed; a file that cannot be read or edited ends the command in one line (nothing written).
 * onError may turn an edit's own error into that line first (connect's TOML hint).
 */
export function planEdits(scope: ConfigScope, edits: readonly FileEdit[], onError?: (err: unknown, abs: string) => void): PlannedFile[] {
  const planned: PlannedFile[] = [];
  for (const e of edits) {
    const abs = path.join(scope.base, e.file);
    let old: string | undefined;
    let next: string | undefined;
    try {
      old = readConfig(scope, e.file);
      next = e.apply(old, abs);
    } catch (err) {
      if (err instanceof ConfigFileError || err instanceof UnsafePath) fail(`${oneLine(err.message)}. Nothing was written.`, 1);
      onError?.(err, abs);
      throw err;
    }
    const changed = next !== old;
    const diff = changed
      ? unifiedDiff(old ?? '', next ?? '', next === undefined ? '/dev/null' : abs, old === undefined ? '/dev/null' : abs)
      : '';
    planned.push({ rel: e.file, file: abs, what: e.what, old, next, changed, diff });
  }
  return planned;
}

/**
 * Makes the planned changes: each changed file backed up, then written, or removed when nothing is left of it. A file
 * that cannot be written (refused, or the disk's error) ends the command in one line naming the files already done.
 */
export function writePlan(scope: ConfigScope, planned: PlannedFile[]): void {
  const done: string[] = [];
  for (const p of planned) {
    if (!p.changed) continue;
    try {
      if (p.old !== undefined) p.backup = backupConfig(scope, p.rel, p.old, stamp());
      if (p.next !== undefined) writeConfig(scope, p.rel, p.next);
      else {
        removeConfig(scope, p.rel);
        p.removed = true;
      }
    } catch (err) {
      if (!(err instanceof UnsafePath) && (err as NodeJS.ErrnoException).code === undefined) throw err;
      const why = err instanceof UnsafePath ? err.message : `cannot write ${p.file}: ${(err as Error).message}`;
      fail(oneLine(`${why}. ${done.length ? `Already written: ${done.join(', ')}; ` : ''}${p.file} was not changed.`), 1);
    }
    done.push(p.file);
  }
}

/** What the command reports of one file (--json, and its lines). */
export interface FileReport {
  file: string;
  what: string;
  changed: boolean;
  diff: string;
  backup?: string;
  removed?: boolean;
}

/** The report of the planned files. */
export function filesJson(planned: readonly PlannedFile[]): FileReport[] {
  return planned.map(({ file, what, diff, changed, backup, removed }) => ({
    file,
    what,
    changed,
    diff,
    ...(backup ? { backup } : {}),
    ...(removed ? { removed } : {}),
  }));
}

/** DIR of --project: an existing directory, absolute, as the file system names it (the links in what the owner typed resolved once, here). */
export function projectDir(dir: string): string {
  if (dir.trim() === '') throw new UsageError('--project needs a directory (it was empty: an unset variable?)');
  let abs: string;
  let st: fs.Stats;
  try {
    abs = fs.realpathSync(path.resolve(dir));
    st = fs.statSync(abs);
  } catch {
    throw new UsageError(`--project ${JSON.stringify(dir)}: there is no such directory`);
  }
  if (!st.isDirectory()) throw new UsageError(`--project ${JSON.stringify(dir)} is not a directory`);
  return abs;
}
