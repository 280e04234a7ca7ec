// Extra keys of an agent, each with scopes and an optional expiry (hub/identity/agent-keys.ts).
import { sql, type Db } from '../../db/db';
import type { CursorRow } from '../talk/events';

export interface AgentKeyRow {
  id: string;
  user_id: string;
  name: string;
  key_hash: Buffer;
  key_hint: string;
  /** JSON array of scope names. */
  scopes: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  /** Where the key may connect from: a JSON array (hub/identity/places.ts); default ["local"]. */
  allowed_from?: string;
}

export function insertAgentKey(db: Db, k: Omit<AgentKeyRow, 'revoked_at'>): void {
  sql(
    db,
    `INSERT INTO agent_keys (id, user_id, name, key_hash, key_hint, scopes, created_at, expires_at, allowed_from)
           VALUES (@id, @user_id, @name, @key_hash, @key_hint, @scopes, @created_at, @expires_at, @allowed_from)`,
  ).run({ allowed_from: '["local"]', ...k });
}

export function agentKeyByHash(db: Db, hash: Buffer): AgentKeyRow | undefined {
  return sql<AgentKeyRow>(db, 'SELECT * FROM agent_keys WHERE key_hash = ?').get(hash);
}

export function agentKeyById(db: Db, id: string): AgentKeyRow | undefined {
  return sql<AgentKeyRow>(db, 'SELECT * FROM agent_keys WHERE id = ?').get(id);
}

export function agentKeysOf(db: Db, userId: string): AgentKeyRow[] {
  return sql<AgentKeyRow>(db, 'SELECT * FROM agent_keys WHERE user_id = ? ORDER BY created_at, id').all(userId);
}

export function setAgentKeyAllowedFrom(db: Db, id: string, allowedFrom: string): boolean {
  return sql(db, 'UPDATE agent_keys SET allowed_from = ? WHERE id = ?').run(allowedFrom, id).changes === 1;
}

export function revokeAgentKey(db: Db, id: string, at: number): boolean {
  return sql(db, 'UPDATE agent_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id).changes === 1;
}

// ---- a scoped key's own delivery position ----------------------------------------------------

/** The key's confirmed position in get_updates (instance '' = unnamed), or undefined before its first read. */
export function keyCursor(db: Db, keyId: string, instance: string): Omit<CursorRow, 'user_id'> | undefined {
  return sql<Omit<CursorRow, 'user_id'>>(db, 'SELECT confirmed_gid, last_upto FROM key_cursors WHERE key_id = ? AND instance = ?').get(
    keyId,
    instance,
  );
}

export function saveKeyCursor(db: Db, keyId: string, instance: string, c: Omit<CursorRow, 'user_id'>): void {
  sql(
    db,
    `INSERT INTO key_cursors (key_id, instance, confirmed_gid, last_upto) VALUES (?, ?, ?, ?)
           ON CONFLICT (key_id, instance) DO UPDATE SET confirmed_gid = excluded.confirmed_gid, last_upto = excluded.last_upto`,
  ).run(keyId, instance, c.confirmed_gid, c.last_upto);
}

export function dropKeyCursors(db: Db, keyId: string): void {
  sql(db, 'DELETE FROM key_cursors WHERE key_id = ?').run(keyId);
}
