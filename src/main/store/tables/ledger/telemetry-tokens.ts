// Telemetry-only tokens, one per agent, stored as hashes (hub/features/ledger/telemetry-tokens.ts).
import { sql, type Db } from '../../db/db';

export interface TelemetryTokenRow {
  user_id: string;
  token_hash: Buffer;
  hint: string;
  created_at: number;
}

/** Sets the agent's token (replacing any earlier one: it stops working). */
export function putTelemetryToken(db: Db, row: TelemetryTokenRow): void {
  sql(
    db,
    `INSERT INTO telemetry_tokens (user_id, token_hash, hint, created_at) VALUES (@user_id, @token_hash, @hint, @created_at)
       ON CONFLICT (user_id) DO UPDATE SET token_hash = excluded.token_hash, hint = excluded.hint, created_at = excluded.created_at`,
  ).run(row);
}

export function telemetryTokenByHash(db: Db, hash: Buffer): TelemetryTokenRow | undefined {
  return sql<TelemetryTokenRow>(db, 'SELECT * FROM telemetry_tokens WHERE token_hash = ?').get(hash);
}

export function telemetryTokenOf(db: Db, userId: string): TelemetryTokenRow | undefined {
  return sql<TelemetryTokenRow>(db, 'SELECT * FROM telemetry_tokens WHERE user_id = ?').get(userId);
}

export function dropTelemetryToken(db: Db, userId: string): boolean {
  return sql(db, 'DELETE FROM telemetry_tokens WHERE user_id = ?').run(userId).changes === 1;
}
