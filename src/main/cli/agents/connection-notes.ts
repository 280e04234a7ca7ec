// What `perch connect` says about sessions once a connection is recorded (hub/control/connections.ts): which agent a
// folder's sessions will be, and a warning for each other agent this connection silences there.
import type { Db } from '../../store/db/db';
import { connectionsOf, type NamedConnection } from '../../hub/control/connections';
import { answeringConnections, isWithin } from '../../../shared/agents/connections';
import { PROMPT_HARNESS_LABEL } from '../../../shared/agents/harness';

export interface SessionsNote {
  /** "Claude Code sessions in DIR and below will be rue's" (and the exceptions). */
  line: string;
  warnings: string[];
}

function where(c: NamedConnection): string {
  return c.scope === 'user' ? `user scope, ${c.dir}` : c.dir;
}

/** The note for agent `agent` connected to `client` at `scope` (dir: the home or project folder), as recorded now or planned. */
export function sessionsNote(
  db: Db,
  client: string,
  agent: { id: string; name: string },
  scope: 'user' | 'project',
  dir: string,
): SessionsNote {
  const label = PROMPT_HARNESS_LABEL[client] ?? client;
  const mine: NamedConnection = { client, scope, dir, agent_id: agent.id, agent: agent.name, connected_at: 0 };
  const rows = [...connectionsOf(db, client).filter((c) => !(c.scope === scope && c.dir === dir)), mine];
  const others = rows.filter((c) => c.agent_id !== agent.id);
  const inside = others.filter((c) => c.scope === 'project' && (scope === 'user' || (c.dir !== dir && isWithin(c.dir, dir))));
  const except = inside.length ? `, except in ${inside.map((c) => `${c.dir} (${c.agent}'s)`).join(', ')}` : '';
  const line =
    scope === 'user'
      ? `${label} sessions will be ${agent.name}'s wherever no project connects another agent${except}.`
      : `${label} sessions in ${dir} and below will be ${agent.name}'s${except}.`;
  const warnings: string[] = [];
  if (scope === 'project') {
    // Each other agent whose connection covers this folder less specifically is silenced here.
    for (const c of others) {
      if (c.scope === 'project' && !(c.dir !== dir && isWithin(dir, c.dir))) continue;
      if (answeringConnections([c, mine], dir)[0] !== mine) continue;
      warnings.push(
        `${agent.name} shadows ${c.agent} (${where(c)}) in ${dir}: ${c.agent}'s ${label} hooks stay silent for sessions there, and ${agent.name}'s answer.`,
      );
    }
  }
  return { line, warnings };
}
