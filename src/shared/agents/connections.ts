// One agent answers for a session, never two (pure). `perch connect --write` records where it wired each agent: a
// harness's user scope (covers every folder) or a project (covers its folder and everything below). When several
// recorded connections of one harness cover a session's folder, the most specific answers (the deepest project, then
// the user scope); the hooks of any other agent stay silent there. With nothing recorded, every hook answers as before.

export type ConnectionScope = 'user' | 'project';

export interface Connection {
  client: string;
  scope: ConnectionScope;
  dir: string;
  agent_id: string;
}

/** Whether folder `dir` is `cwd` or one of its parents (either separator; a trailing one ignored). */
export function isWithin(cwd: string, dir: string): boolean {
  const d = dir.replace(/[\\/]+$/, '');
  if (d === '') return true;
  return cwd === d || cwd.startsWith(`${d}/`) || cwd.startsWith(`${d}\\`);
}

/** How specific a connection covering cwd is: -1 not covering, 0 the user scope, else the length of the project's folder. */
function specificity(c: Connection, cwd: string | undefined): number {
  if (c.scope === 'user') return 0;
  if (cwd === undefined || !isWithin(cwd, c.dir)) return -1;
  return 1 + c.dir.replace(/[\\/]+$/, '').length;
}

/** The connections that answer for a session in cwd: the most specific ones covering it (none when none covers it). */
export function answeringConnections<C extends Connection>(connections: readonly C[], cwd: string | undefined): C[] {
  let best = -1;
  let out: C[] = [];
  for (const c of connections) {
    const s = specificity(c, cwd);
    if (s < 0 || s < best) continue;
    if (s > best) out = [];
    best = s;
    out.push(c);
  }
  return out;
}

/**
 * The connection that answers instead of agent `agentId` for a session in cwd, or undefined when that agent's hook is
 * the one to answer (it is among the most specific, or nothing recorded covers cwd).
 */
export function answeringInstead<C extends Connection>(connections: readonly C[], agentId: string, cwd: string | undefined): C | undefined {
  const answering = answeringConnections(connections, cwd);
  if (answering.length === 0 || answering.some((c) => c.agent_id === agentId)) return undefined;
  return answering[0];
}
