// Web Push subscriptions (one per paired device) and spent action tokens (migration 8).
import { sql, type Db } from '../../db/db';

export interface PushSubscriptionRow {
  device_id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  created_at: number;
  last_ok_at: number | null;
  failures: number;
}

/** A device that gets pushes: its subscription, with the device's name and scope (live devices only). */
export interface PushTargetRow extends PushSubscriptionRow {
  name: string;
  scope: string;
}

export function pushSubscriptionOf(db: Db, deviceId: string): PushSubscriptionRow | undefined {
  return sql<PushSubscriptionRow>(db, 'SELECT * FROM push_subscriptions WHERE device_id = ?').get(deviceId);
}

/** The device's one subscription: a new one replaces the old (the browser made new keys or a new endpoint). */
export function putPushSubscription(
  db: Db,
  row: Pick<PushSubscriptionRow, 'device_id' | 'endpoint' | 'p256dh' | 'auth' | 'created_at'>,
): void {
  sql(
    db,
    `INSERT INTO push_subscriptions (device_id, endpoint, p256dh, auth, created_at, last_ok_at, failures) VALUES (?, ?, ?, ?, ?, NULL, 0)
    ON CONFLICT (device_id) DO UPDATE SET endpoint = excluded.endpoint, p256dh = excluded.p256dh, auth = excluded.auth, created_at = excluded.created_at, last_ok_at = NULL, failures = 0`,
  ).run(row.device_id, row.endpoint, row.p256dh, row.auth, row.created_at);
}

/** Drops the device's subscription; endpoint: only if it is still that one (a push answered 404/410 for it). */
export function deletePushSubscription(db: Db, deviceId: string, endpoint?: string): boolean {
  if (endpoint === undefined) return sql(db, 'DELETE FROM push_subscriptions WHERE device_id = ?').run(deviceId).changes > 0;
  return sql(db, 'DELETE FROM push_subscriptions WHERE device_id = ? AND endpoint = ?').run(deviceId, endpoint).changes > 0;
}

/** Subscriptions of live (not revoked) devices. */
export function pushTargets(db: Db): PushTargetRow[] {
  return sql<PushTargetRow>(
    db,
    `SELECT s.*, d.name AS name, d.scope AS scope FROM push_subscriptions s JOIN devices d ON d.id = s.device_id
    WHERE d.revoked_at IS NULL ORDER BY s.device_id`,
  ).all();
}

/** Whether any push subscription exists (cheap: checked for every event before reading it). */
export function anyPushSubscription(db: Db): boolean {
  return sql(db, 'SELECT 1 FROM push_subscriptions LIMIT 1').get() !== undefined;
}

export function notePushResult(db: Db, deviceId: string, endpoint: string, ok: boolean, at: number): void {
  if (ok)
    sql(db, 'UPDATE push_subscriptions SET last_ok_at = ?, failures = 0 WHERE device_id = ? AND endpoint = ?').run(at, deviceId, endpoint);
  else sql(db, 'UPDATE push_subscriptions SET failures = failures + 1 WHERE device_id = ? AND endpoint = ?').run(deviceId, endpoint);
}

/**
 * How long a spent token's row outlives the token's expiry: a replay within it is told "used already"; after it
 * the token is refused as expired by its own (MAC-protected) expiry, so the row is no longer needed.
 */
export const SPENT_TOKEN_KEEP_MS = 24 * 60 * 60 * 1000;

/**
 * Records a spent action token; false when it was spent before (a replay). Drops the rows of tokens expired more
 * than SPENT_TOKEN_KEEP_MS ago (spends are a person's taps, so the table stays small and this scan cheap).
 */
export function spendActionTokenRow(db: Db, tokenHash: Buffer, usedAt: number, expiresAt: number): boolean {
  const spent =
    sql(db, 'INSERT OR IGNORE INTO used_action_tokens (token_hash, used_at, expires_at) VALUES (?, ?, ?)').run(tokenHash, usedAt, expiresAt)
      .changes === 1;
  if (spent) sql(db, 'DELETE FROM used_action_tokens WHERE expires_at < ?').run(usedAt - SPENT_TOKEN_KEEP_MS);
  return spent;
}

export function actionTokenSpent(db: Db, tokenHash: Buffer): boolean {
  return sql(db, 'SELECT 1 FROM used_action_tokens WHERE token_hash = ?').get(tokenHash) !== undefined;
}
