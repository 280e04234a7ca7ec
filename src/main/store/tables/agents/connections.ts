// Where each agent is connected (hub/control/connections.ts): one row per harness config `perch connect --write` wired,
// the user's scope (dir: the home folder) or a project's (dir: the project folder).
import { sql, type Db } from '../../db/db';

export type ConnectionScope = 'user' | 'project';

export interface ConnectionRow {
  client: string;
  scope: ConnectionScope;
  dir: string;
  agent_id: string;
  connected_at: number;
}

/** Records (or hands over to another agent) the connection of a client at a scope and dir. */
export function upsertConnection(db: Db, row: ConnectionRow): void {
  sql(
    db,
    `INSERT INTO connections (client, scope, dir, agent_id, connected_at) VALUES (@client, @scope, @dir, @agent_id, @connected_at)
     ON CONFLICT (client, scope, dir) DO UPDATE SET agent_id = excluded.agent_id, connected_at = excluded.connected_at`,
  ).run(row);
}

/** True when there was such a connection of that agent. */
export function deleteConnection(db: Db, row: Pick<ConnectionRow, 'client' | 'scope' | 'dir' | 'agent_id'>): boolean {
  return (
    sql(db, 'DELETE FROM connections WHERE client = @client AND scope = @scope AND dir = @dir AND agent_id = @agent_id').run(row).changes >
    0
  );
}

/** Every recorded connection of one client (the harness of a hook). */
export function connectionsOfClient(db: Db, client: string): ConnectionRow[] {
  return sql<ConnectionRow>(db, 'SELECT client, scope, dir, agent_id, connected_at FROM connections WHERE client = ?').all(client);
}

/** Every recorded connection of one agent. */
export function connectionsOfAgent(db: Db, agentId: string): ConnectionRow[] {
  return sql<ConnectionRow>(
    db,
    'SELECT client, scope, dir, agent_id, connected_at FROM connections WHERE agent_id = ? ORDER BY client, scope, dir',
  ).all(agentId);
}
