// The floor of a conversation: conditional updates and the sweep of expired floors.
import { sql, type Db } from '../../db/db';

/** Conversations whose floor has expired but is still recorded (to clear lazily). */
export function expiredFloorConversations(db: Db, now: number): string[] {
  return sql<{ id: string }>(db, 'SELECT id FROM conversations WHERE floor_holder IS NOT NULL AND floor_until <= ?')
    .all(now)
    .map((r) => r.id);
}

/** Clears the floor only if holderId still holds it; true when this call cleared it. */
export function clearFloorOf(db: Db, convId: string, holderId: string): boolean {
  return (
    sql(db, 'UPDATE conversations SET floor_holder = NULL, floor_until = NULL WHERE id = ? AND floor_holder = ?').run(convId, holderId)
      .changes === 1
  );
}

/** Actor of the latest event of a type in a conversation (e.g. who granted the current floor). */
export function lastActorOf(db: Db, convId: string, type: string): string | null {
  return (
    sql<{ actor_id: string | null }>(db, 'SELECT actor_id FROM events WHERE conv_id = ? AND type = ? ORDER BY seq DESC LIMIT 1').get(
      convId,
      type,
    )?.actor_id ?? null
  );
}

/** The soonest time a recorded floor runs out, if any. */
export function nextFloorExpiry(db: Db): number | null {
  return sql<{ t: number | null }>(db, 'SELECT min(floor_until) AS t FROM conversations WHERE floor_holder IS NOT NULL').get()?.t ?? null;
}
