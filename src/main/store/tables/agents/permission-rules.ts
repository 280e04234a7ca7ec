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
  /** 1: an allow prefix also covers options it does not name. */
  any_options: 0 | 1;
  /** 1: an allow covers only the command it names, no argument after it. */
  exact: 0 | 1;
  /** The prompt it was added from. */
  from_request_id: string | null;
  /** How many prompts it decided, and when it last did. */
  decided_count: number;
  last_used_at: number | null;
  /** Whose prompts: this agent's, every agent's working in `folder`, or every agent's. */
  scope: 'agent' | 'folder' | 'every';
  folder: string | null;
  /** How long: always, today (until expires_at), or this harness session (session_id). */
  lifetime: 'session' | 'today' | 'always';
  session_id: string | null;
  expires_at: number | null;
}

/** What a new rule needs (the counts start at nothing). */
export type NewPermissionRule = Omit<PermissionRuleRow, 'decided_count' | 'last_used_at'>;

export function insertPermissionRule(db: Db, r: NewPermissionRule): void {
  sql(
    db,
    `INSERT INTO permission_rules (id, agent_id, tool, command_prefix, behavior, created_at, added_by, added_by_name,
                                   any_options, exact, from_request_id, scope, folder, lifetime, session_id, expires_at)
           VALUES (@id, @agent_id, @tool, @command_prefix, @behavior, @created_at, @added_by, @added_by_name,
                   @any_options, @exact, @from_request_id, @scope, @folder, @lifetime, @session_id, @expires_at)`,
  ).run(r);
}

/** A rule decided one more prompt, at `at`. */
export function recordPermissionRuleUse(db: Db, id: string, at: number): void {
  sql(db, 'UPDATE permission_rules SET decided_count = decided_count + 1, last_used_at = ? WHERE id = ?').run(at, id);
}

export function permissionRuleById(db: Db, id: string): PermissionRuleRow | undefined {
  return sql<PermissionRuleRow>(db, 'SELECT * FROM permission_rules WHERE id = ?').get(id);
}

/** The rule of this agent, tool, prefix and behavior, if there is one (adding it again changes nothing). */
export function samePermissionRule(
  db: Db,
  r: Pick<
    PermissionRuleRow,
    'agent_id' | 'tool' | 'command_prefix' | 'behavior' | 'any_options' | 'exact' | 'scope' | 'folder' | 'lifetime' | 'session_id'
  >,
): PermissionRuleRow | undefined {
  return sql<PermissionRuleRow>(
    db,
    `SELECT * FROM permission_rules WHERE agent_id = ? AND tool = ? AND command_prefix IS ? AND behavior = ? AND any_options = ? AND exact = ?
        AND scope = ? AND folder IS ? AND lifetime = ? AND session_id IS ?`,
  ).get(r.agent_id, r.tool, r.command_prefix, r.behavior, r.any_options, r.exact, r.scope, r.folder, r.lifetime, r.session_id);
}

/** Every rule (of one agent), the most recently used first, then the newest. */
export function listPermissionRules(db: Db, agentId?: string): PermissionRuleRow[] {
  const order = 'ORDER BY last_used_at IS NULL, last_used_at DESC, created_at DESC, id';
  return agentId === undefined
    ? sql<PermissionRuleRow>(db, `SELECT * FROM permission_rules ${order}`).all()
    : sql<PermissionRuleRow>(db, `SELECT * FROM permission_rules WHERE agent_id = ? ${order}`).all(agentId);
}

/**
 * The rules that may decide a prompt of one agent for one tool, oldest first: the agent's own, every agent's, and
 * folder rules (the caller checks the folder against the prompt's cwd); not those past their day.
 */
export function permissionRulesFor(db: Db, agentId: string, tool: string, now: number): PermissionRuleRow[] {
  return sql<PermissionRuleRow>(
    db,
    `SELECT * FROM permission_rules WHERE tool = ? AND (agent_id = ? OR scope != 'agent') AND (expires_at IS NULL OR expires_at > ?)
      ORDER BY created_at, id`,
  ).all(tool, agentId, now);
}

export function deletePermissionRule(db: Db, id: string): boolean {
  return sql(db, 'DELETE FROM permission_rules WHERE id = ?').run(id).changes === 1;
}
