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
  /** 1 when the owner ever rejected a prompt of that shape, else 0. */
  rejected: number;
  last_at: number;
}

/**
 * Per agent and shape approved at least `min` times since `since` (a rule's decisions do not count): how many, and
 * whether the owner ever rejected one. Bounded by the window, not by every prompt ever filed: the approvals are found
 * through requests_pending (state, expires_at; a request expires after it was created), and each shape's rejections
 * through requests_by_prompt_shape.
 */
export const SHAPE_COUNTS_SQL = `SELECT requester_id, prompt_shape, COUNT(*) AS approved, MAX(created_at) AS last_at,
       EXISTS (SELECT 1 FROM requests x
                WHERE x.requester_id = r.requester_id AND x.prompt_shape = r.prompt_shape AND x.state = 'rejected') AS rejected
  FROM requests r INDEXED BY requests_pending
 WHERE r.state = 'approved' AND r.expires_at >= @since AND r.created_at >= @since
   AND r.prompt_shape IS NOT NULL AND r.decided_by_rule IS NULL AND (@agent IS NULL OR r.requester_id = @agent)
 GROUP BY requester_id, prompt_shape
HAVING COUNT(*) >= @min`;

export function shapeCounts(db: Db, since: number, min: number, requesterId?: string): ShapeCount[] {
  return sql<ShapeCount>(db, SHAPE_COUNTS_SQL).all({ since, min, agent: requesterId ?? null });
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
