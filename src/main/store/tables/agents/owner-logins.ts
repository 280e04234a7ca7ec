// Owner logins: the one-time login links and the session tokens they are exchanged for (table owner_sessions).
import { sql, tx, type Db } from '../../db/db';

/** How long a login link works. */
export const LOGIN_TTL_MS = 24 * 60 * 60 * 1000;

export function insertOwnerToken(db: Db, hash: Buffer, kind: 'login' | 'session', at: number, expiresAt: number): void {
  sql(db, 'INSERT INTO owner_sessions (token_hash, kind, created_at, expires_at) VALUES (?, ?, ?, ?)').run(hash, kind, at, expiresAt);
}

export function ownerToken(db: Db, hash: Buffer): { kind: 'login' | 'session'; expires_at: number } | undefined {
  return sql<{ kind: 'login' | 'session'; expires_at: number }>(db, 'SELECT kind, expires_at FROM owner_sessions WHERE token_hash = ?').get(
    hash,
  );
}

export function deleteOwnerToken(db: Db, hash: Buffer): boolean {
  return sql(db, 'DELETE FROM owner_sessions WHERE token_hash = ?').run(hash).changes === 1;
}

export function deleteExpiredOwnerTokens(db: Db, now: number): void {
  sql(db, 'DELETE FROM owner_sessions WHERE expires_at < ?').run(now);
}

/** Stores a new login link's token (its hash) for LOGIN_TTL_MS, and drops the tokens that expired. */
export function saveLoginToken(db: Db, hash: Buffer, now: number): void {
  tx(db, () => {
    deleteExpiredOwnerTokens(db, now);
    insertOwnerToken(db, hash, 'login', now, now + LOGIN_TTL_MS);
  });
}
