// Claims on request messages: conditional updates, so the first claim wins even under concurrent calls.
import { sql, type Db } from '../../db/db';

/** Sets the claim only if nobody holds it; true when this call took it. */
export function takeClaim(db: Db, msgId: string, userId: string, at: number): boolean {
  return (
    sql(db, 'UPDATE messages SET claimed_by = ?, claimed_at = ? WHERE id = ? AND claimed_by IS NULL AND recalled_at IS NULL').run(
      userId,
      at,
      msgId,
    ).changes === 1
  );
}

/** Clears the claim only if holderId still holds it; true when this call cleared it. */
export function dropClaim(db: Db, msgId: string, holderId: string): boolean {
  return (
    sql(db, 'UPDATE messages SET claimed_by = NULL, claimed_at = NULL WHERE id = ? AND claimed_by = ?').run(msgId, holderId).changes === 1
  );
}
