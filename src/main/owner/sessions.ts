// Owner sessions: a one-time login link (as Jupyter does) turns into an HttpOnly, SameSite=Strict cookie.
import crypto from 'node:crypto';
import type { Hub } from '../hub/hub';
import { deleteExpiredOwnerTokens, deleteOwnerToken, insertOwnerToken, ownerToken } from '../store/sessions';
import { tx } from '../store/db';

const LOGIN_TTL_MS = 24 * 60 * 60 * 1000;
const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

const hash = (t: string) => crypto.createHash('sha256').update(t).digest();

export function createLoginToken(hub: Hub): string {
  const token = crypto.randomBytes(24).toString('base64url');
  const now = hub.now();
  tx(hub.db, () => {
    deleteExpiredOwnerTokens(hub.db, now);
    insertOwnerToken(hub.db, hash(token), 'login', now, now + LOGIN_TTL_MS);
  });
  return token;
}

/** Spends a login token (once) and returns a new session token, or undefined. */
export function exchangeLoginToken(hub: Hub, token: string): string | undefined {
  const h = hash(token);
  return tx(hub.db, () => {
    const row = ownerToken(hub.db, h);
    if (!row || row.kind !== 'login' || row.expires_at < hub.now()) return undefined;
    deleteOwnerToken(hub.db, h);
    const session = crypto.randomBytes(32).toString('base64url');
    insertOwnerToken(hub.db, hash(session), 'session', hub.now(), hub.now() + SESSION_TTL_MS);
    return session;
  });
}

export function isValidSession(hub: Hub, token: string): boolean {
  const row = ownerToken(hub.db, hash(token));
  return !!row && row.kind === 'session' && row.expires_at >= hub.now();
}

export function endSession(hub: Hub, token: string): void {
  tx(hub.db, () => deleteOwnerToken(hub.db, hash(token)));
}
