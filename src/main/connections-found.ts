// Connections found in the harnesses' own files. `perch connect --write` records each connection it makes (migration
// 19); one made by an earlier Perch, or by hand from a snippet, is in the files but not recorded, so its hooks answer
// beside the recorded ones and the Connect dialog does not list it. Once per start, after the hub is ready, this reads
// the files `perch connect` writes, at the user's scope (the home folder) and in the project folders the harnesses
// themselves list (Claude Code's ~/.claude.json "projects", Codex's [projects."…"] trust tables), and records each
// agent found there that nothing records yet. It never forgets a recorded connection (another HOME may hold it) and
// never hands a recorded place to another agent: what `perch connect` and `perch disconnect` record wins.
// "Found" is disconnect's own test (shared/agents/harness-unconfig.ts): taking the agent out would change the file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Db } from './store/db/db';
import { listUsers } from './store/tables/agents/users';
import { connectionsOf, recordConnection, type ConnectionRow } from './hub/control/connections';
import { WRITABLE_CLIENTS, type ConnectClient } from '../shared/agents/harness-config';
import { unconfigEditsOf } from '../shared/agents/harnesses/connect-edits';

/** At most this many project folders are read (a harness that lists thousands keeps its oldest unread). */
export const MAX_PROJECT_DIRS = 500;
/** A config file over this size is not read (the bound `perch connect` sets; Claude Code's ~/.claude.json grows to MiBs). */
const MAX_FILE_BYTES = 128 * 1024 * 1024;

/**
 * A regular file's text, or undefined: absent, too big, unreadable, or (followLinks false: a project's file) a link.
 * Nothing is waited on (a FIFO is not a regular file). At the user's scope a link is the user's own (dotfiles).
 */
function readPlain(file: string, followLinks = false): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | (followLinks ? 0 : fs.constants.O_NOFOLLOW));
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > MAX_FILE_BYTES) return undefined;
    return fs.readFileSync(fd, 'utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The folders the harnesses list as projects, as the file system names them (existing directories only). */
export function harnessProjectDirs(home: string): string[] {
  const found = new Set<string>();
  const claude = readPlain(path.join(home, '.claude.json'), true);
  if (claude) {
    try {
      const projects = (JSON.parse(claude) as { projects?: unknown }).projects;
      if (projects && typeof projects === 'object' && !Array.isArray(projects)) for (const d of Object.keys(projects)) found.add(d);
    } catch {
      /* not JSON: nothing listed */
    }
  }
  const codex = readPlain(path.join(home, '.codex', 'config.toml'), true);
  if (codex) for (const m of codex.matchAll(/^\s*\[projects\."((?:[^"\\]|\\.)*)"\]\s*$/gm)) found.add(m[1]!.replace(/\\(.)/g, '$1'));
  const dirs: string[] = [];
  for (const d of found) {
    if (dirs.length >= MAX_PROJECT_DIRS) break;
    if (!path.isAbsolute(d)) continue;
    try {
      const real = fs.realpathSync(d);
      if (real !== home && fs.statSync(real).isDirectory() && !dirs.includes(real)) dirs.push(real);
    } catch {
      /* gone */
    }
  }
  return dirs;
}

/** The files of one pass, each read once (a large ~/.claude.json is asked about for every agent and client). */
type Reads = Map<string, string | undefined>;

/**
 * Does the client's config at this scope hold anything of the agent (what `perch disconnect` would take out)? A file
 * that does not name the agent at all (everything connect writes does: perch-NAME, ?agent=NAME) is not parsed.
 */
export function holdsAgent(client: ConnectClient, agent: string, base: string, project: boolean, reads: Reads = new Map()): boolean {
  return unconfigEditsOf(client, agent, project).some((edit) => {
    const file = path.join(base, edit.file);
    if (!reads.has(file)) reads.set(file, readPlain(file, !project));
    const text = reads.get(file);
    if (text === undefined || !text.includes(agent)) return false;
    try {
      return edit.apply(text, edit.file) !== text;
    } catch {
      return false; // a file the edit cannot read holds nothing it can tell
    }
  });
}

/** Records the connections found in the files and not yet recorded; returns them. */
export function recordFoundConnections(db: Db, home = os.homedir(), now = Date.now()): Array<ConnectionRow & { agent: string }> {
  const agents = listUsers(db, 'agent').filter((a) => a.revoked_at == null);
  if (agents.length === 0) return [];
  const places = [{ dir: home, project: false }, ...harnessProjectDirs(home).map((dir) => ({ dir, project: true }))];
  const added: Array<ConnectionRow & { agent: string }> = [];
  const reads: Reads = new Map();
  for (const client of WRITABLE_CLIENTS) {
    const taken = new Set(connectionsOf(db, client).map((r) => `${r.scope}\0${r.dir}`));
    for (const { dir, project } of places) {
      const scope = project ? ('project' as const) : ('user' as const);
      if (taken.has(`${scope}\0${dir}`)) continue;
      // One agent per place: the first found (two agents in one file is a state connect itself refuses to make).
      const agent = agents.find((a) => holdsAgent(client, a.name, dir, project, reads));
      if (!agent) continue;
      const row: ConnectionRow = { client, scope, dir, agent_id: agent.id, connected_at: now };
      recordConnection(db, row);
      taken.add(`${scope}\0${dir}`);
      added.push({ ...row, agent: agent.name });
    }
  }
  return added;
}
