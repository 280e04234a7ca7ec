// Owner logins (the owner's login link and the session token it is exchanged for), as hub services the owner door (owner/http.ts) calls.
// A one-time login link (as Jupyter does) is exchanged by the UI page for a session token that the
// page keeps in its own web storage (per origin, port included) and sends as a bearer header. No cookie: browsers
// send cookies to every port of 127.0.0.1, so a cookie credential would reach any local web server.
import crypto from 'node:crypto';
import type { IdentityHub } from './services';
import { deleteOwnerToken, insertOwnerToken, ownerToken, saveLoginToken } from '../../store/tables/agents/owner-logins';
import { tx } from '../../store/db/db';

export const OWNER_LOGIN_TTL_MS = 30 * 24 * 60 * 60 * 1000;

// perch serve's ready line hashes the login token it prints with shared/sha256.ts (the same SHA-256, without node:crypto).
const hash = (t: string) => crypto.createHash('sha256').update(t).digest();
// Session tokens are hashed with their own label, so a session made for the old cookie (whose value browsers may
// have sent to other local ports) never matches a session of this scheme.
const sessionHash = (t: string) => hash(`perch-owner-session-v2:${t}`);

export function createLoginToken(hub: IdentityHub): string {
  const token = crypto.randomBytes(24).toString('base64url');
  saveLoginToken(hub.db, hash(token), hub.now());
  return token;
}

/** Spends a login token (once) and returns a new session token with its expiry, or undefined. */
export function exchangeLoginToken(hub: IdentityHub, token: string): { session: string; expires_at: number } | undefined {
  const h = hash(token);
  return tx(hub.db, () => {
    const row = ownerToken(hub.db, h);
    if (!row || row.kind !== 'login' || row.expires_at < hub.now()) return undefined;
    deleteOwnerToken(hub.db, h);
    const session = crypto.randomBytes(32).toString('base64url');
    const expires_at = hub.now() + OWNER_LOGIN_TTL_MS;
    insertOwnerToken(hub.db, sessionHash(session), 'session', hub.now(), expires_at);
    return { session, expires_at };
  });
}

export function isValidOwnerLogin(hub: IdentityHub, token: string): boolean {
  const row = ownerToken(hub.db, sessionHash(token));
  return !!row && row.kind === 'session' && row.expires_at >= hub.now();
}

/** Ends a session; true when there was one. */
export function endOwnerLogin(hub: IdentityHub, token: string): boolean {
  return tx(hub.db, () => deleteOwnerToken(hub.db, sessionHash(token)));
}
