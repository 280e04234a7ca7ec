// How `perch connect` and `perch disconnect` read and write a client's config files. A project folder is untrusted
// input (a repository anyone wrote): under --project no component of a file's path below DIR is followed as a
// symbolic link, nothing with a second hard link is read, and so every file read or written is inside DIR; a file
// that breaks this is refused in one line and nothing is written. At either scope the temporary file of a write and
// the backup are created O_CREAT|O_EXCL|O_NOFOLLOW under a random name (a planted link or a guessed name fails the
// open, never redirects it), then the temporary file is renamed over the file, as git and rsync write theirs. At user
// scope a link is the user's own (a dotfiles manager's): the file it leads to is the one replaced, the link stays.
// What is left as a race: a process of this user swapping a folder for a link between the check and the rename;
// a repository's files are planted before connect runs, which the checks cover.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** A file that may not be read or written at this scope (a link, outside DIR): the message is the one line shown. */
export class UnsafePath extends Error {}

/** Where config files live: the user's home (their own files, links there are theirs) or an untrusted project DIR. */
export interface ConfigScope {
  base: string;
  project: boolean;
}

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = fs.constants;

function lstatOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

function refusal(scope: ConfigScope, abs: string, what: string): UnsafePath {
  return new UnsafePath(
    scope.project
      ? `${abs} ${what}: a project's files are read and written only inside ${scope.base}, never through a link`
      : `${abs} ${what}: perch edits only a regular file there (or makes it when nothing is there)`,
  );
}

/**
 * The absolute path of `rel` at the scope, checked: each folder between the scope's folder and the file is a folder
 * (or missing) and the file a regular file (or missing), so that nothing reads a FIFO or a folder. Under a project
 * nothing on the way is a link (lstat) and the file has one link; at user scope links are the user's own and followed,
 * but one leading nowhere is refused (the folder could not be made through it).
 */
export function checkedPath(scope: ConfigScope, rel: string): string {
  const abs = path.resolve(scope.base, rel);
  const inside = path.relative(scope.base, abs);
  if (inside === '' || inside.startsWith('..') || path.isAbsolute(inside)) throw refusal(scope, abs, 'is not below the folder');
  const parts = inside.split(path.sep);
  let at = scope.base;
  for (let i = 0; i < parts.length; i++) {
    at = path.join(at, parts[i]!);
    const st = lstatOrUndefined(at);
    if (!st) return abs; // the rest is created by the write, as real folders
    if (st.isSymbolicLink() && scope.project) throw refusal(scope, at, 'is a symbolic link');
    const real = st.isSymbolicLink() ? statOrUndefined(at) : st;
    if (!real) throw refusal(scope, at, 'is a symbolic link to nothing');
    const last = i === parts.length - 1;
    if (!last && !real.isDirectory()) throw refusal(scope, at, 'is not a folder');
    if (last) regularFile(scope, at, real);
  }
  return abs;
}

function statOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.statSync(p);
  } catch {
    return undefined;
  }
}

/** Refuses what is not a regular file (a FIFO would block the read, a folder fail it), and a hard link under a project. */
function regularFile(scope: ConfigScope, abs: string, st: fs.Stats): void {
  if (!st.isFile()) throw refusal(scope, abs, 'is not a regular file');
  if (scope.project && st.nlink > 1) throw refusal(scope, abs, 'has another hard link');
}

/**
 * The file's text, or undefined when it is not there; never through a link under a project. The open does not block
 * (O_NONBLOCK: a FIFO put there after the check) and what was opened is checked again on its descriptor.
 */
export function readConfig(scope: ConfigScope, rel: string): string | undefined {
  const abs = checkedPath(scope, rel);
  let fd: number;
  try {
    fd = fs.openSync(abs, O_RDONLY | O_NONBLOCK | (scope.project ? O_NOFOLLOW : 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw refusal(scope, abs, 'is a symbolic link');
    throw new UnsafePath(`cannot read ${abs}: ${(e as Error).message}`);
  }
  try {
    const st = fs.fstatSync(fd);
    regularFile(scope, abs, st);
    if (st.size > MAX_CONFIG_BYTES) throw tooLarge(abs);
    // Read to a bound, not to the end: the file may grow after the fstat.
    const buf = Buffer.alloc(Math.min(st.size, MAX_CONFIG_BYTES) + 1);
    let n = 0;
    while (n < buf.length) {
      const r = fs.readSync(fd, buf, n, buf.length - n, n);
      if (r === 0) break;
      n += r;
    }
    if (n > MAX_CONFIG_BYTES) throw tooLarge(abs);
    if (n === buf.length) throw new UnsafePath(`${abs} grew while perch read it; run again`);
    try {
      // Fatal: a byte that is not UTF-8 would come back as U+FFFD in the rewritten file (the user's line changed).
      return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(buf.subarray(0, n));
    } catch {
      throw new UnsafePath(`${abs} is not UTF-8 text: perch would change its other bytes; save it as UTF-8 first`);
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** The largest config file perch reads (a busy ~/.claude.json is a few MB): beyond it, refused from its size. */
const MAX_CONFIG_BYTES = 128 * 1024 * 1024;

function tooLarge(abs: string): UnsafePath {
  return new UnsafePath(
    `${abs} is larger than ${MAX_CONFIG_BYTES / 1024 / 1024} MiB: no client config is so large; move it aside or edit it by hand`,
  );
}

/** A new file beside `file` named `file<infix><random>`: created O_EXCL|O_NOFOLLOW with `mode`, holding text. */
function writeNew(file: string, infix: string, text: string, mode: number): string {
  for (let attempt = 0; ; attempt++) {
    const name = `${file}${infix}${crypto.randomBytes(6).toString('hex')}`;
    let fd: number;
    try {
      fd = fs.openSync(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
    } catch (e) {
      // A name taken (by chance, or planted): another random one; never the same file twice.
      if ((e as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 8) continue;
      throw e;
    }
    try {
      fs.writeFileSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    return name;
  }
}

/** The mode of the file there now (settings may be 0600), or 0600 for a new one. */
function modeOf(abs: string): number {
  try {
    return fs.statSync(abs).mode & 0o777;
  } catch {
    return 0o600;
  }
}

/** Creates the missing folders of rel's path at the scope, each one checked as it is made (never through a link). */
function makeFolders(scope: ConfigScope, abs: string): void {
  const dir = path.dirname(abs);
  if (!scope.project) {
    fs.mkdirSync(dir, { recursive: true });
    return;
  }
  let at = scope.base;
  for (const part of path.relative(scope.base, dir).split(path.sep).filter(Boolean)) {
    at = path.join(at, part);
    try {
      fs.mkdirSync(at, { mode: 0o755 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const st = fs.lstatSync(at);
    if (st.isSymbolicLink() || !st.isDirectory()) throw refusal(scope, at, 'is not a real folder');
  }
}

/** A copy of what the file held (`old`, read as checked) beside it: FILE.perch-backup-<time>-<random>. */
export function backupConfig(scope: ConfigScope, rel: string, old: string, stamp: string): string {
  const abs = checkedPath(scope, rel);
  return writeNew(abs, `.perch-backup-${stamp}-`, old, modeOf(abs));
}

/** Writes text to the file at the scope through a new random temporary file and a rename, keeping the file's mode. */
export function writeConfig(scope: ConfigScope, rel: string, text: string): void {
  const abs = checkedPath(scope, rel);
  makeFolders(scope, abs);
  // Checked again now the folders exist: a folder swapped for a link meanwhile is refused, not written through.
  checkedPath(scope, rel);
  const target = scope.project ? abs : linkedFile(abs);
  const tmp = writeNew(target, '.perch-', text, modeOf(target));
  try {
    fs.renameSync(tmp, target);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * At user scope, the file a link there leads to (a dotfiles manager's ~/.claude/settings.json -> ~/dotfiles/…): the
 * new text replaces that file, so the user's link stays a link (renaming over the link would have cut it). checkedPath
 * has refused a link to nothing or to what is not a regular file.
 */
function linkedFile(abs: string): string {
  return lstatOrUndefined(abs)?.isSymbolicLink() ? fs.realpathSync(abs) : abs;
}

/** Removes the file at the scope (a file left holding nothing); never through a link under a project. */
export function removeConfig(scope: ConfigScope, rel: string): void {
  fs.rmSync(checkedPath(scope, rel), { force: true });
}
