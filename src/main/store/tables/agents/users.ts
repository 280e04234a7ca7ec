import { sql, type Db } from '../../db/db';
import type { UserKind } from '../../../../shared/types';

export interface UserRow {
  id: string;
  kind: UserKind;
  name: string;
  description: string;
  created_at: number;
  key_hash: Buffer | null;
  key_hint: string | null;
  revoked_at: number | null;
  config: string;
  config_version: number;
  inbox_id: string | null;
  /** Where the agent's own key (and its wake runs' keys) may connect from: a JSON array (hub/identity/places.ts); default ["local"]. */
  allowed_from?: string;
}

export function insertUser(db: Db, u: Omit<UserRow, 'revoked_at'> & { revoked_at?: number | null }): void {
  sql(
    db,
    `INSERT INTO users (id, kind, name, description, created_at, key_hash, key_hint, revoked_at, config, config_version, inbox_id)
           VALUES (@id, @kind, @name, @description, @created_at, @key_hash, @key_hint, @revoked_at, @config, @config_version, @inbox_id)`,
  ).run({ revoked_at: null, ...u });
}

export function userById(db: Db, id: string): UserRow | undefined {
  return sql<UserRow>(db, 'SELECT * FROM users WHERE id = ?').get(id);
}

export function userByName(db: Db, name: string): UserRow | undefined {
  return sql<UserRow>(db, 'SELECT * FROM users WHERE name = ?').get(name);
}

export function userByKeyHash(db: Db, hash: Buffer): UserRow | undefined {
  return sql<UserRow>(db, 'SELECT * FROM users WHERE key_hash = ?').get(hash);
}

export function listUsers(db: Db, kind?: UserKind): UserRow[] {
  return kind
    ? sql<UserRow>(db, 'SELECT * FROM users WHERE kind = ? ORDER BY name').all(kind)
    : sql<UserRow>(db, 'SELECT * FROM users ORDER BY kind, name').all();
}

export function ownerRow(db: Db): UserRow | undefined {
  return sql<UserRow>(db, "SELECT * FROM users WHERE kind = 'human' ORDER BY created_at LIMIT 1").get();
}

export function setUserKey(db: Db, id: string, hash: Buffer, hint: string): void {
  const r = sql(db, 'UPDATE users SET key_hash = ?, key_hint = ?, revoked_at = NULL WHERE id = ?').run(hash, hint, id);
  if (r.changes !== 1) throw new Error(`setUserKey: no user ${id}`);
}

export function revokeUser(db: Db, id: string, at: number): void {
  const r = sql(db, 'UPDATE users SET key_hash = NULL, revoked_at = ? WHERE id = ?').run(at, id);
  if (r.changes !== 1) throw new Error(`revokeUser: no user ${id}`);
}

export function setUserConfig(db: Db, id: string, config: string, description: string): number {
  const row = sql<{ config_version: number }>(
    db,
    'UPDATE users SET config = ?, description = ?, config_version = config_version + 1 WHERE id = ? RETURNING config_version',
  ).get(config, description, id);
  if (!row) throw new Error(`setUserConfig: no user ${id}`);
  return row.config_version;
}

export function setUserInbox(db: Db, id: string, inboxId: string): void {
  sql(db, 'UPDATE users SET inbox_id = ? WHERE id = ?').run(inboxId, id);
}

export function setUserAllowedFrom(db: Db, id: string, allowedFrom: string): void {
  const r = sql(db, 'UPDATE users SET allowed_from = ? WHERE id = ?').run(allowedFrom, id);
  if (r.changes !== 1) throw new Error(`setUserAllowedFrom: no user ${id}`);
}
