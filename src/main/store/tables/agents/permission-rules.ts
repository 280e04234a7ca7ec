// Standing rules for agents' own permission prompts (`perch hook permission-request`): "always allow / always
// deny this tool (or this command prefix) for this agent". hub/features/requests/permission-rules.ts decides with them.
import { sql, type Db } from '../../db/db';

export interface PermissionRuleRow {
  id: string;
  agent_id: string;
  tool: string;
  /** Only commands starting with this (tools with a command input, such as Bash); null: any input of the tool. */
  command_prefix: string | null;
  behavior: 'allow' | 'deny';
  created_at: number;
  /** 'laptop', or the id of the paired device that added it; null: added before Perch recorded it. */
  added_by: string | null;
  /** The device's name when it added the rule (null for the laptop). */
  added_by_name: string | null;
}

export function insertPermissionRule(db: Db, r: PermissionRuleRow): void {
  sql(
    db,
    `INSERT INTO permission_rules (id, agent_id, tool, command_prefix, behavior, created_at, added_by, added_by_name)
           VALUES (@id, @agent_id, @tool, @command_prefix, @behavior, @created_at, @added_by, @added_by_name)`,
  ).run(r);
}

export function permissionRuleById(db: Db, id: string): PermissionRuleRow | undefined {
  return sql<PermissionRuleRow>(db, 'SELECT * FROM permission_rules WHERE id = ?').get(id);
}

/** The rule of this agent, tool, prefix and behavior, if there is one (adding it again changes nothing). */
export function samePermissionRule(
  db: Db,
  r: Pick<PermissionRuleRow, 'agent_id' | 'tool' | 'command_prefix' | 'behavior'>,
): PermissionRuleRow | undefined {
  return sql<PermissionRuleRow>(
    db,
    `SELECT * FROM permission_rules WHERE agent_id = ? AND tool = ? AND command_prefix IS ? AND behavior = ?`,
  ).get(r.agent_id, r.tool, r.command_prefix, r.behavior);
}

/** Every rule (of one agent), oldest first. */
export function listPermissionRules(db: Db, agentId?: string): PermissionRuleRow[] {
  return agentId === undefined
    ? sql<PermissionRuleRow>(db, 'SELECT * FROM permission_rules ORDER BY created_at, id').all()
    : sql<PermissionRuleRow>(db, 'SELECT * FROM permission_rules WHERE agent_id = ? ORDER BY created_at, id').all(agentId);
}

/** The rules of one agent for one tool (the candidates for a prompt). */
export function permissionRulesFor(db: Db, agentId: string, tool: string): PermissionRuleRow[] {
  return sql<PermissionRuleRow>(db, 'SELECT * FROM permission_rules WHERE agent_id = ? AND tool = ? ORDER BY created_at, id').all(
    agentId,
    tool,
  );
}

export function deletePermissionRule(db: Db, id: string): boolean {
  return sql(db, 'DELETE FROM permission_rules WHERE id = ?').run(id).changes === 1;
}
