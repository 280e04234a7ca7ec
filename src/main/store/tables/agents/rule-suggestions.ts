// Suggested standing rules (hub/features/rules/suggestions.ts): the shape of each harness prompt (requests.prompt_shape),
// the rule that decided a prompt (requests.decided_by_rule), and the suggestions the owner dismissed or accepted.
import { sql, type Db } from '../../db/db';

/** A prompt's shape as stored: the tool, a tab, the shape (shared/shell/shapes.ts). */
export function shapeKey(tool: string, shape: string): string {
  return `${tool}\t${shape}`;
}

export function notePromptShape(db: Db, requestId: string, tool: string, shape: string): void {
  if (tool.includes('\t')) return;
  sql(db, 'UPDATE requests SET prompt_shape = ? WHERE id = ?').run(shapeKey(tool, shape), requestId);
}

export function setDecidedByRule(db: Db, requestId: string, ruleId: string): void {
  sql(db, 'UPDATE requests SET decided_by_rule = ? WHERE id = ?').run(ruleId, requestId);
}

export function decidedByRule(db: Db, requestId: string): string | null {
  return (
    sql<{ decided_by_rule: string | null }>(db, 'SELECT decided_by_rule FROM requests WHERE id = ?').get(requestId)?.decided_by_rule ?? null
  );
}

export interface ShapeCount {
  requester_id: string;
  prompt_shape: string;
  approved: number;
  rejected: number;
  last_at: number;
}

/**
 * Per agent and shape: how many of its prompts the owner approved since `since` (a rule's decisions do not count),
 * and how many of that shape the owner ever rejected.
 */
export function shapeCounts(db: Db, since: number, requesterId?: string): ShapeCount[] {
  return sql<ShapeCount>(
    db,
    `SELECT requester_id, prompt_shape,
            SUM(state = 'approved' AND decided_by_rule IS NULL AND created_at >= @since) AS approved,
            SUM(state = 'rejected') AS rejected,
            MAX(created_at) AS last_at
       FROM requests
      WHERE prompt_shape IS NOT NULL AND (@agent IS NULL OR requester_id = @agent)
      GROUP BY requester_id, prompt_shape`,
  ).all({ since, agent: requesterId ?? null });
}

export function suggestionStates(db: Db): { agent_id: string; tool: string; shape: string; state: 'dismissed' | 'accepted' }[] {
  return sql<{ agent_id: string; tool: string; shape: string; state: 'dismissed' | 'accepted' }>(
    db,
    'SELECT agent_id, tool, shape, state FROM rule_suggestions',
  ).all();
}

export function setSuggestionState(
  db: Db,
  s: { agent_id: string; tool: string; shape: string; state: 'dismissed' | 'accepted'; at: number },
): void {
  sql(
    db,
    `INSERT INTO rule_suggestions (agent_id, tool, shape, state, at) VALUES (@agent_id, @tool, @shape, @state, @at)
       ON CONFLICT (agent_id, tool, shape) DO UPDATE SET state = excluded.state, at = excluded.at`,
  ).run(s);
}
