// Paired devices, pairings and the device audit list (hub/phone/devices.ts and hub/phone/pairing.ts call these).
// SQL only: no rules here. Tables from migration 8.
import { sql, type Db } from '../../db/db';
import type { DeviceAuditEntry } from '../../../../shared/features/devices';

export interface DeviceRow {
  id: string;
  name: string;
  scope: string;
  token_hash: Buffer;
  token_hint: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

/** A device row plus whether it has a push subscription. */
export type DeviceListRow = DeviceRow & { push: number };

export function insertDevice(db: Db, d: Omit<DeviceRow, 'last_used_at' | 'revoked_at'>): void {
  sql(
    db,
    `INSERT INTO devices (id, name, scope, token_hash, token_hint, created_at)
           VALUES (@id, @name, @scope, @token_hash, @token_hint, @created_at)`,
  ).run(d);
}

export function deviceById(db: Db, id: string): DeviceListRow | undefined {
  return sql<DeviceListRow>(
    db,
    `SELECT d.*, (p.device_id IS NOT NULL) AS push FROM devices d
                                 LEFT JOIN push_subscriptions p ON p.device_id = d.id WHERE d.id = ?`,
  ).get(id);
}

export function deviceByTokenHash(db: Db, hash: Buffer): DeviceRow | undefined {
  return sql<DeviceRow>(db, 'SELECT * FROM devices WHERE token_hash = ?').get(hash);
}

/** Every device, live ones first, newest first. */
export function allDevices(db: Db): DeviceListRow[] {
  return sql<DeviceListRow>(
    db,
    `SELECT d.*, (p.device_id IS NOT NULL) AS push FROM devices d
                                 LEFT JOIN push_subscriptions p ON p.device_id = d.id
                                 ORDER BY (d.revoked_at IS NOT NULL), d.created_at DESC, d.id`,
  ).all();
}

export function countLiveDevices(db: Db): number {
  return sql<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM devices WHERE revoked_at IS NULL').get()!.n;
}

export function revokeDeviceRow(db: Db, id: string, at: number): boolean {
  return sql(db, 'UPDATE devices SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id).changes === 1;
}

export function touchDeviceRow(db: Db, id: string, at: number): void {
  sql(db, 'UPDATE devices SET last_used_at = ? WHERE id = ?').run(at, id);
}

// ---- audit ---------------------------------------------------------------------------------

/** A row of device_audit is the audit entry the owner reads (shared/features/devices.ts), column for column. */
export type DeviceAuditRow = DeviceAuditEntry;

/** How many audit entries (single calls) the hub keeps (oldest dropped first). */
export const AUDIT_KEEP = 10_000;
/** How many tally rows (refusals of callers without a device credential, one per window and kind) it keeps. */
export const AUDIT_TALLY_KEEP = 1_000;

/** One audit entry (count NULL); every 100th drops the entries beyond the newest AUDIT_KEEP (tallies apart). */
export function insertAudit(db: Db, e: Omit<DeviceAuditRow, 'id' | 'count'>): number {
  const id = Number(
    sql(
      db,
      `INSERT INTO device_audit (at, device_id, device_name, action, target, outcome)
                             VALUES (@at, @device_id, @device_name, @action, @target, @outcome)`,
    ).run(e).lastInsertRowid,
  );
  if (id % 100 === 0) {
    sql(
      db,
      `DELETE FROM device_audit WHERE count IS NULL
             AND id <= (SELECT id FROM device_audit WHERE count IS NULL ORDER BY id DESC LIMIT 1 OFFSET ${AUDIT_KEEP})`,
    ).run();
  }
  return id;
}

/**
 * Counts one refusal in the tally row of (window, action, outcome): at is the window's start. A new tally row drops
 * the tallies beyond the newest AUDIT_TALLY_KEEP; entries are never touched.
 */
export function tallyAudit(db: Db, e: { at: number; device_name: string; action: string; outcome: string }): void {
  const bumped = sql(db, 'UPDATE device_audit SET count = count + 1 WHERE count IS NOT NULL AND action = ? AND outcome = ? AND at = ?').run(
    e.action,
    e.outcome,
    e.at,
  ).changes;
  if (bumped) return;
  sql(
    db,
    `INSERT INTO device_audit (at, device_id, device_name, action, target, outcome, count)
           VALUES (@at, NULL, @device_name, @action, NULL, @outcome, 1)`,
  ).run(e);
  sql(
    db,
    `DELETE FROM device_audit WHERE count IS NOT NULL
           AND id <= (SELECT id FROM device_audit WHERE count IS NOT NULL ORDER BY id DESC LIMIT 1 OFFSET ${AUDIT_TALLY_KEEP})`,
  ).run();
}

export function auditRows(db: Db, deviceId: string | undefined, limit: number): DeviceAuditRow[] {
  return deviceId === undefined
    ? sql<DeviceAuditRow>(db, 'SELECT * FROM device_audit ORDER BY id DESC LIMIT ?').all(limit)
    : sql<DeviceAuditRow>(db, 'SELECT * FROM device_audit WHERE device_id = ? ORDER BY id DESC LIMIT ?').all(deviceId, limit);
}

// ---- pairings ------------------------------------------------------------------------------

export interface PairingRow {
  id: string;
  code_hash: Buffer;
  name: string;
  scope: string;
  created_at: number;
  expires_at: number;
  claimed_at: number | null;
  claim_hash: Buffer | null;
  phrase: string | null;
  device_name: string | null;
  confirmed_at: number | null;
  device_id: string | null;
  delivered_at: number | null;
  cancelled_at: number | null;
}

export function insertPairing(db: Db, p: Pick<PairingRow, 'id' | 'code_hash' | 'name' | 'scope' | 'created_at' | 'expires_at'>): void {
  sql(
    db,
    `INSERT INTO device_pairings (id, code_hash, name, scope, created_at, expires_at)
           VALUES (@id, @code_hash, @name, @scope, @created_at, @expires_at)`,
  ).run(p);
}

export function pairingById(db: Db, id: string): PairingRow | undefined {
  return sql<PairingRow>(db, 'SELECT * FROM device_pairings WHERE id = ?').get(id);
}

export function pairingByCodeHash(db: Db, hash: Buffer): PairingRow | undefined {
  return sql<PairingRow>(db, 'SELECT * FROM device_pairings WHERE code_hash = ?').get(hash);
}

export function claimPairingRow(db: Db, id: string, at: number, claimHash: Buffer, phrase: string, deviceName: string): boolean {
  return (
    sql(
      db,
      `UPDATE device_pairings SET claimed_at = ?, claim_hash = ?, phrase = ?, device_name = ?
                  WHERE id = ? AND claimed_at IS NULL AND cancelled_at IS NULL`,
    ).run(at, claimHash, phrase, deviceName, id).changes === 1
  );
}

export function confirmPairingRow(db: Db, id: string, at: number, deviceId: string): boolean {
  return (
    sql(
      db,
      `UPDATE device_pairings SET confirmed_at = ?, device_id = ?
                  WHERE id = ? AND claimed_at IS NOT NULL AND confirmed_at IS NULL AND cancelled_at IS NULL`,
    ).run(at, deviceId, id).changes === 1
  );
}

export function deliverPairingRow(db: Db, id: string, at: number): boolean {
  return (
    sql(db, 'UPDATE device_pairings SET delivered_at = ? WHERE id = ? AND confirmed_at IS NOT NULL AND delivered_at IS NULL').run(at, id)
      .changes === 1
  );
}

export function cancelPairingRow(db: Db, id: string, at: number): boolean {
  return (
    sql(db, 'UPDATE device_pairings SET cancelled_at = ? WHERE id = ? AND confirmed_at IS NULL AND cancelled_at IS NULL').run(at, id)
      .changes === 1
  );
}

/** Drops pairings long past their expiry (they are kept a day, for the laptop's status). */
export function deleteOldPairings(db: Db, before: number): void {
  sql(db, 'DELETE FROM device_pairings WHERE expires_at < ?').run(before);
}

/** Gives a device a new credential (pairing hands it out once, then only its hash stays). */
export function setDeviceToken(db: Db, id: string, hash: Buffer, hint: string): void {
  sql(db, 'UPDATE devices SET token_hash = ?, token_hint = ? WHERE id = ?').run(hash, hint, id);
}
