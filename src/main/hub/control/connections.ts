// Where each agent is connected (shared/agents/connections.ts says which one answers for a session): recorded by
// `perch connect --write`, removed by `perch disconnect`, read by the hook door for every hook of a harness that has
// a recorded connection.
import type { Db } from '../../store/db/db';
import {
  connectionsOfAgent,
  connectionsOfClient,
  deleteConnection,
  upsertConnection,
  type ConnectionRow,
  type ConnectionScope,
} from '../../store/tables/agents/connections';
import { userById } from '../../store/tables/agents/users';
import { answeringConnections, answeringInstead } from '../../../shared/agents/connections';

export type { ConnectionRow, ConnectionScope };

/** A recorded connection with its agent's name. */
export interface NamedConnection extends ConnectionRow {
  agent: string;
}

function named(db: Db, rows: ConnectionRow[]): NamedConnection[] {
  return rows.map((r) => ({ ...r, agent: userById(db, r.agent_id)?.name ?? r.agent_id }));
}

export function recordConnection(db: Db, row: ConnectionRow): void {
  upsertConnection(db, row);
}

export function forgetConnection(db: Db, row: Pick<ConnectionRow, 'client' | 'scope' | 'dir' | 'agent_id'>): boolean {
  return deleteConnection(db, row);
}

export function connectionsOf(db: Db, client: string): NamedConnection[] {
  return named(db, connectionsOfClient(db, client));
}

export function agentConnections(db: Db, agentId: string): NamedConnection[] {
  return named(db, connectionsOfAgent(db, agentId));
}

/** The agents whose hooks answer for a session of `client` in cwd (the most specific recorded connections). */
export function answeringFor(db: Db, client: string, cwd: string | undefined): NamedConnection[] {
  return answeringConnections(connectionsOf(db, client), cwd);
}

/** The other agent that answers for a session of `client` in cwd instead of agentId, or undefined (agentId answers). */
export function otherAgentAnswers(db: Db, client: string, agentId: string, cwd: () => string | undefined): string | undefined {
  // A revoked agent's hooks are refused at the door: its connection silences nobody.
  const rows = connectionsOfClient(db, client).filter((r) => userById(db, r.agent_id)?.revoked_at == null);
  if (rows.length === 0) return undefined;
  const other = answeringInstead(rows, agentId, cwd());
  return other ? (userById(db, other.agent_id)?.name ?? other.agent_id) : undefined;
}
